// Ops that make new tensors from a few scalars: Fill, Range, ZerosLike,
// OnesLike, LinSpace (start + i * (stop - start) / (num - 1) in T, the last
// value exactly stop, as TensorFlow) and Empty (zeros: tfhost always
// initializes). Output sizes come from untrusted values, so every size is checked
// before anything is allocated.
#include <cmath>

#include "ops/array/array_util.h"

namespace tfhost::ops::array {

namespace {

Status FillKernel(KernelContext& ctx) {
  const Tensor& value = ctx.input(1);
  TFHOST_RETURN_IF_ERROR(CheckMovable(ctx, value.dtype()));
  if (ctx.input(0).rank() != 1) {
    return ctx.Error("dims must be 1-D, got shape " + ctx.input(0).shape().ToString());
  }
  if (value.rank() != 0) {
    return ctx.Error("value must be a scalar, got shape " + value.shape().ToString());
  }
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ReadIndexVector(ctx, 0, "dims"));
  TFHOST_ASSIGN_OR_RETURN(Shape shape, OutputShape(ctx, dims, "dims"));
  Tensor out(value.dtype(), shape);
  FillWithScalar(out, value);
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

// Range's three scalars as double (floats) and the number of elements.
Status CheckRangeScalars(const KernelContext& ctx) {
  const char* names[3] = {"start", "limit", "delta"};
  for (int i = 0; i < 3; ++i) {
    const Tensor& t = ctx.input(i);
    if (t.rank() > 1 || t.NumElements() != 1) {
      return ctx.Error(std::string(names[i]) + " must be a scalar, got shape " +
                       t.shape().ToString());
    }
    if (t.dtype() != ctx.input(0).dtype()) {
      return ctx.Error("start, limit and delta must have one dtype, got " +
                       DTypeShortName(ctx.input(0).dtype()) + " and " + DTypeShortName(t.dtype()));
    }
  }
  return OkStatus();
}

Status RangeOrderError(const KernelContext& ctx, const std::string& start,
                       const std::string& limit, const std::string& delta) {
  return ctx.Error("range start " + start + ", limit " + limit + ", delta " + delta +
                   ": delta must be non-zero and point from start towards limit");
}

template <typename T>
Status RangeInteger(KernelContext& ctx) {
  const __int128 start = ctx.input(0).data<T>()[0];
  const __int128 limit = ctx.input(1).data<T>()[0];
  const __int128 delta = ctx.input(2).data<T>()[0];
  if (delta == 0 || (delta > 0 && start > limit) || (delta < 0 && start < limit)) {
    return RangeOrderError(ctx, std::to_string(static_cast<int64_t>(start)),
                           std::to_string(static_cast<int64_t>(limit)),
                           std::to_string(static_cast<int64_t>(delta)));
  }
  const __int128 span = limit > start ? limit - start : start - limit;
  const __int128 step = delta > 0 ? delta : -delta;
  const __int128 size = (span + step - 1) / step;
  TFHOST_ASSIGN_OR_RETURN(Shape shape, OutputShape(ctx, {static_cast<int64_t>(size)}, "range"));
  Tensor out(DTypeOf<T>::value, shape);
  T* o = out.data<T>();
  for (int64_t i = 0; i < shape.dim(0); ++i) o[i] = static_cast<T>(start + delta * i);
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

// Floating types accumulate `value += delta` in the output type, as
// TensorFlow's kernel does, so rounding matches element for element.
// `to_float` / `from_float` convert the storage type (identity for
// float/double, bit patterns for half/bfloat16).
template <typename S, typename ToF, typename FromF>
Status RangeFloating(KernelContext& ctx, ToF to_float, FromF from_float) {
  const double start = to_float(ctx.input(0).data<S>()[0]);
  const double limit = to_float(ctx.input(1).data<S>()[0]);
  const double delta = to_float(ctx.input(2).data<S>()[0]);
  if (!std::isfinite(start) || !std::isfinite(limit) || !std::isfinite(delta) || delta == 0 ||
      (delta > 0 && start > limit) || (delta < 0 && start < limit)) {
    return RangeOrderError(ctx, std::to_string(start), std::to_string(limit),
                           std::to_string(delta));
  }
  const double size = std::ceil(std::abs((limit - start) / delta));
  if (!(size < 9.0e15)) return ctx.Error("range has too many elements (" + std::to_string(size) + ")");
  TFHOST_ASSIGN_OR_RETURN(Shape shape, OutputShape(ctx, {static_cast<int64_t>(size)}, "range"));
  Tensor out(ctx.input(0).dtype(), shape);
  S* o = out.data<S>();
  S value = ctx.input(0).data<S>()[0];
  const S step = ctx.input(2).data<S>()[0];
  for (int64_t i = 0; i < shape.dim(0); ++i) {
    o[i] = value;
    value = from_float(to_float(value) + to_float(step));
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status RangeKernel(KernelContext& ctx) {
  TFHOST_RETURN_IF_ERROR(CheckRangeScalars(ctx));
  auto same_f = [](float v) { return v; };
  auto same_d = [](double v) { return v; };
  switch (ctx.input(0).dtype()) {
    case DType::kInt8: return RangeInteger<int8_t>(ctx);
    case DType::kInt16: return RangeInteger<int16_t>(ctx);
    case DType::kInt32: return RangeInteger<int32_t>(ctx);
    case DType::kInt64: return RangeInteger<int64_t>(ctx);
    case DType::kUInt16: return RangeInteger<uint16_t>(ctx);
    case DType::kUInt32: return RangeInteger<uint32_t>(ctx);
    case DType::kFloat:
      return RangeFloating<float>(ctx, same_f, [](float v) { return v; });
    case DType::kDouble:
      return RangeFloating<double>(ctx, same_d, [](double v) { return v; });
    case DType::kHalf:
      return RangeFloating<uint16_t>(ctx, [](uint16_t b) { return HalfToFloat(b); },
                                     [](float v) { return FloatToHalf(v); });
    case DType::kBFloat16:
      return RangeFloating<uint16_t>(ctx, [](uint16_t b) { return BFloat16ToFloat(b); },
                                     [](float v) { return FloatToBFloat16(v); });
    default:
      return ctx.Error("Range does not support dtype " + DTypeShortName(ctx.input(0).dtype()));
  }
}

Status ZerosLikeKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  TFHOST_RETURN_IF_ERROR(CheckMovable(ctx, x.dtype()));
  ctx.set_output(0, Tensor(x.dtype(), x.shape()));  // zero-filled on allocation
  return OkStatus();
}

Status OnesLikeKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  Tensor one(x.dtype(), Shape());
  switch (x.dtype()) {
    case DType::kHalf: *one.data<uint16_t>() = FloatToHalf(1.0f); break;
    case DType::kBFloat16: *one.data<uint16_t>() = FloatToBFloat16(1.0f); break;
    case DType::kComplex64: one.data<float>()[0] = 1.0f; break;
    case DType::kComplex128: one.data<double>()[0] = 1.0; break;
    default: {
      bool ok = true;
      TFHOST_SWITCH_REAL_TYPES(x.dtype(), *one.data<T>() = static_cast<T>(1), ok = false);
      if (!ok) return ctx.Error("OnesLike does not support dtype " + DTypeShortName(x.dtype()));
    }
  }
  Tensor out(x.dtype(), x.shape());
  FillWithScalar(out, one);
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

template <typename T>
void LinSpaceFill(T start, T stop, int64_t num, T* out) {
  if (num == 1) {
    out[0] = start;
    return;
  }
  const T step = static_cast<T>((stop - start) / static_cast<T>(num - 1));
  for (int64_t i = 0; i < num - 1; ++i) out[i] = static_cast<T>(start + step * static_cast<T>(i));
  out[num - 1] = stop;
}

Status LinSpaceKernel(KernelContext& ctx) {
  const Tensor& start = ctx.input(0);
  const Tensor& stop = ctx.input(1);
  if (start.NumElements() != 1 || stop.NumElements() != 1) return ctx.Error("start and stop must be scalars");
  TFHOST_ASSIGN_OR_RETURN(int64_t num, ReadIndexScalar(ctx, 2, "num"));
  if (num <= 0) return ctx.Error("Requires num > 0: " + std::to_string(num));
  TFHOST_ASSIGN_OR_RETURN(Shape shape, OutputShape(ctx, {num}, "linspace"));
  Tensor out(start.dtype(), shape);
  switch (start.dtype()) {
    case DType::kFloat: LinSpaceFill<float>(start.data<float>()[0], stop.data<float>()[0], num, out.data<float>()); break;
    case DType::kDouble: LinSpaceFill<double>(start.data<double>()[0], stop.data<double>()[0], num, out.data<double>()); break;
    case DType::kHalf:
    case DType::kBFloat16: {
      const bool bf = start.dtype() == DType::kBFloat16;
      auto to_f = [&](uint16_t b) { return bf ? BFloat16ToFloat(b) : HalfToFloat(b); };
      std::vector<float> tmp(num);
      LinSpaceFill<float>(to_f(start.data<uint16_t>()[0]), to_f(stop.data<uint16_t>()[0]), num, tmp.data());
      for (int64_t i = 0; i < num; ++i) out.data<uint16_t>()[i] = bf ? FloatToBFloat16(tmp[i]) : FloatToHalf(tmp[i]);
      break;
    }
    default: return ctx.Error("LinSpace does not support " + DTypeShortName(start.dtype()));
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status EmptyKernel(KernelContext& ctx) {
  if (ctx.input(0).rank() != 1) return ctx.Error("shape must be a vector, got " + ctx.input(0).shape().ToString());
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ReadIndexVector(ctx, 0, "shape"));
  TFHOST_ASSIGN_OR_RETURN(DType dtype, ctx.Attr<DType>("dtype"));
  TFHOST_ASSIGN_OR_RETURN(Shape shape, OutputShape(ctx, dims, "shape"));
  TFHOST_RETURN_IF_ERROR(CheckMovable(ctx, dtype));
  ctx.set_output(0, Tensor(dtype, shape));
  return OkStatus();
}

}  // namespace

void RegisterFillRangeOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("Fill")
                        .Input("dims: index_type").Input("value: T").Output("output: T")
                        .Attr("T: type").Attr("index_type: {int32, int64} = DT_INT32"),
                    FillKernel);
  registry.Register(ir::OpDefBuilder("Range")
                        .Input("start: Tidx").Input("limit: Tidx").Input("delta: Tidx")
                        .Output("output: Tidx")
                        .Attr("Tidx: {bfloat16, half, float, double, int8, int16, int32, int64, "
                              "uint16, uint32} = DT_INT32"),
                    RangeKernel);
  registry.Register(ir::OpDefBuilder("ZerosLike").Input("x: T").Output("y: T").Attr("T: type"),
                    ZerosLikeKernel);
  registry.Register(ir::OpDefBuilder("OnesLike")
                        .Input("x: T").Output("y: T")
                        .Attr("T: {bfloat16, half, float, double, int8, uint8, int16, uint16, "
                              "int32, uint32, int64, uint64, complex64, complex128, bool}"),
                    OnesLikeKernel);
  registry.Register(ir::OpDefBuilder("LinSpace")
                        .Input("start: T").Input("stop: T").Input("num: Tidx").Output("output: T")
                        .Attr("T: {bfloat16, half, float, double}").Attr("Tidx: {int32, int64} = DT_INT32"),
                    LinSpaceKernel);
  registry.Register(ir::OpDefBuilder("Empty")
                        .Input("shape: int32").Output("output: dtype").Attr("dtype: type")
                        .Attr("init: bool = false").SetIsStateful(),
                    EmptyKernel);
}

}  // namespace tfhost::ops::array
