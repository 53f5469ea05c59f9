#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ops/run_single_op.h"
#include "ops/shape_fn_test_util.h"
#include "ops/text/text_test_util.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

const std::vector<std::string> kVocab = {"[UNK]", "don", "'", "t", "tread", "##ness", "un", "##aff", "##able",
                                         "\xC3\xA9", "##t", "##\xC3\xA9"};

class WordpieceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto table = RunSingleOp("HashTableV2", {},
                             {{"key_dtype", MakeAttr(DType::kString)}, {"value_dtype", MakeAttr(DType::kInt64)}},
                             &rm_);
    ASSERT_TRUE(table.ok()) << table.status().ToString();
    handle_ = (*table)[0];
    std::vector<int64_t> ids;
    for (size_t i = 0; i < kVocab.size(); ++i) ids.push_back(static_cast<int64_t>(i));
    auto init = RunSingleOp("InitializeTableV2", {handle_, Strings(kVocab), Tensor::FromVector(ids)}, {}, &rm_);
    ASSERT_TRUE(init.ok()) << init.status().ToString();
  }

  StatusOr<std::vector<Tensor>> Tokenize(const std::vector<std::string>& words, ir::AttrMap extra = {}) {
    ir::AttrMap attrs = {{"suffix_indicator", MakeAttr("##")}, {"max_bytes_per_word", MakeAttr(int64_t{100})},
                         {"use_unknown_token", MakeAttr(true)}, {"unknown_token", MakeAttr("[UNK]")}};
    for (auto& [k, v] : extra) attrs[k] = v;
    return RunSingleOp("WordpieceTokenizeWithOffsets", {Strings(words), handle_}, attrs, &rm_);
  }

  ResourceManager rm_;
  Tensor handle_;
};

// tensorflow-text's documented example, plus an empty word and a word that
// cannot be split (the whole word becomes [UNK]).
TEST_F(WordpieceTest, LongestMatchFirstWithRowLengths) {
  auto out = Tokenize({"don", "'t", "treadness", "", "unaffable", "dont"});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Values((*out)[0]),
            (std::vector<std::string>{"don", "'", "##t", "tread", "##ness", "un", "##aff", "##able", "don", "##t"}));
  EXPECT_EQ(Vec<int64_t>((*out)[1]), (std::vector<int64_t>{1, 2, 2, 0, 3, 2}));
  EXPECT_EQ(Vec<int64_t>((*out)[2]), (std::vector<int64_t>{0, 0, 1, 0, 5, 0, 2, 5, 0, 3}));
  EXPECT_EQ(Vec<int64_t>((*out)[3]), (std::vector<int64_t>{3, 1, 2, 5, 9, 2, 5, 9, 3, 4}));
}

TEST_F(WordpieceTest, UnknownWordsRowSplitsAndNonAscii) {
  auto out = Tokenize({"\xC3\xA9t\xC3\xA9", "xyz", "donx"}, {{"output_row_partition_type", MakeAttr("row_splits")}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Values((*out)[0]), (std::vector<std::string>{"\xC3\xA9", "##t", "##\xC3\xA9", "[UNK]", "[UNK]"}));
  EXPECT_EQ(Vec<int64_t>((*out)[1]), (std::vector<int64_t>{0, 3, 4, 5}));
  EXPECT_EQ(Vec<int64_t>((*out)[2]), (std::vector<int64_t>{0, 2, 3, 0, 0}));
  EXPECT_EQ(Vec<int64_t>((*out)[3]), (std::vector<int64_t>{2, 3, 5, 3, 4}));
}

// Without use_unknown_token the word itself stands in; with
// split_unknown_characters an unmatched character is its own piece.
TEST_F(WordpieceTest, SplitUnknownCharactersAndNoUnknownToken) {
  auto split = Tokenize({"donx\xC3\xA9"}, {{"split_unknown_characters", MakeAttr(true)}});
  ASSERT_TRUE(split.ok()) << split.status().ToString();
  EXPECT_EQ(Values((*split)[0]), (std::vector<std::string>{"don", "##[UNK]", "##\xC3\xA9"}));
  EXPECT_EQ(Vec<int64_t>((*split)[3]), (std::vector<int64_t>{3, 4, 6}));
  auto raw = Tokenize({"donx", "dox"}, {{"use_unknown_token", MakeAttr(false)}, {"split_unknown_characters",
                                                                                 MakeAttr(true)}});
  ASSERT_TRUE(raw.ok()) << raw.status().ToString();
  EXPECT_EQ(Values((*raw)[0]), (std::vector<std::string>{"don", "##x", "d", "##o", "##x"}));
  auto whole = Tokenize({"donx"}, {{"use_unknown_token", MakeAttr(false)}});
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  EXPECT_EQ(Values((*whole)[0]), (std::vector<std::string>{"donx"}));
}

// A word over max_bytes_per_word is one [UNK] whose end offset is the length
// of "[UNK]" (tensorflow-text's quirk), or the word with its own length.
// max_chars_per_token caps the candidates: "tread" (5 chars) is out of reach.
TEST_F(WordpieceTest, ByteAndCharacterLimits) {
  auto long_word = Tokenize({"unaffable", "don"}, {{"max_bytes_per_word", MakeAttr(int64_t{8})}});
  ASSERT_TRUE(long_word.ok()) << long_word.status().ToString();
  EXPECT_EQ(Values((*long_word)[0]), (std::vector<std::string>{"[UNK]", "don"}));
  EXPECT_EQ(Vec<int64_t>((*long_word)[3]), (std::vector<int64_t>{5, 3}));
  auto kept = Tokenize({"unaffable"}, {{"max_bytes_per_word", MakeAttr(int64_t{8})},
                                       {"use_unknown_token", MakeAttr(false)}});
  ASSERT_TRUE(kept.ok());
  EXPECT_EQ(Vec<int64_t>((*kept)[3]), (std::vector<int64_t>{9}));
  auto capped = Tokenize({"tread", "un"}, {{"max_chars_per_token", MakeAttr(int64_t{4})}});
  ASSERT_TRUE(capped.ok()) << capped.status().ToString();
  EXPECT_EQ(Values((*capped)[0]), (std::vector<std::string>{"[UNK]", "un"}));
}

TEST_F(WordpieceTest, EmptyBatch) {
  auto out = Tokenize({});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape({0}));
  EXPECT_EQ((*out)[1].shape(), Shape({0}));
}

TEST_F(WordpieceTest, MissingOrMistypedTableIsAnError) {
  Tensor missing(DType::kResource, Shape());
  missing.strings()[0] = "no_such_table";
  auto out = RunSingleOp("WordpieceTokenizeWithOffsets", {Strings({"a"}), missing},
                         {{"suffix_indicator", MakeAttr("##")}, {"max_bytes_per_word", MakeAttr(int64_t{100})},
                          {"use_unknown_token", MakeAttr(true)}, {"unknown_token", MakeAttr("[UNK]")}},
                         &rm_);
  TFHOST_ASSERT_ERROR(out, StatusCode::kFailedPrecondition,
                      "node 'test_WordpieceTokenizeWithOffsets' (WordpieceTokenizeWithOffsets): vocab_lookup_table "
                      "'no_such_table' does not exist (the op that");
  EXPECT_EQ(out.status().message(),
            "node 'test_WordpieceTokenizeWithOffsets' (WordpieceTokenizeWithOffsets): vocab_lookup_table "
            "'no_such_table' does not exist (the op that creates it has not run)");

  auto ints = RunSingleOp("HashTableV2", {},
                          {{"key_dtype", MakeAttr(DType::kString)}, {"value_dtype", MakeAttr(DType::kInt32)},
                           {"shared_name", MakeAttr("int32_table")}},
                          &rm_);
  ASSERT_TRUE(ints.ok()) << ints.status().ToString();
  auto typed = RunSingleOp("WordpieceTokenizeWithOffsets", {Strings({"a"}), (*ints)[0]},
                           {{"suffix_indicator", MakeAttr("##")}, {"max_bytes_per_word", MakeAttr(int64_t{100})},
                            {"use_unknown_token", MakeAttr(true)}, {"unknown_token", MakeAttr("[UNK]")}},
                           &rm_);
  TFHOST_ASSERT_ERROR(typed, StatusCode::kInvalidArgument,
                      "vocab_lookup_table must map strings to int64 scalars, got a string -> int32 hash table");
  EXPECT_NE(typed.status().message().find("vocab_lookup_table must map strings to int64 scalars"),
            std::string::npos)
      << typed.status().message();
}

TEST(WordpieceShapeTest, RowLengthsOrRowSplits) {
  using ir::PartialShape;
  const std::vector<PartialShape> in = {PartialShape::Known({6}), PartialShape::Scalar()};
  auto lengths = testing::InferShape("WordpieceTokenizeWithOffsets", in, {}, 4);
  EXPECT_EQ(lengths[0], PartialShape::Known({-1}));
  EXPECT_EQ(lengths[1], PartialShape::Known({6}));
  auto splits = testing::InferShape("WordpieceTokenizeWithOffsets", in, {}, 4,
                                    {{"output_row_partition_type", MakeAttr("row_splits")}});
  EXPECT_EQ(splits[1], PartialShape::Known({7}));
}

}  // namespace
}  // namespace tfhost::ops
