#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "ops/run_single_op.h"
#include "ops/shape_fn_test_util.h"
#include "ops/text/text_test_util.h"
#include "ops/text/fast_wordpiece_model.h"
#include "ops/text/fast_wordpiece_test_model.h"
#include "base/test_status.h"

namespace tfhost::ops::text_internal {
namespace {

constexpr char kTokenize[] = "FastWordpieceTokenizeWithOffsets";
constexpr char kDetokenize[] = "TFText>FastWordpieceDetokenize";

std::string SmallModel() {
  auto decoded = RunSingleOp("DecodeBase64", {Tensor::StringScalar(kSmallWordpieceModelBase64)});
  EXPECT_TRUE(decoded.ok()) << decoded.status().ToString();
  return decoded.ok() ? (*decoded)[0].strings()[0] : std::string();
}

Tensor Bytes(const std::string& b) {
  Tensor t(DType::kUInt8, Shape({static_cast<int64_t>(b.size())}));
  std::copy(b.begin(), b.end(), t.data<uint8_t>());
  return t;
}

// The model's fields, to write back out with changes (a second mode, or
// deliberate damage).
struct Fields {
  std::vector<uint32_t> trie, failure, pool, precomputed;  // failure: (link, pops) pairs
  uint32_t suffix_root = 0, punct_node = 0;
  int32_t max_bytes = 0, unk_id = 0;
  std::string suffix, unk;
  bool end_to_end = false, detokenize = false, omit_trie = false;
  std::vector<std::string> vocab;
  std::string is_suffix;
};

Fields Read(const std::string& bytes) {
  auto m = FastWordpieceModel::Parse(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
  EXPECT_TRUE(m.ok()) << m.status().ToString();
  Fields f;
  for (uint32_t i = 0; i < m->trie_size(); ++i) f.trie.push_back(m->trie_unit(i));
  for (uint32_t i = 0; i < m->failure_struct_size(); ++i) {
    f.failure.push_back(m->failure_link(i));
    f.failure.push_back(m->failure_pops(i));
  }
  for (uint32_t i = 0; i < m->failure_pops_pool_size(); ++i) f.pool.push_back(m->failure_pops_pool(i));
  for (uint32_t i = 0; i < m->precomputed_size(); ++i) f.precomputed.push_back(m->precomputed(i));
  f.suffix_root = m->trie_suffix_root();
  f.punct_node = m->trie_punct_failure_link_node();
  f.max_bytes = m->max_bytes_per_token();
  f.unk_id = m->unk_token_id();
  f.suffix = m->suffix_indicator();
  f.unk = m->unk_token();
  f.end_to_end = m->end_to_end();
  f.detokenize = m->support_detokenization();
  for (uint32_t i = 0; i < m->vocab_size(); ++i) f.vocab.emplace_back(*m->vocab(i));
  for (uint32_t i = 0; i < m->vocab_is_suffix_size(); ++i) f.is_suffix.push_back(m->vocab_is_suffix(i) ? 1 : 0);
  return f;
}

// A flatbuffer of `f`: root offset, vtable (14 fields), table of 4-byte slots,
// then the vectors.
std::string Write(const Fields& f) {
  constexpr size_t kVtable = 4, kTable = kVtable + 4 + 2 * 14, kData = kTable + 4 + 4 * 14;
  std::string out(kData, '\0');
  const auto put32 = [&](size_t at, uint32_t v) { std::memcpy(&out[at], &v, 4); };
  const auto put16 = [&](size_t at, uint16_t v) { std::memcpy(&out[at], &v, 2); };
  put32(0, kTable);
  put16(kVtable, 4 + 2 * 14);
  put16(kVtable + 2, 4 + 4 * 14);
  put32(kTable, kTable - kVtable);
  const auto slot = [&](int id) {
    put16(kVtable + 4 + 2 * id, static_cast<uint16_t>(4 + 4 * id));
    return kTable + 4 + 4 * id;
  };
  const auto align = [&] { out.resize((out.size() + 3) / 4 * 4, '\0'); };
  // Appends count + bytes and points `at` (a slot or vector element) to it.
  const auto blob = [&](size_t at, uint32_t count, const std::string& bytes) {
    align();
    put32(at, static_cast<uint32_t>(out.size() - at));
    out.append(4, '\0');
    put32(out.size() - 4, count);
    out += bytes;
    out.push_back('\0');
  };
  const auto words = [](const std::vector<uint32_t>& v) {
    return std::string(reinterpret_cast<const char*>(v.data()), 4 * v.size());
  };
  if (!f.omit_trie) blob(slot(0), f.trie.size(), words(f.trie));
  blob(slot(1), f.failure.size() / 2, words(f.failure));
  blob(slot(2), f.pool.size(), words(f.pool));
  put32(slot(3), f.suffix_root);
  put32(slot(4), static_cast<uint32_t>(f.max_bytes));
  blob(slot(5), f.suffix.size(), f.suffix);
  blob(slot(6), f.unk.size(), f.unk);
  put32(slot(7), static_cast<uint32_t>(f.unk_id));
  blob(slot(8), f.precomputed.size(), words(f.precomputed));
  put32(slot(9), f.punct_node);
  out[slot(10)] = f.end_to_end;
  out[slot(11)] = f.detokenize;
  blob(slot(12), f.vocab.size(), std::string(4 * f.vocab.size(), '\0'));
  const size_t elements = out.size() - 1 - 4 * f.vocab.size();
  for (size_t i = 0; i < f.vocab.size(); ++i) blob(elements + 4 * i, f.vocab[i].size(), f.vocab[i]);
  blob(slot(13), f.is_suffix.size(), f.is_suffix);
  return out;
}

StatusOr<std::vector<Tensor>> Tokenize(const std::vector<std::string>& in, const std::string& model) {
  return RunSingleOp(kTokenize, {Tensor::FromVector(in), Bytes(model)});
}

// Vocabulary ids: [UNK] 0, a 1, abcd 2, ##b 3, ##bc 4, ##z 5, x 6, é 7, ##é 8,
// ! 9. "abcz" needs the failure links: after "abc" no "z" edge, so "a" pops
// and matching goes on from "##bc", which pops at "z", leaving "##z".
TEST(FastWordpieceTest, SingleWordsWithFailureLinks) {
  auto out = Tokenize({"abcz", "", "\xC3\xA9\xC3\xA9", "abq", "##b", "aaaaaaaaa", "##", "abcd"}, SmallModel());
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Values((*out)[0]), (std::vector<std::string>{"a", "##bc", "##z", "\xC3\xA9", "##\xC3\xA9", "[UNK]",
                                                         "##b", "[UNK]", "[UNK]", "abcd"}));
  EXPECT_EQ(Vec<int64_t>((*out)[1]), (std::vector<int64_t>{1, 4, 5, 7, 8, 0, 3, 0, 0, 2}));
  EXPECT_EQ(Vec<int64_t>((*out)[2]), (std::vector<int64_t>{0, 3, 3, 5, 6, 7, 8, 9, 10}));
  EXPECT_EQ(Vec<int64_t>((*out)[3]), (std::vector<int64_t>{0, 1, 3, 0, 2, 0, 0, 0, 0, 0}));
  // "##b" is a suffix piece at the word's start, covering the indicator; the
  // 9-byte word is over max_bytes_per_word (8).
  EXPECT_EQ(Vec<int64_t>((*out)[4]), (std::vector<int64_t>{1, 3, 4, 2, 4, 3, 3, 9, 2, 4}));
}

// The same model switched to end-to-end text: words end at whitespace and
// punctuation; "," is not in the trie, so it is one [UNK]; "abq" cannot be
// segmented and the 10-byte word is too long: each becomes one [UNK].
TEST(FastWordpieceTest, EndToEndText) {
  Fields f = Read(SmallModel());
  f.end_to_end = true;
  auto out = Tokenize({"abcz abcd, x abq aaaaaaaaaa \xC3\xA9\xC3\xA9", ""}, Write(f));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Values((*out)[0]), (std::vector<std::string>{"a", "##bc", "##z", "abcd", "[UNK]", "x", "[UNK]", "[UNK]",
                                                         "\xC3\xA9", "##\xC3\xA9"}));
  EXPECT_EQ(Vec<int64_t>((*out)[1]), (std::vector<int64_t>{1, 4, 5, 2, 0, 6, 0, 0, 7, 8}));
  EXPECT_EQ(Vec<int64_t>((*out)[2]), (std::vector<int64_t>{0, 10, 10}));
  EXPECT_EQ(Vec<int64_t>((*out)[3]), (std::vector<int64_t>{0, 1, 3, 5, 9, 11, 13, 17, 28, 30}));
  EXPECT_EQ(Vec<int64_t>((*out)[4]), (std::vector<int64_t>{1, 3, 4, 9, 10, 12, 16, 27, 30, 32}));
}

TEST(FastWordpieceTest, EmptyBatch) {
  auto out = Tokenize({}, SmallModel());
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape({0}));
  EXPECT_EQ(Vec<int64_t>((*out)[2]), (std::vector<int64_t>{0}));
}

// Rows of ids back to text: a space before each piece that is not a suffix
// piece; a leading suffix piece keeps "##".
TEST(FastWordpieceTest, Detokenize) {
  auto out = RunSingleOp(kDetokenize, {Tensor::FromVector<int32_t>({1, 4, 5, 6, 3, 3, 7, 8}),
                                       Tensor::FromVector<int64_t>({0, 4, 6, 8, 8}), Bytes(SmallModel())});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Values((*out)[0]), (std::vector<std::string>{"abcz x", "##bb", "\xC3\xA9\xC3\xA9", ""}));
  auto none = RunSingleOp(kDetokenize, {Tensor::FromVector<int32_t>({}), Tensor::FromVector<int64_t>({}),
                                        Bytes(SmallModel())});
  ASSERT_TRUE(none.ok()) << none.status().ToString();
  EXPECT_EQ((*none)[0].shape(), Shape({0}));
}

TEST(FastWordpieceTest, DetokenizeErrors) {
  const auto run = [](std::vector<int32_t> ids, std::vector<int64_t> splits, const std::string& model) {
    return RunSingleOp(kDetokenize, {Tensor::FromVector(ids), Tensor::FromVector(splits), Bytes(model)});
  };
  auto bad_id = run({1, 99}, {0, 2}, SmallModel());
  TFHOST_ASSERT_ERROR(
      bad_id, StatusCode::kOutOfRange,
      "node 'test_TFText>FastWordpieceDetokenize' (TFText>FastWordpieceDetokenize): Token ID out of bounds: 99");
  EXPECT_EQ(bad_id.status().message(),
            std::string("node 'test_") + kDetokenize + "' (" + kDetokenize + "): Token ID out of bounds: 99");
  auto bad_splits = run({1, 2}, {0, 3}, SmallModel());
  TFHOST_ASSERT_ERROR(bad_splits, StatusCode::kInvalidArgument,
                      "input_row_splits must be non-decreasing values in [0, 2], got 3 at 1");
  EXPECT_NE(bad_splits.status().message().find("input_row_splits must be non-decreasing values in [0, 2], got 3"),
            std::string::npos);
  Fields f = Read(SmallModel());
  f.detokenize = false;
  auto off = run({1}, {0, 1}, Write(f));
  TFHOST_ASSERT_ERROR(off, StatusCode::kFailedPrecondition,
                      "Detokenize function is only enabled when support_detokenization is true in the config flatbuffer.");
}

// Damaged models fail with the node and what was expected, never a crash.
TEST(FastWordpieceTest, MalformedModels) {
  const std::string good = SmallModel();
  const auto error = [](const std::string& model) {
    auto out = Tokenize({"abcz"}, model);
    return out.ok() ? std::string("ok") : out.status().message();
  };
  const std::string prefix = std::string("node 'test_") + kTokenize + "' (" + kTokenize + "): ";
  EXPECT_EQ(error(good.substr(0, 6)),
            prefix + "malformed wp_model flatbuffer: expected at least 8 bytes (root offset and table), got 6");
  std::string bad_root = good;
  bad_root[2] = '\x7F';
  EXPECT_NE(error(bad_root).find("malformed wp_model flatbuffer: root table offset 8323108 is outside"),
            std::string::npos);
  EXPECT_NE(error(good.substr(0, 200)).find("malformed wp_model flatbuffer: trie_array"), std::string::npos)
      << error(good.substr(0, 200));

  Fields no_trie = Read(good);
  no_trie.omit_trie = true;
  EXPECT_EQ(error(Write(no_trie)),
            prefix + "malformed wp_model flatbuffer: expected a trie_array (field 0), found none");
  Fields short_trie = Read(good);
  short_trie.trie.resize(1);
  EXPECT_NE(error(Write(short_trie)).find("input_values[0]: malformed wp_model flatbuffer: trie node"),
            std::string::npos);
  EXPECT_NE(error(Write(short_trie)).find("is out of range (trie_array has 1 units)"), std::string::npos);
  Fields no_pops = Read(good);
  no_pops.pool.clear();
  EXPECT_NE(error(Write(no_pops)).find("exceed failure_pops_pool (0 entries)"), std::string::npos)
      << error(Write(no_pops));
  Fields no_failures = Read(good);
  no_failures.failure.clear();
  EXPECT_NE(error(Write(no_failures)).find("has no failure_struct_array entry (0 entries)"), std::string::npos);

  auto not_bytes = RunSingleOp(kTokenize, {Tensor::FromVector<std::string>({"a"}), Tensor::FromVector<int32_t>({1})});
  TFHOST_ASSERT_ERROR(not_bytes, StatusCode::kInvalidArgument,
                      "node 'test_FastWordpieceTokenizeWithOffsets' (FastWordpieceTokenizeWithOffsets): input 1 "
                      "'wp_model' (dtype from the schema) is int32,");
  EXPECT_NE(not_bytes.status().message().find("'wp_model' (dtype from the schema) is int32, expected uint8"),
            std::string::npos)
      << not_bytes.status().message();
}

TEST(FastWordpieceTest, Shapes) {
  using ir::PartialShape;
  auto tok = testing::InferShape(kTokenize, {PartialShape::Known({3}), PartialShape::Known({-1})}, {}, 5);
  EXPECT_EQ(tok[0], PartialShape::Known({-1}));
  EXPECT_EQ(tok[2], PartialShape::Known({4}));
  auto detok = testing::InferShape(kDetokenize, {PartialShape::Known({-1}), PartialShape::Known({4}),
                                                 PartialShape::Known({-1})}, {}, 1);
  EXPECT_EQ(detok[0], PartialShape::Known({3}));
}

}  // namespace
}  // namespace tfhost::ops::text_internal
