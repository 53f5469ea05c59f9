// Reductions over a set of axes: Sum, Mean, Prod, Max, Min (numbers), Any, All
// (bool), EuclideanNorm (floats). `reduction_indices` is an int32/int64 scalar
// or 1-D tensor; negative axes count from the end, duplicates are an error, and
// no axes at all returns the input unchanged (EuclideanNorm: its absolute
// value). keep_dims keeps reduced axes with size 1.
//
// Floats accumulate in double (the reference is the precision oracle);
// integers accumulate in their own type and wrap, as TensorFlow does, except
// that an integer Mean of a type narrower than 64 bits sums in 64 bits, as
// TensorFlow's does (conformance case Mean/tf/uint16_edges); an integer Mean
// divides with truncation. Empty reductions give the identity
// (0 for Sum, 1 for Prod, -inf/lowest for Max, +inf/max for Min, NaN for a
// float Mean, 0 for an integer Mean). Max/Min propagate NaN.
//
// How: the output seen with keep_dims is broadcast back over the input shape,
// so one row-major walk of the input hands each element its output slot.
#include <cmath>
#include <limits>

#include "ops/math/broadcast.h"
#include "ops/math/math_ops.h"
#include "ops/math/math_util.h"

namespace tfhost::ops::math {
namespace {

enum class Reduce { kSum, kMean, kProd, kMax, kMin, kAny, kAll, kEuclideanNorm };

template <Reduce R, typename T>
constexpr bool Supports() {
  if constexpr (R == Reduce::kAny || R == Reduce::kAll) return kIsBool<T>;
  else if constexpr (R == Reduce::kEuclideanNorm) return kIsFloat<T>;
  else return kIsReal<T>;
}

// Accumulates input elements of type T into `out` (element type T), walking
// the input once; `bc` maps input elements to output slots; `count` is the
// number of input elements per output element.
template <Reduce R, typename T>
void ReduceLoop(const Tensor& x, const Broadcaster& bc, Tensor& out, int64_t count) {
  using Wide = std::conditional_t<std::is_signed_v<T>, int64_t, uint64_t>;
  using IntAcc = std::conditional_t<R == Reduce::kMean && kIsInt<T>, Wide, T>;
  using Acc = std::conditional_t<kIsFloat<T>, double, std::conditional_t<kIsBool<T>, uint8_t, IntAcc>>;
  const int64_t out_n = out.NumElements();
  Acc init{};
  if constexpr (R == Reduce::kProd || R == Reduce::kAll) {
    init = Acc(1);
  } else if constexpr (R == Reduce::kMax) {
    init = kIsFloat<T> ? -std::numeric_limits<Acc>::infinity() : std::numeric_limits<Acc>::lowest();
  } else if constexpr (R == Reduce::kMin) {
    init = kIsFloat<T> ? std::numeric_limits<Acc>::infinity() : std::numeric_limits<Acc>::max();
  }
  std::vector<Acc> acc(out_n, init);
  const T* in = x.data<T>();
  bc.ForEach(0, bc.num_elements(), [&](int64_t i, const int64_t* off) {
    Acc& a = acc[off[0]];
    const Acc v = static_cast<Acc>(in[i]);
    if constexpr (R == Reduce::kSum || R == Reduce::kMean) {
      a = WrapAdd(a, v);
    } else if constexpr (R == Reduce::kEuclideanNorm) {
      a += v * v;
    } else if constexpr (R == Reduce::kProd) {
      a = WrapMul(a, v);
    } else if constexpr (R == Reduce::kMax) {
      if constexpr (kIsFloat<T>) {
        if (std::isnan(v) || std::isnan(a)) { a = std::numeric_limits<Acc>::quiet_NaN(); return; }
      }
      if (v > a) a = v;
    } else if constexpr (R == Reduce::kMin) {
      if constexpr (kIsFloat<T>) {
        if (std::isnan(v) || std::isnan(a)) { a = std::numeric_limits<Acc>::quiet_NaN(); return; }
      }
      if (v < a) a = v;
    } else if constexpr (R == Reduce::kAny) {
      a = a || v;
    } else {
      a = a && v;
    }
  });
  T* o = out.data<T>();
  for (int64_t i = 0; i < out_n; ++i) {
    if constexpr (R == Reduce::kMean) {
      if constexpr (kIsFloat<T>) {
        o[i] = static_cast<T>(acc[i] / static_cast<double>(count));
      } else {
        o[i] = count == 0 ? T(0) : static_cast<T>(static_cast<Wide>(acc[i]) / static_cast<Wide>(count));
      }
    } else if constexpr (R == Reduce::kEuclideanNorm) {
      o[i] = static_cast<T>(std::sqrt(acc[i]));
    } else {
      o[i] = static_cast<T>(acc[i]);
    }
  }
}

template <Reduce R>
Status ReduceKernel(KernelContext& ctx) {
  Tensor x = ctx.input(0);
  const DType dtype = x.dtype();
  TFHOST_ASSIGN_OR_RETURN(bool keep_dims, ctx.AttrOr<bool>("keep_dims", false));
  TFHOST_ASSIGN_OR_RETURN(std::vector<int> axes,
                          ReadAxes(ctx, ctx.input(1), x.rank(), "reduction_indices"));
  std::vector<bool> reduced(x.rank(), false);
  for (int a : axes) reduced[a] = true;
  std::vector<int64_t> keep_dims_shape, out_dims;
  int64_t count = 1;
  for (int d = 0; d < x.rank(); ++d) {
    if (reduced[d]) {
      count *= x.dim(d);
      keep_dims_shape.push_back(1);
      if (keep_dims) out_dims.push_back(1);
    } else {
      keep_dims_shape.push_back(x.dim(d));
      out_dims.push_back(x.dim(d));
    }
  }
  const bool half_like = IsHalfLike(dtype);
  Status type_check = VisitDType(
      half_like ? DType::kFloat : dtype,
      [&](auto tag) -> Status {
        using T = typename decltype(tag)::type;
        if constexpr (Supports<R, T>()) return OkStatus();
        else return UnsupportedDType(ctx, dtype);
      },
      [&] { return UnsupportedDType(ctx, dtype); });
  TFHOST_RETURN_IF_ERROR(type_check);
  // Nothing to reduce: the input itself, except that EuclideanNorm still
  // takes each element's norm, |x| (conformance case
  // EuclideanNorm/tf/none_keep_False).
  if (axes.empty() && R != Reduce::kEuclideanNorm) {
    ctx.set_output(0, x);
    return OkStatus();
  }
  if (half_like) x = HalfLikeToFloat(x);
  const Shape keep_shape(keep_dims_shape);
  TFHOST_ASSIGN_OR_RETURN(Broadcaster bc, Broadcaster::MakeTo({keep_shape}, x.shape()));
  Tensor out(x.dtype(), Shape(out_dims));
  TFHOST_RETURN_IF_ERROR(VisitDType(
      x.dtype(),
      [&](auto tag) -> Status {
        using T = typename decltype(tag)::type;
        if constexpr (Supports<R, T>()) ReduceLoop<R, T>(x, bc, out, count);
        return OkStatus();
      },
      [] { return OkStatus(); }));
  if (half_like) out = FloatToHalfLike(out, dtype);
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

void RegisterReduction(OpRegistry& registry, const char* name, const std::string& input_type,
                       const char* type_attr, KernelFn fn) {
  ir::OpDefBuilder b(name);
  b.Input("input: " + input_type)
      .Input("reduction_indices: Tidx")
      .Output("output: " + input_type)
      .Attr("keep_dims: bool = false");
  if (type_attr != nullptr) b.Attr(std::string("T: ") + type_attr);
  b.Attr("Tidx: {int32, int64} = DT_INT32");
  registry.Register(b, std::move(fn));
}

}  // namespace

void RegisterReductionOps(OpRegistry& registry) {
  RegisterReduction(registry, "Sum", "T", kRealTypes, ReduceKernel<Reduce::kSum>);
  RegisterReduction(registry, "Mean", "T", kRealTypes, ReduceKernel<Reduce::kMean>);
  RegisterReduction(registry, "Prod", "T", kRealTypes, ReduceKernel<Reduce::kProd>);
  RegisterReduction(registry, "Max", "T", kRealTypes, ReduceKernel<Reduce::kMax>);
  RegisterReduction(registry, "Min", "T", kRealTypes, ReduceKernel<Reduce::kMin>);
  RegisterReduction(registry, "EuclideanNorm", "T", kFloatTypes, ReduceKernel<Reduce::kEuclideanNorm>);
  RegisterReduction(registry, "Any", "bool", nullptr, ReduceKernel<Reduce::kAny>);
  RegisterReduction(registry, "All", "bool", nullptr, ReduceKernel<Reduce::kAll>);
}

}  // namespace tfhost::ops::math
