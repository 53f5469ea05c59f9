// ArgMax / ArgMin along one axis (the `dimension` input). As TensorFlow's CPU
// kernels (Eigen's arg reducers) do, the search starts from the type's lowest
// (for ArgMin, highest) value at index 0 and moves only to a strictly greater
// (smaller) element: ties go to the lowest index, and a NaN is never chosen
// (a row of NaNs gives 0); conformance cases ArgMax/tf/nan, ArgMin/tf/nan.
// The output dtype is `output_type` (int64 by default, TensorFlow's default).
#include <cmath>
#include <limits>

#include "ops/math/math_ops.h"
#include "ops/math/math_util.h"

namespace tfhost::ops::math {
namespace {

template <bool kMax, typename T, typename Index>
void ArgLoop(const T* in, int64_t outer, int64_t axis_n, int64_t inner, Index* out) {
  const T start = kMax ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
  for (int64_t o = 0; o < outer; ++o) {
    const T* block = in + o * axis_n * inner;
    for (int64_t i = 0; i < inner; ++i) {
      int64_t best = 0;
      T best_value = start;
      for (int64_t k = 0; k < axis_n; ++k) {
        const T v = block[k * inner + i];
        // A NaN compares false both ways, so it is never taken.
        if (kMax ? v > best_value : v < best_value) {
          best = k;
          best_value = v;
        }
      }
      out[o * inner + i] = static_cast<Index>(best);
    }
  }
}

template <bool kMax>
Status ArgKernel(KernelContext& ctx) {
  Tensor x = ctx.input(0);
  const DType dtype = x.dtype();
  TFHOST_ASSIGN_OR_RETURN(DType out_type, ctx.AttrOr<DType>("output_type", DType::kInt64));
  if (out_type != DType::kInt64 && out_type != DType::kInt32 && out_type != DType::kInt16 &&
      out_type != DType::kUInt16) {
    return ctx.Error("output_type must be int16, uint16, int32 or int64, got " + DTypeShortName(out_type));
  }
  TFHOST_ASSIGN_OR_RETURN(int axis, ReadScalarAxis(ctx, ctx.input(1), x.rank(), "dimension"));
  const int64_t axis_n = x.dim(axis);
  int64_t outer = 1, inner = 1;
  std::vector<int64_t> out_dims;
  for (int d = 0; d < x.rank(); ++d) {
    if (d < axis) outer *= x.dim(d);
    if (d > axis) inner *= x.dim(d);
    if (d != axis) out_dims.push_back(x.dim(d));
  }
  Tensor out(out_type, Shape(out_dims));
  if (axis_n == 0 && out.NumElements() > 0) {
    return ctx.Error("cannot take " + ctx.node().op + " over empty dimension " + std::to_string(axis) +
                     " of shape " + x.shape().ToString());
  }
  // No outputs (an empty dim outside the axis): nothing to search, however
  // many rows a huge dim before it names (2^40 empty rows were a hang).
  if (out.NumElements() == 0) {
    ctx.set_output(0, std::move(out));
    return OkStatus();
  }
  if (IsHalfLike(dtype)) x = HalfLikeToFloat(x);
  TFHOST_RETURN_IF_ERROR(VisitDType(
      x.dtype(),
      [&](auto tag) -> Status {
        using T = typename decltype(tag)::type;
        if constexpr (kIsReal<T>) {
          const T* in = x.data<T>();
          switch (out_type) {
            case DType::kInt64: ArgLoop<kMax>(in, outer, axis_n, inner, out.data<int64_t>()); break;
            case DType::kInt32: ArgLoop<kMax>(in, outer, axis_n, inner, out.data<int32_t>()); break;
            case DType::kInt16: ArgLoop<kMax>(in, outer, axis_n, inner, out.data<int16_t>()); break;
            default: ArgLoop<kMax>(in, outer, axis_n, inner, out.data<uint16_t>()); break;
          }
          return OkStatus();
        } else {
          return UnsupportedDType(ctx, dtype);
        }
      },
      [&] { return UnsupportedDType(ctx, dtype); }));
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterArgMinMaxOps(OpRegistry& registry) {
  for (const char* name : {"ArgMax", "ArgMin"}) {
    registry.Register(ir::OpDefBuilder(name)
                          .Input("input: T")
                          .Input("dimension: Tidx")
                          .Output("output: output_type")
                          .Attr(std::string("T: ") + kRealTypes)
                          .Attr("Tidx: {int32, int64} = DT_INT32")
                          .Attr("output_type: {int16, uint16, int32, int64} = DT_INT64"),
                      std::string(name) == "ArgMax" ? KernelFn(ArgKernel<true>) : KernelFn(ArgKernel<false>));
  }
}

}  // namespace tfhost::ops::math
