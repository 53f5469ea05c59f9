// ArgMax/ArgMin and TopK on small models, against values worked out by hand
// from the ONNX operator definitions.
#include <gtest/gtest.h>

#include "base/test_status.h"
#include "base/test_temp_dir.h"
#include "loaders/onnx/onnx_loader.h"
#include "loaders/onnx/onnx_test_model.h"

namespace tfhost::loaders {
namespace {

using namespace onnx::testing;  // NOLINT: test model builders

StatusOr<std::map<std::string, Tensor>> RunOnX(const ::onnx::ModelProto& m) {
  tfhost::testing::TempDir dir("onnx_index");
  const std::string path = dir.Sub("m.onnx");
  WriteBytes(path, Serialize(m));
  TFHOST_ASSIGN_OR_RETURN(auto model, LoadOnnxModel(path, LoadOptions()));
  return model->RunSignature("serving_default", {{"x", Tensor::FromVector<float>({1, 5, 5, 7, -2, 3}, {2, 3})}});
}

TEST(OnnxIndexOpsTest, ArgMaxKeepsTheAxisAsOneAndPicksTheFirstOfEqualValues) {
  ::onnx::NodeProto n = Node("ArgMax", {"x"}, {"y"});
  SetInt(&n, "axis", 1);
  auto out = RunOnX(OneNode(n, {{"y", ::onnx::TensorProto::INT64}}));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->at("y").dtype(), DType::kInt64);
  EXPECT_EQ(out->at("y").shape(), Shape({2, 1}));
  EXPECT_EQ(out->at("y").ToDoubleVector(), (std::vector<double>{1, 0}));
  ::onnx::NodeProto arg_min = Node("ArgMin", {"x"}, {"y"});
  SetInt(&arg_min, "keepdims", 0);
  auto min = RunOnX(OneNode(arg_min, {{"y", ::onnx::TensorProto::INT64}}));
  ASSERT_TRUE(min.ok()) << min.status().ToString();
  EXPECT_EQ(min->at("y").shape(), Shape({3}));
  EXPECT_EQ(min->at("y").ToDoubleVector(), (std::vector<double>{0, 1, 1}));
}

TEST(OnnxIndexOpsTest, TopKGivesTheLargestValuesSortedAndTheirInt64Indices) {
  auto out = RunOnX(OneNode(Node("TopK", {"x", "k"}, {"values", "indices"}),
                         {{"values", ::onnx::TensorProto::FLOAT}, {"indices", ::onnx::TensorProto::INT64}},
                         {Int64Tensor("k", {2})}));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->at("values").ToDoubleVector(), (std::vector<double>{5, 5, 7, 3}));
  EXPECT_EQ(out->at("indices").dtype(), DType::kInt64);
  EXPECT_EQ(out->at("indices").ToDoubleVector(), (std::vector<double>{1, 2, 0, 2}));
}

TEST(OnnxIndexOpsTest, TopKOfTheSmallestValuesIsRefusedByName) {
  ::onnx::NodeProto n = Node("TopK", {"x", "k"}, {"values", "indices"});
  SetInt(&n, "largest", 0);
  TFHOST_EXPECT_ERROR(RunOnX(OneNode(n, {{"values", ::onnx::TensorProto::FLOAT}}, {Int64Tensor("k", {1})})).status(),
                      StatusCode::kUnimplemented, "op TopK, opset 17): largest = 0 (the smallest values)");
}

}  // namespace
}  // namespace tfhost::loaders
