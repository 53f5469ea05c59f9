// StringNGrams: the n-grams of each row of a ragged string tensor (data +
// data_splits), as tf.strings.ngrams and Keras TextVectorization(ngrams=...)
// compute them.
//
// Per row of L tokens and per width w (in ngram_widths order): the row is
// padded with p = min(pad_width < 0 ? w - 1 : pad_width, w - 1) copies of
// left_pad / right_pad on each side, and every window of w consecutive
// tokens of the padded row, joined by `separator`, is one n-gram
// (max(0, L + 2p - w + 1) of them). With preserve_short_sequences, a
// non-empty row that yields no n-gram at all yields one: the whole row padded
// by pad_width on each side.
#include "ops/op_registry.h"
#include "ops/string/string_ops.h"

namespace tfhost::ops {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }

Status StringNGrams(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(std::string separator, ctx.AttrOr<std::string>("separator", " "));
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> widths, ctx.Attr<std::vector<int64_t>>("ngram_widths"));
  TFHOST_ASSIGN_OR_RETURN(std::string left_pad, ctx.AttrOr<std::string>("left_pad", ""));
  TFHOST_ASSIGN_OR_RETURN(std::string right_pad, ctx.AttrOr<std::string>("right_pad", ""));
  TFHOST_ASSIGN_OR_RETURN(int64_t pad_width, ctx.AttrOr<int64_t>("pad_width", 0));
  TFHOST_ASSIGN_OR_RETURN(bool preserve_short, ctx.AttrOr<bool>("preserve_short_sequences", false));
  for (int64_t w : widths) {
    if (w <= 0 || w > 4096) return ctx.Error("ngram_widths must be in [1, 4096], got " + Str(w));
  }
  if (pad_width > 4096) return ctx.Error("pad_width " + Str(pad_width) + " is too large");
  const Tensor& data = ctx.input(0);
  const Tensor& splits_t = ctx.input(1);
  if (data.rank() != 1) return ctx.Error("data must be a vector, got " + data.shape().ToString());
  if (splits_t.rank() != 1) return ctx.Error("data_splits must be a vector, got " + splits_t.shape().ToString());
  auto splits = splits_t.ToInt64Vector();
  if (!splits.ok()) return ctx.Error("data_splits must be an integer tensor");
  if (splits->empty()) return ctx.Error("data_splits must not be empty");
  if ((*splits)[0] != 0) return ctx.Error("First split value must be 0, got " + Str((*splits)[0]));
  if (splits->back() != data.dim(0)) {
    return ctx.Error("Last split value must be data size. Expected " + Str(data.dim(0)) + ", got " + Str(splits->back()));
  }
  for (size_t i = 1; i < splits->size(); ++i) {
    if ((*splits)[i] < (*splits)[i - 1]) {
      return ctx.Error("Invalid split value " + Str((*splits)[i]) + " at data_splits[" + Str(static_cast<int64_t>(i)) +
                       "]: splits must be non-decreasing, but data_splits[" + Str(static_cast<int64_t>(i - 1)) +
                       "] is " + Str((*splits)[i - 1]));
    }
  }
  const int64_t rows = static_cast<int64_t>(splits->size()) - 1;
  std::vector<std::string> out;
  std::vector<int64_t> out_splits = {0};
  auto token = [&](int64_t begin, int64_t len, int64_t pad, int64_t pos) -> const std::string& {
    if (pos < pad) return left_pad;
    if (pos >= pad + len) return right_pad;
    return data.strings()[begin + pos - pad];
  };
  auto emit = [&](int64_t begin, int64_t len, int64_t pad, int64_t w, int64_t count) {
    for (int64_t n = 0; n < count; ++n) {
      std::string gram;
      for (int64_t k = 0; k < w; ++k) {
        if (k > 0) gram += separator;
        gram += token(begin, len, pad, n + k);
      }
      out.push_back(std::move(gram));
    }
  };
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t begin = (*splits)[r], len = (*splits)[r + 1] - begin;
    const size_t before = out.size();
    for (int64_t w : widths) {
      const int64_t pad = std::min(pad_width < 0 ? w - 1 : pad_width, w - 1);
      emit(begin, len, pad, w, std::max<int64_t>(0, len + 2 * pad - w + 1));
    }
    if (preserve_short && out.size() == before && len > 0) {
      const int64_t pad = std::max<int64_t>(pad_width, 0);
      emit(begin, len, pad, len + 2 * pad, 1);
    }
    out_splits.push_back(static_cast<int64_t>(out.size()));
  }
  ctx.set_output(0, Tensor::FromVector<std::string>(out));
  Tensor s(splits_t.dtype(), Shape({rows + 1}));
  for (int64_t i = 0; i <= rows; ++i) {
    if (splits_t.dtype() == DType::kInt32) s.data<int32_t>()[i] = static_cast<int32_t>(out_splits[i]);
    else s.data<int64_t>()[i] = out_splits[i];
  }
  ctx.set_output(1, std::move(s));
  return OkStatus();
}

}  // namespace

void RegisterStringNGramsOp(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("StringNGrams")
                        .Input("data: string")
                        .Input("data_splits: Tsplits")
                        .Output("ngrams: string")
                        .Output("ngrams_splits: Tsplits")
                        .Attr("separator: string")
                        .Attr("ngram_widths: list(int) >= 0")
                        .Attr("left_pad: string")
                        .Attr("right_pad: string")
                        .Attr("pad_width: int")
                        .Attr("preserve_short_sequences: bool")
                        .Attr("Tsplits: {int32, int64} = DT_INT64"),
                    StringNGrams);
}

}  // namespace tfhost::ops
