#include "ops/math/cast_op.h"

#include <cmath>
#include <limits>

#include "ops/math/math_ops.h"
#include "ops/math/math_util.h"

namespace tfhost::ops::math {
namespace {

template <typename D, typename S>
D ConvertElement(S x) {
  if constexpr (kIsBool<D>) {
    return x != S(0);
  } else if constexpr (kIsFloat<S> && kIsInt<D>) {
    if (std::isnan(x)) return D(0);
    if (x <= static_cast<S>(std::numeric_limits<D>::lowest())) return std::numeric_limits<D>::lowest();
    if (x >= static_cast<S>(std::numeric_limits<D>::max())) return std::numeric_limits<D>::max();
    return static_cast<D>(x);  // truncates toward zero
  } else {
    return static_cast<D>(x);
  }
}

Status CastError(DType src, DType dst) {
  return Unimplemented("Cast from " + DTypeShortName(src) + " to " + DTypeShortName(dst) +
                       " is not supported");
}

// `input` has no half/bfloat16 and neither does `dst`.
StatusOr<Tensor> CastPlain(const Tensor& input, DType dst) {
  Tensor out;
  auto visit_src = [&](auto src_tag) -> Status {
    using S = typename decltype(src_tag)::type;
    if constexpr (kIsString<S>) {
      return CastError(input.dtype(), dst);
    } else {
      return VisitDType(
          dst,
          [&](auto dst_tag) -> Status {
            using D = typename decltype(dst_tag)::type;
            if constexpr (kIsString<D>) {
              return CastError(input.dtype(), dst);
            } else {
              out = Tensor(dst, input.shape());
              const S* in = input.data<S>();
              D* o = out.data<D>();
              for (int64_t i = 0, n = input.NumElements(); i < n; ++i) o[i] = ConvertElement<D>(in[i]);
              return OkStatus();
            }
          },
          [&] { return CastError(input.dtype(), dst); });
    }
  };
  TFHOST_RETURN_IF_ERROR(VisitDType(input.dtype(), visit_src, [&] { return CastError(input.dtype(), dst); }));
  return out;
}

Tensor FloatToBFloat16Truncated(const Tensor& t) {
  Tensor out(DType::kBFloat16, t.shape());
  const float* in = t.data<float>();
  uint16_t* o = out.data<uint16_t>();
  for (int64_t i = 0, n = t.NumElements(); i < n; ++i) {
    uint32_t u;
    std::memcpy(&u, &in[i], 4);
    o[i] = std::isnan(in[i]) ? FloatToBFloat16(in[i]) : static_cast<uint16_t>(u >> 16);
  }
  return out;
}

bool IsComplexType(DType d) { return d == DType::kComplex64 || d == DType::kComplex128; }

// Casts with a complex side. As TensorFlow's Cast: a number becomes (x, 0);
// a complex number becomes its real part, converted as a double would be
// (bool included: 0 + 1i is false); complex64 <-> complex128 converts both
// parts (conformance cases Cast/tf/*_to_complex*, Cast/tf/complex*_to_*).
StatusOr<Tensor> CastComplex(const Tensor& input, DType dst, bool truncate) {
  const int64_t n = input.NumElements();
  if (!IsComplexType(input.dtype())) {
    TFHOST_ASSIGN_OR_RETURN(Tensor re, CastTensor(input, DType::kDouble, truncate));
    Tensor out(dst, input.shape());
    for (int64_t i = 0; i < n; ++i) {
      const double v = re.data<double>()[i];
      if (dst == DType::kComplex64) {
        out.data<float>()[2 * i] = static_cast<float>(v);
        out.data<float>()[2 * i + 1] = 0;
      } else {
        out.data<double>()[2 * i] = v;
        out.data<double>()[2 * i + 1] = 0;
      }
    }
    return out;
  }
  auto part = [&](int64_t k) {  // k-th float of the interleaved (re, im) pairs
    return input.dtype() == DType::kComplex64 ? static_cast<double>(input.data<float>()[k]) : input.data<double>()[k];
  };
  if (IsComplexType(dst)) {
    Tensor out(dst, input.shape());
    for (int64_t k = 0; k < 2 * n; ++k) {
      if (dst == DType::kComplex64) out.data<float>()[k] = static_cast<float>(part(k));
      else out.data<double>()[k] = part(k);
    }
    return out;
  }
  // Through the real part's own type, so that complex64 -> int rounds as
  // float32 -> int does.
  const DType real_type = input.dtype() == DType::kComplex64 ? DType::kFloat : DType::kDouble;
  Tensor re(real_type, input.shape());
  for (int64_t i = 0; i < n; ++i) {
    if (real_type == DType::kFloat) re.data<float>()[i] = input.data<float>()[2 * i];
    else re.data<double>()[i] = input.data<double>()[2 * i];
  }
  return CastTensor(re, dst, truncate);
}

}  // namespace

StatusOr<Tensor> CastTensor(const Tensor& input, DType dst, bool truncate) {
  if (input.dtype() == dst) return input;
  if (IsComplexType(input.dtype()) || IsComplexType(dst)) return CastComplex(input, dst, truncate);
  if (IsHalfLike(input.dtype())) {
    Tensor f = HalfLikeToFloat(input);
    if (dst == DType::kFloat) return f;
    return CastTensor(f, dst, truncate);
  }
  if (IsHalfLike(dst)) {
    TFHOST_ASSIGN_OR_RETURN(Tensor f, CastPlain(input, DType::kFloat));
    if (dst == DType::kBFloat16 && truncate) return FloatToBFloat16Truncated(f);
    return FloatToHalfLike(f, dst);
  }
  return CastPlain(input, dst);
}

namespace {

Status CastKernel(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(DType dst, ctx.Attr<DType>("DstT"));
  TFHOST_ASSIGN_OR_RETURN(bool truncate, ctx.AttrOr<bool>("Truncate", false));
  const Tensor& x = ctx.input(0);
  auto src = ctx.AttrOr<DType>("SrcT", x.dtype());
  if (src.ok() && *src != x.dtype()) {
    return ctx.Error("input is " + DTypeShortName(x.dtype()) + " but SrcT is " + DTypeShortName(*src));
  }
  auto y = CastTensor(x, dst, truncate);
  if (!y.ok()) return Status(y.status().code(), ir::NodeContext(ctx.node()) + ": " + y.status().message());
  ctx.set_output(0, std::move(*y));
  return OkStatus();
}

}  // namespace

void RegisterCastOp(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("Cast")
                        .Input("x: SrcT")
                        .Output("y: DstT")
                        .Attr("SrcT: type")
                        .Attr("DstT: type")
                        .Attr("Truncate: bool = false"),
                    CastKernel);
}

}  // namespace tfhost::ops::math
