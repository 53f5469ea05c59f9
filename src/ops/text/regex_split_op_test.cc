#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ops/run_single_op.h"
#include "ops/shape_fn_test_util.h"
#include "ops/text/text_test_util.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

// The Python wrapper passes "(" + pattern + ")" for both patterns.
StatusOr<std::vector<Tensor>> Split(const std::vector<std::string>& in, const std::string& delim,
                                    const std::string& keep) {
  return RunSingleOp("RegexSplitWithOffsets",
                     {Strings(in), Tensor::StringScalar(delim), Tensor::StringScalar(keep)});
}

TEST(RegexSplitWithOffsetsTest, DropsDelimitersAndEmptyTokens) {
  auto out = Split({"hello  there", "", "  ", "one"}, "(\\s)", "()");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Values((*out)[0]), (std::vector<std::string>{"hello", "there", "one"}));
  EXPECT_EQ(Vec<int64_t>((*out)[1]), (std::vector<int64_t>{0, 7, 0}));
  EXPECT_EQ(Vec<int64_t>((*out)[2]), (std::vector<int64_t>{5, 12, 3}));
  EXPECT_EQ(Vec<int64_t>((*out)[3]), (std::vector<int64_t>{0, 2, 2, 2, 3}));
}

// BertTokenizer's basic split: whitespace dropped, punctuation and CJK
// ideographs kept as tokens of their own; offsets are bytes (東 and 京 are
// three bytes each, é two).
TEST(RegexSplitWithOffsetsTest, KeepsDelimitersThatMatchTheKeepPattern) {
  auto out = Split({"caf\xC3\xA9, \xE6\x9D\xB1\xE4\xBA\xAC!"}, "(\\s+|\\p{P}|[\\x{4E00}-\\x{9FFF}])",
                   "(\\p{P}|[\\x{4E00}-\\x{9FFF}])");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Values((*out)[0]),
            (std::vector<std::string>{"caf\xC3\xA9", ",", "\xE6\x9D\xB1", "\xE4\xBA\xAC", "!"}));
  EXPECT_EQ(Vec<int64_t>((*out)[1]), (std::vector<int64_t>{0, 5, 7, 10, 13}));
  EXPECT_EQ(Vec<int64_t>((*out)[2]), (std::vector<int64_t>{5, 6, 10, 13, 14}));
  EXPECT_EQ(Vec<int64_t>((*out)[3]), (std::vector<int64_t>{0, 5}));
}

// Raw op semantics: the token before a delimiter ends where group 1 starts
// (so "a" of "ab" stays with "x"), a pattern without a group splits nothing,
// and a string is read up to its first NUL byte.
TEST(RegexSplitWithOffsetsTest, GroupOneNoGroupAndNulTruncation) {
  auto grouped = Split({"xaby"}, "a(b)", "");
  ASSERT_TRUE(grouped.ok()) << grouped.status().ToString();
  EXPECT_EQ(Values((*grouped)[0]), (std::vector<std::string>{"xa", "y"}));
  EXPECT_EQ(Vec<int64_t>((*grouped)[2]), (std::vector<int64_t>{2, 4}));

  auto no_group = Split({"a b"}, "\\s", "");
  ASSERT_TRUE(no_group.ok()) << no_group.status().ToString();
  EXPECT_EQ(Values((*no_group)[0]), (std::vector<std::string>{"a b"}));

  auto nul = Split({std::string("ab cd\0ef gh", 11)}, "(\\s)", "");
  ASSERT_TRUE(nul.ok()) << nul.status().ToString();
  EXPECT_EQ(Values((*nul)[0]), (std::vector<std::string>{"ab", "cd"}));
}

TEST(RegexSplitWithOffsetsTest, EmptyBatch) {
  auto out = Split({}, "(\\s)", "");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape({0}));
  EXPECT_EQ(Vec<int64_t>((*out)[3]), (std::vector<int64_t>{0}));
}

TEST(RegexSplitWithOffsetsTest, BadPatternsAreErrors) {
  auto invalid = Split({"a"}, "(unclosed", "");
  TFHOST_ASSERT_ERROR(invalid, StatusCode::kInvalidArgument,
                      "node 'test_RegexSplitWithOffsets' (RegexSplitWithOffsets): Invalid pattern: (unclosed, error: "
                      "missing ): (unclosed");
  EXPECT_EQ(invalid.status().message(),
            "node 'test_RegexSplitWithOffsets' (RegexSplitWithOffsets): Invalid pattern: (unclosed, error: "
            "missing ): (unclosed");

  // tensorflow-text would loop forever on an empty delimiter match.
  auto empty_match = Split({"ab"}, "(x*)", "");
  TFHOST_ASSERT_ERROR(empty_match, StatusCode::kInvalidArgument,
                      "delim_regex_pattern matched the empty string in input 0 at byte 0; an empty delimiter would never");
  EXPECT_NE(empty_match.status().message().find("matched the empty string in input 0 at byte 0"),
            std::string::npos)
      << empty_match.status().message();

  auto not_scalar = RunSingleOp("RegexSplitWithOffsets", {Strings({"a"}), Strings({"(a)", "(b)"}),
                                                          Tensor::StringScalar("")});
  TFHOST_ASSERT_ERROR(not_scalar, StatusCode::kInvalidArgument,
                      "delim_regex_pattern must be a string scalar, got string[2]");
  EXPECT_NE(not_scalar.status().message().find("delim_regex_pattern must be a string scalar, got string[2]"),
            std::string::npos)
      << not_scalar.status().message();
}

TEST(RegexSplitWithOffsetsTest, ShapeHasOneSplitPerInputPlusOne) {
  using ir::PartialShape;
  auto shapes = testing::InferShape("RegexSplitWithOffsets",
                                    {PartialShape::Known({4}), PartialShape::Scalar(), PartialShape::Scalar()}, {}, 4);
  EXPECT_EQ(shapes[0], PartialShape::Known({-1}));
  EXPECT_EQ(shapes[2], PartialShape::Known({-1}));
  EXPECT_EQ(shapes[3], PartialShape::Known({5}));
}

}  // namespace
}  // namespace tfhost::ops
