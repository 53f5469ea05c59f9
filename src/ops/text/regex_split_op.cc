// RegexSplitWithOffsets (tensorflow_text.regex_split_with_offsets, and the
// pre-tokenizer of BertTokenizer's BasicTokenizer): splits each string at the
// matches of an RE2 delimiter pattern, optionally keeping the delimiters that
// fully match a second pattern. Outputs are ragged: tokens, begin and end byte
// offsets, and row splits over the flattened input.
//
// The splitting follows tensorflow-text's loop exactly, through the same RE2
// calls:
//  * RE2::FindAndConsume with one capture: the token before a delimiter ends
//    where capture group 1 starts, and the search resumes after the whole
//    match (the Python wrapper wraps both patterns in parentheses, so group 1
//    is the match); a pattern without a group finds nothing, leaving the
//    whole string one token;
//  * empty tokens between delimiters are dropped; a delimiter is kept when
//    keep_delim_regex_pattern is non-empty and fully matches it;
//  * each input is read up to its first NUL byte (the kernel views it as a C
//    string).
// Where tensorflow-text would misbehave, tfhost reports an error instead: a
// delimiter match that is empty (tensorflow-text loops forever) or whose group
// 1 did not take part in the match (it reads a null pointer).
#include <re2/re2.h>

#include <cstring>

#include "ops/string/string_ops.h"
#include "ops/text/text_ops.h"

namespace tfhost::ops {
namespace {

using text_internal::Int64Vector;
using text_internal::ScalarStringInput;

struct SplitResult {
  std::vector<std::string> tokens;
  std::vector<int64_t> begins;
  std::vector<int64_t> ends;
};

void AddToken(std::string_view input, re2::StringPiece token, SplitResult& out) {
  out.tokens.emplace_back(token.data(), token.size());
  out.begins.push_back(token.data() - input.data());
  out.ends.push_back(token.data() + token.size() - input.data());
}

Status SplitOne(const KernelContext& ctx, std::string_view input, int64_t index, const RE2& delim,
                const RE2* keep, SplitResult& out) {
  re2::StringPiece leftover(input.data(), input.size());
  const char* last_end = leftover.data();
  re2::StringPiece delim_token;
  while (RE2::FindAndConsume(&leftover, delim, &delim_token)) {
    if (delim_token.data() == nullptr) {
      return ctx.Error("delim_regex_pattern matched input " + std::to_string(index) +
                       " without its capture group 1 taking part; wrap the whole pattern in parentheses");
    }
    if (leftover.data() == last_end) {
      return ctx.Error("delim_regex_pattern matched the empty string in input " + std::to_string(index) + " at byte " +
                       std::to_string(last_end - input.data()) +
                       "; an empty delimiter would never advance (tensorflow-text loops forever)");
    }
    const re2::StringPiece token(last_end, delim_token.data() - last_end);
    last_end = leftover.data();
    if (!token.empty()) AddToken(input, token, out);
    if (keep != nullptr && RE2::FullMatch(delim_token, *keep)) AddToken(input, delim_token, out);
  }
  if (!leftover.empty()) AddToken(input, leftover, out);
  return OkStatus();
}

Status RegexSplitWithOffsets(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  if (input.dtype() != DType::kString) return ctx.Error("input must be a string tensor");
  TFHOST_ASSIGN_OR_RETURN(std::string delim_pattern, ScalarStringInput(ctx, 1, "delim_regex_pattern"));
  TFHOST_ASSIGN_OR_RETURN(std::string keep_pattern, ScalarStringInput(ctx, 2, "keep_delim_regex_pattern"));
  auto delim = string_internal::CachedRe2(delim_pattern);
  if (!delim.ok()) return ctx.Error(delim.status().message());
  auto keep = string_internal::CachedRe2(keep_pattern);
  if (!keep.ok()) return ctx.Error(keep.status().message());
  const RE2* keep_re = keep_pattern.empty() ? nullptr : keep->get();

  SplitResult result;
  std::vector<int64_t> row_splits = {0};
  row_splits.reserve(input.NumElements() + 1);
  for (int64_t i = 0; i < input.NumElements(); ++i) {
    const std::string& s = input.strings()[i];
    const std::string_view view(s.data(), std::strlen(s.c_str()));
    TFHOST_RETURN_IF_ERROR(SplitOne(ctx, view, i, **delim, keep_re, result));
    row_splits.push_back(static_cast<int64_t>(result.begins.size()));
  }
  ctx.set_output(0, text_internal::StringVector(std::move(result.tokens)));
  ctx.set_output(1, Int64Vector(result.begins));
  ctx.set_output(2, Int64Vector(result.ends));
  ctx.set_output(3, Int64Vector(row_splits));
  return OkStatus();
}

}  // namespace

void RegisterRegexSplitOp(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("RegexSplitWithOffsets")
                        .Input("input: string")
                        .Input("delim_regex_pattern: string")
                        .Input("keep_delim_regex_pattern: string")
                        .Output("tokens: string")
                        .Output("begin_offsets: int64")
                        .Output("end_offsets: int64")
                        .Output("row_splits: int64"),
                    RegexSplitWithOffsets);
}

}  // namespace tfhost::ops
