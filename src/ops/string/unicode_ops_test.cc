#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ops/run_single_op.h"
#include "ops/shape_fn_test_util.h"
#include "ops/shape_inference.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

using testing::InferShape;

Tensor Strings(std::vector<std::string> v) { return Tensor::FromVector(v); }

template <typename T>
std::vector<T> Vec(const Tensor& t) {
  return std::vector<T>(t.data<T>(), t.data<T>() + t.NumElements());
}

StatusOr<std::vector<Tensor>> Decode(std::vector<std::string> in, const std::string& encoding, ir::AttrMap extra = {},
                                     const std::string& op = "UnicodeDecodeWithOffsets") {
  extra["input_encoding"] = MakeAttr(encoding);
  return RunSingleOp(op, {Strings(std::move(in))}, extra);
}

TEST(UnicodeOpsTest, DecodeUtf8GivesRaggedCodePointsAndByteOffsets) {
  auto out = Decode({"h\xC3\xA9llo", "", "\xF0\x9F\x98\x80!"}, "UTF-8");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Vec<int64_t>((*out)[0]), (std::vector<int64_t>{0, 5, 5, 7}));
  EXPECT_EQ(Vec<int32_t>((*out)[1]), (std::vector<int32_t>{'h', 0xE9, 'l', 'l', 'o', 0x1F600, '!'}));
  EXPECT_EQ(Vec<int64_t>((*out)[2]), (std::vector<int64_t>{0, 1, 3, 4, 5, 0, 4}));
}

// One replacement per maximal subpart, as ICU reports: E0 80 80 is three
// errors (E0 needs A0..BF next), a cut-off F0 9F 98 is one, C3 before '(' one.
TEST(UnicodeOpsTest, IllFormedUtf8IsReplacedPerMaximalSubpart) {
  auto out = Decode({"a\xE0\x80\x80" "b", "\xC3(", "x\xF0\x9F\x98"}, "UTF-8");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(Vec<int64_t>((*out)[0]), (std::vector<int64_t>{0, 5, 7, 9}));
  EXPECT_EQ(Vec<int32_t>((*out)[1]),
            (std::vector<int32_t>{'a', 0xFFFD, 0xFFFD, 0xFFFD, 'b', 0xFFFD, '(', 'x', 0xFFFD}));
  EXPECT_EQ(Vec<int64_t>((*out)[2]), (std::vector<int64_t>{0, 1, 2, 3, 4, 0, 1, 0, 1}));
}

TEST(UnicodeOpsTest, ErrorPoliciesReplaceIgnoreOrFail) {
  auto custom = Decode({"a\xFF" "b"}, "utf8", {{"replacement_char", MakeAttr(int64_t{63})}}, "UnicodeDecode");
  ASSERT_TRUE(custom.ok()) << custom.status().ToString();
  EXPECT_EQ(Vec<int32_t>((*custom)[1]), (std::vector<int32_t>{'a', '?', 'b'}));
  auto ignore = Decode({"a\xFF" "b"}, "UTF-8", {{"errors", MakeAttr("ignore")}});
  ASSERT_TRUE(ignore.ok());
  EXPECT_EQ(Vec<int32_t>((*ignore)[1]), (std::vector<int32_t>{'a', 'b'}));
  EXPECT_EQ(Vec<int64_t>((*ignore)[2]), (std::vector<int64_t>{0, 2}));  // offsets still count the dropped byte
  auto strict = Decode({"ok", "a\xFF"}, "UTF-8", {{"errors", MakeAttr("strict")}});
  TFHOST_ASSERT_ERROR(strict, StatusCode::kInvalidArgument, "Invalid formatting on input string (element 1)");
  auto control = Decode({"a\tb"}, "UTF-8", {{"replace_control_characters", MakeAttr(true)}});
  ASSERT_TRUE(control.ok());
  EXPECT_EQ(Vec<int32_t>((*control)[1]), (std::vector<int32_t>{'a', 0xFFFD, 'b'}));
  auto bad_subst = Decode({"a"}, "UTF-8", {{"replacement_char", MakeAttr(int64_t{0x110000})}});
  TFHOST_ASSERT_ERROR(bad_subst, StatusCode::kInvalidArgument,
                      "replacement_char out of unicode codepoint range, got 1114112");
  auto latin1 = Decode({"a"}, "ISO-8859-1");
  TFHOST_ASSERT_ERROR(latin1, StatusCode::kInvalidArgument,
                      "Could not create converter for input encoding: ISO-8859-1 (tfhost supports UTF-8, UTF-16-BE and");
  EXPECT_NE(latin1.status().message().find("Could not create converter for input encoding: ISO-8859-1"),
            std::string::npos);
}

TEST(UnicodeOpsTest, DecodesUtf16AndUtf32BigEndian) {
  // U+1F600 as a surrogate pair, 'A', a lone trail surrogate, a dangling byte.
  auto u16 = Decode({std::string("\xD8\x3D\xDE\x00\x00" "A\xDC\x00\x01", 9)}, "UTF-16-BE",
                    {{"Tsplits", MakeAttr(DType::kInt32)}});
  ASSERT_TRUE(u16.ok()) << u16.status().ToString();
  EXPECT_EQ(Vec<int32_t>((*u16)[0]), (std::vector<int32_t>{0, 4}));
  EXPECT_EQ(Vec<int32_t>((*u16)[1]), (std::vector<int32_t>{0x1F600, 'A', 0xFFFD, 0xFFFD}));
  EXPECT_EQ(Vec<int64_t>((*u16)[2]), (std::vector<int64_t>{0, 4, 6, 8}));
  auto u32 = Decode({std::string("\x00\x01\xF6\x00\x00\x11\x00\x00\x00\x00", 10)}, "UTF-32-BE");
  ASSERT_TRUE(u32.ok());
  EXPECT_EQ(Vec<int32_t>((*u32)[1]), (std::vector<int32_t>{0x1F600, 0xFFFD, 0xFFFD}));
}

StatusOr<std::vector<Tensor>> Encode(std::vector<int32_t> values, std::vector<int64_t> splits,
                                     const std::string& encoding, const std::string& errors = "replace") {
  return RunSingleOp("UnicodeEncode", {Tensor::FromVector(values), Tensor::FromVector(splits)},
                     {{"output_encoding", MakeAttr(encoding)}, {"errors", MakeAttr(errors)}});
}

TEST(UnicodeOpsTest, EncodeWritesOneStringPerRow) {
  auto out = Encode({'h', 0xE9, 0x1F600, -1, 0xFFFF}, {0, 2, 2, 5}, "UTF-8");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ((*out)[0].shape(), Shape({3}));
  EXPECT_EQ((*out)[0].strings()[0], "h\xC3\xA9");
  EXPECT_EQ((*out)[0].strings()[1], "");
  EXPECT_EQ((*out)[0].strings()[2], "\xF0\x9F\x98\x80\xEF\xBF\xBD\xEF\xBF\xBD");  // -1 and U+FFFF replaced
  auto ignore = Encode({0x1F600, -1, 0x110000, 'a'}, {0, 4}, "UTF-16-BE", "ignore");
  ASSERT_TRUE(ignore.ok());
  EXPECT_EQ((*ignore)[0].strings()[0], std::string("\xD8\x3D\xDE\x00\x00" "a", 6));
  auto u32 = Encode({'a', 0x1F600}, {0, 2}, "UTF-32-BE");
  ASSERT_TRUE(u32.ok());
  EXPECT_EQ((*u32)[0].strings()[0], std::string("\x00\x00\x00" "a\x00\x01\xF6\x00", 8));
}

TEST(UnicodeOpsTest, EncodeRejectsBadSplitsAndStrictErrors) {
  auto first = Encode({'a'}, {1, 1}, "UTF-8");
  TFHOST_ASSERT_ERROR(first, StatusCode::kInvalidArgument, "First value in input_splits must be zero.");
  auto last = Encode({'a', 'b'}, {0, 1}, "UTF-8");
  TFHOST_ASSERT_ERROR(last, StatusCode::kInvalidArgument,
                      "Last value in input_splits must be equal to length of input_tensor (2), got 1");
  auto order = Encode({'a', 'b'}, {0, 2, 1, 2}, "UTF-8");
  TFHOST_ASSERT_ERROR(order, StatusCode::kInvalidArgument,
                      "Values in input_splits must be equal or in ascending order.");
  auto strict = Encode({'a', 0xD800}, {0, 2}, "UTF-8", "strict");
  TFHOST_ASSERT_ERROR(strict, StatusCode::kInvalidArgument,
                      "Code point is out of range for Unicode, or a noncharacter: 55296");
  auto empty = RunSingleOp("UnicodeEncode", {Tensor::FromVector(std::vector<int32_t>{}),
                                             Tensor::FromVector(std::vector<int64_t>{})},
                           {{"output_encoding", MakeAttr("UTF-8")}});
  TFHOST_EXPECT_ERROR(empty, StatusCode::kInvalidArgument,
                      "input_splits must be a 1-D tensor with at least one element, got shape [0]");
}

TEST(UnicodeOpsTest, TranscodeConvertsBetweenEncodingsAndKeepsShape) {
  Tensor in = Tensor::FromVector(std::vector<std::string>{"A\xC3\xA9", "\xF0\x9F\x98\x80", "a\xFF", "x"}, Shape({2, 2}));
  auto u16 = RunSingleOp("UnicodeTranscode", {in},
                         {{"input_encoding", MakeAttr("UTF-8")}, {"output_encoding", MakeAttr("UTF-16-BE")}});
  ASSERT_TRUE(u16.ok()) << u16.status().ToString();
  EXPECT_EQ((*u16)[0].shape(), Shape({2, 2}));
  EXPECT_EQ((*u16)[0].strings()[0], std::string("\x00" "A\x00\xE9", 4));
  EXPECT_EQ((*u16)[0].strings()[1], std::string("\xD8\x3D\xDE\x00", 4));
  EXPECT_EQ((*u16)[0].strings()[2], std::string("\x00" "a\xFF\xFD", 4));
  auto back = RunSingleOp("UnicodeTranscode", {(*u16)[0]},
                          {{"input_encoding", MakeAttr("UTF-16-BE")}, {"output_encoding", MakeAttr("UTF-8")}});
  ASSERT_TRUE(back.ok());
  EXPECT_EQ((*back)[0].strings()[0], "A\xC3\xA9");
  EXPECT_EQ((*back)[0].strings()[1], "\xF0\x9F\x98\x80");
  EXPECT_EQ((*back)[0].strings()[2], "a\xEF\xBF\xBD");
  auto strict = RunSingleOp("UnicodeTranscode", {in},
                            {{"input_encoding", MakeAttr("UTF-8")}, {"output_encoding", MakeAttr("UTF-8")},
                             {"errors", MakeAttr("strict")}});
  TFHOST_ASSERT_ERROR(strict, StatusCode::kInvalidArgument,
                      "Invalid formatting on input string (element 2, not valid UTF-8)");
  auto bad_out = RunSingleOp("UnicodeTranscode", {in},
                             {{"input_encoding", MakeAttr("UTF-8")}, {"output_encoding", MakeAttr("UTF-7")}});
  TFHOST_EXPECT_ERROR(bad_out, StatusCode::kInvalidArgument,
                      "node 'test_UnicodeTranscode' (UnicodeTranscode): attr 'output_encoding' is 'UTF-7', which is not one "
                      "of its allowed values ('UTF-8', 'UTF-16-BE', 'UTF-32-BE')");
}

using ir::PartialShape;

TEST(UnicodeOpsTest, ShapeFunctionsGiveRaggedComponentsAndOneStringPerRow) {
  auto dec = InferShape("UnicodeDecodeWithOffsets", {PartialShape::Known({2, 3})}, {}, 3);
  EXPECT_EQ(dec[0], PartialShape::Known({7}));
  EXPECT_EQ(dec[1], PartialShape::Known({-1}));
  EXPECT_EQ(dec[2], PartialShape::Known({-1}));
  auto enc = InferShape("UnicodeEncode", {PartialShape::Known({-1}), PartialShape::Known({4})}, {}, 1);
  EXPECT_EQ(enc[0], PartialShape::Known({3}));
  auto tr = InferShape("UnicodeTranscode", {PartialShape::Known({2, 2})}, {}, 1);
  EXPECT_EQ(tr[0], PartialShape::Known({2, 2}));
}

}  // namespace
}  // namespace tfhost::ops
