// Type attrs that nodes omit, recovered by InferTypes from their inputs
// (TF.js graph models drop them): every binding an OpDef can express, node
// orders and loops that type a node after its consumers, and the errors for
// what no input can determine.
#include "ir/type_attr_inference.h"

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <map>

#include "base/test_status.h"
#include "ir/attrs.h"
#include "ir/op_def_builder.h"

namespace tfhost::ir {
namespace {

// Schemas as TensorFlow registers them (trimmed to the attrs that matter).
const tensorflow::OpDef* TestLookup(const std::string& op) {
  static const auto* defs = [] {
    auto* m = new std::map<std::string, tensorflow::OpDef>();
    const OpDefBuilder builders[] = {
        OpDefBuilder("Placeholder").Output("output: dtype").Attr("dtype: type"),
        OpDefBuilder("AddV2").Input("x: T").Input("y: T").Output("z: T").Attr("T: type"),
        OpDefBuilder("Prelu").Input("x: T").Input("alpha: T").Output("y: T").Attr("T: {float, double}"),
        OpDefBuilder("ConcatV2").Input("values: N * T").Input("axis: Tidx").Output("output: T")
            .Attr("N: int >= 2").Attr("T: type").Attr("Tidx: {int32, int64} = DT_INT32"),
        OpDefBuilder("IdentityN").Input("input: T").Output("output: T").Attr("T: list(type)"),
        OpDefBuilder("DynamicStitch").Input("indices: N * int32").Input("data: N * T").Output("merged: T")
            .Attr("N: int >= 1").Attr("T: type"),
        OpDefBuilder("Cast").Input("x: SrcT").Output("y: DstT").Attr("SrcT: type").Attr("DstT: type"),
        OpDefBuilder("Enter").Input("data: T").Output("output: T").Attr("T: type").Attr("frame_name: string"),
        OpDefBuilder("Merge").Input("inputs: N * T").Output("output: T").Output("value_index: int32")
            .Attr("T: type").Attr("N: int >= 1"),
        OpDefBuilder("NextIteration").Input("data: T").Output("output: T").Attr("T: type"),
        OpDefBuilder("Unpack").Input("value: T").Output("output: num * T").Attr("num: int >= 0").Attr("T: type"),
        OpDefBuilder("TwoLists").Input("a: N * T").Input("b: M * T").Output("out: T")
            .Attr("N: int").Attr("M: int").Attr("T: type"),
    };
    for (const auto& b : builders) {
      auto def = b.Finalize();
      EXPECT_TRUE(def.ok()) << def.status().ToString();
      if (def.ok()) (*m)[def->name()] = *def;
    }
    return m;
  }();
  auto it = defs->find(op);
  return it == defs->end() ? nullptr : &it->second;
}

// Placeholders of the named dtypes plus `nodes`, parsed from pbtxt.
StatusOr<Graph> TypedGraph(const std::map<std::string, std::string>& placeholders, const std::string& nodes) {
  std::string text;
  for (const auto& [name, dtype] : placeholders) {
    text += "node { name: '" + name + "' op: 'Placeholder' attr { key: 'dtype' value { type: " + dtype + " } } }\n";
  }
  tensorflow::GraphDef gd;
  if (!google::protobuf::TextFormat::ParseFromString(text + nodes, &gd)) return InvalidArgument("bad test pbtxt");
  TFHOST_ASSIGN_OR_RETURN(Graph graph, Graph::FromGraphDef(gd));
  TFHOST_RETURN_IF_ERROR(InferTypes(graph, TestLookup));
  return graph;
}

const Node& NodeNamed(const Graph& g, const std::string& name) { return g.node(g.FindNode(name)); }

TEST(TypeAttrInferenceTest, MissingTIsTakenFromTheInputsDtype) {
  auto g = TypedGraph({{"a", "DT_INT64"}, {"b", "DT_INT64"}},
                      "node { name: 'sum' op: 'AddV2' input: 'a' input: 'b' }"
                      "node { name: 'p' op: 'Prelu' input: 'x' input: 'x' }"
                      "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_DOUBLE } } }");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(*GetAttr<DType>(NodeNamed(*g, "sum"), "T"), DType::kInt64);
  EXPECT_EQ(NodeNamed(*g, "sum").output_dtypes, std::vector<DType>{DType::kInt64});
  EXPECT_EQ(NodeNamed(*g, "p").output_dtypes, std::vector<DType>{DType::kDouble});
}

TEST(TypeAttrInferenceTest, ListArgTakesItsLengthFromTheInputCountAndItsTypeFromItsInputs) {
  auto g = TypedGraph({{"a", "DT_FLOAT"}, {"b", "DT_FLOAT"}, {"c", "DT_FLOAT"}, {"axis", "DT_INT32"}},
                      "node { name: 'cat' op: 'ConcatV2' input: 'a' input: 'b' input: 'c' input: 'axis' }");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  const Node& cat = NodeNamed(*g, "cat");
  EXPECT_EQ(*GetAttr<int64_t>(cat, "N"), 3);
  EXPECT_EQ(*GetAttr<DType>(cat, "T"), DType::kFloat);
  EXPECT_EQ(*GetAttr<DType>(cat, "Tidx"), DType::kInt32);  // the schema's default
  EXPECT_EQ(cat.output_dtypes, std::vector<DType>{DType::kFloat});
}

TEST(TypeAttrInferenceTest, TypeListTakesEveryInputsDtypeAndSharedLengthSplitsEvenly) {
  auto g = TypedGraph({{"f", "DT_FLOAT"}, {"i", "DT_INT32"}, {"j", "DT_INT32"}, {"g", "DT_FLOAT"}},
                      "node { name: 'ids' op: 'IdentityN' input: 'f' input: 'i' }"
                      "node { name: 'st' op: 'DynamicStitch' input: 'i' input: 'j' input: 'f' input: 'g' }");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(NodeNamed(*g, "ids").output_dtypes, (std::vector<DType>{DType::kFloat, DType::kInt32}));
  EXPECT_EQ(*GetAttr<int64_t>(NodeNamed(*g, "st"), "N"), 2);
  EXPECT_EQ(NodeNamed(*g, "st").output_dtypes, std::vector<DType>{DType::kFloat});
}

TEST(TypeAttrInferenceTest, ConsumerListedBeforeItsProducersIsTypedAfterThem) {
  auto g = TypedGraph({{"a", "DT_HALF"}}, "node { name: 'c' op: 'AddV2' input: 'b' input: 'b' }"
                                          "node { name: 'b' op: 'AddV2' input: 'a' input: 'a' }");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(NodeNamed(*g, "c").output_dtypes, std::vector<DType>{DType::kHalf});
}

TEST(TypeAttrInferenceTest, LoopMergeIsTypedFromItsEnterThroughTheBackEdge) {
  // Merge reads its own NextIteration, which reads the body, which reads the
  // Merge: only the Enter can start the chain.
  auto g = TypedGraph({{"x", "DT_FLOAT"}},
                      "node { name: 'next' op: 'NextIteration' input: 'body' }"
                      "node { name: 'body' op: 'AddV2' input: 'merge' input: 'merge' }"
                      "node { name: 'merge' op: 'Merge' input: 'enter' input: 'next' }"
                      "node { name: 'enter' op: 'Enter' input: 'x' attr { key: 'frame_name' value { s: 'f' } } }");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(*GetAttr<int64_t>(NodeNamed(*g, "merge"), "N"), 2);
  EXPECT_EQ(NodeNamed(*g, "merge").output_dtypes, (std::vector<DType>{DType::kFloat, DType::kInt32}));
  EXPECT_EQ(NodeNamed(*g, "next").output_dtypes, std::vector<DType>{DType::kFloat});
}

TEST(TypeAttrInferenceTest, AttrThatOnlyAnOutputUsesIsAnErrorNamingNodeAndAttr) {
  auto g = TypedGraph({{"x", "DT_INT32"}}, "node { name: 'to_float' op: 'Cast' input: 'x' }");
  TFHOST_ASSERT_ERROR(g, StatusCode::kInvalidArgument,
                      "node 'to_float' (Cast): missing required attr 'DstT'; only output 'y' of Cast uses it, so no "
                      "input can determine it and the model must set");
  EXPECT_NE(g.status().message().find("node 'to_float' (Cast): missing required attr 'DstT'"), std::string::npos)
      << g.status().message();
  EXPECT_NE(g.status().message().find("only output 'y'"), std::string::npos) << g.status().message();
}

TEST(TypeAttrInferenceTest, InputsFromAnOpWithoutSchemaAreAnErrorNamingThatProducer) {
  auto g = TypedGraph({}, "node { name: 'm' op: 'Mystery' }"
                          "node { name: 'sum' op: 'AddV2' input: 'm' input: 'm:1' }"
                          "node { name: 'twice' op: 'AddV2' input: 'sum' input: 'sum' }");
  TFHOST_ASSERT_ERROR(g, StatusCode::kInvalidArgument,
                      "node 'sum' (AddV2): missing required attr 'T', which input 0 should determine, but that input "
                      "is output 0 of node 'm' (Mystery) and tfhost");
  // The chain ends at 'sum', whose producer has no schema, not at 'twice'.
  EXPECT_NE(g.status().message().find("node 'sum' (AddV2): missing required attr 'T'"), std::string::npos)
      << g.status().message();
  EXPECT_NE(g.status().message().find("node 'm' (Mystery)"), std::string::npos) << g.status().message();
  EXPECT_NE(g.status().message().find("no schema for op 'Mystery'"), std::string::npos) << g.status().message();
}

TEST(TypeAttrInferenceTest, AttrOnlyInputsUseStaysUnsetWhenNoInputTellsItAndConsumersAreStillTyped) {
  auto g = TypedGraph({}, "node { name: 'm' op: 'Mystery' }"
                          "node { name: 'cast' op: 'Cast' input: 'm' attr { key: 'DstT' value { type: DT_HALF } } }"
                          "node { name: 'sum' op: 'AddV2' input: 'cast' input: 'cast' }");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(NodeNamed(*g, "cast").FindAttr("SrcT"), nullptr);
  EXPECT_EQ(NodeNamed(*g, "cast").output_dtypes, std::vector<DType>{DType::kHalf});
  EXPECT_EQ(NodeNamed(*g, "sum").output_dtypes, std::vector<DType>{DType::kHalf});
}

TEST(TypeAttrInferenceTest, InputsThatDisagreeAreAnErrorNamingBothTypes) {
  auto g = TypedGraph({{"f", "DT_FLOAT"}, {"i", "DT_INT32"}}, "node { name: 'sum' op: 'AddV2' input: 'f' input: 'i' }");
  TFHOST_ASSERT_ERROR(g, StatusCode::kInvalidArgument,
                      "node 'sum' (AddV2): missing required attr 'T', and the inputs it binds disagree: input 0 is "
                      "DT_FLOAT, input 1 is DT_INT32");
  EXPECT_NE(g.status().message().find("node 'sum' (AddV2): missing required attr 'T'"), std::string::npos)
      << g.status().message();
  EXPECT_NE(g.status().message().find("input 0 is DT_FLOAT, input 1 is DT_INT32"), std::string::npos)
      << g.status().message();
}

TEST(TypeAttrInferenceTest, TwoMissingListLengthsAreAnErrorNamingBoth) {
  auto g = TypedGraph({{"f", "DT_FLOAT"}}, "node { name: 'two' op: 'TwoLists' input: 'f' input: 'f' input: 'f' }");
  TFHOST_ASSERT_ERROR(g, StatusCode::kInvalidArgument,
                      "node 'two' (TwoLists): missing required attrs 'M' and 'N', which each set how many inputs an "
                      "arg takes; 3 inputs cannot say how they split");
  EXPECT_NE(g.status().message().find("node 'two' (TwoLists): missing required attrs 'M' and 'N'"),
            std::string::npos)
      << g.status().message();
}

TEST(TypeAttrInferenceTest, AnOutputListPastTheBoundIsAnErrorBeforeAnythingIsAllocatedForIt) {
  // A crafted count of 2^31 outputs once made the loader allocate gigabytes.
  auto g = TypedGraph({{"f", "DT_FLOAT"}},
                      "node { name: 'many' op: 'Unpack' input: 'f' attr { key: 'num' value { i: 2147483648 } } }");
  TFHOST_EXPECT_ERROR(g, StatusCode::kInvalidArgument,
                      "node 'many' (Unpack): attr 'num' = 2147483648 asks for more than the 65536 tensors");
  auto ok = TypedGraph({{"f", "DT_FLOAT"}},
                       "node { name: 'few' op: 'Unpack' input: 'f' attr { key: 'num' value { i: 65536 } } }");
  ASSERT_TRUE(ok.ok()) << ok.status().ToString();
  EXPECT_EQ(NodeNamed(*ok, "few").output_dtypes.size(), 65536u);
}

TEST(TypeAttrInferenceTest, AttrsTheNodeSetsAreKeptAsWritten) {
  auto g = TypedGraph({{"a", "DT_FLOAT"}},
                      "node { name: 'ids' op: 'IdentityN' input: 'a' "
                      "attr { key: 'T' value { list { type: DT_FLOAT } } } }");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(NodeNamed(*g, "ids").output_dtypes, std::vector<DType>{DType::kFloat});
}

}  // namespace
}  // namespace tfhost::ir
