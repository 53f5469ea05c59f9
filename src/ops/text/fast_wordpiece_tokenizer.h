// tensorflow-text's linear-time WordPiece ("Fast WordPiece Tokenization",
// Song et al. 2021) over a FastWordpieceModel (fast_wordpiece_model.h).
//
// The trie holds every vocabulary piece (suffix pieces with their "##"). On
// top of it each node v has a failure link f(v) and failure pops F(v): when
// the next byte has no trie edge from v, the longest-match-first tokens F(v)
// are emitted from the front of the string v spells and matching continues
// from f(v), which spells the rest (as a "##" suffix). A node that is itself
// a piece emits just that piece. The input is never re-read, so the work is
// linear in its length. Trie nodes use darts-clone's double-array encoding.
//
// Two modes, as the model says (end_to_end):
//  * single word: the input is one word; if it cannot be split into pieces,
//    or is longer than max_bytes_per_token, it is one unk_token;
//  * end to end: general text, split on whitespace and punctuation (Unicode
//    punctuation, ASCII symbols and CJK ideographs) while matching; each word
//    that cannot be split becomes one unk_token spanning the word.
// Token strings are cut from the input (a suffix piece gets the indicator
// prepended), except the unk_token and the pieces whose id is unk_token_id.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "ops/text/fast_wordpiece_model.h"

namespace tfhost::ops::text_internal {

struct WordpieceOutput {
  std::vector<std::string> pieces;
  std::vector<int64_t> ids;
  std::vector<int64_t> starts;  // byte offsets in the input, inclusive
  std::vector<int64_t> ends;    // exclusive
};

class FastWordpieceTokenizer {
 public:
  // `model` must outlive the tokenizer.
  explicit FastWordpieceTokenizer(const FastWordpieceModel& model) : model_(model) {}

  // Appends the tokens of `input` to `out`. Fails (InvalidArgument) when the
  // model sends the walk outside its arrays, and (Internal) when the walk
  // stops making progress, which tensorflow-text reports the same way.
  Status Tokenize(std::string_view input, WordpieceOutput& out) const;

  // The text of token ids: pieces joined, a new word (after a space) at each
  // piece that is not a suffix piece; a suffix piece that starts the text
  // keeps its indicator. Needs a model built with support_detokenization.
  StatusOr<std::string> Detokenize(const int32_t* ids, int64_t count) const;

 private:
  const FastWordpieceModel& model_;
};

}  // namespace tfhost::ops::text_internal
