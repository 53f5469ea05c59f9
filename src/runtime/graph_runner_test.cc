// The kernel contract as a loaded graph meets it: wiring that contradicts an
// op's schema fails the load naming the node, before any backend is asked
// about it; a kernel's own preconditions fail the run naming the node.
#include "runtime/graph_runner.h"

#include <gtest/gtest.h>

#include "base/test_status.h"
#include "ir/attrs.h"
#include "ir/op_def_util.h"
#include "runtime/session.h"
#include "runtime/test_graph_def_util.h"
#include "tensorflow/core/framework/graph.pb.h"

namespace tfhost::runtime {
namespace {

using testing::AddNode;
using testing::SetConst;

void SetType(tensorflow::NodeDef* n, const std::string& attr, DType t) {
  (*n->mutable_attr())[attr].set_type(static_cast<tensorflow::DataType>(t));
}

StatusOr<std::unique_ptr<Session>> Load(const tensorflow::GraphDef& gd) {
  TFHOST_ASSIGN_OR_RETURN(ir::Graph graph, ir::Graph::FromGraphDef(gd));
  TFHOST_RETURN_IF_ERROR(ir::InferTypes(graph, ops::OpRegistry::Global().Lookup()));
  SessionOptions options;
  options.intra_op_threads = 1;
  options.model_name = "m";
  return Session::Create(std::move(graph), options);
}

// Loads `gd` (which must load) and returns the error of fetching `fetch`.
Status RunError(const tensorflow::GraphDef& gd, const std::string& fetch) {
  auto session = Load(gd);
  EXPECT_TRUE(session.ok()) << session.status().ToString();
  if (!session.ok()) return session.status();
  auto out = (*session)->Run({}, {fetch});
  return out.ok() ? OkStatus() : out.status();
}

bool Has(const Status& st, const std::string& text) { return st.message().find(text) != std::string::npos; }

Tensor Matrix(int64_t rows, int64_t cols) {
  Tensor t(DType::kFloat, Shape({rows, cols}));
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = static_cast<float>(i);
  return t;
}

TEST(GraphRunnerContractTest, AConstWhoseValueIsNotItsDtypeFailsTheLoadNamingTheNode) {
  // Its consumer is checked against the dtype attr (float32); a half value
  // would reach Complex's kernel read as float32 (graph_kernel_fuzz: ASan).
  tensorflow::GraphDef gd;
  tensorflow::NodeDef* c = AddNode(gd, "c", "Const");
  SetConst(c, Tensor(DType::kHalf, Shape({3})));
  SetType(c, "dtype", DType::kFloat);
  SetType(AddNode(gd, "z", "Complex", {"c", "c"}), "T", DType::kFloat);
  auto session = Load(gd);
  TFHOST_ASSERT_ERROR(session, StatusCode::kInvalidArgument,
                      "model 'm': node 'c' (Const): its value is float16 but its dtype attr is float32");
}

TEST(GraphRunnerContractTest, OneInputMatMulFailsTheLoadNamingTheNode) {
  tensorflow::GraphDef gd;
  SetConst(AddNode(gd, "a", "Const"), Matrix(2, 2));
  SetType(AddNode(gd, "mm", "MatMul", {"a"}), "T", DType::kFloat);
  auto session = Load(gd);
  TFHOST_ASSERT_ERROR(session, StatusCode::kInvalidArgument,
                      "model 'm': node 'mm' (MatMul): has 1 data inputs, but the schema of MatMul expects 2 (a, b)");
  EXPECT_TRUE(Has(session.status(), "'mm' (MatMul)")) << session.status().message();
  EXPECT_TRUE(Has(session.status(), "has 1 data inputs, but the schema of MatMul expects 2 (a, b)"))
      << session.status().message();
  EXPECT_TRUE(Has(session.status(), "'m'")) << session.status().message();
}

TEST(GraphRunnerContractTest, StringOpFedANumericTensorFailsTheLoadNamingTheNode) {
  tensorflow::GraphDef gd;
  SetType(AddNode(gd, "x", "Placeholder"), "dtype", DType::kFloat);
  AddNode(gd, "len", "StringLength", {"x"});
  auto session = Load(gd);
  TFHOST_ASSERT_ERROR(
      session, StatusCode::kInvalidArgument,
      "model 'm': node 'len' (StringLength): input 0 'input' (dtype from the schema) is float32, expected string");
  EXPECT_TRUE(Has(session.status(), "'len' (StringLength)")) << session.status().message();
  EXPECT_TRUE(Has(session.status(), "is float32, expected string")) << session.status().message();
}

TEST(GraphRunnerContractTest, MatMulWithMismatchedInnerDimsFailsTheRunNamingTheNode) {
  tensorflow::GraphDef gd;
  SetConst(AddNode(gd, "a", "Const"), Matrix(2, 3));
  SetConst(AddNode(gd, "b", "Const"), Matrix(2, 2));
  SetType(AddNode(gd, "mm", "MatMul", {"a", "b"}), "T", DType::kFloat);
  Status st = RunError(gd, "mm");
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Has(st, "'mm' (MatMul)")) << st.message();
  EXPECT_TRUE(Has(st, "inner dimensions do not match")) << st.message();
}

TEST(GraphRunnerContractTest, ReshapeToAWrongElementCountFailsTheRunNamingTheNode) {
  tensorflow::GraphDef gd;
  SetConst(AddNode(gd, "x", "Const"), Matrix(2, 3));
  SetConst(AddNode(gd, "shape", "Const"), Tensor::FromVector(std::vector<int32_t>{4, 2}));
  auto* reshape = AddNode(gd, "r", "Reshape", {"x", "shape"});
  SetType(reshape, "T", DType::kFloat);
  SetType(reshape, "Tshape", DType::kInt32);
  Status st = RunError(gd, "r");
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Has(st, "'r' (Reshape)")) << st.message();
  EXPECT_TRUE(Has(st, "[2,3]")) << st.message();
}

TEST(GraphRunnerContractTest, ConcatV2WithMismatchedRanksFailsTheRunNamingTheNode) {
  tensorflow::GraphDef gd;
  SetConst(AddNode(gd, "x", "Const"), Matrix(2, 3));
  SetConst(AddNode(gd, "y", "Const"), Tensor::FromVector(std::vector<float>{1, 2, 3}));
  SetConst(AddNode(gd, "axis", "Const"), Tensor::Scalar<int32_t>(0));
  auto* concat = AddNode(gd, "cat", "ConcatV2", {"x", "y", "axis"});
  SetType(concat, "T", DType::kFloat);
  SetType(concat, "Tidx", DType::kInt32);
  (*concat->mutable_attr())["N"].set_i(2);
  Status st = RunError(gd, "cat");
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Has(st, "'cat' (ConcatV2)")) << st.message();
  EXPECT_TRUE(Has(st, "[3]")) << st.message();
}

TEST(GraphRunnerContractTest, GatherV2WithOutOfRangeIndicesFailsTheRunNamingTheNode) {
  tensorflow::GraphDef gd;
  SetConst(AddNode(gd, "params", "Const"), Matrix(3, 2));
  SetConst(AddNode(gd, "indices", "Const"), Tensor::FromVector(std::vector<int32_t>{0, 5}));
  SetConst(AddNode(gd, "axis", "Const"), Tensor::Scalar<int32_t>(0));
  auto* gather = AddNode(gd, "g", "GatherV2", {"params", "indices", "axis"});
  SetType(gather, "Tparams", DType::kFloat);
  SetType(gather, "Tindices", DType::kInt32);
  SetType(gather, "Taxis", DType::kInt32);
  Status st = RunError(gd, "g");
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Has(st, "'g' (GatherV2)")) << st.message();
  EXPECT_TRUE(Has(st, "indices[1] = 5")) << st.message();
}

TEST(GraphRunnerContractTest, WellFormedVariadicGraphLoadsAndRuns) {
  tensorflow::GraphDef gd;
  SetConst(AddNode(gd, "x", "Const"), Matrix(1, 2));
  SetConst(AddNode(gd, "y", "Const"), Matrix(2, 2));
  SetConst(AddNode(gd, "axis", "Const"), Tensor::Scalar<int32_t>(0));
  auto* concat = AddNode(gd, "cat", "ConcatV2", {"x", "y", "axis"});
  SetType(concat, "T", DType::kFloat);
  SetType(concat, "Tidx", DType::kInt32);
  (*concat->mutable_attr())["N"].set_i(2);
  auto session = Load(gd);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  auto out = (*session)->Run({}, {"cat"});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape({3, 2}));
}

}  // namespace
}  // namespace tfhost::runtime

namespace tfhost::runtime {
namespace {

// Constants without control inputs are not run as nodes: their readers take
// the decoded value directly. Every reader, a fetch of the constant itself,
// a constant behind a control edge and repeated runs (inline and on an
// inter-op pool) see the same values.
TEST(GraphRunnerConstantsTest, ConstantsReachEveryReaderAndFetchWithoutRunningAsNodes) {
  tensorflow::GraphDef gd;
  SetConst(AddNode(gd, "c", "Const"), Matrix(2, 3));
  AddNode(gd, "first", "NoOp");
  SetConst(AddNode(gd, "after", "Const", {"^first"}), Matrix(2, 3));
  for (const char* name : {"twice", "with_after"}) {
    auto* add = AddNode(gd, name, "AddV2", {"c", std::string(name) == "twice" ? "c" : "after"});
    SetType(add, "T", DType::kFloat);
  }
  auto* neg = AddNode(gd, "neg", "Neg", {"c"});
  SetType(neg, "T", DType::kFloat);
  for (int inter_op : {1, 2}) {
    SCOPED_TRACE("inter_op_threads " + std::to_string(inter_op));
    auto loaded = ir::Graph::FromGraphDef(gd);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    ir::Graph graph = std::move(*loaded);
    ASSERT_TRUE(ir::InferTypes(graph, ops::OpRegistry::Global().Lookup()).ok());
    SessionOptions options;
    options.intra_op_threads = 1;
    options.inter_op_threads = inter_op;
    auto session = Session::Create(std::move(graph), options);
    ASSERT_TRUE(session.ok()) << session.status().ToString();
    for (int run = 0; run < 3; ++run) {
      auto out = (*session)->Run({}, {"c", "twice", "with_after", "neg", "after"});
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      for (int64_t i = 0; i < 6; ++i) {
        const float v = static_cast<float>(i);
        EXPECT_EQ((*out)[0].data<float>()[i], v);
        EXPECT_EQ((*out)[1].data<float>()[i], 2 * v);
        EXPECT_EQ((*out)[2].data<float>()[i], 2 * v);
        EXPECT_EQ((*out)[3].data<float>()[i], -v);
        EXPECT_EQ((*out)[4].data<float>()[i], v);
      }
    }
  }
}

TEST(GraphRunnerConstantsTest, ConstantsHeldAsTensorsRunAndSmallOnesStayReadableInTheGraph) {
  ir::Graph graph;
  ir::Node big, small, sum;
  big.name = "big";
  std::vector<float> ones(4096, 1.f);
  ir::SetConstValue(&big, Tensor::FromVector<float>(ones));
  small.name = "small";
  ir::SetConstValue(&small, Tensor::FromVector<float>({2.f}));
  ASSERT_TRUE(graph.AddNode(big).ok());
  ASSERT_TRUE(graph.AddNode(small).ok());
  sum.name = "sum";
  sum.op = "AddV2";
  sum.inputs = {ir::TensorRef{0, 0}, ir::TensorRef{1, 0}};
  sum.attrs["T"].set_type(tensorflow::DT_FLOAT);
  ASSERT_TRUE(graph.AddNode(sum).ok());
  ASSERT_TRUE(ir::InferTypes(graph, ops::OpRegistry::Global().Lookup()).ok());
  SessionOptions options;
  options.intra_op_threads = 1;
  auto session = Session::Create(std::move(graph), options);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  auto out = (*session)->Run({}, {"sum:0"});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].NumElements(), 4096);
  EXPECT_EQ((*out)[0].data<float>()[4095], 3.f);
  // The runner holds the weights once; a small constant is still in the graph
  // for whoever reads attrs there, and GraphWithConstants gives both back.
  const ir::Graph& g = (*session)->graph();
  EXPECT_FALSE(g.node(g.FindNode("small")).attrs.at("value").tensor().float_val().empty() &&
               g.node(g.FindNode("small")).attrs.at("value").tensor().tensor_content().empty());
  EXPECT_FALSE(g.node(g.FindNode("big")).constant.valid());
  const ir::Graph full = (*session)->GraphWithConstants();
  auto big_value = ir::GetAttr<Tensor>(full.node(full.FindNode("big")), "value");
  ASSERT_TRUE(big_value.ok());
  EXPECT_EQ(big_value->NumElements(), 4096);
}

}  // namespace
}  // namespace tfhost::runtime
