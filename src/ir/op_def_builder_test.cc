#include "ir/op_def_builder.h"

#include <gtest/gtest.h>

#include "ir/op_def_util.h"
#include "base/test_status.h"

namespace tfhost::ir {
namespace {

TEST(OpDefBuilderTest, ParsesTensorFlowStyleSpecs) {
  auto def = OpDefBuilder("Conv2D")
                 .Input("input: T").Input("filter: T").Output("output: T")
                 .Attr("T: {half, bfloat16, float, double}")
                 .Attr("strides: list(int)")
                 .Attr("padding: {'SAME', 'VALID', 'EXPLICIT'}")
                 .Attr("data_format: string = 'NHWC'")
                 .Attr("dilations: list(int) = [1, 1, 1, 1]")
                 .Attr("use_cudnn_on_gpu: bool = true")
                 .Finalize();
  ASSERT_TRUE(def.ok()) << def.status().ToString();
  EXPECT_EQ(def->input_arg(0).type_attr(), "T");
  ASSERT_EQ(def->attr_size(), 6);
  EXPECT_EQ(def->attr(0).type(), "type");
  EXPECT_EQ(def->attr(0).allowed_values().list().type_size(), 4);
  EXPECT_EQ(def->attr(2).type(), "string");
  EXPECT_EQ(def->attr(3).default_value().s(), "NHWC");
  EXPECT_EQ(def->attr(4).default_value().list().i_size(), 4);
  EXPECT_TRUE(def->attr(5).default_value().b());
}

TEST(OpDefBuilderTest, ListArgsAndFixedTypes) {
  auto def = OpDefBuilder("Split").Input("split_dim: int32").Input("value: T")
                 .Output("output: num_split * T").Attr("num_split: int >= 1").Attr("T: type")
                 .Finalize();
  ASSERT_TRUE(def.ok()) << def.status().ToString();
  EXPECT_EQ(def->input_arg(0).type(), tensorflow::DT_INT32);
  EXPECT_EQ(def->output_arg(0).number_attr(), "num_split");
  Node node;
  node.name = "s";
  node.op = "Split";
  node.attrs["num_split"].set_i(3);
  node.attrs["T"].set_type(tensorflow::DT_FLOAT);
  auto dtypes = OutputDTypes(*def, node);
  ASSERT_TRUE(dtypes.ok());
  EXPECT_EQ(dtypes->size(), 3u);
  auto range = OutputArgRange(*def, node, "output");
  ASSERT_TRUE(range.ok());
  EXPECT_EQ(range->second, 3);
}

TEST(OpDefBuilderTest, DefaultAfterAMinimumAndEscapedStringDefaults) {
  auto def = OpDefBuilder("InitializeTableFromTextFileV2")
                 .Attr("vocab_size: int >= -1 = -1")
                 .Attr("delimiter: string = '\\t'")
                 .Attr("key_index: int >= -2")
                 .Finalize();
  ASSERT_TRUE(def.ok()) << def.status().ToString();
  EXPECT_EQ(def->attr(0).type(), "int");
  EXPECT_TRUE(def->attr(0).has_default_value());
  EXPECT_EQ(def->attr(0).default_value().i(), -1);
  EXPECT_EQ(def->attr(1).default_value().s(), "\t");
  EXPECT_FALSE(def->attr(2).has_default_value());
  // The minimums are kept: the loader checks them (ir/attr_constraints.h).
  EXPECT_TRUE(def->attr(0).has_minimum());
  EXPECT_EQ(def->attr(0).minimum(), -1);
  EXPECT_EQ(def->attr(2).minimum(), -2);
  EXPECT_FALSE(def->attr(1).has_minimum());
}

TEST(OpDefBuilderTest, ArgNamingAnUnknownTypeIsAnError) {
  auto def = OpDefBuilder("Bad").Input("x: NotAType").Finalize();
  TFHOST_ASSERT_ERROR(def, StatusCode::kInvalidArgument,
                      "op schema Bad, input 'x: NotAType': unknown dtype 'NotAType' (expected e.g. float32, int64,");
}

}  // namespace
}  // namespace tfhost::ir
