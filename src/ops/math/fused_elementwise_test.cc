#include <gtest/gtest.h>

#include <cmath>

#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

Tensor Values(Shape shape, float scale, float shift) {
  Tensor t(DType::kFloat, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = std::sin(0.37f * i + shift) * scale;
  return t;
}

ir::AttrMap Program(const std::vector<std::string>& ops, const std::vector<int64_t>& operands, int n,
                    const std::vector<float>& alphas = {}) {
  ir::AttrMap a = {{"T", MakeAttr(DType::kFloat)},
                   {"N", MakeAttr(n)},
                   {"ops", MakeAttr(ops)},
                   {"operands", MakeAttr(operands)}};
  if (!alphas.empty()) a["alphas"] = MakeAttr(alphas);
  return a;
}

Tensor Run1(const std::string& op, std::vector<Tensor> in, ir::AttrMap attrs = {}) {
  attrs["T"] = MakeAttr(DType::kFloat);
  auto r = RunSingleOp(op, std::move(in), attrs);
  EXPECT_TRUE(r.ok()) << op << ": " << r.status().ToString();
  return r.ok() ? (*r)[0] : Tensor();
}

void ExpectBitEqual(const Tensor& a, const Tensor& b) {
  ASSERT_EQ(a.shape().dims(), b.shape().dims());
  ASSERT_EQ(a.dtype(), DType::kFloat);
  for (int64_t i = 0; i < a.NumElements(); ++i) {
    const float x = a.data<float>()[i], y = b.data<float>()[i];
    if (std::isnan(x) && std::isnan(y)) continue;
    ASSERT_EQ(x, y) << "element " << i;
  }
}

TEST(FusedElementwiseTest, HardSwishChainMatchesSeparateOpsBitForBitAcrossBlocks) {
  // 3 * 1000 + 7 elements: several blocks and a partial last one.
  const Tensor x = Values(Shape({3, 1003}), 5.f, 0.f);
  const Tensor three = Tensor::Scalar<float>(3.f), sixth = Tensor::Scalar<float>(1.f / 6.f);
  // slots: 0 x, 1 three, 2 sixth; 3 = x + 3, 4 = relu6, 5 = x * 4, 6 = 5 * sixth
  auto fused = RunSingleOp("_TfhostFusedElementwise", {x, three, sixth},
                           Program({"AddV2", "Relu6", "Mul", "Mul"}, {0, 1, 3, -1, 0, 4, 5, 2}, 3));
  ASSERT_TRUE(fused.ok()) << fused.status().ToString();
  const Tensor want = Run1("Mul", {Run1("Mul", {x, Run1("Relu6", {Run1("AddV2", {x, three})})}), sixth});
  ExpectBitEqual((*fused)[0], want);
}

TEST(FusedElementwiseTest, LayerNormTailWithPerRowAndPerColumnOperandsMatchesSeparateOpsAcrossBlocks) {
  // Keras's layer norm: x * inv + (-mean * inv + beta), inv = rsqrt(var + eps) * gamma,
  // with per-row [1, T, 1] statistics and per-column [D] parameters; T * D
  // spans several blocks and rows straddle them.
  const Tensor x = Values(Shape({1, 37, 131}), 3.f, 0.f);
  const Tensor inv_row = Values(Shape({1, 37, 1}), 1.f, 1.f);
  const Tensor gamma = Values(Shape({131}), 1.f, 2.f);
  const Tensor neg_mean = Values(Shape({1, 37, 1}), 1.f, 3.f);
  const Tensor beta = Values(Shape({131}), 1.f, 4.f);
  const Tensor middle = Values(Shape({37, 1}), 1.f, 5.f);  // rank below the output's
  // slots: 0 x, 1 inv_row, 2 gamma, 3 neg_mean, 4 beta, 5 middle;
  // 6 = inv_row * gamma, 7 = neg_mean * 6, 8 = 7 + beta, 9 = x * 6, 10 = 9 + 8, 11 = 10 - middle
  auto fused = RunSingleOp("_TfhostFusedElementwise", {x, inv_row, gamma, neg_mean, beta, middle},
                           Program({"Mul", "Mul", "AddV2", "Mul", "AddV2", "Sub"},
                                   {1, 2, 3, 6, 7, 4, 0, 6, 9, 8, 10, 5}, 6));
  ASSERT_TRUE(fused.ok()) << fused.status().ToString();
  const Tensor inv = Run1("Mul", {inv_row, gamma});
  const Tensor shift = Run1("AddV2", {Run1("Mul", {neg_mean, inv}), beta});
  const Tensor want = Run1("Sub", {Run1("AddV2", {Run1("Mul", {x, inv}), shift}), middle});
  ExpectBitEqual((*fused)[0], want);
}

TEST(FusedElementwiseTest, ShortPeriodsAndShortRowsAcrossBlocksMatchSeparateOpsBitForBit) {
  // An image's per-channel scaling ([3] against [.., 3]: a period of 3, as
  // EfficientNet's input normalization) and per-pixel values ([.., 1]: rows
  // of 3, and of 20 against the wider x), over blocks that split periods
  // and rows.
  const Tensor x = Values(Shape({4, 333, 3}), 3.f, 0.f);
  const Tensor channel = Values(Shape({3}), 1.f, 1.f);
  const Tensor pixel = Values(Shape({4, 333, 1}), 1.f, 2.f);
  // slots: 0 x, 1 channel, 2 pixel; 3 = x * channel, 4 = 3 + pixel
  auto fused = RunSingleOp("_TfhostFusedElementwise", {x, channel, pixel},
                           Program({"Mul", "AddV2"}, {0, 1, 3, 2}, 3));
  ASSERT_TRUE(fused.ok()) << fused.status().ToString();
  ExpectBitEqual((*fused)[0], Run1("AddV2", {Run1("Mul", {x, channel}), pixel}));

  const Tensor wide = Values(Shape({2, 61, 20}), 3.f, 0.f);
  const Tensor row = Values(Shape({2, 61, 1}), 1.f, 3.f);
  auto rows = RunSingleOp("_TfhostFusedElementwise", {wide, row}, Program({"Sub"}, {0, 1}, 2));
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ExpectBitEqual((*rows)[0], Run1("Sub", {wide, row}));
}

TEST(FusedElementwiseTest, BroadcastsPerChannelAndGeneralOperandsLikeTheSeparateOps) {
  const Tensor x = Values(Shape({2, 3, 4}), 2.f, 0.f);
  const Tensor channel = Values(Shape({4}), 1.f, 1.f);       // suffix
  const Tensor row = Values(Shape({2, 1, 4}), 1.f, 2.f);     // general broadcast
  const Tensor grow = Values(Shape({5, 1, 1, 1}), 1.f, 3.f); // enlarges the output
  auto fused = RunSingleOp("_TfhostFusedElementwise", {x, channel, row, grow},
                           Program({"Mul", "Sub", "Maximum"}, {0, 1, 4, 2, 5, 3}, 4));
  ASSERT_TRUE(fused.ok()) << fused.status().ToString();
  const Tensor want = Run1("Maximum", {Run1("Sub", {Run1("Mul", {x, channel}), row}), grow});
  EXPECT_EQ((*fused)[0].shape(), Shape({5, 2, 3, 4}));
  ExpectBitEqual((*fused)[0], want);
}

TEST(FusedElementwiseTest, EveryInstructionMatchesItsStandaloneOp) {
  Tensor x = Values(Shape({700}), 4.f, 0.f);
  Tensor y = Values(Shape({700}), 3.f, 1.f);
  Tensor positive = x.Clone();
  for (int64_t i = 0; i < positive.NumElements(); ++i) positive.data<float>()[i] = std::abs(x.data<float>()[i]) + 0.01f;
  for (const char* op : {"Add", "AddV2", "Sub", "Mul", "Div", "RealDiv", "Maximum", "Minimum", "SquaredDifference", "Pow"}) {
    SCOPED_TRACE(op);
    const Tensor& a = std::string(op) == "Pow" ? positive : x;
    auto fused = RunSingleOp("_TfhostFusedElementwise", {a, y}, Program({op}, {0, 1}, 2));
    ASSERT_TRUE(fused.ok()) << fused.status().ToString();
    ExpectBitEqual((*fused)[0], Run1(op, {a, y}));
  }
  for (const char* op : {"Neg", "Abs", "Square", "Sqrt", "Rsqrt", "Exp", "Log", "Reciprocal", "Inv", "Floor", "Ceil",
                         "Erf", "Tanh", "Sigmoid", "Relu", "Relu6", "Elu", "Selu", "Softplus", "Softsign",
                         "LeakyRelu"}) {
    SCOPED_TRACE(op);
    const std::string name = op;
    const Tensor& in = (name == "Sqrt" || name == "Rsqrt" || name == "Log") ? positive : x;
    auto fused = RunSingleOp("_TfhostFusedElementwise", {in}, Program({op}, {0, -1}, 1, {0.3f}));
    ASSERT_TRUE(fused.ok()) << fused.status().ToString();
    ir::AttrMap attrs;
    if (name == "LeakyRelu") attrs["alpha"] = MakeAttr(0.3f);
    ExpectBitEqual((*fused)[0], Run1(op, {in}, attrs));
  }
}

TEST(FusedElementwiseTest, RejectsMalformedPrograms) {
  const Tensor x = Values(Shape({4}), 1.f, 0.f);
  struct Case {
    std::vector<std::string> ops;
    std::vector<int64_t> operands;
    const char* why;
    StatusCode code;
    const char* culprit;
  } cases[] = {
      {{"Neg", "Neg"}, {2, -1, 0, -1}, "reads a later instruction", StatusCode::kInvalidArgument,
       "instruction 0 operand 0 is slot 2, expected an input (< 1) or an earlier instruction (< 1)"},
      {{"Neg"}, {0, 0}, "unary op with a second operand", StatusCode::kInvalidArgument,
       "instruction 0 (Neg) is unary; operand 1 must be -1, got 0"},
      {{"Add"}, {0, -1}, "binary op with one operand", StatusCode::kInvalidArgument,
       "instruction 0 operand 1 is slot -1, expected an input (< 1) or an earlier instruction (< 1)"},
      {{"Frobnicate"}, {0, -1}, "unknown op", StatusCode::kUnimplemented,
       "instruction 0 op 'Frobnicate' is not a fusable element-wise op"},
      {{"Neg"}, {0}, "operands of the wrong length", StatusCode::kInvalidArgument,
       "operands must have 2 entries per instruction (2), got 1"},
      {{"Neg"}, {-3, -1}, "negative slot", StatusCode::kInvalidArgument,
       "instruction 0 operand 0 is slot -3, expected an input (< 1) or an earlier instruction (< 1)"},
  };
  for (const auto& c : cases) {
    auto out = RunSingleOp("_TfhostFusedElementwise", {x}, Program(c.ops, c.operands, 1));
    TFHOST_EXPECT_ERROR(out, c.code, c.culprit) << c.why;
  }
  // Inputs that do not broadcast together.
  auto bad = RunSingleOp("_TfhostFusedElementwise", {x, Values(Shape({3}), 1.f, 0.f)}, Program({"Add"}, {0, 1}, 2));
  TFHOST_EXPECT_ERROR(bad, StatusCode::kInvalidArgument,
                      "inputs do not broadcast together: incompatible shapes for broadcasting: [4] and [3]");
}

}  // namespace
}  // namespace tfhost::ops
