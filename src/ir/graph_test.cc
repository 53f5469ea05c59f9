#include "ir/graph.h"

#include <gtest/gtest.h>

#include "ir/attrs.h"
#include "ir/tensor_proto.h"

namespace tfhost::ir {
namespace {

TEST(GraphTest, ConstHeldAsATensorReadsThroughGetAttrAndIsWrittenOutInFull) {
  Node node;
  node.name = "w";
  SetConstValue(&node, Tensor::FromVector<float>({1.5f, -2.f, 3.f}, Shape({3, 1})));
  EXPECT_EQ(node.op, "Const");
  EXPECT_EQ(*GetAttr<DType>(node, "dtype"), DType::kFloat);
  // The attr carries only dtype and shape; the bytes are the tensor's.
  const tensorflow::TensorProto& stub = node.attrs.at("value").tensor();
  EXPECT_TRUE(stub.tensor_content().empty());
  EXPECT_EQ(stub.tensor_shape().dim_size(), 2);
  auto value = GetAttr<Tensor>(node, "value");
  ASSERT_TRUE(value.ok()) << value.status().ToString();
  EXPECT_TRUE(value->SharesBufferWith(node.constant));

  Graph g;
  ASSERT_TRUE(g.AddNode(node).ok());
  const tensorflow::GraphDef gd = g.ToGraphDef();
  ASSERT_EQ(gd.node_size(), 1);
  auto written = TensorFromProto(gd.node(0).attr().at("value").tensor());
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_EQ(written->shape(), Shape({3, 1}));
  EXPECT_EQ(written->ToDoubleVector(), (std::vector<double>{1.5, -2, 3}));
}

}  // namespace
}  // namespace tfhost::ir
