// DecodeRaw (tf.io.decode_raw): reinterprets each string's bytes as a vector
// of out_type, little-endian unless told otherwise — how TF1 serving input
// receivers and TFRecord pipelines turn raw image or feature bytes into
// tensors. Every string must have the same length, a multiple of the element
// size; the output is bytes.shape + [length / element size].
#include <algorithm>
#include <cstring>

#include "ops/array/array_util.h"
#include "ops/parsing/parse_example.h"

namespace tfhost::ops {
namespace {

Status DecodeRaw(KernelContext& ctx) {
  const Tensor& bytes = ctx.input(0);
  TFHOST_ASSIGN_OR_RETURN(DType out_type, ctx.Attr<DType>("out_type"));
  TFHOST_ASSIGN_OR_RETURN(bool little_endian, ctx.AttrOr<bool>("little_endian", true));
  const size_t size = DTypeSize(out_type);
  if (size == 0) return ctx.Error("out_type must be a fixed-size type");
  const int64_t n = bytes.NumElements();
  const size_t width = n == 0 ? 0 : bytes.strings()[0].size();
  for (int64_t i = 0; i < n; ++i) {
    if (bytes.strings()[i].size() != width) {
      return ctx.Error("DecodeRaw requires input strings to all be the same size, but element " + std::to_string(i) +
                       " has size " + std::to_string(bytes.strings()[i].size()) + " != " + std::to_string(width));
    }
  }
  if (width % size != 0) {
    return ctx.Error("Input to DecodeRaw has length " + std::to_string(width) + " that is not a multiple of " +
                     std::to_string(size) + ", the size of " + DTypeShortName(out_type));
  }
  std::vector<int64_t> dims = bytes.shape().dims();
  dims.push_back(static_cast<int64_t>(width / size));
  TFHOST_ASSIGN_OR_RETURN(Shape shape, array::OutputShape(ctx, dims, "output"));
  Tensor out(out_type, shape);
  char* dst = static_cast<char*>(out.raw_data());
  // complex types swap each part on its own.
  const size_t unit = (out_type == DType::kComplex64 || out_type == DType::kComplex128) ? size / 2 : size;
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(dst + i * width, bytes.strings()[i].data(), width);
    if (!little_endian && unit > 1) {
      for (size_t at = 0; at < width; at += unit) std::reverse(dst + i * width + at, dst + i * width + at + unit);
    }
  }
  // A bool is one byte that must hold 0 or 1: any nonzero byte reads as
  // true, as TensorFlow's bool tensors do (conformance case
  // DecodeRaw/tf/bool_little_True).
  if (out_type == DType::kBool) {
    unsigned char* b = static_cast<unsigned char*>(out.raw_data());
    for (int64_t k = 0; k < out.NumElements(); ++k) b[k] = b[k] != 0;
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterDecodeRawOp(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("DecodeRaw")
                        .Input("bytes: string")
                        .Output("output: out_type")
                        .Attr("out_type: {half, float, double, int32, uint16, uint8, int16, int8, int64, "
                              "complex64, complex128, bool, bfloat16}")
                        .Attr("little_endian: bool = true"),
                    DecodeRaw);
}

}  // namespace tfhost::ops
