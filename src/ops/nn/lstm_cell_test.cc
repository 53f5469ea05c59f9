#include "ops/nn/lstm_cell.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ops/run_single_op.h"

namespace tfhost::ops::nn {
namespace {

Tensor Wave(const Shape& shape, float scale, float shift) {
  Tensor t(DType::kFloat, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = std::sin(0.37f * i + shift) * scale;
  return t;
}

Tensor One(const std::string& op, std::vector<Tensor> in, ir::AttrMap attrs = {}) {
  if (attrs.count("T") == 0 && op != "Split") attrs["T"] = MakeAttr(DType::kFloat);
  auto out = RunSingleOp(op, std::move(in), attrs);
  EXPECT_TRUE(out.ok()) << op << ": " << out.status().ToString();
  return out.ok() ? (*out)[0] : Tensor();
}

// The Keras step as separate reference ops: h and c_out.
std::pair<Tensor, Tensor> ByOps(const Tensor& x, const Tensor& y, const Tensor& bias, const Tensor& c) {
  Tensor z = One("BiasAdd", {One("AddV2", {x, y}), bias});
  auto parts = RunSingleOp("Split", {Tensor::Scalar<int32_t>(1), z},
                           {{"T", MakeAttr(DType::kFloat)}, {"num_split", MakeAttr(int64_t{4})}});
  EXPECT_TRUE(parts.ok()) << parts.status().ToString();
  const auto& p = *parts;
  Tensor c_out = One("AddV2", {One("Mul", {One("Sigmoid", {p[1]}), c}), One("Mul", {One("Sigmoid", {p[0]}), One("Tanh", {p[2]})})});
  Tensor h = One("Mul", {One("Sigmoid", {p[3]}), One("Tanh", {c_out})});
  return {h, c_out};
}

void ExpectBitEqual(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.shape(), b.shape());
  for (int64_t i = 0; i < a.NumElements(); ++i) {
    EXPECT_EQ(a.data<float>()[i], b.data<float>()[i]) << i;
  }
}

TEST(LstmCellTest, ReferenceKernelGivesTheSeparateOpsValuesBitForBit) {
  const int64_t u = 37;
  for (auto [bx, by, bc] : std::vector<std::tuple<int64_t, int64_t, int64_t>>{{1, 1, 1}, {4, 4, 4}, {1, 4, 4}, {4, 1, 1}}) {
    SCOPED_TRACE(std::to_string(bx) + "," + std::to_string(by) + "," + std::to_string(bc));
    Tensor x = Wave(Shape({bx, 4 * u}), 6.f, 0.f), y = Wave(Shape({by, 4 * u}), 5.f, 1.f);
    Tensor bias = Wave(Shape({4 * u}), 1.f, 2.f), c = Wave(Shape({bc, u}), 3.f, 3.f);
    auto fused = RunSingleOp(kLstmCellOp, {x, y, bias, c}, {{"T", MakeAttr(DType::kFloat)}});
    ASSERT_TRUE(fused.ok()) << fused.status().ToString();
    auto [h, c_out] = ByOps(x, y, bias, c);
    ExpectBitEqual((*fused)[0], h);
    ExpectBitEqual((*fused)[1], c_out);
  }
}

TEST(LstmCellTest, MismatchedShapesAreErrorsNamingTheInputs) {
  const ir::AttrMap attrs = {{"T", MakeAttr(DType::kFloat)}};
  auto bad_width = RunSingleOp(kLstmCellOp, {Wave(Shape({1, 8}), 1, 0), Wave(Shape({1, 8}), 1, 0), Wave(Shape({8}), 1, 0),
                                             Wave(Shape({1, 3}), 1, 0)}, attrs);
  ASSERT_FALSE(bad_width.ok());
  EXPECT_EQ(bad_width.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad_width.status().message().find("gate widths disagree"), std::string::npos) << bad_width.status().ToString();
  EXPECT_NE(bad_width.status().message().find("c [1,3]"), std::string::npos) << bad_width.status().ToString();

  auto bad_batch = RunSingleOp(kLstmCellOp, {Wave(Shape({2, 8}), 1, 0), Wave(Shape({3, 8}), 1, 0), Wave(Shape({8}), 1, 0),
                                             Wave(Shape({2, 2}), 1, 0)}, attrs);
  ASSERT_FALSE(bad_batch.ok());
  EXPECT_EQ(bad_batch.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad_batch.status().message().find("batch sizes do not broadcast"), std::string::npos)
      << bad_batch.status().ToString();

  auto bad_rank = RunSingleOp(kLstmCellOp, {Wave(Shape({8}), 1, 0), Wave(Shape({1, 8}), 1, 0), Wave(Shape({8}), 1, 0),
                                            Wave(Shape({1, 2}), 1, 0)}, attrs);
  ASSERT_FALSE(bad_rank.ok());
  EXPECT_NE(bad_rank.status().message().find("expected x and y [batch, 4 * units]"), std::string::npos)
      << bad_rank.status().ToString();
  EXPECT_NE(bad_rank.status().message().find(kLstmCellOp), std::string::npos) << bad_rank.status().ToString();
}

}  // namespace
}  // namespace tfhost::ops::nn
