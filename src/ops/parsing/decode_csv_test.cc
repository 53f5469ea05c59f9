#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

Tensor Strings(std::vector<std::string> v) { return Tensor::FromVector(v); }

ir::AttrMap CsvAttrs(std::vector<DType> types) { return {{"OUT_TYPE", MakeAttr(types)}}; }

TEST(DecodeCsvTest, ConvertsEachColumnAndFillsDefaultsForEmptyFields) {
  auto out = RunSingleOp("DecodeCSV",
                         {Strings({"1,2.5,abc,7", ",,,", " 3 ,-1e3,\"x,y\",-9000000000"}),
                          Tensor::FromVector<int32_t>({-1}), Tensor::FromVector<float>({0.5f}),
                          Tensor::FromVector<std::string>({"dflt"}), Tensor::FromVector<int64_t>({42})},
                         CsvAttrs({DType::kInt32, DType::kFloat, DType::kString, DType::kInt64}));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), 4u);
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int32_t>({1, -1, 3})));
  EXPECT_TRUE(TensorsEqual((*out)[1], Tensor::FromVector<float>({2.5f, 0.5f, -1000.f})));
  EXPECT_TRUE(TensorsEqual((*out)[2], Strings({"abc", "dflt", "x,y"})));
  EXPECT_TRUE(TensorsEqual((*out)[3], Tensor::FromVector<int64_t>({7, 42, -9000000000LL})));
}

TEST(DecodeCsvTest, DoubledQuotesInsideQuotedFieldAreOneQuote) {
  auto out = RunSingleOp("DecodeCSV", {Strings({"\"say \"\"hi\"\"\";z"}), Tensor::FromVector<std::string>({""}),
                                       Tensor::FromVector<std::string>({""})},
                         {{"OUT_TYPE", MakeAttr(std::vector<DType>{DType::kString, DType::kString})},
                          {"field_delim", MakeAttr(";")}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Strings({"say \"hi\""})));
  EXPECT_TRUE(TensorsEqual((*out)[1], Strings({"z"})));
}

TEST(DecodeCsvTest, NaValueTakesTheDefault) {
  auto out = RunSingleOp("DecodeCSV", {Strings({"NA,1", "2,NA"}), Tensor::FromVector<float>({9.f}),
                                       Tensor::FromVector<float>({8.f})},
                         {{"OUT_TYPE", MakeAttr(std::vector<DType>{DType::kFloat, DType::kFloat})},
                          {"na_value", MakeAttr("NA")}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<float>({9.f, 2.f})));
  EXPECT_TRUE(TensorsEqual((*out)[1], Tensor::FromVector<float>({1.f, 8.f})));
}

TEST(DecodeCsvTest, SelectColsKeepsOnlyTheChosenColumns) {
  auto out = RunSingleOp("DecodeCSV", {Strings({"a,b,c,d"}), Tensor::FromVector<std::string>({""}),
                                       Tensor::FromVector<std::string>({""})},
                         {{"OUT_TYPE", MakeAttr(std::vector<DType>{DType::kString, DType::kString})},
                          {"select_cols", MakeAttr(std::vector<int64_t>{1, 3})}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Strings({"b"})));
  EXPECT_TRUE(TensorsEqual((*out)[1], Strings({"d"})));
}

TEST(DecodeCsvTest, MissingRequiredFieldIsAnError) {
  auto out = RunSingleOp("DecodeCSV", {Strings({"1,"}), Tensor::FromVector<int32_t>({0}),
                                       Tensor(DType::kInt32, Shape({0}))},
                         CsvAttrs({DType::kInt32, DType::kInt32}));
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument, "Field 1 is required but missing in record 0!");
}

TEST(DecodeCsvTest, WrongFieldCountIsAnError) {
  auto out = RunSingleOp("DecodeCSV", {Strings({"1,2,3"}), Tensor::FromVector<int32_t>({0}),
                                       Tensor::FromVector<int32_t>({0})},
                         CsvAttrs({DType::kInt32, DType::kInt32}));
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument, "Expect 2 fields but have 3 in record 0");
}

TEST(DecodeCsvTest, MalformedNumbersAndQuotesAreErrors) {
  auto attrs = CsvAttrs({DType::kInt32});
  TFHOST_EXPECT_ERROR(RunSingleOp("DecodeCSV", {Strings({"12x"}), Tensor::FromVector<int32_t>({0})}, attrs), StatusCode::kInvalidArgument,
                      "Field 0 in record 0 is not a valid int32: 12x");
  TFHOST_EXPECT_ERROR(RunSingleOp("DecodeCSV", {Strings({"99999999999"}), Tensor::FromVector<int32_t>({0})}, attrs), StatusCode::kInvalidArgument,
                      "Field 0 in record 0 is not a valid int32: 99999999999");
  auto sattrs = CsvAttrs({DType::kString});
  TFHOST_EXPECT_ERROR(RunSingleOp("DecodeCSV", {Strings({"a\"b"}), Tensor::FromVector<std::string>({""})}, sattrs), StatusCode::kInvalidArgument,
                      "Unquoted fields cannot have quotes inside in record 0");
  TFHOST_EXPECT_ERROR(RunSingleOp("DecodeCSV", {Strings({"\"ab\"c"}), Tensor::FromVector<std::string>({""})}, sattrs), StatusCode::kInvalidArgument,
                      "Quote inside a string has to be escaped by another quote in record 0");
  TFHOST_EXPECT_ERROR(RunSingleOp("DecodeCSV", {Strings({"\"abc"}), Tensor::FromVector<std::string>({""})}, sattrs), StatusCode::kInvalidArgument,
                      "Quoted field has to end with quote followed by delim or end in record 0");
}

TEST(DecodeCsvTest, DefaultOfTwoElementsIsAnError) {
  auto out = RunSingleOp("DecodeCSV", {Strings({"1"}), Tensor::FromVector<int32_t>({0, 1})},
                         CsvAttrs({DType::kInt32}));
  TFHOST_EXPECT_ERROR(out, StatusCode::kInvalidArgument,
                      "record_defaults[0] must have at most one element, got shape [2]");
}

}  // namespace
}  // namespace tfhost::ops
