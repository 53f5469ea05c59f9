#include <cmath>

#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

TEST(EnsureShapeTest, PassesCompatibleShapesAndRejectsOthers) {
  tensorflow::AttrValue shape;
  shape.mutable_shape()->add_dim()->set_size(-1);
  shape.mutable_shape()->add_dim()->set_size(2);
  Tensor x = Tensor::FromVector<float>({1, 2, 3, 4}, Shape({2, 2}));
  auto ok = RunSingleOp("EnsureShape", {x}, {{"shape", shape}, {"T", MakeAttr(DType::kFloat)}});
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_TRUE(TensorsEqual((*ok)[0], x));
  auto bad = RunSingleOp("EnsureShape", {Tensor::FromVector<float>({1, 2, 3}, Shape({1, 3}))}, {{"shape", shape}, {"T", MakeAttr(DType::kFloat)}});
  TFHOST_ASSERT_ERROR(bad, StatusCode::kInvalidArgument,
                      "Shape of tensor [1,3] is not compatible with expected shape [?,2]");
}

TEST(CheckNumericsTest, FailsWithTheMessageOnNanOrInf) {
  Tensor fine = Tensor::FromVector<float>({1, -2});
  EXPECT_TRUE(RunSingleOp("CheckNumerics", {fine}, {{"message", MakeAttr("x")}, {"T", MakeAttr(DType::kFloat)}}).ok());
  auto nan = RunSingleOp("CheckNumerics", {Tensor::FromVector<float>({1, std::nanf("")})}, {{"message", MakeAttr("logits")}, {"T", MakeAttr(DType::kFloat)}});
  TFHOST_ASSERT_ERROR(nan, StatusCode::kInvalidArgument, "logits : Tensor had NaN values");
  auto inf = RunSingleOp("CheckNumericsV2", {Tensor::FromVector<double>({INFINITY})}, {{"message", MakeAttr("m")}, {"T", MakeAttr(DType::kDouble)}});
  TFHOST_ASSERT_ERROR(inf, StatusCode::kInvalidArgument, "m : Tensor had Inf values");
}

TEST(BitcastTest, ReinterpretsBytesAndAdjustsTheLastDim) {
  // float 1.0 = 0x3f800000; as uint16 (little-endian) -> [0x0000, 0x3f80].
  auto wide = RunSingleOp("Bitcast", {Tensor::FromVector<float>({1.0f})},
                          {{"type", MakeAttr(DType::kUInt16)}, {"T", MakeAttr(DType::kFloat)}});
  ASSERT_TRUE(wide.ok()) << wide.status().ToString();
  EXPECT_TRUE(TensorsEqual((*wide)[0], Tensor::FromVector<uint16_t>({0, 0x3f80}, Shape({1, 2}))));
  auto back = RunSingleOp("Bitcast", {(*wide)[0]}, {{"type", MakeAttr(DType::kFloat)}, {"T", MakeAttr(DType::kUInt16)}});
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_TRUE(TensorsEqual((*back)[0], Tensor::FromVector<float>({1.0f})));
  auto same = RunSingleOp("Bitcast", {Tensor::FromVector<int32_t>({-1})},
                          {{"type", MakeAttr(DType::kUInt32)}, {"T", MakeAttr(DType::kInt32)}});
  ASSERT_TRUE(same.ok());
  EXPECT_EQ((*same)[0].data<uint32_t>()[0], 0xffffffffu);
  EXPECT_FALSE(RunSingleOp("Bitcast", {Tensor::FromVector<uint16_t>({1, 2, 3})},
                           {{"type", MakeAttr(DType::kFloat)}, {"T", MakeAttr(DType::kUInt16)}}).ok());
}

}  // namespace
}  // namespace tfhost::ops
