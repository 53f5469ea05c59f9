#include <gtest/gtest.h>

#include <cmath>

#include "ir/attrs.h"
#include "ops/nn/lstm_cell.h"
#include "passes/test_graph_util.h"

namespace tfhost::passes {
namespace {

using testing::CountOp;
using testing::Evaluate;
using testing::ExpectSameTensors;
using testing::GraphBuilder;

constexpr int64_t kUnits = 5;

Tensor Wave(const Shape& shape, float scale, float shift) {
  Tensor t(DType::kFloat, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = std::sin(0.7f * i + shift) * scale;
  return t;
}

struct CellOptions {
  bool swap_operands = false;  // AddV2 and the Muls with their inputs the other way round
  bool extra_gate_reader = false;  // Sigmoid(f) also read by a node outside the cell
  int64_t axis = 1;
  std::string cell_activation = "Tanh";  // Keras's `activation` (on g and on c_out)
};

// A Keras LSTM step as its While body holds it, on placeholders x, y, c.
GraphBuilder KerasCell(const CellOptions& o = {}) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {-1, 4 * kUnits})
      .Placeholder("y", DType::kFloat, {-1, 4 * kUnits})
      .Placeholder("c", DType::kFloat, {-1, kUnits})
      .Const("bias", Wave(Shape({4 * kUnits}), 0.5f, 2.f))
      .Const("split_dim", Tensor::Scalar<int32_t>(static_cast<int32_t>(o.axis)));
  auto pair = [&](const std::string& a, const std::string& b2) {
    return o.swap_operands ? std::vector<std::string>{b2, a} : std::vector<std::string>{a, b2};
  };
  b.Add("add", "AddV2", pair("x", "y"))
      .Add("bias_add", "BiasAdd", {"add", "bias"})
      .Add("split", "Split", {"split_dim", "bias_add"}, {{"num_split", ops::MakeAttr(int64_t{4})}})
      .Add("sig_i", "Sigmoid", {"split:0"})
      .Add("sig_f", "Sigmoid", {"split:1"})
      .Add("tanh_g", o.cell_activation, {"split:2"})
      .Add("sig_o", "Sigmoid", {"split:3"})
      .Add("mul", "Mul", pair("sig_f", "c"))
      .Add("mul_1", "Mul", pair("sig_i", "tanh_g"))
      .Add("c_out", "AddV2", pair("mul", "mul_1"))
      .Add("tanh_c", o.cell_activation, {"c_out"})
      .Add("h", "Mul", pair("sig_o", "tanh_c"))
      // c_out has a reader besides the cell, as a step that returns it does.
      .Add("c_next", "Identity", {"c_out"});
  if (o.extra_gate_reader) b.Add("leak", "Neg", {"sig_f"});
  return b;
}

std::map<std::string, Tensor> Feeds(int64_t batch) {
  return {{"x", Wave(Shape({batch, 4 * kUnits}), 3.f, 0.f)},
          {"y", Wave(Shape({batch, 4 * kUnits}), 2.f, 1.f)},
          {"c", Wave(Shape({batch, kUnits}), 1.5f, 0.5f)}};
}

// Runs the fusion and dead-node pruning; checks the roots keep their values
// exactly (the fused node's reference kernel computes as the ops did).
ir::Graph FuseAndCompare(const ir::Graph& before, const std::vector<std::string>& roots, int64_t batch) {
  ir::Graph after = before;
  PassContext ctx = PassContext::FromRoots(after, roots);
  Status st = MakeLstmCellFusion()->Run(&after, ctx);
  EXPECT_TRUE(st.ok()) << st.ToString();
  st = PruneDeadNodes(&after, ctx);
  EXPECT_TRUE(st.ok()) << st.ToString();
  ExpectSameTensors(Evaluate(before, Feeds(batch), roots), Evaluate(after, Feeds(batch), roots));
  return after;
}

TEST(LstmCellFusionTest, KerasStepGatesBecomeOneCellNodeWithTheSameValues) {
  for (int64_t batch : {1, 3}) {
    ir::Graph g = FuseAndCompare(KerasCell().Build(), {"h", "c_next"}, batch);
    EXPECT_EQ(CountOp(g, ops::nn::kLstmCellOp), 1);
    for (const char* op : {"Split", "Sigmoid", "Tanh", "Mul", "AddV2", "BiasAdd"}) EXPECT_EQ(CountOp(g, op), 0) << op;
    const ir::Node& h = g.node(g.FindNode("h"));
    EXPECT_EQ(h.op, ops::nn::kLstmCellOp);
    ASSERT_EQ(h.output_shapes.size(), 2u);
    EXPECT_EQ(h.output_shapes[0].dims, (std::vector<int64_t>{-1, kUnits}));
    // c_next reads the cell's second output.
    const ir::Node& c_next = g.node(g.FindNode("c_next"));
    ASSERT_EQ(c_next.inputs.size(), 1u);
    EXPECT_EQ(c_next.inputs[0].node, g.FindNode("h"));
    EXPECT_EQ(c_next.inputs[0].index, 1);
  }
}

TEST(LstmCellFusionTest, OperandOrderAndNegativeSplitAxisStillMatch) {
  CellOptions o;
  o.swap_operands = true;
  o.axis = -1;
  ir::Graph g = FuseAndCompare(KerasCell(o).Build(), {"h", "c_next"}, 2);
  EXPECT_EQ(CountOp(g, ops::nn::kLstmCellOp), 1);
}

TEST(LstmCellFusionTest, AGateReadOutsideTheCellIsLeftAlone) {
  CellOptions o;
  o.extra_gate_reader = true;
  ir::Graph g = FuseAndCompare(KerasCell(o).Build(), {"h", "c_next", "leak"}, 2);
  EXPECT_EQ(CountOp(g, ops::nn::kLstmCellOp), 0);
  EXPECT_EQ(CountOp(g, "Split"), 1);
}

TEST(LstmCellFusionTest, AFetchableIntermediateIsLeftAlone) {
  ir::Graph g = FuseAndCompare(KerasCell().Build(), {"h", "c_next", "mul_1"}, 2);
  EXPECT_EQ(CountOp(g, ops::nn::kLstmCellOp), 0);
}

// A rank-1 operand AddV2 would broadcast (a bias added as a second term) is
// not the kernel's form: the cell keeps its ops.
TEST(LstmCellFusionTest, ARankOneAddendIsLeftAlone) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {-1, 4 * kUnits})
      .Placeholder("y", DType::kFloat, {4 * kUnits})
      .Placeholder("c", DType::kFloat, {-1, kUnits})
      .Const("bias", Wave(Shape({4 * kUnits}), 0.5f, 2.f))
      .Const("split_dim", Tensor::Scalar<int32_t>(1))
      .Add("add", "AddV2", {"x", "y"})
      .Add("bias_add", "BiasAdd", {"add", "bias"})
      .Add("split", "Split", {"split_dim", "bias_add"}, {{"num_split", ops::MakeAttr(int64_t{4})}})
      .Add("sig_i", "Sigmoid", {"split:0"})
      .Add("sig_f", "Sigmoid", {"split:1"})
      .Add("tanh_g", "Tanh", {"split:2"})
      .Add("sig_o", "Sigmoid", {"split:3"})
      .Add("mul", "Mul", {"sig_f", "c"})
      .Add("mul_1", "Mul", {"sig_i", "tanh_g"})
      .Add("c_out", "AddV2", {"mul", "mul_1"})
      .Add("tanh_c", "Tanh", {"c_out"})
      .Add("h", "Mul", {"sig_o", "tanh_c"})
      .Add("c_next", "Identity", {"c_out"});
  std::map<std::string, Tensor> feeds = {{"x", Wave(Shape({2, 4 * kUnits}), 3.f, 0.f)},
                                         {"y", Wave(Shape({4 * kUnits}), 2.f, 1.f)},
                                         {"c", Wave(Shape({2, kUnits}), 1.5f, 0.5f)}};
  ir::Graph before = b.Build();
  ir::Graph after = before;
  PassContext ctx = PassContext::FromRoots(after, {"h", "c_next"});
  ASSERT_TRUE(MakeLstmCellFusion()->Run(&after, ctx).ok());
  EXPECT_EQ(CountOp(after, ops::nn::kLstmCellOp), 0);
  ExpectSameTensors(Evaluate(before, feeds, {"h", "c_next"}), Evaluate(after, feeds, {"h", "c_next"}));
}

// The kernel computes tanh: a cell built with another activation keeps its ops.
TEST(LstmCellFusionTest, ACellWithAnotherActivationIsLeftAlone) {
  CellOptions o;
  o.cell_activation = "Relu";
  ir::Graph g = FuseAndCompare(KerasCell(o).Build(), {"h", "c_next"}, 2);
  EXPECT_EQ(CountOp(g, ops::nn::kLstmCellOp), 0);
  EXPECT_EQ(CountOp(g, "Relu"), 2);
}

}  // namespace
}  // namespace tfhost::passes
