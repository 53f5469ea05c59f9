// UnicodeScriptTokenizeWithOffsets (tensorflow_text.UnicodeScriptTokenizer):
// splits ragged rows of code points (input_values + input_splits, as
// tf.strings.unicode_decode gives them) wherever the ICU script changes, and
// drops whitespace unless keep_whitespace is set.
//
// Outputs are doubly ragged: the token code points with their inner splits,
// and per token the start and limit offsets, in code points from the start
// of its row; output_outer_splits groups tokens by input row. (The Python
// wrapper maps these code point offsets back to bytes.)
//
// Per row, with tensorflow-text's rules:
//  * a token ends where uscript_getScript changes (a code point ICU rejects
//    counts as USCRIPT_INVALID_CODE), and with keep_whitespace also where
//    White_Space (u_isUWhiteSpace) changes;
//  * without keep_whitespace, whitespace is not copied and starts no token,
//    and a token's limit excludes the whitespace run that ends it -- though
//    whitespace of the token's own script inside it stays inside (digits and
//    punctuation share the Common script with spaces: "1 2" is one token
//    "12" with limit 3).
#include <unicode/uchar.h>
#include <unicode/uscript.h>

#include "ops/text/text_ops.h"

namespace tfhost::ops {
namespace {

struct Tokens {
  std::vector<int32_t> values;
  std::vector<int64_t> inner_splits;
  std::vector<int64_t> starts;
  std::vector<int64_t> limits;
};

int32_t ScriptOf(int32_t c) {
  UErrorCode status = U_ZERO_ERROR;
  const UScriptCode script = uscript_getScript(c, &status);
  return U_FAILURE(status) ? USCRIPT_INVALID_CODE : script;
}

void TokenizeRow(const int32_t* cps, int64_t n, bool keep_whitespace, Tokens& out) {
  int32_t prev_script = USCRIPT_INVALID_CODE;
  bool has_start = false;
  bool was_space = false;
  int64_t skipped_spaces = 0;  // the whitespace run just before `i`
  for (int64_t i = 0; i < n; ++i) {
    const int32_t c = cps[i];
    const bool is_space = u_isUWhiteSpace(c);
    const int32_t script = ScriptOf(c);
    if (script != prev_script || (keep_whitespace && is_space != was_space)) {
      if (has_start) out.limits.push_back(i - skipped_spaces);
      prev_script = script;
      has_start = false;
    }
    if (!is_space || keep_whitespace) {
      if (!has_start) {
        out.starts.push_back(i);
        out.inner_splits.push_back(static_cast<int64_t>(out.values.size()));
        has_start = true;
      }
      out.values.push_back(c);
    }
    if (!keep_whitespace) skipped_spaces = is_space ? skipped_spaces + 1 : 0;
    was_space = is_space;
  }
  if (has_start) out.limits.push_back(n - skipped_spaces);
}

Tensor SplitsTensor(const std::vector<int64_t>& v, DType dtype) {
  if (dtype == DType::kInt64) return Tensor::FromVector(v);
  return Tensor::FromVector(std::vector<int32_t>(v.begin(), v.end()));
}

Status UnicodeScriptTokenizeWithOffsets(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(DType splits_dtype, ctx.AttrOr<DType>("Tsplits", DType::kInt64));
  TFHOST_ASSIGN_OR_RETURN(bool keep_whitespace, ctx.AttrOr<bool>("keep_whitespace", false));
  const Tensor& values = ctx.input(0);
  const Tensor& splits_t = ctx.input(1);
  if (values.dtype() != DType::kInt32 || values.rank() != 1) {
    return ctx.Error("input_values must be an int32 vector of code points, got " + DTypeShortName(values.dtype()) +
                     values.shape().ToString());
  }
  if (splits_t.dtype() != splits_dtype || splits_t.rank() != 1) {
    return ctx.Error("input_splits must be a " + DTypeShortName(splits_dtype) + " vector, got " +
                     DTypeShortName(splits_t.dtype()) + splits_t.shape().ToString());
  }
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> splits, splits_t.ToInt64Vector());
  // tensorflow-text indexes with these unchecked; tfhost requires valid row
  // splits: non-empty, starting at 0, non-decreasing, ending at the length.
  if (splits.empty()) return ctx.Error("input_splits must hold at least one split (0)");
  if (splits.front() != 0) return ctx.Error("input_splits must start at 0, got " + std::to_string(splits.front()));
  for (size_t i = 1; i < splits.size(); ++i) {
    if (splits[i] < splits[i - 1]) {
      return ctx.Error("input_splits must be non-decreasing, got " + std::to_string(splits[i - 1]) + " then " +
                       std::to_string(splits[i]) + " at " + std::to_string(i));
    }
  }
  if (splits.back() != values.NumElements()) {
    return ctx.Error("input_splits must end at the number of input_values (" +
                     std::to_string(values.NumElements()) + "), got " + std::to_string(splits.back()));
  }
  Tokens tokens;
  std::vector<int64_t> outer_splits;
  outer_splits.reserve(splits.size());
  const int32_t* cps = values.data<int32_t>();
  for (size_t row = 0; row + 1 < splits.size(); ++row) {
    outer_splits.push_back(static_cast<int64_t>(tokens.starts.size()));
    TokenizeRow(cps + splits[row], splits[row + 1] - splits[row], keep_whitespace, tokens);
  }
  outer_splits.push_back(static_cast<int64_t>(tokens.starts.size()));
  tokens.inner_splits.push_back(static_cast<int64_t>(tokens.values.size()));
  ctx.set_output(0, text_internal::Int32Vector(tokens.values));
  ctx.set_output(1, SplitsTensor(tokens.inner_splits, splits_dtype));
  ctx.set_output(2, text_internal::Int64Vector(tokens.starts));
  ctx.set_output(3, text_internal::Int64Vector(tokens.limits));
  ctx.set_output(4, SplitsTensor(outer_splits, splits_dtype));
  return OkStatus();
}

}  // namespace

void RegisterUnicodeScriptTokenizerOp(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("UnicodeScriptTokenizeWithOffsets")
                        .Input("input_values: int32")
                        .Input("input_splits: Tsplits")
                        .Output("output_values: int32")
                        .Output("output_values_inner_splits: Tsplits")
                        .Output("output_offset_starts: int64")
                        .Output("output_offset_limits: int64")
                        .Output("output_outer_splits: Tsplits")
                        .Attr("Tsplits: {int32, int64} = DT_INT64")
                        .Attr("keep_whitespace: bool = false"),
                    UnicodeScriptTokenizeWithOffsets);
}

}  // namespace tfhost::ops
