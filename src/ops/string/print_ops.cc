// Logging ops that tf.print / tf.Print leave in exported graphs: StringFormat
// (tensors rendered into a template), PrintV2 (writes a string to stderr or
// stdout) and Print (TF1: passes its input through, logging data tensors).
// They must run so that the model runs; their text goes to the process's
// streams, never into model outputs, so formatting follows TensorFlow's
// print_v2 style (numpy-like brackets, "..." past `summarize` entries per
// dimension, strings quoted) on a best-effort basis.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <mutex>
#include <sstream>
#include <type_traits>

#include "ops/array/array_util.h"
#include "ops/string/string_ops.h"

namespace tfhost::ops {
namespace {

// A float as TensorFlow's StrCat writes one: the shortest of 6 (double: 15)
// significant digits that reads back to the same value, else 9 (17)
// (conformance case StringFormat/tf/default).
template <typename F>
std::string ShortestDigits(F value) {
  constexpr bool kFloat = std::is_same_v<F, float>;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*g", kFloat ? 6 : 15, static_cast<double>(value));
  const bool round_trips = kFloat ? std::strtof(buf, nullptr) == value : std::strtod(buf, nullptr) == value;
  if (!round_trips && !std::isnan(value)) std::snprintf(buf, sizeof buf, "%.*g", kFloat ? 9 : 17, static_cast<double>(value));
  return buf;
}

std::string Element(const Tensor& t, int64_t i) {
  std::ostringstream os;
  switch (t.dtype()) {
    case DType::kString: return "\"" + t.strings()[i] + "\"";
    case DType::kBool: return t.data<bool>()[i] ? "True" : "False";
    case DType::kFloat: return ShortestDigits(t.data<float>()[i]);
    case DType::kDouble: return ShortestDigits(t.data<double>()[i]);
    case DType::kHalf: return ShortestDigits(HalfToFloat(t.data<uint16_t>()[i]));
    case DType::kBFloat16: return ShortestDigits(BFloat16ToFloat(t.data<uint16_t>()[i]));
    default: {
      bool ok = true;
      TFHOST_SWITCH_REAL_TYPES(t.dtype(), os << +t.data<T>()[i], ok = false);
      if (!ok) return "?";
    }
  }
  return os.str();
}

// numpy-like rendering of dims [d, rank) starting at flat offset `base`, as
// TensorFlow's print_v2 summary does: items of the last dim are separated by
// a space, those of an outer dim d by rank - 1 - d newlines and d + 1 spaces;
// a dim longer than 2 * summarize shows its first and last `summarize` items
// around "...", which always follows a separator ("[ ...]" when summarize
// is 0). `summarize` is already at most the element count (Summarize).
void Render(const Tensor& t, int d, int64_t base, const std::vector<int64_t>& strides, int64_t summarize,
            std::string* out) {
  if (d == t.rank()) {
    *out += Element(t, base);
    return;
  }
  const int64_t n = t.dim(d);
  const std::string sep = d + 1 == t.rank() ? " " : std::string(t.rank() - 1 - d, '\n') + std::string(d + 1, ' ');
  // n > 2 * summarize, without forming 2 * summarize.
  const bool elide = n > summarize && n - summarize > summarize;
  bool first = true;
  auto item = [&](int64_t i) {
    if (!first) *out += sep;
    first = false;
    Render(t, d + 1, base + i * strides[d], strides, summarize, out);
  };
  *out += "[";
  if (elide) {
    for (int64_t i = 0; i < summarize; ++i) item(i);
    *out += sep + "...";
    first = false;
    for (int64_t i = n - summarize; i < n; ++i) item(i);
  } else {
    for (int64_t i = 0; i < n; ++i) item(i);
  }
  *out += "]";
}

std::string Summarize(const Tensor& t, int64_t summarize) {
  std::string out;
  if (t.dtype() == DType::kResource || t.dtype() == DType::kVariant) return "<" + DTypeShortName(t.dtype()) + ">";
  // TensorFlow's limit: every element when negative, and never more than the
  // tensor holds, so an empty tensor shows each non-empty dim as "..." (and a
  // [2^40, 0] one costs nothing, where printing its 2^40 empty rows would not
  // end).
  const int64_t elements = t.NumElements();
  const int64_t limit = summarize < 0 ? elements : std::min(summarize, elements);
  Render(t, 0, 0, array::RowMajorStrides(t.shape()), limit, &out);
  return out;
}

Status StringFormat(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(std::string tmpl, ctx.AttrOr<std::string>("template", "%s"));
  TFHOST_ASSIGN_OR_RETURN(std::string placeholder, ctx.AttrOr<std::string>("placeholder", "%s"));
  TFHOST_ASSIGN_OR_RETURN(int64_t summarize, ctx.AttrOr<int64_t>("summarize", 3));
  if (placeholder.empty()) return ctx.Error("placeholder must not be empty");
  std::string out;
  int used = 0;
  size_t at = 0;
  while (true) {
    const size_t next = tmpl.find(placeholder, at);
    if (next == std::string::npos) break;
    if (used >= ctx.num_inputs()) {
      return ctx.Error("template has more placeholders than the " + std::to_string(ctx.num_inputs()) + " inputs");
    }
    out += tmpl.substr(at, next - at);
    out += Summarize(ctx.input(used++), summarize);
    at = next + placeholder.size();
  }
  out += tmpl.substr(at);
  if (used != ctx.num_inputs()) {
    return ctx.Error("template has " + std::to_string(used) + " placeholders but there are " +
                     std::to_string(ctx.num_inputs()) + " inputs");
  }
  ctx.set_output(0, Tensor::StringScalar(out));
  return OkStatus();
}

std::mutex& PrintMutex() {
  static std::mutex mu;
  return mu;
}

Status PrintV2(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  if (in.rank() != 0) return ctx.Error("input must be a string scalar, got " + in.shape().ToString());
  TFHOST_ASSIGN_OR_RETURN(std::string stream, ctx.AttrOr<std::string>("output_stream", "stderr"));
  TFHOST_ASSIGN_OR_RETURN(std::string end, ctx.AttrOr<std::string>("end", "\n"));
  std::lock_guard<std::mutex> lock(PrintMutex());
  std::ostream& os = stream == "stdout" ? std::cout : std::cerr;
  os << in.strings()[0] << end;
  os.flush();
  return OkStatus();
}

Status Print(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(std::string message, ctx.AttrOr<std::string>("message", ""));
  TFHOST_ASSIGN_OR_RETURN(int64_t summarize, ctx.AttrOr<int64_t>("summarize", 3));
  std::string line = message;
  for (int i = 1; i < ctx.num_inputs(); ++i) line += Summarize(ctx.input(i), summarize);
  {
    std::lock_guard<std::mutex> lock(PrintMutex());
    std::cerr << line << "\n";
  }
  ctx.set_output(0, ctx.input(0));
  return OkStatus();
}

}  // namespace

std::string SummarizeTensor(const Tensor& t, int64_t summarize) { return Summarize(t, summarize); }

void RegisterPrintOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("StringFormat")
                        .Input("inputs: T")
                        .Output("output: string")
                        .Attr("T: list(type) >= 0")
                        .Attr("template: string = \"%s\"")
                        .Attr("placeholder: string = \"%s\"")
                        .Attr("summarize: int = 3"),
                    StringFormat);
  registry.Register(ir::OpDefBuilder("PrintV2")
                        .Input("input: string")
                        .Attr("output_stream: string = \"stderr\"")
                        .Attr("end: string = \"\\n\"")
                        .SetIsStateful(),
                    PrintV2);
  registry.Register(ir::OpDefBuilder("Print")
                        .Input("input: T")
                        .Input("data: U")
                        .Output("output: T")
                        .Attr("T: type")
                        .Attr("U: list(type) >= 0")
                        .Attr("message: string = \"\"")
                        .Attr("first_n: int = -1")
                        .Attr("summarize: int = 3")
                        .SetIsStateful(),
                    Print);
}

}  // namespace tfhost::ops
