// If, Loop and Scan: bodies that read the enclosing graph's values (computed and
// constant), Loop's carried values and scan outputs, and the errors a
// malformed node gets.
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

// acc = 0; for i in 0..M-1: acc = acc + x (x from the enclosing graph); the
// scan output collects each iteration's acc and i.
::onnx::ModelProto LoopModel() {
  ::onnx::GraphProto body;
  body.set_name("loop_body");
  *body.add_input() = TensorInfo("i", ::onnx::TensorProto::INT64, {});
  *body.add_input() = TensorInfo("keep", ::onnx::TensorProto::BOOL, {});
  *body.add_input() = TensorInfo("acc_in", ::onnx::TensorProto::FLOAT, {2, 3});
  *body.add_node() = Node("Identity", {"keep"}, {"keep_out"});
  *body.add_node() = Node("Add", {"acc_in", "x"}, {"acc_out"});
  *body.add_node() = Node("Identity", {"i"}, {"i_out"});
  for (const auto& [name, type] : std::vector<std::pair<std::string, int32_t>>{
           {"keep_out", ::onnx::TensorProto::BOOL}, {"acc_out", ::onnx::TensorProto::FLOAT},
           {"acc_out_scan", ::onnx::TensorProto::FLOAT}, {"i_out", ::onnx::TensorProto::INT64}}) {
    ::onnx::ValueInfoProto v;
    v.set_name(name);
    v.mutable_type()->mutable_tensor_type()->set_elem_type(type);
    *body.add_output() = v;
  }
  *body.add_node() = Node("Identity", {"acc_out"}, {"acc_out_scan"});
  ::onnx::NodeProto loop = Node("Loop", {"m", "", "acc0"}, {"acc", "history", "iterations"});
  SetGraph(&loop, "body", body);
  ::onnx::ModelProto m = OneNode(loop, {{"acc", ::onnx::TensorProto::FLOAT}, {"history", ::onnx::TensorProto::FLOAT},
                                        {"iterations", ::onnx::TensorProto::INT64}},
                                 {Int64Tensor("m", {3}), FloatTensor("acc0", {2, 3}, {0, 0, 0, 0, 0, 1})});
  return m;
}

TEST(OnnxLoopTest, CarriedValuesAndScanOutputsFollowTheTripCount) {
  auto out = RunOnX(LoopModel(), {1, 2, 3, 4, 5, 6});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->at("acc").ToDoubleVector(), (std::vector<double>{3, 6, 9, 12, 15, 19}));
  ASSERT_EQ(out->at("history").shape(), Shape({3, 2, 3}));
  EXPECT_EQ(out->at("history").ToDoubleVector()[6], 2);   // iteration 1, element 0: 2 x 1
  EXPECT_EQ(out->at("history").ToDoubleVector()[17], 19);  // iteration 2, element 5: 1 + 3 x 6
  EXPECT_EQ(out->at("iterations").ToDoubleVector(), (std::vector<double>{0, 1, 2}));
}

TEST(OnnxLoopTest, ABodyWhoseInputsDoNotMatchTheCarriedValuesIsRefused) {
  ::onnx::ModelProto m = LoopModel();
  m.mutable_graph()->mutable_node(0)->mutable_attribute(0)->mutable_g()->mutable_input()->RemoveLast();
  TFHOST_EXPECT_ERROR(RunOnX(m, {1, 2, 3, 4, 5, 6}).status(), StatusCode::kInvalidArgument,
                      "op Loop, opset 17): has 1 carried values but its body takes 2 inputs; expected 3");
}

// Scan as a running sum over x's rows: the state is the sum so far, the
// scan output each step's sum.
TEST(OnnxScanTest, StatesCarryAndScanOutputsStackAlongTheFirstAxis) {
  ::onnx::GraphProto body;
  body.set_name("scan_body");
  *body.add_input() = TensorInfo("sum_in", ::onnx::TensorProto::FLOAT, {3});
  *body.add_input() = TensorInfo("row", ::onnx::TensorProto::FLOAT, {3});
  *body.add_node() = Node("Add", {"sum_in", "row"}, {"sum_out"});
  *body.add_node() = Node("Identity", {"sum_out"}, {"sum_scan"});
  for (const char* name : {"sum_out", "sum_scan"}) {
    ::onnx::ValueInfoProto v;
    v.set_name(name);
    v.mutable_type()->mutable_tensor_type()->set_elem_type(::onnx::TensorProto::FLOAT);
    *body.add_output() = v;
  }
  ::onnx::NodeProto scan = Node("Scan", {"start", "x"}, {"total", "partial"});
  SetInt(&scan, "num_scan_inputs", 1);
  SetGraph(&scan, "body", body);
  ::onnx::ModelProto m = OneNode(scan, {{"total", ::onnx::TensorProto::FLOAT}, {"partial", ::onnx::TensorProto::FLOAT}},
                                 {FloatTensor("start", {3}, {10, 20, 30})});
  auto out = RunOnX(m, {1, 2, 3, 4, 5, 6});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->at("total").ToDoubleVector(), (std::vector<double>{15, 27, 39}));
  ASSERT_EQ(out->at("partial").shape(), Shape({2, 3}));
  EXPECT_EQ(out->at("partial").ToDoubleVector(), (std::vector<double>{11, 22, 33, 15, 27, 39}));
}

}  // namespace
}  // namespace tfhost::loaders
