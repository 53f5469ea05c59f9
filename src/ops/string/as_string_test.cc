#include <gtest/gtest.h>

#include <cmath>

#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

Tensor Strings(std::vector<std::string> v) { return Tensor::FromVector(v); }

TEST(AsStringTest, FloatsDefaultToSixDecimals) {
  auto out = RunSingleOp("AsString", {Tensor::FromVector<float>({3.5f, -0.25f, 1e10f})});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Strings({"3.500000", "-0.250000", "10000000000.000000"})));
}

TEST(AsStringTest, PrecisionScientificShortestWidthAndFill) {
  Tensor x = Tensor::FromVector<double>({3.14159, 0.0001});
  auto prec = RunSingleOp("AsString", {x}, {{"precision", MakeAttr(2)}});
  ASSERT_TRUE(prec.ok()) << prec.status().ToString();
  EXPECT_TRUE(TensorsEqual((*prec)[0], Strings({"3.14", "0.00"})));
  auto sci = RunSingleOp("AsString", {x}, {{"scientific", MakeAttr(true)}, {"precision", MakeAttr(1)}});
  ASSERT_TRUE(sci.ok());
  EXPECT_TRUE(TensorsEqual((*sci)[0], Strings({"3.1e+00", "1.0e-04"})));
  auto shortest = RunSingleOp("AsString", {x}, {{"shortest", MakeAttr(true)}});
  ASSERT_TRUE(shortest.ok());
  EXPECT_TRUE(TensorsEqual((*shortest)[0], Strings({"3.14159", "0.0001"})));
  auto padded = RunSingleOp("AsString", {Tensor::FromVector<int32_t>({7, -42})},
                            {{"width", MakeAttr(5)}, {"fill", MakeAttr("0")}});
  ASSERT_TRUE(padded.ok()) << padded.status().ToString();
  EXPECT_TRUE(TensorsEqual((*padded)[0], Strings({"00007", "-0042"})));
  auto left = RunSingleOp("AsString", {Tensor::FromVector<int64_t>({7})},
                          {{"width", MakeAttr(3)}, {"fill", MakeAttr("-")}});
  ASSERT_TRUE(left.ok());
  EXPECT_TRUE(TensorsEqual((*left)[0], Strings({"7  "})));
}

TEST(AsStringTest, BoolsAndIntegers) {
  Tensor b(DType::kBool, Shape({2}));
  b.data<bool>()[0] = true;
  auto out = RunSingleOp("AsString", {b});
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(TensorsEqual((*out)[0], Strings({"true", "false"})));
  auto ints = RunSingleOp("AsString", {Tensor::FromVector<int64_t>({INT64_MIN, 0})});
  ASSERT_TRUE(ints.ok());
  EXPECT_TRUE(TensorsEqual((*ints)[0], Strings({"-9223372036854775808", "0"})));
}

TEST(AsStringTest, RejectsBadAttrCombinations) {
  Tensor f = Tensor::FromVector<float>({1});
  TFHOST_EXPECT_ERROR(RunSingleOp("AsString", {f}, {{"scientific", MakeAttr(true)}, {"shortest", MakeAttr(true)}}), StatusCode::kInvalidArgument,
                      "Cannot select both scientific and shortest notation");
  TFHOST_EXPECT_ERROR(RunSingleOp("AsString", {f}, {{"fill", MakeAttr("x")}}), StatusCode::kInvalidArgument,
                      "Fill argument not supported: \"x\"");
  TFHOST_EXPECT_ERROR(RunSingleOp("AsString", {f}, {{"fill", MakeAttr("00")}}), StatusCode::kInvalidArgument,
                      "Fill string must be one or fewer characters, got '00'");
  TFHOST_EXPECT_ERROR(RunSingleOp("AsString", {Tensor::FromVector<int32_t>({1})}, {{"precision", MakeAttr(2)}}), StatusCode::kInvalidArgument,
                      "precision, scientific and shortest apply only to floating-point input, got DT_INT32");
  TFHOST_EXPECT_ERROR(RunSingleOp("AsString", {f}, {{"width", MakeAttr(1 << 30)}}), StatusCode::kInvalidArgument,
                      "width and precision must be at most 4096");
}

TEST(StringToNumberTest, ParsesFloatsAndIntsWithWhitespace) {
  auto f = RunSingleOp("StringToNumber", {Strings({"1.5", " -2e3 ", "inf"})});
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_EQ((*f)[0].data<float>()[0], 1.5f);
  EXPECT_EQ((*f)[0].data<float>()[1], -2000.0f);
  EXPECT_TRUE(std::isinf((*f)[0].data<float>()[2]));
  auto i = RunSingleOp("StringToNumber", {Strings({"42", "+7", "-9223372036854775808"})},
                       {{"out_type", MakeAttr(DType::kInt64)}});
  ASSERT_TRUE(i.ok()) << i.status().ToString();
  EXPECT_TRUE(TensorsEqual((*i)[0], Tensor::FromVector<int64_t>({42, 7, INT64_MIN})));
}

TEST(StringToNumberTest, BadTextIsAnErrorNamingTheValue) {
  auto out = RunSingleOp("StringToNumber", {Strings({"12", "12abc"})});
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "StringToNumberOp could not correctly convert string: 12abc (index 1, as float32)");
  EXPECT_FALSE(RunSingleOp("StringToNumber", {Strings({"3000000000"})},
                           {{"out_type", MakeAttr(DType::kInt32)}}).ok());  // overflow
  EXPECT_FALSE(RunSingleOp("StringToNumber", {Strings({"1.5"})},
                           {{"out_type", MakeAttr(DType::kInt32)}}).ok());
  TFHOST_EXPECT_ERROR(RunSingleOp("StringToNumber", {Strings({""})}), StatusCode::kInvalidArgument,
                      "StringToNumberOp could not correctly convert string:  (index 0, as float32)");
}

}  // namespace
}  // namespace tfhost::ops
