// TFText>WhitespaceTokenizeWithOffsetsV2 (tensorflow_text.WhitespaceTokenizer):
// splits each string of a vector at whitespace code points, with byte offsets.
//
// Which code points are whitespace is not decided here: input_config is the
// string tensorflow-text's WhitespaceTokenizer builds from ICU's White_Space
// set and stores in the graph as a constant. It is a bitmap, one bit per code
// point from U+0000 up to the largest whitespace: code point c is whitespace
// when bit (c & 7) of byte (c >> 3) is set; code points past the end of the
// bitmap, and ill-formed bytes, are not.
//
// The token loop is tensorflow-text's, quirk included: a token that ends at a
// whitespace code point gets end offset (the byte after that code point) - 1,
// which is the whitespace's own offset for one-byte whitespace (every ASCII
// space) but lands inside a multi-byte one (U+3000 IDEOGRAPHIC SPACE, U+00A0
// NO-BREAK SPACE): the token then carries the whitespace's leading bytes.
#include "ops/text/text_ops.h"

namespace tfhost::ops {
namespace {

using text_internal::NextCodePoint;

class WhitespaceConfig {
 public:
  explicit WhitespaceConfig(std::string_view bitmap) : bitmap_(bitmap) {}

  bool IsWhitespace(int32_t c) const {
    if (c < 0 || static_cast<uint64_t>(c) >= bitmap_.size() * 8) return false;
    return (static_cast<uint8_t>(bitmap_[c >> 3]) >> (c & 7)) & 1;
  }

 private:
  std::string_view bitmap_;
};

struct Tokens {
  std::vector<std::string> values;
  std::vector<int32_t> starts;
  std::vector<int32_t> ends;
};

void TokenizeOne(std::string_view input, const WhitespaceConfig& config, Tokens& out) {
  const int64_t size = static_cast<int64_t>(input.size());
  int64_t pos = 0;
  int64_t start = 0;
  bool inside_token = false;
  const auto close = [&](int64_t end) {
    out.starts.push_back(static_cast<int32_t>(start));
    out.ends.push_back(static_cast<int32_t>(end));
    out.values.emplace_back(input.substr(start, end - start));
    inside_token = false;
  };
  while (pos < size) {
    const int64_t char_start = pos;
    const int32_t c = NextCodePoint(input, &pos);
    if (config.IsWhitespace(c)) {
      if (inside_token) close(pos - 1);
    } else if (!inside_token) {
      start = char_start;
      inside_token = true;
    }
  }
  if (inside_token) close(pos);
}

Status WhitespaceTokenizeWithOffsetsV2(KernelContext& ctx) {
  TFHOST_RETURN_IF_ERROR(text_internal::CheckStringVector(ctx, 0, "input_values"));
  TFHOST_ASSIGN_OR_RETURN(std::string config, text_internal::ScalarStringInput(ctx, 1, "input_config"));
  const Tensor& values = ctx.input(0);
  // Offsets are int32 outputs.
  for (int64_t i = 0; i < values.NumElements(); ++i) {
    if (values.strings()[i].size() > static_cast<size_t>(INT32_MAX)) {
      return ctx.Error("input_values[" + std::to_string(i) + "] is longer than int32 offsets can address");
    }
  }
  const WhitespaceConfig whitespace(config);
  Tokens tokens;
  std::vector<int64_t> row_splits = {0};
  for (int64_t i = 0; i < values.NumElements(); ++i) {
    TokenizeOne(values.strings()[i], whitespace, tokens);
    row_splits.push_back(static_cast<int64_t>(tokens.values.size()));
  }
  ctx.set_output(0, text_internal::StringVector(std::move(tokens.values)));
  ctx.set_output(1, text_internal::Int64Vector(row_splits));
  ctx.set_output(2, text_internal::Int32Vector(tokens.starts));
  ctx.set_output(3, text_internal::Int32Vector(tokens.ends));
  return OkStatus();
}

}  // namespace

void RegisterWhitespaceTokenizerOp(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("TFText>WhitespaceTokenizeWithOffsetsV2")
                        .Input("input_values: string")
                        .Input("input_config: string")
                        .Output("output_tokens: string")
                        .Output("output_row_splits: int64")
                        .Output("output_start_offsets: int32")
                        .Output("output_end_offsets: int32"),
                    WhitespaceTokenizeWithOffsetsV2);
}

}  // namespace tfhost::ops
