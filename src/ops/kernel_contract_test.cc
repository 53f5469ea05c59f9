#include "ops/kernel_contract.h"

#include <new>

#include <gtest/gtest.h>

#include "ir/precision_attrs.h"
#include "ops/op_registry.h"
#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

bool Has(const Status& st, const std::string& text) { return st.message().find(text) != std::string::npos; }

const tensorflow::OpDef& Schema(const std::string& op) { return OpRegistry::Global().Find(op)->def; }

ir::Node NamedNode(const std::string& op, ir::AttrMap attrs) {
  auto node = MakeSingleOpNode(op, std::move(attrs));
  EXPECT_TRUE(node.ok()) << node.status().ToString();
  node->name = "n1";
  return *std::move(node);
}

Tensor F32(std::vector<float> v) { return Tensor::FromVector(v); }

TEST(KernelContractTest, OneInputMatMulIsRejectedNamingTheNodeAndTheSchemaArgs) {
  auto out = RunSingleOp("MatMul", {F32({1, 2})}, {{"T", MakeAttr(DType::kFloat)}});
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "node 'test_MatMul' (MatMul): has 1 data inputs, but the schema of MatMul expects 2 (a, b)");
  EXPECT_TRUE(Has(out.status(), "'test_MatMul'")) << out.status().message();
  EXPECT_TRUE(Has(out.status(), "has 1 data inputs")) << out.status().message();
  EXPECT_TRUE(Has(out.status(), "expects 2 (a, b)")) << out.status().message();
}

TEST(KernelContractTest, StringOpFedANumericTensorIsRejectedNamingTheNodeAndTheArg) {
  auto out = RunSingleOp("StringLength", {F32({1})});
  TFHOST_ASSERT_ERROR(
      out, StatusCode::kInvalidArgument,
      "node 'test_StringLength' (StringLength): input 0 'input' (dtype from the schema) is float32, expected string");
  EXPECT_TRUE(Has(out.status(), "'test_StringLength'")) << out.status().message();
  EXPECT_TRUE(Has(out.status(), "input 0 'input'")) << out.status().message();
  EXPECT_TRUE(Has(out.status(), "is float32, expected string")) << out.status().message();

  auto substr = RunSingleOp("Substr", {F32({1}), Tensor::Scalar<int32_t>(0), Tensor::Scalar<int32_t>(1)},
                            {{"T", MakeAttr(DType::kInt32)}});
  TFHOST_ASSERT_ERROR(
      substr, StatusCode::kInvalidArgument,
      "node 'test_Substr' (Substr): input 0 'input' (dtype from the schema) is float32, expected string");
  EXPECT_TRUE(Has(substr.status(), "'test_Substr'")) << substr.status().message();
  EXPECT_TRUE(Has(substr.status(), "expected string")) << substr.status().message();
}

TEST(KernelContractTest, InputDTypeMustMatchItsTypeAttr) {
  auto out = RunSingleOp("Reshape", {F32({1, 2}), Tensor::FromVector(std::vector<int32_t>{2})},
                         {{"T", MakeAttr(DType::kInt32)}});
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "node 'test_Reshape' (Reshape): input 0 'tensor' (dtype from attr T) is float32, expected int32");
  EXPECT_TRUE(Has(out.status(), "'test_Reshape'")) << out.status().message();
  EXPECT_TRUE(Has(out.status(), "input 0 'tensor' (dtype from attr T) is float32, expected int32"))
      << out.status().message();
}

TEST(KernelContractTest, AnAttrOutsideItsSchemaFailsBeforeTheKernelRuns) {
  // Found by fuzzing: Complex with Tout = float wrote complex elements past a float tensor.
  auto out = RunSingleOp("Complex", {F32({1}), F32({2})}, {{"T", MakeAttr(DType::kFloat)}, {"Tout", MakeAttr(DType::kFloat)}});
  TFHOST_EXPECT_ERROR(out, StatusCode::kInvalidArgument,
                      "node 'test_Complex' (Complex): attr 'Tout' is DT_FLOAT, which is not one of its allowed types");
  auto ok = RunSingleOp("Complex", {F32({1}), F32({2})}, {{"T", MakeAttr(DType::kFloat)}, {"Tout", MakeAttr(DType::kComplex64)}});
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ((*ok)[0].data<float>()[1], 2.0f);
}

TEST(KernelContractTest, VariadicInputCountFollowsTheNumberAttr) {
  auto out = RunSingleOp("ConcatV2", {F32({1}), F32({2}), F32({3}), Tensor::Scalar<int32_t>(0)},
                         {{"N", MakeAttr(2)}, {"T", MakeAttr(DType::kFloat)}});
  TFHOST_ASSERT_ERROR(
      out, StatusCode::kInvalidArgument,
      "node 'test_ConcatV2' (ConcatV2): has 4 data inputs, but the schema of ConcatV2 expects 3 (values (N=2), axis)");
  EXPECT_TRUE(Has(out.status(), "'test_ConcatV2'")) << out.status().message();
  EXPECT_TRUE(Has(out.status(), "values (N=2), axis")) << out.status().message();

  auto ok = RunSingleOp("ConcatV2", {F32({1}), F32({2}), F32({3}), Tensor::Scalar<int32_t>(0)},
                        {{"N", MakeAttr(3)}, {"T", MakeAttr(DType::kFloat)}});
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ((*ok)[0].NumElements(), 3);
}

TEST(KernelContractTest, ListTypedInputsAreCheckedEntryByEntry) {
  ir::AttrMap attrs = {{"T", MakeAttr(std::vector<DType>{DType::kFloat, DType::kInt32})}};
  auto out = RunSingleOp("IdentityN", {F32({1}), F32({2})}, attrs);
  TFHOST_ASSERT_ERROR(
      out, StatusCode::kInvalidArgument,
      "node 'test_IdentityN' (IdentityN): input 1 'input' (dtype from attr T) is float32, expected int32");
  EXPECT_TRUE(Has(out.status(), "'test_IdentityN'")) << out.status().message();
  EXPECT_TRUE(Has(out.status(), "input 1 'input' (dtype from attr T) is float32, expected int32"))
      << out.status().message();
  EXPECT_TRUE(RunSingleOp("IdentityN", {F32({1}), Tensor::Scalar<int32_t>(2)}, attrs).ok());
}

TEST(KernelContractTest, MissingNumberAttrIsAnErrorNamingTheNode) {
  ir::Node node = NamedNode("ConcatV2", {{"T", MakeAttr(DType::kFloat)}});
  auto late = CheckNodeContract(Schema("ConcatV2"), node, {DType::kFloat, DType::kInt32});
  TFHOST_ASSERT_ERROR(
      late, StatusCode::kInvalidArgument,
      "node 'n1' (ConcatV2): cannot count the inputs of arg 'values': node 'n1' (ConcatV2): missing required attr 'N'");
  EXPECT_TRUE(Has(late.status(), "'n1'")) << late.status().message();
  EXPECT_TRUE(Has(late.status(), "'values'")) << late.status().message();
}

TEST(KernelContractTest, OutputCountDisagreeingWithTheSchemaIsAnError) {
  ir::Node node = NamedNode("Identity", {{"T", MakeAttr(DType::kFloat)}});
  node.output_dtypes = {DType::kFloat, DType::kFloat};
  auto late = CheckNodeContract(Schema("Identity"), node, {DType::kFloat});
  TFHOST_ASSERT_ERROR(late, StatusCode::kInvalidArgument,
                      "node 'n1' (Identity): has 2 outputs, but the schema of Identity and the node's attrs give 1");
  EXPECT_TRUE(Has(late.status(), "'n1'")) << late.status().message();
  EXPECT_TRUE(Has(late.status(), "has 2 outputs")) << late.status().message();
}

TEST(KernelContractTest, RefInputsAreCountedButNotTyped) {
  ir::Node node = NamedNode("Assign", {{"T", MakeAttr(DType::kFloat)}});
  // The loader may wire a resource handle to a TF1 variable op's ref input.
  auto late = CheckNodeContract(Schema("Assign"), node, {DType::kResource, DType::kFloat});
  ASSERT_TRUE(late.ok()) << late.status().ToString();
  EXPECT_TRUE(late->empty());
  auto value = CheckNodeContract(Schema("Assign"), node, {DType::kResource, DType::kInt32});
  EXPECT_EQ(value.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Has(value.status(), "input 1 'value' (dtype from attr T) is int32, expected float32"))
      << value.status().message();
  auto count = CheckNodeContract(Schema("Assign"), node, {DType::kFloat});
  EXPECT_EQ(count.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Has(count.status(), "'n1' (Assign): has 1 data inputs")) << count.status().message();
}

TEST(KernelContractTest, OnlyABf16EdgeReaderTakesBf16ForItsFloatInput0) {
  ir::Node node = NamedNode("MatMul", {{"T", MakeAttr(DType::kFloat)}});
  auto plain = CheckNodeContract(Schema("MatMul"), node, {DType::kBFloat16, DType::kFloat});
  TFHOST_EXPECT_ERROR(plain, StatusCode::kInvalidArgument,
                      "node 'n1' (MatMul): input 0 'a' (dtype from attr T) is bfloat16, expected float32");
  node.attrs[ir::kBf16InputAttr] = MakeAttr(true);
  EXPECT_TRUE(CheckNodeContract(Schema("MatMul"), node, {DType::kBFloat16, DType::kFloat}).ok());
  auto input1 = CheckNodeContract(Schema("MatMul"), node, {DType::kFloat, DType::kBFloat16});
  EXPECT_EQ(input1.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Has(input1.status(), "input 1 'b' (dtype from attr T) is bfloat16, expected float32"))
      << input1.status().message();
}

TEST(KernelContractTest, UnknownInputDTypesAreLeftToTheRunTimeCheck) {
  ir::Node node = NamedNode("MatMul", {{"T", MakeAttr(DType::kFloat)}});
  auto late = CheckNodeContract(Schema("MatMul"), node, {DType::kFloat, DType::kInvalid});
  ASSERT_TRUE(late.ok()) << late.status().ToString();
  EXPECT_EQ(*late, std::vector<int>{1});

  auto expected = ExpectedInputDTypes(Schema("MatMul"), node);
  ASSERT_TRUE(expected.ok());
  ResourceManager resources;
  KernelContext ctx(node, {F32({1}), Tensor::Scalar<int32_t>(1)}, {false, false}, &resources, nullptr);
  Status st = CheckLateInputs(ctx, *expected, *late);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(Has(st, "'n1'")) << st.message();
  EXPECT_TRUE(Has(st, "input 1 is int32, expected float32")) << st.message();
}

TEST(KernelContractTest, RunTimeCheckSkipsDeadInputsOfMerge) {
  ir::Node node = NamedNode("Merge", {{"T", MakeAttr(DType::kFloat)}, {"N", MakeAttr(2)}});
  auto late = CheckNodeContract(Schema("Merge"), node, {DType::kInvalid, DType::kInvalid});
  ASSERT_TRUE(late.ok()) << late.status().ToString();
  auto expected = ExpectedInputDTypes(Schema("Merge"), node);
  ASSERT_TRUE(expected.ok());
  ResourceManager resources;
  KernelContext ctx(node, {Tensor(), F32({4})}, {true, false}, &resources, nullptr);
  ctx.set_num_outputs(2);
  KernelFn checked = WithLateInputChecks(OpRegistry::Global().Find("Merge")->kernel, *expected, *late);
  ASSERT_TRUE(InvokeKernel(checked, ctx).ok());
  EXPECT_EQ(ctx.outputs()[0].data<float>()[0], 4.0f);
}

TEST(KernelContractTest, AllocationFailureBecomesResourceExhaustedNamingTheNode) {
  ir::Node node = NamedNode("Identity", {{"T", MakeAttr(DType::kFloat)}});
  ResourceManager resources;
  KernelContext ctx(node, {F32({1})}, {false}, &resources, nullptr);
  Status st = InvokeKernel([](KernelContext&) -> Status { throw std::bad_alloc(); }, ctx);
  EXPECT_EQ(st.code(), StatusCode::kResourceExhausted);
  EXPECT_TRUE(Has(st, "'n1' (Identity)")) << st.message();
  EXPECT_TRUE(Has(st, "out of memory")) << st.message();
}

TEST(KernelContractTest, ReadingAnInputPastTheNodesInputsFailsTheCallNamingTheIndex) {
  ir::Node node = NamedNode("Identity", {{"T", MakeAttr(DType::kFloat)}});
  ResourceManager resources;
  KernelContext ctx(node, {F32({1})}, {false}, &resources, nullptr);
  bool got_empty = false;
  Status st = InvokeKernel(
      [&](KernelContext& c) {
        got_empty = !c.input(3).valid() && !c.TakeInput(-1).valid() && c.input_is_dead(7);
        return OkStatus();
      },
      ctx);
  EXPECT_TRUE(got_empty);
  EXPECT_EQ(st.code(), StatusCode::kInternal);
  EXPECT_TRUE(Has(st, "'n1'")) << st.message();
  EXPECT_TRUE(Has(st, "read input 3, but the node has 1 inputs")) << st.message();
}

}  // namespace
}  // namespace tfhost::ops
