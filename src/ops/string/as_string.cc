// AsString and StringToNumber: number <-> text conversion.
//
// AsString builds a printf format the way TensorFlow does ("%" + fill flag +
// width + "." precision + conversion), so its output matches byte for byte:
// floats default to "%f" (six decimals), shortest = "%g", scientific = "%e".
// Only validated pieces ever enter the format string.
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstdlib>

#include "ops/string/string_ops.h"

namespace tfhost::ops {
namespace {

// Width and precision come from model attrs; bound them so a hostile model
// cannot make every element a gigabyte string.
constexpr int64_t kMaxWidthOrPrecision = 4096;

template <typename... Args>
std::string Format(const std::string& format, Args... args) {
  int n = std::snprintf(nullptr, 0, format.c_str(), args...);
  if (n <= 0) return std::string();
  std::string out(static_cast<size_t>(n) + 1, '\0');
  std::snprintf(out.data(), out.size(), format.c_str(), args...);
  out.resize(static_cast<size_t>(n));
  return out;
}

Status AsString(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  TFHOST_ASSIGN_OR_RETURN(int64_t precision, ctx.AttrOr<int64_t>("precision", -1));
  TFHOST_ASSIGN_OR_RETURN(bool scientific, ctx.AttrOr<bool>("scientific", false));
  TFHOST_ASSIGN_OR_RETURN(bool shortest, ctx.AttrOr<bool>("shortest", false));
  TFHOST_ASSIGN_OR_RETURN(int64_t width, ctx.AttrOr<int64_t>("width", -1));
  TFHOST_ASSIGN_OR_RETURN(std::string fill, ctx.AttrOr<std::string>("fill", ""));
  DType dt = in.dtype();
  bool is_float = dt == DType::kFloat || dt == DType::kDouble || dt == DType::kHalf ||
                  dt == DType::kBFloat16;

  std::string format = "%";
  if (fill.size() > 1) return ctx.Error("Fill string must be one or fewer characters, got '" + fill + "'");
  if (!fill.empty()) {
    char c = fill[0];
    if (c != ' ' && c != '+' && c != '-' && c != '0' && c != '#') {
      return ctx.Error("Fill argument not supported: \"" + fill + "\"");
    }
    format += c;
  }
  if (width > kMaxWidthOrPrecision || precision > kMaxWidthOrPrecision) {
    return ctx.Error("width and precision must be at most " + std::to_string(kMaxWidthOrPrecision));
  }
  if (width > -1) format += std::to_string(width);
  if (!is_float && (scientific || shortest || precision > -1)) {
    return ctx.Error("precision, scientific and shortest apply only to floating-point input, got " +
                     DTypeName(dt));
  }
  if (scientific && shortest) return ctx.Error("Cannot select both scientific and shortest notation");
  if (precision > -1) format += "." + std::to_string(precision);

  Tensor out(DType::kString, in.shape());
  std::string* o = out.strings();
  const int64_t n = in.NumElements();
  if (is_float) {
    format += shortest ? "g" : scientific ? "e" : "f";
    for (int64_t i = 0; i < n; ++i) {
      double v = dt == DType::kFloat    ? in.data<float>()[i]
                 : dt == DType::kDouble ? in.data<double>()[i]
                 : dt == DType::kHalf   ? HalfToFloat(in.data<uint16_t>()[i])
                                        : BFloat16ToFloat(in.data<uint16_t>()[i]);
      o[i] = Format(format, v);
    }
  } else if (dt == DType::kBool) {
    format += "s";
    for (int64_t i = 0; i < n; ++i) o[i] = Format(format, in.data<bool>()[i] ? "true" : "false");
  } else if (dt == DType::kString) {
    format += "s";
    for (int64_t i = 0; i < n; ++i) o[i] = Format(format, in.strings()[i].c_str());
  } else if (dt == DType::kUInt64 || dt == DType::kUInt32 || dt == DType::kUInt16 ||
             dt == DType::kUInt8) {
    format += "llu";
    for (int64_t i = 0; i < n; ++i) {
      unsigned long long v = dt == DType::kUInt64   ? in.data<uint64_t>()[i]
                             : dt == DType::kUInt32 ? in.data<uint32_t>()[i]
                             : dt == DType::kUInt16 ? in.data<uint16_t>()[i]
                                                    : in.data<uint8_t>()[i];
      o[i] = Format(format, v);
    }
  } else if (dt == DType::kInt64 || dt == DType::kInt32 || dt == DType::kInt16 ||
             dt == DType::kInt8) {
    format += "lld";
    for (int64_t i = 0; i < n; ++i) {
      long long v = dt == DType::kInt64   ? in.data<int64_t>()[i]
                    : dt == DType::kInt32 ? in.data<int32_t>()[i]
                    : dt == DType::kInt16 ? in.data<int16_t>()[i]
                                          : in.data<int8_t>()[i];
      o[i] = Format(format, v);
    }
  } else {
    return ctx.Error("unsupported input type " + DTypeName(dt));
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

// Decimal, hex ("0x10" is 16) and inf/nan text with optional surrounding
// whitespace, as TensorFlow's StringToNumber accepts (conformance case
// StringToNumber/tf/float32).
template <typename T>
bool ParseFloat(std::string_view text, T* out) {
  std::string s(Trim(text));
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  T v;
  if constexpr (std::is_same_v<T, float>) v = std::strtof(s.c_str(), &end);
  else v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return false;
  *out = v;  // out-of-range text saturates to +-inf or 0, as in TensorFlow
  return true;
}

template <typename T>
bool ParseInt(std::string_view text, T* out) {
  std::string_view s = Trim(text);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  if (s.empty()) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), *out, 10);
  return ec == std::errc() && ptr == s.data() + s.size();
}

Status StringToNumber(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  if (in.dtype() != DType::kString) return ctx.Error("string_tensor must be a string tensor");
  TFHOST_ASSIGN_OR_RETURN(DType out_type, ctx.AttrOr<DType>("out_type", DType::kFloat));
  Tensor out(out_type, in.shape());
  for (int64_t i = 0; i < in.NumElements(); ++i) {
    const std::string& s = in.strings()[i];
    bool ok = false;
    switch (out_type) {
      case DType::kFloat: ok = ParseFloat(s, &out.data<float>()[i]); break;
      case DType::kDouble: ok = ParseFloat(s, &out.data<double>()[i]); break;
      case DType::kInt32: ok = ParseInt(s, &out.data<int32_t>()[i]); break;
      case DType::kInt64: ok = ParseInt(s, &out.data<int64_t>()[i]); break;
      default: return ctx.Error("out_type must be float, double, int32 or int64, got " + DTypeName(out_type));
    }
    if (!ok) {
      return ctx.Error("StringToNumberOp could not correctly convert string: " + s + " (index " +
                       std::to_string(i) + ", as " + DTypeShortName(out_type) + ")");
    }
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterStringConversionOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("AsString")
                        .Input("input: T")
                        .Output("output: string")
                        .Attr("T: {half, bfloat16, float, double, int8, int16, int32, int64, uint8, "
                              "uint16, uint32, uint64, bool, string}")
                        .Attr("precision: int = -1")
                        .Attr("scientific: bool = false")
                        .Attr("shortest: bool = false")
                        .Attr("width: int = -1")
                        .Attr("fill: string = ''"),
                    AsString);
  registry.Register(ir::OpDefBuilder("StringToNumber")
                        .Input("string_tensor: string")
                        .Output("output: out_type")
                        .Attr("out_type: {float, double, int32, int64} = DT_FLOAT"),
                    StringToNumber);
}

}  // namespace tfhost::ops
