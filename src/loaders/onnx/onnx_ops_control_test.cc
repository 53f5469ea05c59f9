// If: branches that read the enclosing graph's values (computed and
// constant), and the errors a malformed If gets.
#include <gtest/gtest.h>

#include "base/test_status.h"
#include "base/test_temp_dir.h"
#include "loaders/onnx/onnx_loader.h"
#include "loaders/onnx/onnx_test_model.h"

namespace tfhost::loaders {
namespace {

using namespace onnx::testing;  // NOLINT: test model builders

void SetGraph(::onnx::NodeProto* n, const std::string& name, ::onnx::GraphProto g) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::GRAPH);
  *a->mutable_g() = std::move(g);
}

// A branch without inputs: out = x <op> two, where x [2, 3] comes from the
// enclosing graph and `two` is an initializer of the enclosing graph.
::onnx::GraphProto BranchOf(const std::string& op, const std::string& out) {
  ::onnx::GraphProto g;
  g.set_name(op + "_branch");
  *g.add_node() = Node(op, {"x", "two"}, {out});
  ::onnx::ValueInfoProto o;
  o.set_name(out);
  o.mutable_type()->mutable_tensor_type()->set_elem_type(::onnx::TensorProto::FLOAT);
  *g.add_output() = o;
  return g;
}

// y = ReduceSum(x) > 0 ? x * 2 : x - 2.
::onnx::ModelProto IfModel(bool with_else = true) {
  ::onnx::NodeProto sum = Node("ReduceSum", {"x"}, {"total"});
  SetInt(&sum, "keepdims", 0);
  ::onnx::NodeProto positive = Node("Greater", {"total", "zero"}, {"positive"});
  ::onnx::NodeProto cond = Node("If", {"positive"}, {"y"});
  SetGraph(&cond, "then_branch", BranchOf("Mul", "doubled"));
  if (with_else) SetGraph(&cond, "else_branch", BranchOf("Sub", "lowered"));
  ::onnx::ModelProto m = OneNode(sum, {{"y", ::onnx::TensorProto::FLOAT}},
                                 {FloatTensor("two", {}, {2}), FloatTensor("zero", {}, {0})});
  *m.mutable_graph()->add_node() = positive;
  *m.mutable_graph()->add_node() = cond;
  return m;
}

StatusOr<std::map<std::string, Tensor>> RunOnX(const ::onnx::ModelProto& m, std::vector<float> x) {
  tfhost::testing::TempDir dir("onnx_if");
  const std::string path = dir.Sub("m.onnx");
  WriteBytes(path, Serialize(m));
  TFHOST_ASSIGN_OR_RETURN(auto model, LoadOnnxModel(path, LoadOptions()));
  return model->RunSignature("serving_default", {{"x", Tensor::FromVector<float>(x, {2, 3})}});
}

TEST(OnnxIfTest, BranchesReadTheEnclosingGraphsValuesAndTheConditionPicksOne) {
  auto up = RunOnX(IfModel(), {1, 2, 3, 4, 5, -6});
  ASSERT_TRUE(up.ok()) << up.status().ToString();
  EXPECT_EQ(up->at("y").ToDoubleVector(), (std::vector<double>{2, 4, 6, 8, 10, -12}));
  auto down = RunOnX(IfModel(), {1, 2, 3, 4, 5, -60});
  ASSERT_TRUE(down.ok()) << down.status().ToString();
  EXPECT_EQ(down->at("y").ToDoubleVector(), (std::vector<double>{-1, 0, 1, 2, 3, -62}));
}

TEST(OnnxIfTest, AnIfWithoutBothBranchesIsRefusedNamingTheNode) {
  TFHOST_EXPECT_ERROR(RunOnX(IfModel(false), {1, 2, 3, 4, 5, 6}).status(), StatusCode::kInvalidArgument,
                      "op If, opset 17): needs graph attributes 'then_branch' and 'else_branch'");
}

}  // namespace
}  // namespace tfhost::loaders
