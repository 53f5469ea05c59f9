// Session runs recorded as a trace (base/trace/) and read back from the
// Chrome JSON a command would write: one slice per executed node per run,
// each naming its backend, copies between memory spaces as "copy" slices,
// and every node slice inside its run's "session" slice.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "backends/reference_backend.h"
#include "backends/testing/fake_device_backend.h"
#include "base/trace/chrome_json.h"
#include "base/trace/recorder.h"
#include "base/trace/request_span.h"
#include "base/trace/trace_test_util.h"
#include "ir/op_def_util.h"
#include "ops/op_registry.h"
#include "runtime/node_profile.h"
#include "runtime/session.h"
#include "runtime/test_graph_def_util.h"

namespace tfhost::runtime {
namespace {

using backends::testing::FakeDeviceBackend;
using testing::AddNode;
using testing::SetConst;
using trace::testing::ParsedSlice;
using trace::testing::ParsedTrace;

tensorflow::NodeDef* Float(tensorflow::NodeDef* n) {
  (*n->mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
  return n;
}

// r1 = Relu(x); n = Neg(r1) (the fake device has no Neg: host);
// r2 = Relu(n); a = AddV2(r1, r2); m = Mul(a, c); on the fake device
// this needs copies both ways.
tensorflow::GraphDef MixedGraph() {
  tensorflow::GraphDef gd;
  (*AddNode(gd, "x", "Placeholder")->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  SetConst(AddNode(gd, "c", "Const"), Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, Shape({2, 3})));
  Float(AddNode(gd, "r1", "Relu", {"x"}));
  Float(AddNode(gd, "n", "Neg", {"r1"}));
  Float(AddNode(gd, "r2", "Relu", {"n"}));
  Float(AddNode(gd, "a", "AddV2", {"r1", "r2"}));
  Float(AddNode(gd, "m", "Mul", {"a", "c"}));
  return gd;
}

struct Fixture {
  backends::BackendRegistry registry;
  std::unique_ptr<Session> session;
};

std::unique_ptr<Fixture> Make(bool with_device, int inter_op_threads) {
  auto f = std::make_unique<Fixture>();
  EXPECT_TRUE(f->registry.Add(std::make_unique<backends::ReferenceBackend>()).ok());
  if (with_device) {
    EXPECT_TRUE(f->registry.Add(std::make_unique<FakeDeviceBackend>()).ok());
  }
  auto graph = ir::Graph::FromGraphDef(MixedGraph());
  EXPECT_TRUE(graph.ok());
  EXPECT_TRUE(ir::InferTypes(*graph, ops::OpRegistry::Global().Lookup()).ok());
  SessionOptions options;
  options.model_name = "mixed";
  options.intra_op_threads = 1;
  options.inter_op_threads = inter_op_threads;
  options.backends = &f->registry;
  auto session = Session::Create(std::move(*graph), options);
  EXPECT_TRUE(session.ok()) << session.status().ToString();
  if (session.ok()) f->session = std::move(*session);
  return f;
}

Tensor X() { return Tensor::FromVector<float>({-1, 2, -3, 4, -5, 6}, Shape({2, 3})); }

class SessionTraceTest : public ::testing::Test {
 protected:
  void TearDown() override { trace::Recorder::Global().Stop(); }

  // Runs the session `runs` times while recording (with a NodeProfile
  // counting the same runs) and returns the trace as written to a file.
  ParsedTrace RecordRuns(Session& session, int runs, NodeProfile* profile) {
    session.set_profile(profile);
    EXPECT_TRUE(trace::Recorder::Global().Start("test").ok());
    for (int i = 0; i < runs; ++i) {
      auto r = session.Run({{"x", X()}}, {"m", "n"}, {});
      EXPECT_TRUE(r.ok()) << r.status().ToString();
    }
    trace::Trace recorded = trace::Recorder::Global().Stop();
    session.set_profile(nullptr);
    ParsedTrace parsed = trace::testing::ParseChromeJson(trace::ToChromeJson(recorded, "session_trace_test"));
    EXPECT_TRUE(parsed.ok);
    return parsed;
  }
};

TEST_F(SessionTraceTest, EveryExecutedNodeHasOneSlicePerRunNamingItsBackend) {
  auto f = Make(/*with_device=*/true, /*inter_op_threads=*/1);
  ASSERT_TRUE(f->session);
  const ir::Graph& g = f->session->graph();
  NodeProfile profile(g.num_nodes());
  constexpr int kRuns = 3;
  ParsedTrace t = RecordRuns(*f->session, kRuns, &profile);

  std::map<std::string, int> slices_per_node;
  for (const ParsedSlice& s : t.slices) {
    if (s.cat != "node" && s.cat != "copy") continue;
    if (s.name.rfind("fetch ", 0) == 0) continue;  // a fetched tensor's copy back: no node of the graph
    ++slices_per_node[s.name];
    EXPECT_FALSE(s.Arg("backend").empty()) << s.name;
    EXPECT_FALSE(s.Arg("op").empty()) << s.name;
  }
  int executed = 0;
  for (int i = 0; i < g.num_nodes(); ++i) {
    if (profile.calls(i) == 0) continue;
    ++executed;
    EXPECT_EQ(profile.calls(i), kRuns) << g.node(i).name;
    EXPECT_EQ(slices_per_node[g.node(i).name], profile.calls(i)) << g.node(i).name;
  }
  EXPECT_GE(executed, 7);  // the graph's nodes and at least one copy
  int total = 0;
  for (const auto& [name, n] : slices_per_node) total += n;
  EXPECT_EQ(total, executed * kRuns);  // no slice for a node that did not run
}

TEST_F(SessionTraceTest, CopiesBetweenMemorySpacesAreCopySlicesWithTheirSpaces) {
  auto f = Make(/*with_device=*/true, /*inter_op_threads=*/1);
  ASSERT_TRUE(f->session);
  const ir::Graph& g = f->session->graph();
  NodeProfile profile(g.num_nodes());
  ParsedTrace t = RecordRuns(*f->session, 1, &profile);
  int copy_nodes_run = 0;
  for (int i = 0; i < g.num_nodes(); ++i) {
    if (g.node(i).op == "_TfhostCopy" && profile.calls(i) > 0) ++copy_nodes_run;
  }
  ASSERT_GT(copy_nodes_run, 0);
  int copy_node_slices = 0, fetch_copies = 0;
  std::set<std::string> directions;
  for (const ParsedSlice* c : t.WithCategory("copy")) {
    EXPECT_FALSE(c->Arg("from").empty()) << c->name;
    EXPECT_FALSE(c->Arg("to").empty()) << c->name;
    EXPECT_NE(c->Arg("from"), c->Arg("to")) << c->name;
    EXPECT_GT(std::stoll(c->Arg("bytes")), 0) << c->name;
    directions.insert(c->Arg("from") + "->" + c->Arg("to"));
    if (c->Arg("op") == "_TfhostCopy") ++copy_node_slices;
    if (c->name == "fetch m") ++fetch_copies;  // m runs on the device, n on the host
  }
  EXPECT_EQ(copy_node_slices, copy_nodes_run);
  EXPECT_EQ(fetch_copies, 1);
  EXPECT_GE(directions.size(), 2u) << "copies both to and from the device";
  for (const ParsedSlice* n : t.WithCategory("node")) EXPECT_NE(n->Arg("op"), "_TfhostCopy") << n->name;
}

TEST_F(SessionTraceTest, NodeSlicesOnPoolThreadsLieInsideTheirRunSlice) {
  auto f = Make(/*with_device=*/false, /*inter_op_threads=*/4);
  ASSERT_TRUE(f->session);
  NodeProfile profile(f->session->graph().num_nodes());
  ParsedTrace t = RecordRuns(*f->session, 4, &profile);
  int64_t executions = 0;
  for (int i = 0; i < profile.num_nodes(); ++i) executions += profile.calls(i);
  std::map<std::string, const ParsedSlice*> runs;
  for (const ParsedSlice* r : t.WithCategory("session")) {
    EXPECT_EQ(r->name, "run mixed");
    runs[r->Arg("id")] = r;
  }
  ASSERT_EQ(runs.size(), 4u);
  const auto nodes = t.WithCategory("node");
  ASSERT_EQ(static_cast<int64_t>(nodes.size()), executions);
  ASSERT_GT(executions, 0);
  for (const ParsedSlice* n : nodes) {
    auto run = runs.find(n->Arg("run"));
    ASSERT_NE(run, runs.end()) << n->name << " names run " << n->Arg("run");
    EXPECT_TRUE(run->second->Encloses(*n)) << n->name;
    EXPECT_EQ(n->Arg("backend"), "reference");
    // A node runs on the caller's thread or on a pool thread named after
    // the model.
    if (n->tid != run->second->tid) {
      auto name = t.thread_names.find(n->tid);
      ASSERT_NE(name, t.thread_names.end()) << n->name;
      EXPECT_EQ(name->second.rfind("mixed inter-op ", 0), 0u) << name->second;
    }
  }
}

TEST_F(SessionTraceTest, RunSliceNamesTheContextCurrentOnTheCallingThreadAsItsParent) {
  auto f = Make(/*with_device=*/false, /*inter_op_threads=*/1);
  ASSERT_TRUE(f->session);
  ASSERT_TRUE(trace::Recorder::Global().Start("test").ok());
  {
    trace::ScopedContext context(trace::Context{424242, 0});
    ASSERT_TRUE(f->session->Run({{"x", X()}}, {"m"}, {}).ok());
  }
  ParsedTrace t = trace::testing::ParseChromeJson(trace::ToChromeJson(trace::Recorder::Global().Stop(), "t"));
  const auto runs = t.WithCategory("session");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0]->Arg("parent"), "424242");
}

TEST_F(SessionTraceTest, RunsWithoutARecordingLeaveNothingBehind) {
  auto f = Make(/*with_device=*/true, /*inter_op_threads=*/1);
  ASSERT_TRUE(f->session);
  ASSERT_TRUE(f->session->Run({{"x", X()}}, {"m"}, {}).ok());
  ASSERT_TRUE(trace::Recorder::Global().Start("test").ok());
  trace::Trace t = trace::Recorder::Global().Stop();
  EXPECT_TRUE(t.events.empty());
}

}  // namespace
}  // namespace tfhost::runtime
