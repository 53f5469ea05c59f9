#include "runtime/session.h"

#include <thread>

#include <gtest/gtest.h>

#include "ir/tensor_proto.h"
#include "runtime/test_graph_def_util.h"
#include "tensorflow/core/framework/graph.pb.h"
#include "base/test_status.h"

namespace tfhost::runtime {
namespace {

using testing::AddNode;
using testing::SetConst;

void SetType(tensorflow::NodeDef* n, const std::string& attr, DType t) {
  (*n->mutable_attr())[attr].set_type(static_cast<tensorflow::DataType>(t));
}

std::unique_ptr<Session> MakeSession(const tensorflow::GraphDef& gd, int inter_op = 1) {
  auto graph = ir::Graph::FromGraphDef(gd);
  EXPECT_TRUE(graph.ok()) << graph.status().ToString();
  EXPECT_TRUE(ir::InferTypes(*graph, ops::OpRegistry::Global().Lookup()).ok());
  SessionOptions options;
  options.inter_op_threads = inter_op;
  options.intra_op_threads = 1;
  options.model_name = "test";
  auto session = Session::Create(std::move(*graph), options);
  EXPECT_TRUE(session.ok()) << session.status().ToString();
  return std::move(*session);
}

// x (placeholder) and c (const) -> Switch(x, pred) -> Identity on each branch -> Merge.
tensorflow::GraphDef SwitchMergeGraph() {
  tensorflow::GraphDef gd;
  SetType(AddNode(gd, "x", "Placeholder"), "dtype", DType::kFloat);
  SetType(AddNode(gd, "pred", "Placeholder"), "dtype", DType::kBool);
  SetConst(AddNode(gd, "c", "Const"), Tensor::Scalar<float>(7.0f));
  auto* sw = AddNode(gd, "sw", "Switch", {"x", "pred"});
  SetType(sw, "T", DType::kFloat);
  SetType(AddNode(gd, "when_false", "Identity", {"sw:0"}), "T", DType::kFloat);
  // TF1 cond's pattern: a pivot Identity on the true output carries deadness
  // to the branch's constants through a control edge.
  SetType(AddNode(gd, "pivot_t", "Identity", {"sw:1"}), "T", DType::kFloat);
  SetType(AddNode(gd, "when_true", "Identity", {"c", "^pivot_t"}), "T", DType::kFloat);
  auto* merge = AddNode(gd, "merge", "Merge", {"when_false", "when_true"});
  SetType(merge, "T", DType::kFloat);
  (*merge->mutable_attr())["N"].set_i(2);
  return gd;
}

TEST(SessionTest, SwitchMergeForwardsTheTakenBranchOnly) {
  auto session = MakeSession(SwitchMergeGraph());
  auto r = session->Run({{"x", Tensor::Scalar<float>(1.5f)}, {"pred", Tensor::Scalar<bool>(false)}},
                        {"merge:0", "merge:1"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FLOAT_EQ((*r)[0].data<float>()[0], 1.5f);
  EXPECT_EQ((*r)[1].data<int32_t>()[0], 0);

  r = session->Run({{"x", Tensor::Scalar<float>(1.5f)}, {"pred", Tensor::Scalar<bool>(true)}},
                   {"merge:0", "merge:1"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FLOAT_EQ((*r)[0].data<float>()[0], 7.0f);
  EXPECT_EQ((*r)[1].data<int32_t>()[0], 1);
}

TEST(SessionTest, FetchingADeadBranchIsAnError) {
  auto session = MakeSession(SwitchMergeGraph());
  auto r = session->Run({{"x", Tensor::Scalar<float>(1.0f)}, {"pred", Tensor::Scalar<bool>(true)}},
                        {"when_false:0"});
  TFHOST_ASSERT_ERROR(r, StatusCode::kInvalidArgument,
                      "fetch 'when_false:0' was not computed: it lies on an untaken branch of a Switch");
}

TEST(SessionTest, UnfedPlaceholderNamesTheTensor) {
  auto session = MakeSession(SwitchMergeGraph());
  auto r = session->Run({{"pred", Tensor::Scalar<bool>(true)}}, {"merge:0"});
  TFHOST_ASSERT_ERROR(r, StatusCode::kInvalidArgument,
                      "you must feed a value for placeholder tensor 'x' with dtype float32");
}

TEST(SessionTest, FeedReplacesANodeOutputAndFetchOfAFeedReturnsIt) {
  auto session = MakeSession(SwitchMergeGraph());
  // Feeding the Switch output directly means x and pred are not needed.
  auto r = session->Run({{"sw:0", Tensor::Scalar<float>(3.0f)}}, {"when_false:0", "sw:0"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FLOAT_EQ((*r)[0].data<float>()[0], 3.0f);
  EXPECT_FLOAT_EQ((*r)[1].data<float>()[0], 3.0f);
}

TEST(SessionTest, WrongFeedDTypeAndUnknownTensorsAreErrors) {
  auto session = MakeSession(SwitchMergeGraph());
  auto r = session->Run({{"x", Tensor::Scalar<int32_t>(1)}, {"pred", Tensor::Scalar<bool>(true)}}, {"merge:0"});
  TFHOST_ASSERT_ERROR(r, StatusCode::kInvalidArgument, "feed 'x' has dtype int32 but the graph expects float32");
  r = session->Run({}, {"nope:0"});
  TFHOST_ASSERT_ERROR(r, StatusCode::kNotFound,
                      "model 'test': fetch 'nope:0': no node named 'nope' for tensor 'nope:0'");
  r = session->Run({}, {"c:3"});
  TFHOST_ASSERT_ERROR(r, StatusCode::kInvalidArgument, "model 'test': fetch 'c:3': node 'c' has only 1 outputs");
}

TEST(SessionTest, UnsupportedOpFailsAtCreateNamingOpAndNode) {
  tensorflow::GraphDef gd;
  AddNode(gd, "mystery", "FrobnicateV7");
  auto graph = ir::Graph::FromGraphDef(gd);
  ASSERT_TRUE(graph.ok());
  SessionOptions options;
  options.model_name = "m";
  auto session = Session::Create(std::move(*graph), options);
  TFHOST_ASSERT_ERROR(session, StatusCode::kUnimplemented,
                      "model 'm': node 'mystery' uses op 'FrobnicateV7', which tfhost does not support");
  EXPECT_NE(session.status().message().find("'mystery'"), std::string::npos);
  EXPECT_NE(session.status().message().find("'m'"), std::string::npos);
}

TEST(SessionTest, ConcurrentRunsFromManyThreadsAgree) {
  auto session = MakeSession(SwitchMergeGraph(), /*inter_op=*/3);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        bool pred = (i + t) % 2 == 0;
        auto r = session->Run({{"x", Tensor::Scalar<float>(float(i))}, {"pred", Tensor::Scalar<bool>(pred)}},
                              {"merge:0"});
        if (!r.ok() || (*r)[0].data<float>()[0] != (pred ? 7.0f : float(i))) ++failures;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(SessionTest, FeedingAPlaceholderSatisfiesControlEdgesFromIt) {
  tensorflow::GraphDef gd;
  SetType(AddNode(gd, "input", "Placeholder"), "dtype", DType::kFloat);
  SetConst(AddNode(gd, "c", "Const", {"^input"}), Tensor::Scalar<float>(2.0f));
  auto session = MakeSession(gd);
  auto r = session->Run({{"input:0", Tensor::Scalar<float>(1.0f)}}, {"c:0"});
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_FLOAT_EQ((*r)[0].data<float>()[0], 2.0f);
  // Without the feed the placeholder must run, and fails naming itself.
  r = session->Run({}, {"c:0"});
  TFHOST_ASSERT_ERROR(r, StatusCode::kInvalidArgument,
                      "you must feed a value for placeholder tensor 'input' with dtype float32");
}

TEST(SessionTest, CycleIsRejectedInsteadOfHanging) {
  tensorflow::GraphDef gd;
  SetType(AddNode(gd, "a", "Identity", {"b"}), "T", DType::kFloat);
  SetType(AddNode(gd, "b", "Identity", {"a"}), "T", DType::kFloat);
  auto session = MakeSession(gd);
  auto r = session->Run({}, {"a:0"});
  TFHOST_ASSERT_ERROR(r, StatusCode::kInvalidArgument,
                      "model 'test': the graph has a cycle through node 'a' (Identity) that does not pass through a");
}

TEST(SessionTest, ProfileCountsTheKernelTimeOfEachNodeThatRanWhileAttached) {
  tensorflow::GraphDef gd;
  SetType(AddNode(gd, "x", "Placeholder"), "dtype", DType::kFloat);
  SetType(AddNode(gd, "sq", "Square", {"x"}), "T", DType::kFloat);
  SetType(AddNode(gd, "neg", "Neg", {"sq"}), "T", DType::kFloat);
  SetType(AddNode(gd, "unused", "Exp", {"x"}), "T", DType::kFloat);
  auto session = MakeSession(gd);
  const ir::Graph& graph = session->graph();
  auto id = [&](const std::string& name) { return graph.ResolveTensor(name)->node; };
  NodeProfile profile(graph.num_nodes());
  session->set_profile(&profile);
  Tensor x(DType::kFloat, Shape({1000}));
  for (int run = 0; run < 3; ++run) ASSERT_TRUE(session->Run({{"x", x}}, {"neg:0"}).ok());
  session->set_profile(nullptr);
  ASSERT_TRUE(session->Run({{"x", x}}, {"neg:0"}).ok());  // not counted
  EXPECT_EQ(profile.calls(id("sq")), 3);
  EXPECT_EQ(profile.calls(id("neg")), 3);
  EXPECT_GT(profile.nanos(id("sq")), 0);
  EXPECT_EQ(profile.calls(id("unused")), 0);  // not needed by the fetch
  EXPECT_EQ(profile.calls(id("x")), 0);       // fed, not run
  EXPECT_NE(profile.backends(id("sq")), 0u);  // whichever kernel computed it
  EXPECT_EQ(profile.backends(id("unused")), 0u);
}

#if TFHOST_WITH_ONEDNN
// On AVX-512 a Conv2D's first kernel is the SIMD 1x1 one, which hands a 3x3
// filter to oneDNN's: the profile names oneDNN, which did the work.
TEST(SessionTest, ProfileNamesTheBackendThatComputedACallNotTheOneThatHandedItOn) {
  tensorflow::GraphDef gd;
  SetType(AddNode(gd, "x", "Placeholder"), "dtype", DType::kFloat);
  SetConst(AddNode(gd, "filter", "Const"), Tensor(DType::kFloat, Shape({3, 3, 4, 8})));
  auto* conv = AddNode(gd, "conv", "Conv2D", {"x", "filter"});
  SetType(conv, "T", DType::kFloat);
  (*conv->mutable_attr())["padding"].set_s("SAME");
  for (int i = 0; i < 4; ++i) (*conv->mutable_attr())["strides"].mutable_list()->add_i(1);
  auto session = MakeSession(gd);
  const int conv_id = session->graph().ResolveTensor("conv")->node;
  NodeProfile profile(session->graph().num_nodes());
  session->set_profile(&profile);
  ASSERT_TRUE(session->Run({{"x", Tensor(DType::kFloat, Shape({1, 8, 8, 4}))}}, {"conv:0"}).ok());
  EXPECT_EQ(backends::BackendNames(profile.backends(conv_id)), "onednn");
}
#endif

}  // namespace
}  // namespace tfhost::runtime
