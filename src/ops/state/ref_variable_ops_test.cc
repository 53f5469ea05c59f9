#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "ops/state/state_ops.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

// Attrs of an Assign-family node updating variable `var` with dtype T=float.
ir::AttrMap RefAttrs(const std::string& var) {
  return {{"T", MakeAttr(DType::kFloat)}, {kVarNameAttr, MakeAttr(var)}};
}

ir::AttrMap VariableAttrs(const std::string& shared_name) {
  return {{"dtype", MakeAttr(DType::kFloat)},
          {"shape", tensorflow::AttrValue()},
          {"shared_name", MakeAttr(shared_name)}};
}

TEST(VariableV2Test, UninitializedVariableIsAnErrorNamingIt) {
  ResourceManager rm;
  auto out = RunSingleOp("VariableV2", {}, VariableAttrs("dense/bias"), &rm);
  TFHOST_ASSERT_ERROR(out, StatusCode::kFailedPrecondition,
                      "node 'test_VariableV2' (VariableV2): variable dense/bias is uninitialized (attempting to use an "
                      "uninitialized value)");
  EXPECT_NE(out.status().message().find("variable dense/bias is uninitialized"), std::string::npos)
      << out.status().message();
}

TEST(AssignTest, AssignInitializesTheVariableAndReturnsTheValue) {
  ResourceManager rm;
  Tensor v = Tensor::FromVector<float>({0.5f, 2});
  auto out = RunSingleOp("Assign", {Tensor(), v}, RefAttrs("a"), &rm);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], v));
  auto read = RunSingleOp("VariableV2", {}, VariableAttrs("a"), &rm);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_TRUE(TensorsEqual((*read)[0], v));
  auto init = RunSingleOp("IsVariableInitialized", {Tensor()},
                          {{"dtype", MakeAttr(DType::kFloat)}, {kVarNameAttr, MakeAttr("a")}}, &rm);
  ASSERT_TRUE(init.ok());
  EXPECT_TRUE((*init)[0].data<bool>()[0]);
}

TEST(AssignTest, ValidateShapeChecksOnlyInitializedVariables) {
  ResourceManager rm;
  ASSERT_TRUE(RunSingleOp("Assign", {Tensor(), Tensor::FromVector<float>({1, 2})}, RefAttrs("a"), &rm).ok());
  auto bad = RunSingleOp("Assign", {Tensor(), Tensor::FromVector<float>({1, 2, 3})}, RefAttrs("a"), &rm);
  TFHOST_ASSERT_ERROR(bad, StatusCode::kInvalidArgument,
                      "variable a has shape [2] but the assigned value has shape [3]");
  ir::AttrMap relaxed = RefAttrs("a");
  relaxed["validate_shape"] = MakeAttr(false);
  EXPECT_TRUE(RunSingleOp("Assign", {Tensor(), Tensor::FromVector<float>({1, 2, 3})}, relaxed, &rm).ok());
}

TEST(AssignTest, MissingVarNameAttrIsAnErrorNamingTheNode) {
  ResourceManager rm;
  auto out = RunSingleOp("Assign", {Tensor(), Tensor::Scalar<float>(1)}, {{"T", MakeAttr(DType::kFloat)}}, &rm);
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument, "node 'test_Assign'");
  EXPECT_NE(out.status().message().find(kVarNameAttr), std::string::npos);
}

TEST(AssignAddTest, AddAndSubUpdateAndReturnTheNewValue) {
  ResourceManager rm;
  ASSERT_TRUE(RunSingleOp("Assign", {Tensor(), Tensor::Scalar<float>(3)}, RefAttrs("c"), &rm).ok());
  auto added = RunSingleOp("AssignAdd", {Tensor(), Tensor::Scalar<float>(2)}, RefAttrs("c"), &rm);
  ASSERT_TRUE(added.ok()) << added.status().ToString();
  EXPECT_EQ(*(*added)[0].data<float>(), 5.0f);
  auto subbed = RunSingleOp("AssignSub", {Tensor(), Tensor::Scalar<float>(0.5f)}, RefAttrs("c"), &rm);
  ASSERT_TRUE(subbed.ok());
  EXPECT_EQ(*(*subbed)[0].data<float>(), 4.5f);
  auto read = RunSingleOp("VariableV2", {}, VariableAttrs("c"), &rm);
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(*(*read)[0].data<float>(), 4.5f);
}

TEST(AssignAddTest, UninitializedVariableIsAnError) {
  ResourceManager rm;
  auto out = RunSingleOp("AssignAdd", {Tensor(), Tensor::Scalar<float>(2)}, RefAttrs("nope"), &rm);
  TFHOST_ASSERT_ERROR(out, StatusCode::kFailedPrecondition, "variable nope is uninitialized");
}

TEST(AssignTest, ResourceAndRefOpsShareOneVariableByName) {
  ResourceManager rm;
  ASSERT_TRUE(RunSingleOp("Assign", {Tensor(), Tensor::Scalar<float>(7)}, RefAttrs("shared"), &rm).ok());
  Tensor handle(DType::kResource, Shape());
  handle.strings()[0] = "shared";
  auto out = RunSingleOp("ReadVariableOp", {handle}, {{"dtype", MakeAttr(DType::kFloat)}}, &rm);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*(*out)[0].data<float>(), 7.0f);
}

}  // namespace
}  // namespace tfhost::ops
