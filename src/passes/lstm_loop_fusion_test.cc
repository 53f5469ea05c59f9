#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "ops/nn/lstm_loop.h"
#include "passes/pass_manager.h"
#include "passes/test_graph_util.h"
#include "runtime/session.h"

namespace tfhost::passes {
namespace {

constexpr int kSteps = 5, kBatch = 2, kDepth = 3, kUnits = 4;

std::string FloatConst(const std::string& name, std::vector<int> dims, float scale, float shift) {
  std::ostringstream s;
  s << "node { name: \"" << name << "\" op: \"Const\" attr { key: \"dtype\" value { type: DT_FLOAT } }\n"
    << "  attr { key: \"value\" value { tensor { dtype: DT_FLOAT tensor_shape {";
  int n = 1;
  for (int d : dims) {
    s << " dim { size: " << d << " }";
    n *= d;
  }
  s << " }";
  for (int i = 0; i < n; ++i) s << " float_val: " << std::sin(0.37f * i + shift) * scale;
  s << " } } } }\n";
  return s.str();
}

std::string IntConst(const std::string& name, std::vector<int> values, bool scalar) {
  std::ostringstream s;
  s << "node { name: \"" << name << "\" op: \"Const\" attr { key: \"dtype\" value { type: DT_INT32 } }\n"
    << "  attr { key: \"value\" value { tensor { dtype: DT_INT32 tensor_shape { ";
  if (!scalar) s << "dim { size: " << values.size() << " } ";
  s << "}";
  for (int v : values) s << " int_val: " << v;
  s << " } } } }\n";
  return s.str();
}

std::string BodyIntConst(const std::string& name, int value) {
  return "node_def { name: \"" + name +
         "\" op: \"Const\" attr { key: \"dtype\" value { type: DT_INT32 } } attr { key: \"value\" value { tensor { "
         "dtype: DT_INT32 tensor_shape { } int_val: " +
         std::to_string(value) + " } } } }\n";
}

std::string Op(const std::string& name, const std::string& op, std::vector<std::string> inputs,
               const std::string& attrs = "attr { key: \"T\" value { type: DT_FLOAT } }") {
  std::string s = "node_def { name: \"" + name + "\" op: \"" + op + "\"";
  for (const auto& in : inputs) s += " input: \"" + in + "\"";
  return s + " " + attrs + " }\n";
}

// A Keras 3 LSTM layer's loop over x [5, 2, 3] with 4 units, as its While
// body and cond read once the variables are frozen: loop variables counter,
// limit, time, outputs, h, c, the input list and the three weights. `h_op`
// replaces the h' Mul (another op stops the match); `cond_bound` is what
// time is compared with.
std::string LoopText(const std::string& extra_body_node = "", const std::string& h_ret = "h2:z:0",
                     const std::string& time_bound = "steps:output:0") {
  const std::string i32 = "attr { key: \"T\" value { type: DT_INT32 } }";
  const std::string list_f32 = "attr { key: \"element_dtype\" value { type: DT_FLOAT } }";
  std::string g;
  g += "node { name: \"x\" op: \"Placeholder\" attr { key: \"dtype\" value { type: DT_FLOAT } } }\n";
  g += FloatConst("h0", {kBatch, kUnits}, 0.5f, 0.7f) + FloatConst("c0", {kBatch, kUnits}, 0.8f, 0.9f);
  g += FloatConst("wk", {kDepth, 4 * kUnits}, 0.6f, 0.1f) + FloatConst("wr", {kUnits, 4 * kUnits}, 0.4f, 1.1f);
  g += FloatConst("b", {4 * kUnits}, 0.2f, 2.0f);
  g += IntConst("x_shape", {-1, kDepth}, false) + IntConst("h_shape", {-1, kUnits}, false);
  g += IntConst("zero", {0}, true) + IntConst("limit", {kSteps}, true);
  g += "node { name: \"xs\" op: \"TensorListFromTensor\" input: \"x\" input: \"x_shape\" " + list_f32 +
       " attr { key: \"shape_type\" value { type: DT_INT32 } } }\n";
  g += "node { name: \"outs\" op: \"TensorListReserve\" input: \"h_shape\" input: \"limit\" " + list_f32 +
       " attr { key: \"shape_type\" value { type: DT_INT32 } } }\n";
  g += "node { name: \"loop\" op: \"While\" input: \"zero\" input: \"limit\" input: \"zero\" input: \"outs\" "
       "input: \"h0\" input: \"c0\" input: \"xs\" input: \"wk\" input: \"wr\" input: \"b\"\n"
       "  attr { key: \"T\" value { list { type: DT_INT32 type: DT_INT32 type: DT_INT32 type: DT_VARIANT "
       "type: DT_FLOAT type: DT_FLOAT type: DT_VARIANT type: DT_FLOAT type: DT_FLOAT type: DT_FLOAT } } }\n"
       "  attr { key: \"body\" value { func { name: \"body\" } } } attr { key: \"cond\" value { func { name: "
       "\"cond\" } } } }\n";
  g += "node { name: \"stack\" op: \"TensorListStack\" input: \"loop:3\" input: \"h_shape\" " + list_f32 +
       " attr { key: \"num_elements\" value { i: -1 } } }\n";
  const std::string sig_args =
      "input_arg { name: \"counter\" type: DT_INT32 } input_arg { name: \"lim\" type: DT_INT32 } "
      "input_arg { name: \"time\" type: DT_INT32 } input_arg { name: \"out\" type: DT_VARIANT } "
      "input_arg { name: \"h\" type: DT_FLOAT } input_arg { name: \"c\" type: DT_FLOAT } "
      "input_arg { name: \"xl\" type: DT_VARIANT } input_arg { name: \"k\" type: DT_FLOAT } "
      "input_arg { name: \"r\" type: DT_FLOAT } input_arg { name: \"bias\" type: DT_FLOAT } ";
  // Keras's bodies carry each argument's traced shape; h and c's matter.
  const std::string arg_shapes =
      "arg_attr { key: 4 value { attr { key: \"_output_shapes\" value { list { shape { dim { size: -1 } dim { size: 4 "
      "} } } } } } }\n"
      "arg_attr { key: 5 value { attr { key: \"_output_shapes\" value { list { shape { dim { size: -1 } dim { size: 4 "
      "} } } } } } }\n";
  g += "library {\n function {\n signature { name: \"cond\" " + sig_args +
       "output_arg { name: \"ok\" type: DT_BOOL } }\n";
  g += BodyIntConst("steps", kSteps);
  g += Op("less_t", "Less", {"time", time_bound}, i32) + Op("less_c", "Less", {"counter", "lim"}, i32);
  g += Op("both", "LogicalAnd", {"less_t:z:0", "less_c:z:0"}, "");
  g += "ret { key: \"ok\" value: \"both:z:0\" }\n }\n";
  g += " function {\n signature { name: \"body\" " + sig_args +
       "output_arg { name: \"counter_out\" type: DT_INT32 } output_arg { name: \"lim_out\" type: DT_INT32 } "
       "output_arg { name: \"time_out\" type: DT_INT32 } output_arg { name: \"out_out\" type: DT_VARIANT } "
       "output_arg { name: \"h_out\" type: DT_FLOAT } output_arg { name: \"c_out\" type: DT_FLOAT } "
       "output_arg { name: \"xl_out\" type: DT_VARIANT } output_arg { name: \"k_out\" type: DT_FLOAT } "
       "output_arg { name: \"r_out\" type: DT_FLOAT } output_arg { name: \"bias_out\" type: DT_FLOAT } }\n";
  g += arg_shapes;
  g += "node_def { name: \"elem\" op: \"Const\" attr { key: \"dtype\" value { type: DT_INT32 } } attr { key: "
       "\"value\" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: -1 int_val: 3 } } } }\n";
  g += Op("item", "TensorListGetItem", {"xl", "time", "elem:output:0"}, list_f32);
  g += Op("mx", "MatMul", {"item:item:0", "k"}) + Op("mh", "MatMul", {"h", "r"});
  g += Op("sum", "AddV2", {"mx:product:0", "mh:product:0"}) + Op("z", "BiasAdd", {"sum:z:0", "bias"});
  g += BodyIntConst("axis", 1);
  g += Op("split", "Split", {"axis:output:0", "z:output:0"},
          "attr { key: \"T\" value { type: DT_FLOAT } } attr { key: \"num_split\" value { i: 4 } }");
  g += Op("si", "Sigmoid", {"split:output:0"}) + Op("sf", "Sigmoid", {"split:output:1"});
  g += Op("tg", "Tanh", {"split:output:2"}) + Op("so", "Sigmoid", {"split:output:3"});
  g += Op("fc", "Mul", {"sf:y:0", "c"}) + Op("ig", "Mul", {"si:y:0", "tg:y:0"});
  g += Op("c2", "AddV2", {"fc:z:0", "ig:z:0"}) + Op("tc", "Tanh", {"c2:z:0"}) + Op("h2", "Mul", {"so:y:0", "tc:y:0"});
  g += extra_body_node;
  g += Op("write", "TensorListSetItem", {"out", "time", h_ret}, list_f32);
  g += BodyIntConst("one", 1);
  g += Op("t1", "AddV2", {"time", "one:output:0"}, i32) + Op("k1", "AddV2", {"counter", "one:output:0"}, i32);
  g += "ret { key: \"counter_out\" value: \"k1:z:0\" } ret { key: \"lim_out\" value: \"lim\" } "
       "ret { key: \"time_out\" value: \"t1:z:0\" } ret { key: \"out_out\" value: \"write:output_handle:0\" } "
       "ret { key: \"h_out\" value: \"" + h_ret + "\" } ret { key: \"c_out\" value: \"c2:z:0\" } "
       "ret { key: \"xl_out\" value: \"xl\" } ret { key: \"k_out\" value: \"k\" } ret { key: \"r_out\" value: \"r\" } "
       "ret { key: \"bias_out\" value: \"bias\" }\n }\n}\n";
  return g;
}

void Replace(std::string& s, const std::string& from, const std::string& to) {
  const size_t at = s.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) s.replace(at, from.size(), to);
}

// The same layer behind Keras's Masking: loop variables gain the mask list
// (row 1 masked from step 2 on) and the last output; h, c and the output
// keep their last value where the step's mask is false.
std::string MaskedLoopText() {
  std::string g = LoopText();
  std::string mask = "node { name: \"mask\" op: \"Const\" attr { key: \"dtype\" value { type: DT_BOOL } }\n"
                     "  attr { key: \"value\" value { tensor { dtype: DT_BOOL tensor_shape { dim { size: 5 } "
                     "dim { size: 2 } dim { size: 1 } }";
  for (int t = 0; t < kSteps; ++t) mask += std::string(" bool_val: true bool_val: ") + (t < 2 ? "true" : "false");
  mask += " } } } }\n";
  mask += IntConst("m_shape", {-1, 1}, false);
  mask += "node { name: \"ms\" op: \"TensorListFromTensor\" input: \"mask\" input: \"m_shape\" "
          "attr { key: \"element_dtype\" value { type: DT_BOOL } } attr { key: \"shape_type\" value { type: DT_INT32 } } }\n";
  mask += FloatConst("o0", {kBatch, kUnits}, 0.1f, 0.2f);
  Replace(g, "node { name: \"loop\"", mask + "node { name: \"loop\"");
  Replace(g, "input: \"wr\" input: \"b\"\n", "input: \"wr\" input: \"b\" input: \"ms\" input: \"o0\"\n");
  Replace(g, "type: DT_FLOAT type: DT_FLOAT type: DT_FLOAT } } }", "type: DT_FLOAT type: DT_FLOAT type: DT_FLOAT type: DT_VARIANT type: DT_FLOAT } } }");
  const std::string last_arg = "input_arg { name: \"bias\" type: DT_FLOAT } ";
  const std::string more_args = last_arg + "input_arg { name: \"ml\" type: DT_VARIANT } input_arg { name: \"po\" type: DT_FLOAT } ";
  Replace(g, last_arg, more_args);  // cond
  const size_t body = g.find("signature { name: \"body\" ");
  g.replace(g.find(last_arg, body), last_arg.size(), more_args);
  Replace(g, "output_arg { name: \"bias_out\" type: DT_FLOAT } }",
          "output_arg { name: \"bias_out\" type: DT_FLOAT } output_arg { name: \"ml_out\" type: DT_VARIANT } "
          "output_arg { name: \"po_out\" type: DT_FLOAT } }");
  const std::string selects =
      "node_def { name: \"melem\" op: \"Const\" attr { key: \"dtype\" value { type: DT_INT32 } } attr { key: "
      "\"value\" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: -1 int_val: 1 } } } }\n"
      "node_def { name: \"mult\" op: \"Const\" attr { key: \"dtype\" value { type: DT_INT32 } } attr { key: "
      "\"value\" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 2 } } int_val: 1 int_val: 1 } } } }\n" +
      Op("mitem", "TensorListGetItem", {"ml", "time", "melem:output:0"},
         "attr { key: \"element_dtype\" value { type: DT_BOOL } }") +
      Op("mt", "Tile", {"mitem:item:0", "mult:output:0"},
         "attr { key: \"T\" value { type: DT_BOOL } } attr { key: \"Tmultiples\" value { type: DT_INT32 } }") +
      Op("sel_o", "SelectV2", {"mt:output:0", "h2:z:0", "po"}) +
      Op("sel_h", "SelectV2", {"mt:output:0", "h2:z:0", "h"}) + Op("sel_c", "SelectV2", {"mt:output:0", "c2:z:0", "c"});
  Replace(g, "node_def { name: \"write\"", selects + "node_def { name: \"write\"");
  Replace(g, "input: \"out\" input: \"time\" input: \"h2:z:0\"", "input: \"out\" input: \"time\" input: \"sel_o:output:0\"");
  Replace(g, "ret { key: \"h_out\" value: \"h2:z:0\" } ret { key: \"c_out\" value: \"c2:z:0\" }",
          "ret { key: \"h_out\" value: \"sel_h:output:0\" } ret { key: \"c_out\" value: \"sel_c:output:0\" } "
          "ret { key: \"ml_out\" value: \"ml\" } ret { key: \"po_out\" value: \"sel_o:output:0\" }");
  return g;
}

ir::Graph Build(const std::string& text) { return testing::AsLoaded(text); }

ir::Graph Optimized(ir::Graph graph, std::function<bool(const ir::Node&)> has_fast_kernel = nullptr) {
  PassContext ctx = PassContext::FromRoots(graph, {"stack", "loop:4", "loop:5", "loop:0", "loop:2"});
  ctx.has_fast_kernel = std::move(has_fast_kernel);
  Status st = PassManager::Default().Run(&graph, ctx);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return graph;
}

// The stacked outputs, the last h and c, the counter and time.
std::vector<Tensor> RunLoop(ir::Graph graph) {
  runtime::SessionOptions options;
  options.intra_op_threads = 1;
  options.model_name = "lstm";
  auto session = runtime::Session::Create(std::move(graph), options, {"stack", "loop", "x"});
  EXPECT_TRUE(session.ok()) << session.status().ToString();
  if (!session.ok()) return {};
  Tensor x(DType::kFloat, Shape({kSteps, kBatch, kDepth}));
  for (int64_t k = 0; k < x.NumElements(); ++k) x.data<float>()[k] = std::cos(0.3f * k) * 1.2f;
  auto out = (*session)->Run({{"x", x}}, {"stack", "loop:4", "loop:5", "loop:0", "loop:2"});
  EXPECT_TRUE(out.ok()) << out.status().ToString();
  return out.ok() ? *out : std::vector<Tensor>{};
}

// Runs both graphs; checks the stacked outputs and the last h and c agree,
// and returns the fused graph's outputs.
std::vector<Tensor> RunLoopLikeUnfused(ir::Graph unfused, ir::Graph fused) {
  std::vector<Tensor> want = RunLoop(std::move(unfused));
  std::vector<Tensor> got = RunLoop(std::move(fused));
  EXPECT_EQ(want.size(), 5u);
  EXPECT_EQ(got.size(), 5u);
  if (want.size() != 5 || got.size() != 5) return {};
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(got[i].shape(), want[i].shape()) << i;
    if (got[i].shape() != want[i].shape()) continue;
    for (int64_t k = 0; k < want[i].NumElements(); ++k) {
      EXPECT_NEAR(got[i].data<float>()[k], want[i].data<float>()[k], 2e-6f) << "output " << i << " element " << k;
    }
  }
  return got;
}

const std::string& LoopOp(const ir::Graph& graph) { return graph.node(graph.FindNode("loop")).op; }

TEST(LstmLoopFusionTest, AKerasLstmLayersWhileBecomesOneNodeWithTheSameOutputs) {
  ir::Graph before = Build(LoopText());
  ir::Graph after = Optimized(before);
  ASSERT_EQ(LoopOp(after), ops::nn::kLstmLoopOp);
  const ir::Node& fused = after.node(after.FindNode("loop"));
  EXPECT_EQ(ir::GetAttrOr<int64_t>(fused, "steps", -1).value(), kSteps);
  EXPECT_EQ(ir::GetAttrOr<int64_t>(fused, "h_index", -1).value(), 4);
  EXPECT_EQ(ir::GetAttrOr<int64_t>(fused, "output_slot", -2).value(), -1);
  EXPECT_EQ(fused.inputs.size(), 11u);  // the hoisted projection list joined the loop variables

  std::vector<Tensor> got = RunLoopLikeUnfused(std::move(before), std::move(after));
  ASSERT_EQ(got.size(), 5u);
  EXPECT_EQ(got[3].data<int32_t>()[0], kSteps);
  EXPECT_EQ(got[4].data<int32_t>()[0], kSteps);
}

TEST(LstmLoopFusionTest, AMaskedLayersWhileBecomesOneNodeWithTheSameOutputs) {
  ir::Graph before = Build(MaskedLoopText());
  ir::Graph after = Optimized(before);
  ASSERT_EQ(LoopOp(after), ops::nn::kLstmLoopOp);
  const ir::Node& fused = after.node(after.FindNode("loop"));
  EXPECT_EQ(ir::GetAttrOr<int64_t>(fused, "mask_index", -1).value(), 10);
  EXPECT_EQ(ir::GetAttrOr<int64_t>(fused, "output_state_index", -1).value(), 11);
  EXPECT_EQ(ir::GetAttrOr<int64_t>(fused, "mask_units", -1).value(), 1);
  RunLoopLikeUnfused(std::move(before), std::move(after));
}

TEST(LstmLoopFusionTest, WithoutAFastKernelForTheFusedNodeTheLoopStays) {
  ir::Graph after = Optimized(Build(LoopText()), [](const ir::Node&) { return false; });
  EXPECT_EQ(LoopOp(after), "While");
}

TEST(LstmLoopFusionTest, ABodyThatDoesMoreThanTheStepStaysALoop) {
  // Masking: h' scaled before it is stored and returned.
  const std::string mask =
      "node_def { name: \"mask\" op: \"Mul\" input: \"h2:z:0\" input: \"h\" attr { key: \"T\" value { type: DT_FLOAT "
      "} } }\n";
  EXPECT_EQ(LoopOp(Optimized(Build(LoopText(mask, "mask:z:0")))), "While");
}

TEST(LstmLoopFusionTest, AConditionOnAnythingButTheCountersStaysALoop) {
  // time < limit (a loop variable) instead of time < a Const.
  EXPECT_EQ(LoopOp(Optimized(Build(LoopText("", "h2:z:0", "lim")))), "While");
}

}  // namespace
}  // namespace tfhost::passes
