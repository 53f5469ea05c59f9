// Bitcast: reinterprets a tensor's bytes as another fixed-size type, as
// tf.bitcast does. Same element size keeps the shape; a larger input type
// adds a last dim of in_size / out_size; a smaller one needs a last dim of
// out_size / in_size and drops it.
#include <cstring>

#include "ops/array/array_util.h"

namespace tfhost::ops::array {
namespace {

Status Bitcast(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  TFHOST_ASSIGN_OR_RETURN(DType out_type, ctx.Attr<DType>("type"));
  const size_t in_size = DTypeSize(input.dtype()), out_size = DTypeSize(out_type);
  if (in_size == 0 || out_size == 0) {
    return ctx.Error("Bitcast needs fixed-size types, got " + DTypeShortName(input.dtype()) + " -> " +
                     DTypeShortName(out_type));
  }
  std::vector<int64_t> dims = input.shape().dims();
  if (in_size > out_size) {
    dims.push_back(static_cast<int64_t>(in_size / out_size));
  } else if (in_size < out_size) {
    if (dims.empty() || dims.back() != static_cast<int64_t>(out_size / in_size)) {
      return ctx.Error("Cannot bitcast from " + DTypeShortName(input.dtype()) + " to " + DTypeShortName(out_type) +
                       ": shape " + input.shape().ToString() + " must end in " + std::to_string(out_size / in_size));
    }
    dims.pop_back();
  }
  TFHOST_ASSIGN_OR_RETURN(Shape shape, OutputShape(ctx, dims, "output"));
  Tensor out(out_type, shape);
  const size_t bytes = static_cast<size_t>(input.NumElements()) * in_size;
  if (bytes > 0) std::memcpy(out.raw_data(), input.raw_data(), bytes);
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterBitcastOp(OpRegistry& registry) {
  const char* types =
      "{bfloat16, half, float, double, int64, int32, uint8, uint16, uint32, uint64, int8, int16, complex64, "
      "complex128, qint8, quint8, qint16, quint16, qint32}";
  registry.Register(ir::OpDefBuilder("Bitcast")
                        .Input("input: T")
                        .Output("output: type")
                        .Attr(std::string("T: ") + types)
                        .Attr(std::string("type: ") + types),
                    Bitcast);
}

}  // namespace tfhost::ops::array
