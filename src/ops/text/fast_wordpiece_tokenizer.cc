// The walk of FastWordpieceTokenizer (fast_wordpiece_tokenizer.h) over the
// model's trie, failure links and failure pops, step for step as
// tensorflow-text takes it so that tokens, ids and offsets agree, including
// its handling of words longer than max_bytes_per_token, of punctuation
// missing from the vocabulary and of an input that is just the suffix
// indicator. Every array read is bounds-checked: a model that points outside
// its arrays fails the call instead of reading stray memory.
#include "ops/text/fast_wordpiece_tokenizer.h"

#include <unicode/uchar.h>

#include "ops/text/text_ops.h"

namespace tfhost::ops::text_internal {
namespace {

constexpr uint32_t kRootNode = 0;
constexpr uint32_t kNullNode = 0xFFFFFFFF;

// An encoded token: bit 30 suffix flag, bits 8..29 id, bits 0..7 byte length
// minus one (without the suffix indicator).
int64_t TokenId(int32_t encoded) { return (encoded & 0x3FFFFF00) >> 8; }
int64_t TokenLength(int32_t encoded) { return (encoded & 0xFF) + 1; }
bool IsSuffixToken(int32_t encoded) { return (encoded >> 30) != 0; }

// Word boundaries of the end-to-end mode besides whitespace: the CJK ranges
// BERT splits per character, ASCII symbols, and ICU's punctuation classes.
bool IsPunctuationOrChinese(int32_t c) {
  const uint32_t u = static_cast<uint32_t>(c);
  if ((u >= 0x4E00 && u <= 0x9FFF) || (u >= 0x3400 && u <= 0x4DBF) || (u >= 0x20000 && u <= 0x2A6DF) ||
      (u >= 0x2A700 && u <= 0x2B73F) || (u >= 0x2B740 && u <= 0x2B81F) || (u >= 0x2B820 && u <= 0x2CEAF) ||
      (u >= 0xF900 && u <= 0xFAFF) || (u >= 0x2F800 && u <= 0x2FA1F)) {
    return true;
  }
  if ((u >= 33 && u <= 47) || (u >= 58 && u <= 64) || (u >= 91 && u <= 96) || (u >= 123 && u <= 126)) return true;
  return u_ispunct(c);
}

struct Cursor {
  uint32_t node = kRootNode;
  uint32_t unit = 0;
};

// One call's walk: the model, the output, and the first inconsistency found.
class Walk {
 public:
  Walk(const FastWordpieceModel& m, WordpieceOutput& out) : m_(m), out_(out) {}

  Status Word(std::string_view word);
  Status Text(std::string_view text);

 private:
  // darts-clone units: child offset, label (a leaf's has the top bit),
  // has-leaf flag, leaf value.
  static uint32_t Offset(uint32_t unit) { return (unit >> 10) << ((unit & 0x200) >> 6); }
  static uint32_t Label(uint32_t unit) { return unit & 0x800000FF; }
  static bool HasLeaf(uint32_t unit) { return (unit & 0x100) != 0; }

  bool Fail(std::string what) {
    if (error_.ok()) error_ = InvalidArgument("malformed wp_model flatbuffer: " + what);
    return false;
  }
  bool Unit(uint32_t node, uint32_t* unit) {
    if (node >= m_.trie_size()) {
      return Fail("trie node " + std::to_string(node) + " is out of range (trie_array has " +
                  std::to_string(m_.trie_size()) + " units)");
    }
    *unit = m_.trie_unit(node);
    return true;
  }
  Cursor Root() {
    Cursor c;
    Unit(kRootNode, &c.unit);
    return c;
  }
  bool MoveTo(Cursor& c, uint32_t node) {
    if (!Unit(node, &c.unit)) return false;
    c.node = node;
    return true;
  }
  // Follows the edge labelled `byte`; false when there is none (or on error).
  bool Step(Cursor& c, uint8_t byte) {
    const uint32_t next = c.node ^ Offset(c.unit) ^ byte;
    uint32_t unit;
    if (!Unit(next, &unit) || Label(unit) != byte) return false;
    c = {next, unit};
    return true;
  }
  // All of `bytes` or nothing.
  bool StepAll(Cursor& c, std::string_view bytes) {
    Cursor probe = c;
    for (char b : bytes) {
      if (!Step(probe, static_cast<uint8_t>(b))) return false;
    }
    c = probe;
    return true;
  }
  bool NodeToken(const Cursor& c, int32_t* encoded) {
    uint32_t unit;
    if (!HasLeaf(c.unit) || !Unit(c.node ^ Offset(c.unit), &unit)) return false;
    *encoded = static_cast<int32_t>(unit & 0x7FFFFFFF);
    return true;
  }
  int64_t Emitted() const { return static_cast<int64_t>(out_.ids.size()); }

  bool FollowFailure(std::string_view word, int64_t word_offset, int64_t& consumed, Cursor& c);
  bool Append(std::string_view word, int64_t word_offset, int64_t& consumed, int32_t encoded);
  void CloseWord(std::string_view word, int64_t word_offset, Cursor& c, int64_t& kept, int64_t& consumed);
  void ReplaceWithUnknown(int64_t word_offset, int64_t length, int64_t& kept);

  const FastWordpieceModel& m_;
  WordpieceOutput& out_;
  Status error_;
};

// Emits F(c) -- or c's own token when c is a piece -- and moves to f(c).
// False when c has no failure link.
bool Walk::FollowFailure(std::string_view word, int64_t word_offset, int64_t& consumed, Cursor& c) {
  if (c.node >= m_.failure_struct_size()) {
    return Fail("trie node " + std::to_string(c.node) + " has no failure_struct_array entry (" +
                std::to_string(m_.failure_struct_size()) + " entries)");
  }
  const uint32_t link = m_.failure_link(c.node);
  int32_t own;
  if (NodeToken(c, &own)) return Append(word, word_offset, consumed, own) && MoveTo(c, link);
  if (!error_.ok() || link == kNullNode) return false;
  const uint32_t pops = m_.failure_pops(c.node);
  const uint64_t first = pops >> 8;
  const uint64_t end = first + (pops & 0xFF) + 1;
  if (end > m_.failure_pops_pool_size()) {
    return Fail("failure pops [" + std::to_string(first) + ", " + std::to_string(end) + ") of node " +
                std::to_string(c.node) + " exceed failure_pops_pool (" +
                std::to_string(m_.failure_pops_pool_size()) + " entries)");
  }
  for (uint64_t i = first; i < end; ++i) {
    if (!Append(word, word_offset, consumed, m_.failure_pops_pool(static_cast<uint32_t>(i)))) return false;
  }
  return MoveTo(c, link);
}

bool Walk::Append(std::string_view word, int64_t word_offset, int64_t& consumed, int32_t encoded) {
  const int64_t id = TokenId(encoded);
  int64_t length = TokenLength(encoded);
  // A suffix piece at the very start means the word itself begins with the
  // indicator ("##a"): the piece then covers the indicator too.
  if (consumed == 0 && IsSuffixToken(encoded)) length += static_cast<int64_t>(m_.suffix_indicator().size());
  if (consumed + length > static_cast<int64_t>(word.size())) {
    return Fail("token " + std::to_string(id) + " of " + std::to_string(length) + " bytes at offset " +
                std::to_string(consumed) + " runs past the " + std::to_string(word.size()) + "-byte word");
  }
  std::string piece = consumed > 0 ? std::string(m_.suffix_indicator()) : std::string();
  if (id == m_.unk_token_id()) {
    piece += m_.unk_token();  // a punctuation character missing from the vocabulary
  } else {
    piece += word.substr(consumed, length);
  }
  out_.pieces.push_back(std::move(piece));
  out_.ids.push_back(id);
  out_.starts.push_back(word_offset + consumed);
  out_.ends.push_back(word_offset + consumed + length);
  consumed += length;
  return true;
}

// Drops the tokens emitted since `kept` and emits one unk_token instead.
void Walk::ReplaceWithUnknown(int64_t word_offset, int64_t length, int64_t& kept) {
  out_.pieces.resize(kept);
  out_.ids.resize(kept);
  out_.starts.resize(kept);
  out_.ends.resize(kept);
  out_.pieces.emplace_back(m_.unk_token());
  out_.ids.push_back(m_.unk_token_id());
  out_.starts.push_back(word_offset);
  out_.ends.push_back(word_offset + length);
  ++kept;
}

// At a word's end: segments what the path to `c` still spells, following
// failure links until the bare suffix indicator (or the node punctuation
// fails to), or replaces the whole word by unk_token when that is impossible.
void Walk::CloseWord(std::string_view word, int64_t word_offset, Cursor& c, int64_t& kept, int64_t& consumed) {
  if (c.node == kRootNode) return;  // an empty word
  if (c.node == m_.trie_suffix_root() && Emitted() == kept) {
    // The word is the suffix indicator itself: its precomputed tokens.
    const uint32_t n = m_.precomputed_size();
    if (n == 1 && TokenId(m_.precomputed(0)) == m_.unk_token_id()) {
      ReplaceWithUnknown(word_offset, static_cast<int64_t>(word.size()), kept);
    } else {
      for (uint32_t i = 0; i < n; ++i) {
        if (!Append(word, word_offset, consumed, m_.precomputed(i))) return;
      }
    }
    kept = Emitted();
    return;
  }
  while (c.node != m_.trie_suffix_root() && c.node != m_.trie_punct_failure_link_node()) {
    if (!FollowFailure(word, word_offset, consumed, c)) {
      if (error_.ok()) ReplaceWithUnknown(word_offset, static_cast<int64_t>(word.size()), kept);
      return;
    }
  }
  kept = Emitted();
}

Status Walk::Word(std::string_view word) {
  if (word.empty()) return OkStatus();
  int64_t kept = Emitted();
  const int64_t size = static_cast<int64_t>(word.size());
  if (size > m_.max_bytes_per_token()) {
    ReplaceWithUnknown(0, size, kept);
    return OkStatus();
  }
  int64_t consumed = 0;
  Cursor c = Root();
  for (char b : word) {
    while (error_.ok() && !Step(c, static_cast<uint8_t>(b))) {
      if (!FollowFailure(word, 0, consumed, c)) {
        if (error_.ok()) ReplaceWithUnknown(0, size, kept);
        return error_;
      }
    }
  }
  if (error_.ok()) CloseWord(word, 0, c, kept, consumed);
  return error_;
}

// End to end: words end at whitespace (skipped), at punctuation (a word of
// its own), after punctuation, or where matching fails; a word that cannot
// be segmented, or grows past max_bytes_per_token, becomes one unk_token
// running to the next boundary.
Status Walk::Text(std::string_view text) {
  const int64_t size = static_cast<int64_t>(text.size());
  int64_t kept = Emitted();
  int64_t pos = 0;
  int64_t word_start_before = -1;
  int32_t cur_char = 0;
  int32_t prev_char = 0;
  const auto no_progress = [] {
    return Internal("Failed to make any progress in tokenizing the input text.");
  };
  while (pos < size) {
    if (pos == word_start_before) return no_progress();
    word_start_before = pos;
    const int64_t word_offset = pos;
    const std::string_view rest = text.substr(pos);
    int64_t consumed = 0;
    int64_t word_bytes = 0;
    int64_t next = pos;
    int64_t step_before = -1;
    Cursor c = Root();
    bool stuck = false;  // no trie edge and no failure link
    while (pos < size && !stuck) {
      if (pos == step_before) return no_progress();
      step_before = pos;
      prev_char = cur_char;
      next = pos;
      cur_char = NextCodePoint(text, &next);
      if (word_bytes + (next - pos) > m_.max_bytes_per_token()) break;
      while (!StepAll(c, text.substr(pos, next - pos))) {
        if (!error_.ok()) return error_;
        if (!FollowFailure(rest, word_offset, consumed, c)) {
          if (!error_.ok()) return error_;
          stuck = true;
          break;
        }
      }
      if (stuck) break;
      word_bytes += next - pos;
      pos = next;
    }
    if (!error_.ok()) return error_;
    if (pos >= size) {
      CloseWord(rest, word_offset, c, kept, consumed);
      break;
    }
    const bool is_space = u_isUWhiteSpace(cur_char);
    if (is_space || IsPunctuationOrChinese(cur_char) || (pos > 0 && IsPunctuationOrChinese(prev_char))) {
      const std::string_view word = rest.substr(0, pos - word_offset);
      CloseWord(word, word_offset, c, kept, consumed);
      if (!error_.ok()) return error_;
      if (is_space) {
        pos = next;
      } else if (word.empty()) {
        // A punctuation character the trie cannot even start with.
        pos = next;
        ReplaceWithUnknown(word_offset, pos - word_offset, kept);
      }
      continue;
    }
    // Inside a word that cannot be matched (or is too long): it becomes one
    // unk_token up to the next whitespace or punctuation, and a whitespace
    // that ends it is skipped.
    pos = next;
    int64_t word_end = pos;
    while (pos < size) {
      int64_t after = pos;
      const int32_t ch = NextCodePoint(text, &after);
      if (u_isUWhiteSpace(ch)) {
        pos = after;
        break;
      }
      if (IsPunctuationOrChinese(ch)) break;
      word_end = after;
      pos = after;
    }
    ReplaceWithUnknown(word_offset, word_end - word_offset, kept);
  }
  return error_;
}

}  // namespace

Status FastWordpieceTokenizer::Tokenize(std::string_view input, WordpieceOutput& out) const {
  Walk walk(model_, out);
  return model_.end_to_end() ? walk.Text(input) : walk.Word(input);
}

StatusOr<std::string> FastWordpieceTokenizer::Detokenize(const int32_t* ids, int64_t count) const {
  if (!model_.support_detokenization()) {
    return FailedPrecondition(
        "Detokenize function is only enabled when support_detokenization is true in the config flatbuffer. "
        "Please rebuild the model flatbuffer by setting support_detokenization=true.");
  }
  if (!model_.has_vocab()) return Internal("Missing vocab_array or vocab_is_suffix_array in config.");
  std::string text;
  bool in_word = false;  // some piece of the current word is out
  for (int64_t i = 0; i < count; ++i) {
    const int32_t id = ids[i];
    if (id < 0 || static_cast<uint32_t>(id) >= model_.vocab_size() ||
        static_cast<uint32_t>(id) >= model_.vocab_is_suffix_size()) {
      return OutOfRange("Token ID out of bounds: " + std::to_string(id));
    }
    TFHOST_ASSIGN_OR_RETURN(std::string_view piece, model_.vocab(static_cast<uint32_t>(id)));
    const bool is_suffix = model_.vocab_is_suffix(static_cast<uint32_t>(id));
    if (in_word && !is_suffix) text += ' ';
    if (!in_word && is_suffix) text += model_.suffix_indicator();
    text += piece;
    in_word = true;
  }
  return text;
}

}  // namespace tfhost::ops::text_internal
