#include "ir/function_inliner.h"

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "base/test_fixtures.h"
#include "ir/attrs.h"
#include "tensorflow/core/protobuf/saved_model.pb.h"
#include "base/test_status.h"

namespace tfhost::ir {
namespace {

tensorflow::GraphDef ParseGraph(const std::string& text) {
  tensorflow::GraphDef gd;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &gd)) << text;
  return gd;
}

// Schemas of the few ops the handmade graphs use.
const tensorflow::OpDef* TestLookup(const std::string& op) {
  static const auto* defs = [] {
    auto* m = new std::map<std::string, tensorflow::OpDef>();
    const char* specs[] = {
        R"(name: "Placeholder" output_arg { name: "output" type_attr: "dtype" } attr { name: "dtype" type: "type" })",
        R"(name: "Const" output_arg { name: "output" type_attr: "dtype" } attr { name: "dtype" type: "type" }
           attr { name: "value" type: "tensor" })",
        R"(name: "AddV2" input_arg { name: "x" type_attr: "T" } input_arg { name: "y" type_attr: "T" }
           output_arg { name: "z" type_attr: "T" } attr { name: "T" type: "type" })",
        R"(name: "Mul" input_arg { name: "x" type_attr: "T" } input_arg { name: "y" type_attr: "T" }
           output_arg { name: "z" type_attr: "T" } attr { name: "T" type: "type" })",
        R"(name: "Identity" input_arg { name: "input" type_attr: "T" } output_arg { name: "output" type_attr: "T" }
           attr { name: "T" type: "type" })",
        R"(name: "NoOp")",
        R"(name: "Unpack" input_arg { name: "value" type_attr: "T" }
           output_arg { name: "output" type_attr: "T" number_attr: "num" }
           attr { name: "num" type: "int" } attr { name: "T" type: "type" }
           attr { name: "axis" type: "int" default_value { i: 0 } })",
        R"(name: "AddN" input_arg { name: "inputs" type_attr: "T" number_attr: "N" }
           output_arg { name: "sum" type_attr: "T" } attr { name: "N" type: "int" } attr { name: "T" type: "type" })",
    };
    for (const char* spec : specs) {
      tensorflow::OpDef def;
      EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(spec, &def)) << spec;
      (*m)[def.name()] = def;
    }
    return m;
  }();
  auto it = defs->find(op);
  return it == defs->end() ? nullptr : &it->second;
}

std::string InputName(const Graph& g, const TensorRef& ref) {
  return g.node(ref.node).name + ":" + std::to_string(ref.index);
}

std::vector<std::string> ControlNames(const Graph& g, const Node& n) {
  std::vector<std::string> out;
  for (int c : n.control_inputs) out.push_back(g.node(c).name);
  std::sort(out.begin(), out.end());
  return out;
}

// f(x, y) = x * y + x, called through StatefulPartitionedCall.
constexpr char kSimpleCall[] = R"(
node { name: "a" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "b" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "dep" op: "NoOp" }
node { name: "call" op: "StatefulPartitionedCall" input: "a" input: "b" input: "^dep"
  attr { key: "Tin" value { list { type: DT_FLOAT type: DT_FLOAT } } }
  attr { key: "Tout" value { list { type: DT_FLOAT } } }
  attr { key: "f" value { func { name: "f" } } } }
node { name: "out" op: "Identity" input: "call:0" attr { key: "T" value { type: DT_FLOAT } } }
library { function {
  signature { name: "f" input_arg { name: "x" type: DT_FLOAT } input_arg { name: "y" type: DT_FLOAT }
              output_arg { name: "r" type: DT_FLOAT } control_output: "side" }
  node_def { name: "m" op: "Mul" input: "x" input: "y" attr { key: "T" value { type: DT_FLOAT } } }
  node_def { name: "s" op: "AddV2" input: "m:z:0" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
  node_def { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
             attr { key: "value" value { tensor { dtype: DT_FLOAT float_val: 1 } } } }
  node_def { name: "side" op: "NoOp" input: "^m" }
  ret { key: "r" value: "s:z:0" }
  control_ret { key: "side" value: "side" }
} }
)";

TEST(FunctionInlinerTest, CallBecomesIdentityNOverPrefixedBody) {
  auto g = Graph::FromGraphDef(ParseGraph(kSimpleCall));
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_TRUE(InlineFunctionCalls(*g, TestLookup).ok());

  const Node& call = g->node(g->FindNode("call"));
  EXPECT_EQ(call.op, "IdentityN");
  ASSERT_EQ(call.inputs.size(), 1u);
  EXPECT_EQ(InputName(*g, call.inputs[0]), "call/s:0");
  auto types = GetAttr<std::vector<DType>>(call, "T");
  ASSERT_TRUE(types.ok());
  EXPECT_EQ(*types, std::vector<DType>{DType::kFloat});
  // control_ret plus the call's own control input.
  EXPECT_EQ(ControlNames(*g, call), (std::vector<std::string>{"call/side", "dep"}));

  const Node& m = g->node(g->FindNode("call/m"));
  ASSERT_EQ(m.inputs.size(), 2u);
  EXPECT_EQ(InputName(*g, m.inputs[0]), "a:0");
  EXPECT_EQ(InputName(*g, m.inputs[1]), "b:0");
  const Node& s = g->node(g->FindNode("call/s"));
  EXPECT_EQ(InputName(*g, s.inputs[0]), "call/m:0");
  EXPECT_EQ(InputName(*g, s.inputs[1]), "a:0");
  // A body node without inputs runs after the call's control inputs.
  EXPECT_EQ(ControlNames(*g, g->node(g->FindNode("call/c"))), std::vector<std::string>{"dep"});
  // Consumers of the call still read "call:0".
  EXPECT_EQ(InputName(*g, g->node(g->FindNode("out")).inputs[0]), "call:0");
}

// outer(x) = inner(x) + 1 where inner is a direct call (op = function name)
// with a placeholder attr; the inner call sits inside outer's body.
constexpr char kNested[] = R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "call" op: "PartitionedCall" input: "x"
  attr { key: "Tin" value { list { type: DT_FLOAT } } }
  attr { key: "Tout" value { list { type: DT_FLOAT type: DT_FLOAT } } }
  attr { key: "f" value { func { name: "outer" } } } }
library {
  function {
    signature { name: "outer" input_arg { name: "v" type: DT_FLOAT }
                output_arg { name: "sum" type: DT_FLOAT } output_arg { name: "raw" type: DT_FLOAT } }
    node_def { name: "in" op: "inner" input: "v" attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "one" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
               attr { key: "value" value { tensor { dtype: DT_FLOAT float_val: 1 } } } }
    node_def { name: "add" op: "AddV2" input: "in:doubled:0" input: "one:output:0"
               attr { key: "T" value { type: DT_FLOAT } } }
    ret { key: "sum" value: "add:z:0" }
    ret { key: "raw" value: "in:doubled:0" }
  }
  function {
    signature { name: "inner" input_arg { name: "p" type_attr: "T" }
                output_arg { name: "doubled" type_attr: "T" } attr { name: "T" type: "type" } }
    node_def { name: "twice" op: "AddV2" input: "p" input: "p" attr { key: "T" value { placeholder: "T" } } }
    ret { key: "doubled" value: "twice:z:0" }
  }
}
)";

TEST(FunctionInlinerTest, NestedCallsAreInlinedWithPlaceholderAttrsSubstituted) {
  auto g = Graph::FromGraphDef(ParseGraph(kNested));
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  Status st = InlineFunctionCalls(*g, TestLookup);
  ASSERT_TRUE(st.ok()) << st.ToString();

  const Node& call = g->node(g->FindNode("call"));
  EXPECT_EQ(call.op, "IdentityN");
  ASSERT_EQ(call.inputs.size(), 2u);
  EXPECT_EQ(InputName(*g, call.inputs[0]), "call/add:0");
  EXPECT_EQ(InputName(*g, call.inputs[1]), "call/in:0");

  const Node& in = g->node(g->FindNode("call/in"));
  EXPECT_EQ(in.op, "IdentityN");
  EXPECT_EQ(InputName(*g, in.inputs[0]), "call/in/twice:0");

  const Node& twice = g->node(g->FindNode("call/in/twice"));
  EXPECT_EQ(twice.op, "AddV2");
  EXPECT_EQ(InputName(*g, twice.inputs[0]), "x:0");
  EXPECT_EQ(InputName(*g, twice.inputs[1]), "x:0");
  auto t = GetAttr<DType>(twice, "T");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(*t, DType::kFloat);

  // No call node is left.
  for (const Node& n : g->nodes()) {
    EXPECT_NE(n.op, "PartitionedCall");
    EXPECT_NE(n.op, "inner");
  }
  // The inlined graph types cleanly.
  auto lookup = [](const std::string& op) -> const tensorflow::OpDef* {
    if (op == "IdentityN") {
      static tensorflow::OpDef def = [] {
        tensorflow::OpDef d;
        google::protobuf::TextFormat::ParseFromString(
            R"pb(name: "IdentityN" input_arg { name: "input" type_list_attr: "T" }
               output_arg { name: "output" type_list_attr: "T" } attr { name: "T" type: "list(type)" })pb",
            &d);
        return d;
      }();
      return &def;
    }
    return TestLookup(op);
  };
  ASSERT_TRUE(InferTypes(*g, lookup).ok());
  EXPECT_EQ(g->node(g->FindNode("call")).output_dtypes, (std::vector<DType>{DType::kFloat, DType::kFloat}));
}

// A list argument (N * T) consumed whole and element-wise, and a list output
// ("node:outarg" without index) forwarded whole.
constexpr char kLists[] = R"(
node { name: "p" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "q" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "r" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "call" op: "lists" input: "p" input: "q" input: "r"
  attr { key: "N" value { i: 3 } } }
library { function {
  signature { name: "lists" input_arg { name: "xs" type: DT_FLOAT number_attr: "N" }
              output_arg { name: "total" type: DT_FLOAT } output_arg { name: "second" type: DT_FLOAT }
              output_arg { name: "parts" type: DT_FLOAT number_attr: "two" }
              attr { name: "N" type: "int" } attr { name: "two" type: "int" default_value { i: 2 } } }
  node_def { name: "sum" op: "AddN" input: "xs" attr { key: "N" value { placeholder: "N" } }
             attr { key: "T" value { type: DT_FLOAT } } }
  node_def { name: "id" op: "Identity" input: "xs:1" attr { key: "T" value { type: DT_FLOAT } } }
  node_def { name: "split" op: "Unpack" input: "sum:sum:0" attr { key: "num" value { i: 2 } }
             attr { key: "T" value { type: DT_FLOAT } } }
  ret { key: "total" value: "sum:sum:0" }
  ret { key: "second" value: "id:output:0" }
  ret { key: "parts" value: "split:output" }
} }
)";

TEST(FunctionInlinerTest, ListArgumentsAndListOutputsExpand) {
  auto g = Graph::FromGraphDef(ParseGraph(kLists));
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  Status st = InlineFunctionCalls(*g, TestLookup);
  ASSERT_TRUE(st.ok()) << st.ToString();
  const Node& sum = g->node(g->FindNode("call/sum"));
  ASSERT_EQ(sum.inputs.size(), 3u);
  EXPECT_EQ(InputName(*g, sum.inputs[2]), "r:0");
  const Node& id = g->node(g->FindNode("call/id"));
  ASSERT_EQ(id.inputs.size(), 1u);
  EXPECT_EQ(InputName(*g, id.inputs[0]), "q:0");
  const Node& call = g->node(g->FindNode("call"));
  ASSERT_EQ(call.inputs.size(), 4u);
  EXPECT_EQ(InputName(*g, call.inputs[0]), "call/sum:0");
  EXPECT_EQ(InputName(*g, call.inputs[1]), "call/id:0");
  EXPECT_EQ(InputName(*g, call.inputs[2]), "call/split:0");
  EXPECT_EQ(InputName(*g, call.inputs[3]), "call/split:1");
}

TEST(FunctionInlinerTest, RecursionIsAnErrorNamingTheCycle) {
  auto g = Graph::FromGraphDef(ParseGraph(R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "call" op: "ping" input: "x" }
library {
  function { signature { name: "ping" input_arg { name: "a" type: DT_FLOAT } output_arg { name: "o" type: DT_FLOAT } }
             node_def { name: "n" op: "pong" input: "a" } ret { key: "o" value: "n:o:0" } }
  function { signature { name: "pong" input_arg { name: "a" type: DT_FLOAT } output_arg { name: "o" type: DT_FLOAT } }
             node_def { name: "n" op: "ping" input: "a" } ret { key: "o" value: "n:o:0" } }
})"));
  ASSERT_TRUE(g.ok());
  Status st = InlineFunctionCalls(*g, TestLookup);
  TFHOST_ASSERT_ERROR(st, StatusCode::kInvalidArgument, "ping -> pong -> ping");
}

TEST(FunctionInlinerTest, DepthLimitStopsDeepNesting) {
  // f0 calls f1 calls ... f9; a limit of 5 refuses it.
  std::string text = R"(node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "call" op: "f0" input: "x" } library {)";
  for (int i = 0; i < 10; ++i) {
    std::string body = i == 9 ? R"(node_def { name: "n" op: "Identity" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
                                  ret { key: "o" value: "n:output:0" })"
                              : "node_def { name: \"n\" op: \"f" + std::to_string(i + 1) +
                                    "\" input: \"a\" } ret { key: \"o\" value: \"n:o:0\" }";
    text += "function { signature { name: \"f" + std::to_string(i) +
            "\" input_arg { name: \"a\" type: DT_FLOAT } output_arg { name: \"o\" type: DT_FLOAT } } " + body + " }";
  }
  text += "}";
  auto g = Graph::FromGraphDef(ParseGraph(text));
  ASSERT_TRUE(g.ok());
  Graph copy = *g;
  InlineOptions shallow;
  shallow.max_depth = 5;
  Status st = InlineFunctionCalls(*g, TestLookup, shallow);
  TFHOST_ASSERT_ERROR(st, StatusCode::kResourceExhausted,
                      "inlining function 'f5' called by node 'call/n/n/n/n/n': function calls are nested 6 deep (more "
                      "than 5): f0 -> f1 -> f2 -> f3 -> f4 -> f5");
  EXPECT_NE(st.message().find("nested 6 deep"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("(--max_function_depth=5)"), std::string::npos) << st.message();
  ASSERT_TRUE(InlineFunctionCalls(copy, TestLookup).ok());
  EXPECT_GE(copy.FindNode("call/n/n/n/n/n/n/n/n/n/n"), 0);
}

TEST(FunctionInlinerTest, InliningPastMaxNodesFailsNamingTheFunctionAndTheFlag) {
  // x and call, plus f's one body node: 3 nodes once inlined.
  const char* text = R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "call" op: "f" input: "x" }
library { function {
  signature { name: "f" input_arg { name: "a" type: DT_FLOAT } output_arg { name: "o" type: DT_FLOAT } }
  node_def { name: "n" op: "Identity" input: "a" attr { key: "T" value { type: DT_FLOAT } } }
  ret { key: "o" value: "n:output:0" } } })";
  auto at = Graph::FromGraphDef(ParseGraph(text));
  ASSERT_TRUE(at.ok());
  InlineOptions three;
  three.max_nodes = 3;
  ASSERT_TRUE(InlineFunctionCalls(*at, TestLookup, three).ok());
  EXPECT_GE(at->FindNode("call/n"), 0);
  auto under = Graph::FromGraphDef(ParseGraph(text));
  ASSERT_TRUE(under.ok());
  InlineOptions two;
  two.max_nodes = 2;
  TFHOST_EXPECT_ERROR(InlineFunctionCalls(*under, TestLookup, two), StatusCode::kResourceExhausted,
                      "inlining function 'f' would grow the graph past 2 nodes (--max_graph_nodes=2)");
}

TEST(FunctionInlinerTest, BadBodyReferenceIsAnErrorNamingIt) {
  auto g = Graph::FromGraphDef(ParseGraph(R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "call" op: "f" input: "x" }
library { function {
  signature { name: "f" input_arg { name: "a" type: DT_FLOAT } output_arg { name: "o" type: DT_FLOAT } }
  node_def { name: "n" op: "Identity" input: "nowhere:output:0" attr { key: "T" value { type: DT_FLOAT } } }
  ret { key: "o" value: "n:output:0" } } })"));
  ASSERT_TRUE(g.ok());
  Status st = InlineFunctionCalls(*g, TestLookup);
  TFHOST_ASSERT_ERROR(st, StatusCode::kInvalidArgument,
                      "inlining function 'f' called by node 'call': body node 'n' (Identity): input 'nowhere:output:0'");
  EXPECT_NE(st.message().find("'call'"), std::string::npos) << st.message();
}

TEST(FunctionInlinerTest, WrongInputCountIsAnError) {
  auto g = Graph::FromGraphDef(ParseGraph(R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "call" op: "f" input: "x" input: "x" }
library { function {
  signature { name: "f" input_arg { name: "a" type: DT_FLOAT } output_arg { name: "o" type: DT_FLOAT } }
  ret { key: "o" value: "a" } } })"));
  ASSERT_TRUE(g.ok());
  Status st = InlineFunctionCalls(*g, TestLookup);
  TFHOST_ASSERT_ERROR(st, StatusCode::kInvalidArgument,
                      "inlining function 'f' called by node 'call': the call passes 2 inputs but the function takes 1");
}


TEST(FunctionInlinerTest, CopyingABodyToTooManyCallSitesIsBounded) {
  // One function with a 4 KB constant, called from 40 places: 40 copies
  // exceed 32 times the library's size once the fixed minimum is lifted.
  std::string text = R"(node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } })";
  for (int i = 0; i < 40; ++i) text += "node { name: \"call" + std::to_string(i) + "\" op: \"f\" input: \"x\" }";
  text += R"(library { function {
    signature { name: "f" input_arg { name: "a" type: DT_FLOAT } output_arg { name: "o" type: DT_FLOAT } }
    node_def { name: "big" op: "Const" attr { key: "dtype" value { type: DT_STRING } }
               attr { key: "value" value { tensor { dtype: DT_STRING string_val: ")" +
          std::string(4096, 'z') + R"(" } } } }
    ret { key: "o" value: "a" } } })";
  auto g = Graph::FromGraphDef(ParseGraph(text));
  ASSERT_TRUE(g.ok());
  Graph copy = *g;
  InlineOptions tight;
  tight.min_inlined_bytes_budget = 0;
  Status st = InlineFunctionCalls(*g, TestLookup, tight);
  TFHOST_ASSERT_ERROR(st, StatusCode::kResourceExhausted,
                      "inlining function 'f' called by node 'call32': inlining every call would copy more than the "
                      "budget of function body bytes (functions called");
  // The default minimum (1 GiB) admits it.
  ASSERT_TRUE(InlineFunctionCalls(copy, TestLookup).ok());
  EXPECT_GE(copy.FindNode("call39/big"), 0);
}

// The TF2 fixture: every call in the top-level graph (signatures, save,
// restore) inlines, and the serving_default output resolves to the user
// function's AddV2 through two levels of calls.
TEST(FunctionInlinerTest, InlinesTheTf2SavedModelFixture) {
  std::string path =
      testing::FixturePath("models/tfserving/saved_model_half_plus_two_tf2_cpu/00000123/saved_model.pb");
  TFHOST_REQUIRE_FIXTURE(path);
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  tensorflow::SavedModel sm;
  ASSERT_TRUE(sm.ParseFromString(ss.str()));
  const auto& mg = sm.meta_graphs(0);
  std::map<std::string, const tensorflow::OpDef*> defs;
  for (const auto& d : mg.meta_info_def().stripped_op_list().op()) defs[d.name()] = &d;
  OpDefLookup lookup = [&](const std::string& op) -> const tensorflow::OpDef* {
    auto it = defs.find(op);
    return it == defs.end() ? nullptr : it->second;
  };
  auto g = Graph::FromGraphDef(mg.graph_def());
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  Status st = InlineFunctionCalls(*g, lookup);
  ASSERT_TRUE(st.ok()) << st.ToString();
  for (const Node& n : g->nodes()) {
    EXPECT_NE(n.op, "StatefulPartitionedCall") << n.name;
    EXPECT_NE(n.op, "PartitionedCall") << n.name;
  }
  // serving_default: y = StatefulPartitionedCall_5:0 -> wrapper -> predict.
  const Node& out = g->node(g->FindNode("StatefulPartitionedCall_5"));
  ASSERT_EQ(out.op, "IdentityN");
  ASSERT_EQ(out.inputs.size(), 1u);
  // Follow Identity / IdentityN hops down to the arithmetic.
  TensorRef ref = out.inputs[0];
  for (int hops = 0; hops < 10; ++hops) {
    const Node& n = g->node(ref.node);
    if (n.op != "Identity" && n.op != "IdentityN") break;
    ASSERT_LT(n.op == "IdentityN" ? ref.index : 0, static_cast<int>(n.inputs.size()));
    ref = n.op == "IdentityN" ? n.inputs[ref.index] : n.inputs[0];
  }
  EXPECT_EQ(g->node(ref.node).op, "AddV2") << g->node(ref.node).name;
  // The restore call's control outputs are the AssignVariableOps of a, b, c.
  const Node& restore = g->node(g->FindNode("StatefulPartitionedCall_7"));
  int assigns = 0;
  for (int c : restore.control_inputs) assigns += g->node(c).op == "AssignVariableOp";
  EXPECT_EQ(assigns, 3);
  ASSERT_TRUE(InferTypes(*g, lookup).ok());
}

TEST(FunctionInlinerTest, InstantiateFunctionBuildsAStandaloneGraphWithArgsAndRet) {
  // scale(x: T) = x * x, instantiated with T = float; `unused` is not reachable.
  auto gd = ParseGraph(R"(
    library {
      function {
        signature {
          name: "scale"
          input_arg { name: "x" type_attr: "T" }
          output_arg { name: "y" type_attr: "T" }
          attr { name: "T" type: "type" }
        }
        node_def { name: "m" op: "Mul" input: "x" input: "x" attr { key: "T" value { placeholder: "T" } } }
        ret { key: "y" value: "m:z:0" }
      }
      function {
        signature { name: "unused" output_arg { name: "o" type: DT_FLOAT } }
        node_def { name: "c" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } } }
        ret { key: "o" value: "c:output:0" }
      }
    })");
  AttrMap attrs;
  attrs["T"].set_type(tensorflow::DT_FLOAT);
  auto fg = InstantiateFunction(gd.library(), "scale", attrs, TestLookup);
  ASSERT_TRUE(fg.ok()) << fg.status().ToString();
  EXPECT_EQ(fg->arg_types, std::vector<DType>({DType::kFloat}));
  EXPECT_EQ(fg->ret_types, std::vector<DType>({DType::kFloat}));
  const Graph& g = fg->graph;
  int arg = g.FindNode("_arg_0");
  int ret = g.FindNode("_ret");
  int mul = g.FindNode("_ret/m");
  ASSERT_GE(arg, 0);
  ASSERT_GE(ret, 0);
  ASSERT_GE(mul, 0);
  EXPECT_EQ(g.node(arg).op, "Placeholder");
  EXPECT_EQ(g.node(ret).op, "IdentityN");
  EXPECT_EQ(g.node(mul).inputs[0].node, arg);
  EXPECT_EQ(g.node(mul).output_dtypes, std::vector<DType>({DType::kFloat}));
  ASSERT_EQ(g.library().function_size(), 1);  // only what the body can reach
  EXPECT_EQ(g.library().function(0).signature().name(), "scale");

  auto missing = InstantiateFunction(gd.library(), "nope", {}, TestLookup);
  TFHOST_ASSERT_ERROR(missing, StatusCode::kNotFound, "function 'nope' is not in the model's function library");
}

}  // namespace
}  // namespace tfhost::ir
