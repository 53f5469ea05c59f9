#include <gtest/gtest.h>

#include "passes/test_graph_util.h"

namespace tfhost::passes {
namespace {

using testing::CountOp;
using testing::Evaluate;
using testing::GraphBuilder;
using testing::Ramp;

Tensor Perm(std::vector<int32_t> p) { return Tensor::FromVector<int32_t>(p, Shape({static_cast<int64_t>(p.size())})); }

ir::AttrMap Flags(const char* first, bool a, const char* second, bool b) {
  return {{first, ops::MakeAttr(a)}, {second, ops::MakeAttr(b)}};
}

ir::Graph Folded(ir::Graph g, std::vector<std::string> roots) {
  return testing::RunPassAndPrune(std::move(g), *MakeMatMulTransposeFolding(), roots);
}

TEST(MatMulTransposeFoldingTest, ATransposedProductIsTheProductOfTheSwappedTransposedOperands) {
  // Every combination of the operands' flags, batched (attention scores'
  // [B, H, T, T]) and plain.
  for (bool adj_x : {false, true}) {
    for (bool adj_y : {false, true}) {
      SCOPED_TRACE(std::string(adj_x ? "adj_x " : "") + (adj_y ? "adj_y" : ""));
      GraphBuilder b;
      b.Placeholder("x", DType::kFloat, adj_x ? std::vector<int64_t>{2, 3, 5, 4} : std::vector<int64_t>{2, 3, 4, 5})
          .Placeholder("y", DType::kFloat, adj_y ? std::vector<int64_t>{2, 3, 6, 5} : std::vector<int64_t>{2, 3, 5, 6})
          .Add("scores", "BatchMatMulV2", {"x", "y"}, Flags("adj_x", adj_x, "adj_y", adj_y))
          .Const("perm", Perm({0, 1, 3, 2}))
          .Add("t", "Transpose", {"scores", "perm"}, {{"Tperm", ops::MakeAttr(DType::kInt32)}})
          .Add("out", "Relu", {"t"});
      const ir::Graph before = b.Build();
      const ir::Graph after = Folded(before, {"out"});
      EXPECT_EQ(CountOp(after, "Transpose"), 0);
      const ir::Node& t = after.node(after.FindNode("t"));
      EXPECT_EQ(t.op, "BatchMatMulV2");
      EXPECT_EQ(after.node(t.inputs[0].node).name, "y");
      EXPECT_EQ(*ir::GetAttr<bool>(t, "adj_x"), !adj_y);
      EXPECT_EQ(*ir::GetAttr<bool>(t, "adj_y"), !adj_x);
      std::map<std::string, Tensor> feeds{{"x", Ramp(before.node(before.FindNode("x")).output_shapes[0].ToShape(), 0.3f, -2.f)},
                                          {"y", Ramp(before.node(before.FindNode("y")).output_shapes[0].ToShape(), 0.2f, -1.f)}};
      // The same products summed in the same order: equal bit for bit.
      testing::ExpectSameTensors(Evaluate(before, feeds, {"out"}), Evaluate(after, feeds, {"out"}));
    }
  }
  GraphBuilder b;
  b.Placeholder("a", DType::kFloat, {3, 4})
      .Placeholder("w", DType::kFloat, {5, 4})
      .Add("mm", "MatMul", {"a", "w"}, Flags("transpose_a", false, "transpose_b", true))
      .Const("perm", Perm({1, 0}))
      .Add("t", "Transpose", {"mm", "perm"}, {{"Tperm", ops::MakeAttr(DType::kInt32)}});
  const ir::Graph before = b.Build();
  const ir::Graph after = Folded(before, {"t"});
  const ir::Node& t = after.node(after.FindNode("t"));
  EXPECT_EQ(t.op, "MatMul");
  EXPECT_FALSE(*ir::GetAttr<bool>(t, "transpose_a"));
  EXPECT_TRUE(*ir::GetAttr<bool>(t, "transpose_b"));
  std::map<std::string, Tensor> feeds{{"a", Ramp(Shape({3, 4}), 0.3f, -2.f)}, {"w", Ramp(Shape({5, 4}), 0.2f, -1.f)}};
  testing::ExpectSameTensors(Evaluate(before, feeds, {"t"}), Evaluate(after, feeds, {"t"}));
}

TEST(MatMulTransposeFoldingTest, OtherPermutationsSharedOrKeptProductsAreLeftAlone) {
  GraphBuilder b;
  b.Placeholder("x", DType::kFloat, {2, 4, 5})
      .Placeholder("y", DType::kFloat, {2, 5, 4})
      .Add("p1", "BatchMatMulV2", {"x", "y"})
      .Const("batch_perm", Perm({1, 0, 2}))
      .Add("t1", "Transpose", {"p1", "batch_perm"}, {{"Tperm", ops::MakeAttr(DType::kInt32)}})
      .Add("p2", "BatchMatMulV2", {"x", "y"})
      .Const("perm", Perm({0, 2, 1}))
      .Add("t2", "Transpose", {"p2", "perm"}, {{"Tperm", ops::MakeAttr(DType::kInt32)}})
      .Add("also_reads_p2", "Relu", {"p2"})
      .Add("p3", "BatchMatMulV2", {"x", "y"})
      .Add("t3", "Transpose", {"p3", "perm"}, {{"Tperm", ops::MakeAttr(DType::kInt32)}});
  // p3 is fetched by name: it must stay, so its transpose does too.
  const ir::Graph after = Folded(b.Build(), {"t1", "t2", "also_reads_p2", "t3", "p3"});
  for (const char* name : {"t1", "t2", "t3"}) EXPECT_EQ(after.node(after.FindNode(name)).op, "Transpose") << name;
}

TEST(MatMulTransposeFoldingTest, AnOperandTransposeMovingTheLastDimKeepsItLastAndFlipsTheAdjoint) {
  // Attention's scores as TensorFlow's einsum writes them: BatchMatMulV2(k
  // as [B, H, T, D], q as [B, H, D, T]), then a transpose of each [T, T]
  // matrix, q and k stored [B, T, H, D]. The fold above makes the product
  // BatchMatMulV2(q', k', adj_x, adj_y); then q's Transpose keeps D last.
  GraphBuilder b;
  b.Placeholder("q", DType::kFloat, {2, 5, 3, 4})
      .Placeholder("k", DType::kFloat, {2, 5, 3, 4})
      .Const("q_perm", Perm({0, 2, 3, 1}))
      .Const("k_perm", Perm({0, 2, 1, 3}))
      .Const("swap", Perm({0, 1, 3, 2}))
      .Add("qt", "Transpose", {"q", "q_perm"}, {{"Tperm", ops::MakeAttr(DType::kInt32)}})
      .Add("kt", "Transpose", {"k", "k_perm"}, {{"Tperm", ops::MakeAttr(DType::kInt32)}})
      .Add("product", "BatchMatMulV2", {"kt", "qt"})
      .Add("scores", "Transpose", {"product", "swap"}, {{"Tperm", ops::MakeAttr(DType::kInt32)}})
      .Add("out", "Relu", {"scores"});
  const ir::Graph before = b.Build();
  const ir::Graph after = Folded(before, {"out"});
  const ir::Node& scores = after.node(after.FindNode("scores"));
  EXPECT_FALSE(*ir::GetAttr<bool>(scores, "adj_x"));
  EXPECT_TRUE(*ir::GetAttr<bool>(scores, "adj_y"));
  const ir::Node& qt = after.node(after.FindNode("qt"));
  EXPECT_EQ(*ir::GetAttr<Tensor>(after.node(qt.inputs[1].node), "value")->ToInt64Vector(),
            (std::vector<int64_t>{0, 2, 1, 3}));
  EXPECT_EQ(qt.output_shapes[0].ToString(), "[2,3,5,4]");
  std::map<std::string, Tensor> feeds{{"q", Ramp(Shape({2, 5, 3, 4}), 0.3f, -2.f)},
                                      {"k", Ramp(Shape({2, 5, 3, 4}), 0.2f, -1.f)}};
  // The same products summed in the same order: equal bit for bit.
  testing::ExpectSameTensors(Evaluate(before, feeds, {"out"}), Evaluate(after, feeds, {"out"}));
}

}  // namespace
}  // namespace tfhost::passes
