// WordpieceTokenizeWithOffsets (tensorflow_text.WordpieceTokenizer, the second
// stage of BertTokenizer): splits each word into the longest vocabulary
// pieces, left to right, with "##"-style suffix pieces after the first.
//
// The vocabulary is a lookup table resource (HashTableV2 filled from the
// vocab file, src/ops/lookup): a piece is in the vocabulary when the table
// maps it to something other than -1, as tensorflow-text asks it.
//
// Per word (tensorflow-text's greedy algorithm, with its quirks kept):
//  * a word longer than max_bytes_per_word bytes is one piece: unknown_token
//    with offsets [0, len(unknown_token)) -- the unknown token's length, not
//    the word's -- or, without use_unknown_token, the word itself;
//  * otherwise, from each start, candidate ends are code point boundaries
//    (ICU's U8_NEXT steps over ill-formed bytes), at most max_chars_per_token
//    of them when that is positive; the longest candidate in the vocabulary
//    wins; with split_unknown_characters a single unmatched character becomes
//    its own piece (unknown_token, or the character);
//  * if some start matches nothing, the whole word is one piece [0, len):
//    unknown_token, or the word itself, and the pieces found so far go.
// Offsets are byte offsets within the word; output_row_lengths holds row
// lengths, or row splits when output_row_partition_type is 'row_splits'.
#include "ops/lookup/lookup_table.h"
#include "ops/text/text_ops.h"

namespace tfhost::ops {
namespace {

using text_internal::Int64Vector;
using text_internal::NextCodePoint;

struct Options {
  std::string suffix_indicator;
  int64_t max_bytes_per_word = 0;
  int64_t max_chars_per_token = 0;
  bool use_unknown_token = false;
  std::string unknown_token;
  bool split_unknown_characters = false;
};

struct Pieces {
  std::vector<std::string> values;
  std::vector<int64_t> begins;
  std::vector<int64_t> ends;
};

// The table's answer for several candidate pieces at once: one Find call per
// start position instead of one per candidate.
class Vocab {
 public:
  Vocab(const KernelContext& ctx, const lookup::LookupTable& table) : ctx_(ctx), table_(table) {}

  // Index of the longest (last) key the table holds, or -1.
  StatusOr<int> LongestKnown(const std::vector<std::string>& keys) const {
    Tensor key_tensor(DType::kString, Shape({static_cast<int64_t>(keys.size())}));
    for (size_t i = 0; i < keys.size(); ++i) key_tensor.strings()[i] = keys[i];
    auto found = table_.Find(key_tensor, Tensor::Scalar<int64_t>(-1));
    if (!found.ok()) return found.status().WithContext(ir::NodeContext(ctx_.node()) + ": vocab_lookup_table");
    for (int i = static_cast<int>(keys.size()) - 1; i >= 0; --i) {
      if (found->data<int64_t>()[i] != -1) return i;
    }
    return -1;
  }

 private:
  const KernelContext& ctx_;
  const lookup::LookupTable& table_;
};

// The whole word as one piece (unknown_token, or the word itself).
void AddWholeWord(const std::string& word, const Options& opt, int64_t end, Pieces& out) {
  out.values.push_back(opt.use_unknown_token ? opt.unknown_token : word);
  out.begins.push_back(0);
  out.ends.push_back(end);
}

// Appends the pieces of `word`; returns how many.
StatusOr<int64_t> TokenizeWord(const std::string& word, const Options& opt, const Vocab& vocab, Pieces& out) {
  const int64_t len = static_cast<int64_t>(word.size());
  if (len > opt.max_bytes_per_word) {
    AddWholeWord(word, opt, opt.use_unknown_token ? static_cast<int64_t>(opt.unknown_token.size()) : len, out);
    return 1;
  }
  Pieces found;
  for (int64_t start = 0; start < len;) {
    std::vector<int64_t> ends;
    std::vector<std::string> keys;
    const std::string prefix = start > 0 ? opt.suffix_indicator : "";
    for (int64_t pos = start; pos < len;) {
      NextCodePoint(word, &pos);
      ends.push_back(pos);
      keys.push_back(prefix + word.substr(start, pos - start));
      if (opt.max_chars_per_token > 0 && static_cast<int64_t>(ends.size()) == opt.max_chars_per_token) break;
    }
    TFHOST_ASSIGN_OR_RETURN(int best, vocab.LongestKnown(keys));
    if (best >= 0) {
      found.values.push_back(std::move(keys[best]));
    } else if (opt.split_unknown_characters) {
      best = 0;
      found.values.push_back(opt.use_unknown_token ? prefix + opt.unknown_token : std::move(keys[0]));
    } else {
      AddWholeWord(word, opt, len, out);
      return 1;
    }
    found.begins.push_back(start);
    found.ends.push_back(ends[best]);
    start = ends[best];
  }
  for (auto& v : found.values) out.values.push_back(std::move(v));
  out.begins.insert(out.begins.end(), found.begins.begin(), found.begins.end());
  out.ends.insert(out.ends.end(), found.ends.begin(), found.ends.end());
  return static_cast<int64_t>(found.values.size());
}

// The table behind the resource handle (a DT_RESOURCE scalar, or TF1's
// [container, name] string vector).
StatusOr<std::shared_ptr<lookup::LookupTable>> VocabTable(const KernelContext& ctx) {
  const Tensor& h = ctx.input(1);
  std::string name;
  if (IsStringLike(h.dtype()) && h.NumElements() == 1) {
    name = h.strings()[0];
  } else if (IsStringLike(h.dtype()) && h.rank() == 1 && h.NumElements() == 2) {
    name = h.strings()[1];
  } else {
    return ctx.Error("vocab_lookup_table must be a table handle, got " + DTypeShortName(h.dtype()) +
                     h.shape().ToString());
  }
  auto table = ctx.resources()->Lookup<lookup::LookupTable>(name);
  if (!table.ok()) {
    return FailedPrecondition(ir::NodeContext(ctx.node()) + ": vocab_lookup_table '" + name +
                              "' does not exist (the op that creates it has not run)");
  }
  const lookup::LookupTable& t = **table;
  if (t.key_dtype() != DType::kString || t.value_dtype() != DType::kInt64 || t.value_shape().rank() != 0) {
    return ctx.Error("vocab_lookup_table must map strings to int64 scalars, got a " + t.Description());
  }
  return *table;
}

Status WordpieceTokenizeWithOffsets(KernelContext& ctx) {
  Options opt;
  TFHOST_ASSIGN_OR_RETURN(opt.suffix_indicator, ctx.Attr<std::string>("suffix_indicator"));
  TFHOST_ASSIGN_OR_RETURN(opt.max_bytes_per_word, ctx.Attr<int64_t>("max_bytes_per_word"));
  TFHOST_ASSIGN_OR_RETURN(opt.max_chars_per_token, ctx.AttrOr<int64_t>("max_chars_per_token", 0));
  TFHOST_ASSIGN_OR_RETURN(opt.use_unknown_token, ctx.Attr<bool>("use_unknown_token"));
  TFHOST_ASSIGN_OR_RETURN(opt.unknown_token, ctx.Attr<std::string>("unknown_token"));
  TFHOST_ASSIGN_OR_RETURN(opt.split_unknown_characters, ctx.AttrOr<bool>("split_unknown_characters", false));
  TFHOST_ASSIGN_OR_RETURN(std::string partition,
                          ctx.AttrOr<std::string>("output_row_partition_type", "row_lengths"));
  if (partition != "row_lengths" && partition != "row_splits") {
    return ctx.Error("output_row_partition_type must be 'row_lengths' or 'row_splits', got '" + partition + "'");
  }
  const Tensor& words = ctx.input(0);
  if (words.dtype() != DType::kString) return ctx.Error("input_values must be a string tensor");
  TFHOST_ASSIGN_OR_RETURN(auto table, VocabTable(ctx));
  const Vocab vocab(ctx, *table);

  Pieces pieces;
  std::vector<int64_t> partition_values;
  if (partition == "row_splits") partition_values.push_back(0);
  for (int64_t i = 0; i < words.NumElements(); ++i) {
    TFHOST_ASSIGN_OR_RETURN(int64_t n, TokenizeWord(words.strings()[i], opt, vocab, pieces));
    partition_values.push_back(partition == "row_splits" ? partition_values.back() + n : n);
  }
  ctx.set_output(0, text_internal::StringVector(std::move(pieces.values)));
  ctx.set_output(1, Int64Vector(partition_values));
  ctx.set_output(2, Int64Vector(pieces.begins));
  ctx.set_output(3, Int64Vector(pieces.ends));
  return OkStatus();
}

}  // namespace

void RegisterWordpieceOp(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("WordpieceTokenizeWithOffsets")
                        .Input("input_values: string")
                        .Input("vocab_lookup_table: resource")
                        .Attr("suffix_indicator: string")
                        .Attr("max_bytes_per_word: int")
                        .Attr("max_chars_per_token: int = 0")
                        .Attr("use_unknown_token: bool")
                        .Attr("unknown_token: string")
                        .Attr("split_unknown_characters: bool = false")
                        .Attr("output_row_partition_type: {'row_lengths', 'row_splits'} = 'row_lengths'")
                        .Output("output_values: string")
                        .Output("output_row_lengths: int64")
                        .Output("start_values: int64")
                        .Output("limit_values: int64")
                        .SetIsStateful(),
                    WordpieceTokenizeWithOffsets);
}

}  // namespace tfhost::ops
