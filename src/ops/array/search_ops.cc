// Ops that locate values in sorted sequences: Bucketize (feature-column
// bucketing against a boundaries attr) and LowerBound / UpperBound
// (tf.searchsorted, row by row).
//
//   Bucketize: output = number of boundaries <= x (std::upper_bound), so
//     boundaries [0, 10] put -1 in 0, 0 in 1, 5 in 1, 10 in 2. TensorFlow
//     compares in float (boundaries are list(float)); so does this.
//   LowerBound/UpperBound: sorted_inputs [B, N], values [B, M] -> [B, M]
//     positions (first element >= / > the value). NaN sorts like
//     std::lower_bound with operator< does.
#include <algorithm>
#include <limits>

#include "ops/array/array_util.h"

namespace tfhost::ops::array {
namespace {

Status Bucketize(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(std::vector<float> boundaries, ctx.Attr<std::vector<float>>("boundaries"));
  if (!std::is_sorted(boundaries.begin(), boundaries.end())) {
    return ctx.Error("Expected sorted boundaries");
  }
  const Tensor& in = ctx.input(0);
  Tensor out(DType::kInt32, in.shape());
  bool ok = true;
  TFHOST_SWITCH_REAL_TYPES(in.dtype(), {
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      const float x = static_cast<float>(in.data<T>()[i]);
      out.data<int32_t>()[i] =
          static_cast<int32_t>(std::upper_bound(boundaries.begin(), boundaries.end(), x) - boundaries.begin());
    }
  }, ok = false);
  if (!ok || in.dtype() == DType::kBool) {
    return ctx.Error("input must be int32, int64, float or double, got " + DTypeShortName(in.dtype()));
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

// float16/bfloat16 as float32 (exact, so the order is the same).
Tensor WidenHalfLike(const Tensor& t) {
  if (t.dtype() != DType::kHalf && t.dtype() != DType::kBFloat16) return t;
  Tensor f(DType::kFloat, t.shape());
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    const uint16_t b = t.data<uint16_t>()[i];
    f.data<float>()[i] = t.dtype() == DType::kBFloat16 ? BFloat16ToFloat(b) : HalfToFloat(b);
  }
  return f;
}

template <bool kUpper>
Status Bound(KernelContext& ctx) {
  // Half-precision inputs search as float32 (conformance case
  // LowerBound/tf/float16_int32).
  const Tensor sorted = WidenHalfLike(ctx.input(0));
  const Tensor values = WidenHalfLike(ctx.input(1));
  TFHOST_ASSIGN_OR_RETURN(DType out_type, ctx.AttrOr<DType>("out_type", DType::kInt32));
  if (sorted.rank() != 2) return ctx.Error("sorted_inputs must be 2-D, got " + sorted.shape().ToString());
  if (values.rank() != 2) return ctx.Error("values must be 2-D, got " + values.shape().ToString());
  if (sorted.dim(0) != values.dim(0)) {
    return ctx.Error("Leading dim_size of both tensors must match: " + std::to_string(sorted.dim(0)) + " vs " +
                     std::to_string(values.dim(0)));
  }
  if (sorted.dtype() != values.dtype()) return ctx.Error("sorted_inputs and values must have the same dtype");
  if (out_type != DType::kInt32 && out_type != DType::kInt64) return ctx.Error("out_type must be int32 or int64");
  const int64_t batch = sorted.dim(0), n = sorted.dim(1), m = values.dim(1);
  if (out_type == DType::kInt32 && n > std::numeric_limits<int32_t>::max()) {
    return ctx.Error("sorted_inputs is too long for int32 output");
  }
  Tensor out(out_type, values.shape());
  // No values: nothing to search. (Looping over a leading dim of 2^40 rows
  // of zero values would take hours.)
  if (values.NumElements() == 0) {
    ctx.set_output(0, std::move(out));
    return OkStatus();
  }
  auto store = [&](int64_t i, int64_t pos) {
    if (out_type == DType::kInt32) out.data<int32_t>()[i] = static_cast<int32_t>(pos);
    else out.data<int64_t>()[i] = pos;
  };
  bool ok = true;
  TFHOST_SWITCH_REAL_TYPES(sorted.dtype(), {
    for (int64_t b = 0; b < batch; ++b) {
      const T* row = sorted.data<T>() + b * n;
      for (int64_t j = 0; j < m; ++j) {
        const T v = values.data<T>()[b * m + j];
        const T* p = kUpper ? std::upper_bound(row, row + n, v) : std::lower_bound(row, row + n, v);
        store(b * m + j, p - row);
      }
    }
  }, ok = false);
  if (!ok) return ctx.Error("unsupported dtype " + DTypeShortName(sorted.dtype()));
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterSearchOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("Bucketize")
                        .Input("input: T")
                        .Output("output: int32")
                        .Attr("T: {int32, int64, float, double}")
                        .Attr("boundaries: list(float)"),
                    Bucketize);
  for (const char* name : {"LowerBound", "UpperBound"}) {
    registry.Register(ir::OpDefBuilder(name)
                          .Input("sorted_inputs: T")
                          .Input("values: T")
                          .Output("output: out_type")
                          .Attr("T: type")
                          .Attr("out_type: {int32, int64} = DT_INT32"),
                      std::string(name) == "UpperBound" ? KernelFn(Bound<true>) : KernelFn(Bound<false>));
  }
}

}  // namespace tfhost::ops::array
