// A bf16 edge between two convolutions (what passes/bf16_activation_chaining
// writes) keeps the graph's dtypes on every kernel choice: the writer's
// output is bf16, the reader's is float32 and equals the float32 graph's
// within bf16 rounding. With the reference kernels (runtime/bf16_edges.h
// narrows and widens around them) the reader computes exactly on the rounded
// activations.
#include "runtime/bf16_edges.h"

#include <gtest/gtest.h>

#include <cmath>

#include "ir/op_def_util.h"
#include "ir/precision_attrs.h"
#include "ops/nn/nn_util.h"
#include "ops/op_registry.h"
#include "ops/run_single_op.h"
#include "runtime/session.h"
#include "runtime/test_graph_def_util.h"
#include "tensorflow/core/framework/graph.pb.h"

namespace tfhost::runtime {
namespace {

Tensor Values(Shape shape, float scale) {
  Tensor t(DType::kFloat, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    t.data<float>()[i] = scale * (static_cast<float>((i * 7) % 13) - 6.f) + 0.001f * static_cast<float>(i % 5);
  }
  return t;
}

using testing::AddNode;

void AddConst(tensorflow::GraphDef& g, const std::string& name, const Tensor& value) {
  testing::SetConst(AddNode(g, name, "Const"), value);
}

void AddConv(tensorflow::GraphDef& g, const std::string& name, const std::string& input, const std::string& filter) {
  auto* n = AddNode(g, name, "Conv2D", {input, filter});
  auto& attrs = *n->mutable_attr();
  attrs["T"].set_type(tensorflow::DT_FLOAT);
  for (int64_t s : {1, 1, 1, 1}) attrs["strides"].mutable_list()->add_i(s);
  attrs["padding"].set_s("SAME");
  attrs[ir::kPrecisionAttr].set_s("bf16");
}

// x -> conv1 -> conv2, 1x1 convolutions over 128 channels; with `edge`,
// conv1 -> conv2 is a bf16 edge.
std::unique_ptr<Session> MakeChain(bool edge, backends::KernelChoice kernels) {
  tensorflow::GraphDef gd;
  auto* x = AddNode(gd, "x", "Placeholder");
  (*x->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  AddConst(gd, "w1", Values(Shape({1, 1, 128, 128}), 1.f / 64));
  AddConst(gd, "w2", Values(Shape({1, 1, 128, 128}), 1.f / 32));
  AddConv(gd, "conv1", "x", "w1");
  AddConv(gd, "conv2", "conv1", "w2");
  auto graph = ir::Graph::FromGraphDef(gd);
  EXPECT_TRUE(graph.ok()) << graph.status().ToString();
  const auto& registry = ops::OpRegistry::Global();
  for (int i = 0; i < graph->num_nodes(); ++i) {
    ir::FillDefaultAttrs(registry.Find(graph->node(i).op)->def, &graph->mutable_node(i));
  }
  EXPECT_TRUE(ir::InferTypes(*graph, registry.Lookup()).ok());
  if (edge) {
    ir::Node& conv1 = graph->mutable_node(graph->FindNode("conv1"));
    conv1.attrs[ir::kOutputDtypeAttr].set_type(tensorflow::DT_BFLOAT16);
    conv1.output_dtypes[0] = DType::kBFloat16;
    graph->mutable_node(graph->FindNode("conv2")).attrs[ir::kBf16InputAttr].set_b(true);
  }
  SessionOptions options;
  options.intra_op_threads = 2;
  options.kernels = kernels;
  options.model_name = "bf16_edge";
  auto session = Session::Create(std::move(*graph), options);
  EXPECT_TRUE(session.ok()) << session.status().ToString();
  return session.ok() ? std::move(*session) : nullptr;
}

// max |a - b| / max |b|.
double RelativeError(const Tensor& a, const Tensor& b) {
  double max_b = 0, max_diff = 0;
  for (int64_t i = 0; i < b.NumElements(); ++i) {
    max_b = std::max(max_b, std::fabs(double(b.data<float>()[i])));
    max_diff = std::max(max_diff, std::fabs(double(a.data<float>()[i]) - double(b.data<float>()[i])));
  }
  return max_b > 0 ? max_diff / max_b : max_diff;
}

class Bf16EdgeTest : public ::testing::TestWithParam<backends::KernelChoice> {};

TEST_P(Bf16EdgeTest, WriterStoresBf16AndReaderMatchesTheFloat32Graph) {
  const Tensor x = Values(Shape({2, 5, 3, 128}), 0.25f);
  auto plain = MakeChain(false, GetParam());
  auto chained = MakeChain(true, GetParam());
  ASSERT_TRUE(plain && chained);
  auto want = plain->Run({{"x", x}}, {"conv1:0", "conv2:0"});
  auto got = chained->Run({{"x", x}}, {"conv1:0", "conv2:0"});
  ASSERT_TRUE(want.ok()) << want.status().ToString();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  ASSERT_EQ((*got)[0].dtype(), DType::kBFloat16);
  ASSERT_EQ((*got)[1].dtype(), DType::kFloat);
  EXPECT_EQ((*got)[0].shape(), (*want)[0].shape());
  EXPECT_LE(RelativeError(ops::nn::WidenToFloat((*got)[0]), (*want)[0]), 1e-2);
  EXPECT_LE(RelativeError((*got)[1], (*want)[1]), 2e-2);
}

TEST(Bf16EdgeReferenceTest, ReaderComputesExactlyOnTheRoundedActivations) {
  const Tensor x = Values(Shape({1, 4, 4, 128}), 0.5f);
  auto plain = MakeChain(false, backends::KernelChoice::kReference);
  auto chained = MakeChain(true, backends::KernelChoice::kReference);
  ASSERT_TRUE(plain && chained);
  auto want = plain->Run({{"x", x}}, {"conv1:0"});
  auto got = chained->Run({{"x", x}}, {"conv1:0", "conv2:0"});
  ASSERT_TRUE(want.ok() && got.ok());
  // The writer rounds its float32 result to nearest even, once.
  const Tensor rounded = ops::nn::NarrowFromFloat((*want)[0], DType::kBFloat16);
  ASSERT_EQ(rounded.NumElements(), (*got)[0].NumElements());
  for (int64_t i = 0; i < rounded.NumElements(); ++i) {
    ASSERT_EQ(rounded.data<uint16_t>()[i], (*got)[0].data<uint16_t>()[i]) << "element " << i;
  }
  // The reader is the float32 convolution of the widened bf16 values.
  ir::AttrMap attrs;
  attrs["T"].set_type(tensorflow::DT_FLOAT);
  for (int64_t s : {1, 1, 1, 1}) attrs["strides"].mutable_list()->add_i(s);
  attrs["padding"].set_s("SAME");
  auto reader = ops::RunSingleOp("Conv2D", {ops::nn::WidenToFloat(rounded), Values(Shape({1, 1, 128, 128}), 1.f / 32)},
                                 attrs);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*got)[1].ToDoubleVector(), (*reader)[0].ToDoubleVector());
}

TEST(Bf16EdgeAdapterTest, NodesWithoutEdgesKeepTheirKernel) {
  ir::Node node;
  node.op = "Relu";
  EXPECT_FALSE(HasBf16Edge(node));
  node.attrs[ir::kBf16InputAttr].set_b(true);
  EXPECT_TRUE(HasBf16Edge(node));
  node.attrs[ir::kBf16InputAttr].set_b(false);
  EXPECT_FALSE(HasBf16Edge(node));
}

INSTANTIATE_TEST_SUITE_P(KernelChoices, Bf16EdgeTest,
                         ::testing::Values(backends::KernelChoice::kReference, backends::KernelChoice::kFast),
                         [](const auto& info) {
                           return info.param == backends::KernelChoice::kFast ? "Fast" : "Reference";
                         });

}  // namespace
}  // namespace tfhost::runtime
