// GatherND, GatherElements, ScatterND, EyeLike and CumSum on small models
// whose index inputs are fed at run time (so the run-time wrapping of
// negative indices is what runs), against the ONNX operator definitions'
// own examples or values worked out by hand from them.
#include <gtest/gtest.h>

#include "base/test_status.h"
#include "loaders/onnx/onnx_test_model.h"

namespace tfhost::loaders {
namespace {

using namespace onnx::testing;  // NOLINT: test model builders
using ::onnx::TensorProto;

Tensor Floats(std::vector<float> v, std::vector<int64_t> dims) { return Tensor::FromVector<float>(v, Shape(dims)); }
Tensor Ints(std::vector<int64_t> v, std::vector<int64_t> dims) { return Tensor::FromVector<int64_t>(v, Shape(dims)); }

TEST(OnnxGatherOpsTest, GatherNdWrapsNegativeIndicesByTheDimensionTheyAddress) {
  auto y = RunNode(Node("GatherND", {"data", "indices"}, {"y"}),
                   {{"data", Floats({0, 1, 2, 3, 4, 5}, {2, 3})}, {"indices", Ints({0, 0, 1, -1, -2, 1}, {3, 2})}});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(y->shape(), Shape({3}));
  EXPECT_EQ(y->ToDoubleVector(), (std::vector<double>{0, 5, 1}));
}

TEST(OnnxGatherOpsTest, GatherNdWithBatchDimsIndexesEachBatchEntryOnItsOwn) {
  // The operator definition's example 5.
  ::onnx::NodeProto n = Node("GatherND", {"data", "indices"}, {"y"});
  SetInt(&n, "batch_dims", 1);
  auto y = RunNode(n, {{"data", Floats({0, 1, 2, 3, 4, 5, 6, 7}, {2, 2, 2})}, {"indices", Ints({1, 0}, {2, 1})}});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(y->shape(), Shape({2, 2}));
  EXPECT_EQ(y->ToDoubleVector(), (std::vector<double>{2, 3, 4, 5}));
}

TEST(OnnxGatherOpsTest, GatherNdRefusesTuplesLongerThanTheDataRank) {
  TFHOST_EXPECT_ERROR(RunNode(Node("GatherND", {"data", "indices"}, {"y"}, "gnd"),
                              {{"data", Floats({0, 1}, {2})}, {"indices", Ints({0, 0}, {1, 2})}})
                          .status(),
                      StatusCode::kInvalidArgument,
                      "('gnd', op GatherND, opset 17): index tuples of length 2 after 0 batch dimensions address "
                      "more than the 1 dimensions of data");
}

TEST(OnnxGatherOpsTest, GatherElementsPicksAlongTheAxisAndWrapsNegativeIndices) {
  // The operator definition's example 1, with -1 standing for 1.
  ::onnx::NodeProto n = Node("GatherElements", {"data", "indices"}, {"y"});
  SetInt(&n, "axis", 1);
  auto y = RunNode(n, {{"data", Floats({1, 2, 3, 4}, {2, 2})}, {"indices", Ints({0, 0, -1, 0}, {2, 2})}});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(y->ToDoubleVector(), (std::vector<double>{1, 1, 4, 3}));
  // Along axis 0, with fewer index rows than data rows.
  ::onnx::NodeProto rows = Node("GatherElements", {"data", "indices"}, {"y"});
  auto r = RunNode(rows, {{"data", Floats({1, 2, 3, 4, 5, 6, 7, 8, 9}, {3, 3})},
                          {"indices", Ints({1, 2, 0, 2, 0, 0}, {2, 3})}});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->shape(), Shape({2, 3}));
  EXPECT_EQ(r->ToDoubleVector(), (std::vector<double>{4, 8, 3, 7, 2, 3}));
}

// The node that computes an ONNX value is named after it (here y).
TEST(OnnxGatherOpsTest, GatherElementsOutOfRangeFailsInTheKernelNamingIt) {
  TFHOST_EXPECT_ERROR(RunNode(Node("GatherElements", {"data", "indices"}, {"y"}, "ge"),
                              {{"data", Floats({1, 2, 3, 4}, {2, 2})}, {"indices", Ints({0, 2, 0, 0}, {2, 2})}})
                          .status(),
                      StatusCode::kInvalidArgument,
                      "node 'y' (GatherNd): index vector 1 [2, 1] does not index into shape [2,2]");
}

TEST(OnnxGatherOpsTest, ScatterNdReplacesOrReducesTheAddressedSlices) {
  // The operator definition's example 1, one index written as -5.
  const std::vector<Feed> feeds = {{"data", Floats({1, 2, 3, 4, 5, 6, 7, 8}, {8})},
                                   {"indices", Ints({-4, 3, 1, 7}, {4, 1})},
                                   {"updates", Floats({9, 10, 11, 12}, {4})}};
  auto y = RunNode(Node("ScatterND", {"data", "indices", "updates"}, {"y"}), feeds);
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(y->ToDoubleVector(), (std::vector<double>{1, 11, 3, 10, 9, 6, 7, 12}));
  ::onnx::NodeProto add = Node("ScatterND", {"data", "indices", "updates"}, {"y"});
  auto* r = add.add_attribute();
  r->set_name("reduction");
  r->set_type(::onnx::AttributeProto::STRING);
  r->set_s("add");
  auto sum = RunNode(add, feeds);
  ASSERT_TRUE(sum.ok()) << sum.status().ToString();
  EXPECT_EQ(sum->ToDoubleVector(), (std::vector<double>{1, 13, 3, 14, 14, 6, 7, 20}));
  r->set_s("mul");
  TFHOST_EXPECT_ERROR(RunNode(add, feeds).status(), StatusCode::kUnimplemented,
                      "op ScatterND, opset 17): reduction 'mul' (TensorFlow has no multiplying scatter)");
}

TEST(OnnxGatherOpsTest, EyeLikePutsOnesOnTheShiftedDiagonalInTheRequestedType) {
  ::onnx::NodeProto n = Node("EyeLike", {"x"}, {"y"});
  SetInt(&n, "k", 1);
  SetInt(&n, "dtype", TensorProto::INT32);
  auto y = RunNode(n, {{"x", Floats({0, 0, 0, 0, 0, 0}, {2, 3})}}, TensorProto::INT32);
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(y->dtype(), DType::kInt32);
  EXPECT_EQ(y->ToDoubleVector(), (std::vector<double>{0, 1, 0, 0, 0, 1}));
  ::onnx::NodeProto below = Node("EyeLike", {"x"}, {"y"});
  SetInt(&below, "k", -1);
  auto b = RunNode(below, {{"x", Floats({0, 0, 0, 0, 0, 0}, {3, 2})}});
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_EQ(b->ToDoubleVector(), (std::vector<double>{0, 0, 1, 0, 0, 1}));
}

TEST(OnnxGatherOpsTest, CumSumHonoursExclusiveAndReverse) {
  ::onnx::NodeProto n = Node("CumSum", {"x", "axis"}, {"y"});
  SetInt(&n, "exclusive", 1);
  SetInt(&n, "reverse", 1);
  auto y = RunNode(n, {{"x", Floats({1, 2, 3, 4, 5, 6}, {2, 3})}, {"axis", Tensor::Scalar<int64_t>(-1)}});
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(y->ToDoubleVector(), (std::vector<double>{5, 3, 0, 11, 6, 0}));
  auto plain = RunNode(Node("CumSum", {"x", "axis"}, {"y"}),
                       {{"x", Floats({1, 2, 3, 4, 5, 6}, {2, 3})}, {"axis", Tensor::Scalar<int64_t>(0)}});
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  EXPECT_EQ(plain->ToDoubleVector(), (std::vector<double>{1, 2, 3, 5, 7, 9}));
}

}  // namespace
}  // namespace tfhost::loaders
