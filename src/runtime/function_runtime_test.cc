#include "runtime/function_runtime.h"

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "base/test_status.h"
#include "ir/op_def_util.h"
#include "runtime/session.h"

namespace tfhost::runtime {
namespace {

// y = While(i < 3: x = -x): three negations of x.
constexpr char kLoop[] = R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "i0" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 0 } } } }
node { name: "loop" op: "While" input: "i0" input: "x"
       attr { key: "T" value { list { type: DT_INT32 type: DT_FLOAT } } }
       attr { key: "body" value { func { name: "body" } } } attr { key: "cond" value { func { name: "cond" } } } }
library {
  function {
    signature { name: "cond" input_arg { name: "i" type: DT_INT32 } input_arg { name: "v" type: DT_FLOAT }
                output_arg { name: "ok" type: DT_BOOL } }
    node_def { name: "n" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
               attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 3 } } } }
    node_def { name: "less" op: "Less" input: "i" input: "n:output:0" attr { key: "T" value { type: DT_INT32 } } }
    ret { key: "ok" value: "less:z:0" }
  }
  function {
    signature { name: "body" input_arg { name: "i" type: DT_INT32 } input_arg { name: "v" type: DT_FLOAT }
                output_arg { name: "i_out" type: DT_INT32 } output_arg { name: "v_out" type: DT_FLOAT } }
    node_def { name: "neg" op: "Neg" input: "v" attr { key: "T" value { type: DT_FLOAT } } }
    node_def { name: "one" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
               attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: 1 } } } }
    node_def { name: "next" op: "AddV2" input: "i" input: "one:output:0" attr { key: "T" value { type: DT_INT32 } } }
    ret { key: "i_out" value: "next:z:0" } ret { key: "v_out" value: "neg:y:0" }
  }
}
)";

StatusOr<std::unique_ptr<Session>> MakeSession(FunctionBodyOptimizer optimizer) {
  tensorflow::GraphDef gd;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(kLoop, &gd));
  TFHOST_ASSIGN_OR_RETURN(ir::Graph graph, ir::Graph::FromGraphDef(gd));
  TFHOST_RETURN_IF_ERROR(ir::InferTypes(graph, ops::OpRegistry::Global().Lookup()));
  SessionOptions options;
  options.intra_op_threads = 1;
  options.model_name = "loop";
  options.optimize_function_body = std::move(optimizer);
  return Session::Create(std::move(graph), options);
}

StatusOr<float> RunLoop(Session& session) {
  TFHOST_ASSIGN_OR_RETURN(auto out, session.Run({{"x", Tensor::Scalar<float>(2.0f)}}, {"loop:1"}));
  return out[0].data<float>()[0];
}

// Every run of one loop body shares the body's plan and its idle run state
// (dataflow_run.cc): runs from several threads at once must neither see
// each other's tensors nor lose their own. (Under TSan the top-level plan's
// state is shared the same way in session_test; this file parses text
// protos, and the TSan build's text-format parse of them crashes inside
// libprotobuf before any test thread starts.)
TEST(FunctionRuntimeTest, ConcurrentLoopsSharingABodysRunStateAgree) {
  auto session = MakeSession(nullptr);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 100; ++i) {
        const float x = static_cast<float>(t * 1000 + i);
        auto out = (*session)->Run({{"x", Tensor::Scalar<float>(x)}}, {"loop:1"});
        if (!out.ok() || (*out)[0].data<float>()[0] != -x) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(FunctionRuntimeTest, BodiesRunAsWrittenWithoutAnOptimizer) {
  auto session = MakeSession(nullptr);
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  auto y = RunLoop(**session);
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(*y, -2.0f);
}

TEST(FunctionRuntimeTest, TheOptimizerRewritesEachBodyOnceKeepingItsArgumentsAndResult) {
  std::vector<std::vector<std::string>> calls;
  auto session = MakeSession([&](ir::Graph& body, const std::vector<std::string>& roots) {
    calls.push_back(roots);
    // A visible rewrite: the loop body's Neg becomes Abs.
    for (int i = 0; i < body.num_nodes(); ++i) {
      if (body.node(i).op == "Neg") body.mutable_node(i).op = "Abs";
    }
    return OkStatus();
  });
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  for (int run = 0; run < 2; ++run) {
    auto y = RunLoop(**session);
    ASSERT_TRUE(y.ok()) << y.status().ToString();
    EXPECT_EQ(*y, 2.0f);  // |2| three times, not -2
  }
  ASSERT_EQ(calls.size(), 2u);  // cond and body, instantiated once each
  for (const auto& roots : calls) {
    EXPECT_EQ(roots, (std::vector<std::string>{"_ret", "_arg_0", "_arg_1"}));
  }
}

TEST(FunctionRuntimeTest, AnOptimizerErrorFailsTheRunNamingTheFunction) {
  auto session = MakeSession([](ir::Graph&, const std::vector<std::string>&) {
    return Internal("pass 'p' failed");
  });
  ASSERT_TRUE(session.ok()) << session.status().ToString();
  auto y = RunLoop(**session);
  TFHOST_ASSERT_ERROR(y, StatusCode::kInternal, "model 'loop', function 'cond': pass 'p' failed");
  EXPECT_NE(y.status().message().find("function 'cond'"), std::string::npos) << y.status().message();
  EXPECT_NE(y.status().message().find("pass 'p' failed"), std::string::npos) << y.status().message();
}

}  // namespace
}  // namespace tfhost::runtime
