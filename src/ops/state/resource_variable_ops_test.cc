#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "ops/state/state_ops.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

Tensor Handle(const std::string& name) {
  Tensor h(DType::kResource, Shape());
  h.strings()[0] = name;
  return h;
}

ir::AttrMap DTypeAttr(DType d) { return {{"dtype", MakeAttr(d)}}; }

TEST(VarHandleOpTest, HandleNamesSharedNameElseNodeName) {
  ResourceManager rm;
  auto out = RunSingleOp("VarHandleOp", {},
                         {{"dtype", MakeAttr(DType::kFloat)}, {"shared_name", MakeAttr("dense/kernel")}}, &rm);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ((*out)[0].dtype(), DType::kResource);
  EXPECT_TRUE((*out)[0].shape().IsScalar());
  EXPECT_EQ((*out)[0].strings()[0], "dense/kernel");

  auto unnamed = RunSingleOp("VarHandleOp", {}, DTypeAttr(DType::kFloat), &rm);
  ASSERT_TRUE(unnamed.ok());
  EXPECT_EQ((*unnamed)[0].strings()[0], "test_VarHandleOp");  // RunSingleOp's node name
}

TEST(VarHandleOpTest, SameNameWithOtherDTypeIsAnError) {
  ResourceManager rm;
  ASSERT_TRUE(RunSingleOp("VarHandleOp", {}, {{"dtype", MakeAttr(DType::kFloat)}, {"shared_name", MakeAttr("v")}}, &rm).ok());
  auto out = RunSingleOp("VarHandleOp", {}, {{"dtype", MakeAttr(DType::kInt32)}, {"shared_name", MakeAttr("v")}}, &rm);
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument, "variable 'v' has dtype float32, not int32");
}

TEST(ReadVariableOpTest, UninitializedVariableIsAnErrorNamingIt) {
  ResourceManager rm;
  auto out = RunSingleOp("ReadVariableOp", {Handle("w")}, DTypeAttr(DType::kFloat), &rm);
  TFHOST_ASSERT_ERROR(out, StatusCode::kFailedPrecondition,
                      "node 'test_ReadVariableOp' (ReadVariableOp): variable w is uninitialized (it does not exist)");
  EXPECT_NE(out.status().message().find("variable w is uninitialized"), std::string::npos);

  ASSERT_TRUE(RunSingleOp("VarHandleOp", {}, {{"dtype", MakeAttr(DType::kFloat)}, {"shared_name", MakeAttr("w")}}, &rm).ok());
  out = RunSingleOp("ReadVariableOp", {Handle("w")}, DTypeAttr(DType::kFloat), &rm);
  TFHOST_ASSERT_ERROR(out, StatusCode::kFailedPrecondition, "variable w is uninitialized");
}

TEST(AssignVariableOpTest, AssignThenReadReturnsTheValue) {
  ResourceManager rm;
  Tensor v = Tensor::FromVector<float>({1, 2, 3});
  ASSERT_TRUE(RunSingleOp("AssignVariableOp", {Handle("w"), v}, DTypeAttr(DType::kFloat), &rm).ok());
  auto out = RunSingleOp("ReadVariableOp", {Handle("w")}, DTypeAttr(DType::kFloat), &rm);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], v));
  auto init = RunSingleOp("VarIsInitializedOp", {Handle("w")}, {}, &rm);
  ASSERT_TRUE(init.ok());
  EXPECT_TRUE((*init)[0].data<bool>()[0]);
}

TEST(AssignVariableOpTest, ValidateShapeRejectsNewShapeOnlyWhenSet) {
  ResourceManager rm;
  ASSERT_TRUE(RunSingleOp("AssignVariableOp", {Handle("w"), Tensor::FromVector<float>({1, 2})},
                          DTypeAttr(DType::kFloat), &rm).ok());
  auto bad = RunSingleOp("AssignVariableOp", {Handle("w"), Tensor::FromVector<float>({1, 2, 3})},
                         {{"dtype", MakeAttr(DType::kFloat)}, {"validate_shape", MakeAttr(true)}}, &rm);
  TFHOST_ASSERT_ERROR(bad, StatusCode::kInvalidArgument,
                      "variable w has shape [2] but the assigned value has shape [3]");
  // Default validate_shape=false lets the shape change.
  EXPECT_TRUE(RunSingleOp("AssignVariableOp", {Handle("w"), Tensor::FromVector<float>({1, 2, 3})},
                          DTypeAttr(DType::kFloat), &rm).ok());
}

TEST(AssignVariableOpTest, ValueDTypeMustMatchAttr) {
  ResourceManager rm;
  auto out = RunSingleOp("AssignVariableOp", {Handle("w"), Tensor::Scalar<int32_t>(1)},
                         DTypeAttr(DType::kFloat), &rm);
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "input 1 'value' (dtype from attr dtype) is int32, expected float32");
}

TEST(AssignAddVariableOpTest, AddsAndSubtractsInPlaceOfTheValue) {
  ResourceManager rm;
  Tensor start = Tensor::FromVector<float>({1, 2});
  ASSERT_TRUE(RunSingleOp("AssignVariableOp", {Handle("w"), start}, DTypeAttr(DType::kFloat), &rm).ok());
  ASSERT_TRUE(RunSingleOp("AssignAddVariableOp", {Handle("w"), Tensor::FromVector<float>({10, 20})},
                          DTypeAttr(DType::kFloat), &rm).ok());
  ASSERT_TRUE(RunSingleOp("AssignSubVariableOp", {Handle("w"), Tensor::FromVector<float>({0.5f, 1})},
                          DTypeAttr(DType::kFloat), &rm).ok());
  auto out = RunSingleOp("ReadVariableOp", {Handle("w")}, DTypeAttr(DType::kFloat), &rm);
  ASSERT_TRUE(out.ok());
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<float>({10.5f, 21})));
  // The tensor first assigned is not modified (readers may still hold it).
  EXPECT_TRUE(TensorsEqual(start, Tensor::FromVector<float>({1, 2})));
}

TEST(AssignAddVariableOpTest, HalfAndInt64AreSupported) {
  ResourceManager rm;
  Tensor h(DType::kHalf, Shape({1}));
  h.data<uint16_t>()[0] = FloatToHalf(1.5f);
  ASSERT_TRUE(RunSingleOp("AssignVariableOp", {Handle("h"), h}, DTypeAttr(DType::kHalf), &rm).ok());
  ASSERT_TRUE(RunSingleOp("AssignAddVariableOp", {Handle("h"), h}, DTypeAttr(DType::kHalf), &rm).ok());
  auto out = RunSingleOp("ReadVariableOp", {Handle("h")}, DTypeAttr(DType::kHalf), &rm);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(HalfToFloat((*out)[0].data<uint16_t>()[0]), 3.0f);

  ASSERT_TRUE(RunSingleOp("AssignVariableOp", {Handle("i"), Tensor::Scalar<int64_t>(INT64_MAX)},
                          DTypeAttr(DType::kInt64), &rm).ok());
  ASSERT_TRUE(RunSingleOp("AssignAddVariableOp", {Handle("i"), Tensor::Scalar<int64_t>(1)},
                          DTypeAttr(DType::kInt64), &rm).ok());
  out = RunSingleOp("ReadVariableOp", {Handle("i")}, DTypeAttr(DType::kInt64), &rm);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*(*out)[0].data<int64_t>(), INT64_MIN);  // wraps, as in TensorFlow
}

TEST(AssignAddVariableOpTest, ShapeMismatchAndUninitializedAreErrors) {
  ResourceManager rm;
  auto out = RunSingleOp("AssignAddVariableOp", {Handle("w"), Tensor::Scalar<float>(1)},
                         DTypeAttr(DType::kFloat), &rm);
  TFHOST_ASSERT_ERROR(out, StatusCode::kFailedPrecondition, "variable w is uninitialized");
  ASSERT_TRUE(RunSingleOp("AssignVariableOp", {Handle("w"), Tensor::FromVector<float>({1, 2})},
                          DTypeAttr(DType::kFloat), &rm).ok());
  out = RunSingleOp("AssignAddVariableOp", {Handle("w"), Tensor::Scalar<float>(1)},
                    DTypeAttr(DType::kFloat), &rm);
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "variable w: cannot update a variable of shape [2] with a value of shape []; shapes must be equal");
}

TEST(VarIsInitializedOpTest, FalseForUnknownAndUnassignedVariables) {
  ResourceManager rm;
  auto out = RunSingleOp("VarIsInitializedOp", {Handle("nope")}, {}, &rm);
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE((*out)[0].data<bool>()[0]);
  ASSERT_TRUE(RunSingleOp("VarHandleOp", {}, {{"dtype", MakeAttr(DType::kFloat)}, {"shared_name", MakeAttr("v")}}, &rm).ok());
  out = RunSingleOp("VarIsInitializedOp", {Handle("v")}, {}, &rm);
  ASSERT_TRUE(out.ok());
  EXPECT_FALSE((*out)[0].data<bool>()[0]);
}

TEST(DestroyResourceOpTest, DestroyedVariableReadsAsUninitialized) {
  ResourceManager rm;
  ASSERT_TRUE(RunSingleOp("AssignVariableOp", {Handle("w"), Tensor::Scalar<float>(1)},
                          DTypeAttr(DType::kFloat), &rm).ok());
  ASSERT_TRUE(RunSingleOp("DestroyResourceOp", {Handle("w")}, {}, &rm).ok());
  TFHOST_EXPECT_ERROR(RunSingleOp("ReadVariableOp", {Handle("w")}, DTypeAttr(DType::kFloat), &rm), StatusCode::kFailedPrecondition,
                      "variable w is uninitialized");
  EXPECT_TRUE(RunSingleOp("DestroyResourceOp", {Handle("never")}, {}, &rm).ok());
  auto strict = RunSingleOp("DestroyResourceOp", {Handle("never")},
                            {{"ignore_lookup_error", MakeAttr(false)}}, &rm);
  TFHOST_EXPECT_ERROR(strict, StatusCode::kNotFound, "resource 'never' does not exist");
}

TEST(DisableCopyOnReadTest, IsANoOpOnAHandle) {
  ResourceManager rm;
  EXPECT_TRUE(RunSingleOp("DisableCopyOnRead", {Handle("w")}, {}, &rm).ok());
  TFHOST_EXPECT_ERROR(RunSingleOp("DisableCopyOnRead", {Tensor::Scalar<float>(1)}, {}, &rm), StatusCode::kInvalidArgument,
                      "input 0 'resource' (dtype from the schema) is float32, expected resource");
}

TEST(ResourceGatherTest, GathersRowsAndRejectsOutOfRange) {
  ResourceManager rm;
  Tensor table = Tensor::FromVector<float>({0, 1, 10, 11, 20, 21}, Shape({3, 2}));
  ASSERT_TRUE(RunSingleOp("AssignVariableOp", {Handle("emb"), table}, DTypeAttr(DType::kFloat), &rm).ok());
  ir::AttrMap attrs = {{"dtype", MakeAttr(DType::kFloat)}, {"Tindices", MakeAttr(DType::kInt32)}};
  auto out = RunSingleOp("ResourceGather", {Handle("emb"), Tensor::FromVector<int32_t>({2, 0, 2})}, attrs, &rm);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<float>({20, 21, 0, 1, 20, 21}, Shape({3, 2}))));
  auto bad = RunSingleOp("ResourceGather", {Handle("emb"), Tensor::FromVector<int32_t>({3})}, attrs, &rm);
  TFHOST_ASSERT_ERROR(bad, StatusCode::kInvalidArgument, "indices[0] = 3 is not in [0, 3)");
}

TEST(VariableResourceNameTest, SharedNameWinsOverNodeName) {
  ir::Node node;
  node.name = "x";
  EXPECT_EQ(VariableResourceName(node), "x");
  node.attrs["shared_name"] = MakeAttr("");
  EXPECT_EQ(VariableResourceName(node), "x");
  node.attrs["shared_name"] = MakeAttr("y");
  EXPECT_EQ(VariableResourceName(node), "y");
}

}  // namespace
}  // namespace tfhost::ops
