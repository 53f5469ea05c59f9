#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "ops/string/string_ops.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

TEST(StringFormatTest, RendersTensorsIntoTheTemplateLikeTfPrint) {
  ir::AttrMap attrs = {{"T", MakeAttr(std::vector<DType>{DType::kInt32, DType::kString})},
                       {"template", MakeAttr("x={} s={}")}, {"placeholder", MakeAttr("{}")}};
  auto out = RunSingleOp("StringFormat", {Tensor::FromVector<int32_t>({1, 2, 3, 4}, Shape({2, 2})), Tensor::StringScalar("hi")},
                         attrs);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].strings()[0], "x=[[1 2]\n [3 4]] s=\"hi\"");
  // summarize 2 over 6 entries: first 2, "...", last 2.
  EXPECT_EQ(SummarizeTensor(Tensor::FromVector<float>({0, 1, 2, 3, 4, 5.5f}), 2), "[0 1 ... 4 5.5]");
  attrs["template"] = MakeAttr("{} {} {}");
  TFHOST_EXPECT_ERROR(RunSingleOp("StringFormat", {Tensor::Scalar<int32_t>(1), Tensor::StringScalar("a")}, attrs), StatusCode::kInvalidArgument,
                      "template has more placeholders than the 2 inputs");
}

TEST(PrintOpsTest, PrintPassesItsInputThroughAndPrintV2Runs) {
  auto out = RunSingleOp("Print", {Tensor::FromVector<float>({1, 2}), Tensor::Scalar<int32_t>(7)},
                         {{"T", MakeAttr(DType::kFloat)}, {"U", MakeAttr(std::vector<DType>{DType::kInt32})},
                          {"message", MakeAttr("value: ")}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<float>({1, 2})));
  EXPECT_TRUE(RunSingleOp("PrintV2", {Tensor::StringScalar("logged")}).ok());
  TFHOST_EXPECT_ERROR(RunSingleOp("PrintV2", {Tensor::FromVector<std::string>({"a", "b"})}), StatusCode::kInvalidArgument,
                      "input must be a string scalar, got [2]");
}

}  // namespace
}  // namespace tfhost::ops
