// --trace FILE as the commands use it: the file is checked before any work,
// paused stretches land in one file, and `tfhost run` / `bench` write one
// slice per executed node per recorded run.
#include "cli/trace_flag.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <vector>
#include <sstream>

#include "base/test_status.h"
#include "base/test_temp_dir.h"
#include "base/trace/trace_test_util.h"
#include "cli/cli.h"
#include "loaders/savedmodel/demo_models.h"

namespace tfhost::cli {
namespace {

using trace::testing::ParsedSlice;
using trace::testing::ParsedTrace;

ParsedTrace ReadTrace(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  ParsedTrace t = trace::testing::ParseChromeJson(text.str());
  EXPECT_TRUE(t.ok) << path;
  return t;
}

class TraceFlagTest : public ::testing::Test {
 protected:
  void TearDown() override { trace::Recorder::Global().Stop(); }
  testing::TempDir dir_{"tfhost_trace_flag"};
};

TEST_F(TraceFlagTest, NoPathMeansNoTrace) {
  auto t = CliTrace::Start("", "tfhost run");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(*t, nullptr);
  EXPECT_FALSE(trace::Enabled());
  std::ostringstream err;
  EXPECT_TRUE(FinishTrace(*t, err).ok());
  EXPECT_EQ(err.str(), "");
}

TEST_F(TraceFlagTest, UnwritablePathFailsBeforeRecordingNamingTheFlagAndFile) {
  { std::ofstream(dir_.Sub("plain")) << "x"; }
  const std::string path = dir_.Sub("plain/trace.json");
  TFHOST_EXPECT_ERROR(CliTrace::Start(path, "tfhost run"), StatusCode::kFailedPrecondition,
                      "--trace: trace file '" + path + "'");
  EXPECT_FALSE(trace::Enabled());
}

TEST_F(TraceFlagTest, SecondTraceWhileOneRecordsIsAbortedNamingTheFirst) {
  auto first = CliTrace::Start(dir_.Sub("a.json"), "tfhost serve");
  ASSERT_TRUE(first.ok());
  TFHOST_EXPECT_ERROR(CliTrace::Start(dir_.Sub("b.json"), "tfhost run"), StatusCode::kAborted,
                      "tfhost serve --trace " + dir_.Sub("a.json"));
}

TEST_F(TraceFlagTest, FailedCommandLeavesNoTraceFile) {
  const std::string path = dir_.Sub("failed.json");
  {
    auto t = CliTrace::Start(path, "tfhost run");
    ASSERT_TRUE(t.ok());
    EXPECT_TRUE(std::ifstream(path).good());  // made at once, so a bad path fails before any work
  }
  EXPECT_FALSE(trace::Enabled());
  EXPECT_FALSE(std::ifstream(path).good());
}

TEST_F(TraceFlagTest, PausedStretchesGoIntoOneFileWithFoldersCreated) {
  const std::string path = dir_.Sub("deep/er/trace.json");
  auto t = CliTrace::Start(path, "tfhost bench");
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  { trace::ScopedSlice s("cli", "first"); }
  (*t)->Pause();
  { trace::ScopedSlice s("cli", "between"); }
  ASSERT_TRUE((*t)->Resume().ok());
  { trace::ScopedSlice s("cli", "second"); }
  std::ostringstream err;
  ASSERT_TRUE(FinishTrace(*t, err).ok());
  EXPECT_EQ(err.str(), "tfhost bench: wrote trace " + path + " (2 slices)\n");
  EXPECT_FALSE(trace::Enabled());
  ParsedTrace parsed = ReadTrace(path);
  ASSERT_EQ(parsed.slices.size(), 2u);
  EXPECT_EQ(parsed.slices[0].name, "first");
  EXPECT_EQ(parsed.slices[1].name, "second");
  EXPECT_GE(parsed.slices[0].ts, 0);
  EXPECT_GT(parsed.slices[1].ts, parsed.slices[0].end());  // both timed from the first stretch's start
}

// `tfhost run` and `tfhost bench` in process on the demo mlp.
TEST_F(TraceFlagTest, RunAndBenchWriteOneSlicePerExecutedNodePerRun) {
  ASSERT_TRUE(loaders::WriteDemoModels(dir_.Sub("demo")).ok());
  const std::string model = dir_.Sub("demo/mlp/1");
  std::ostringstream out, err;
  ASSERT_EQ(RunCli({"run", model, "--input", "x=[[1.0, 2.0, 3.0, 4.0]]", "--threads", "1", "--trace",
                    dir_.Sub("run.json")},
                   out, err),
            0)
      << err.str();
  ParsedTrace run = ReadTrace(dir_.Sub("run.json"));
  // The load's own runs (restoring variables) lie inside its slice.
  const auto loads = run.WithCategory("cli");
  ASSERT_EQ(loads.size(), 1u);
  EXPECT_EQ(loads[0]->name, "load model");
  std::vector<const ParsedSlice*> sessions;
  for (const ParsedSlice* s : run.WithCategory("session")) {
    if (!loads[0]->Encloses(*s)) sessions.push_back(s);
  }
  ASSERT_EQ(sessions.size(), 1u);
  EXPECT_EQ(run.thread_names[sessions[0]->tid], "tfhost run");
  std::map<std::string, int> run_nodes;
  for (const ParsedSlice* n : run.WithCategory("node")) {
    if (loads[0]->Encloses(*n)) continue;
    ++run_nodes[n->name];
    EXPECT_EQ(n->Arg("run"), sessions[0]->Arg("id"));
    EXPECT_TRUE(sessions[0]->Encloses(*n)) << n->name;
    EXPECT_FALSE(n->Arg("backend").empty()) << n->name;
  }
  ASSERT_FALSE(run_nodes.empty());
  for (const auto& [name, count] : run_nodes) EXPECT_EQ(count, 1) << name;

  ASSERT_EQ(RunCli({"bench", model, "--runs", "3", "--warmup", "2", "--trace", dir_.Sub("bench.json")}, out, err), 0)
      << err.str();
  ParsedTrace bench = ReadTrace(dir_.Sub("bench.json"));
  EXPECT_EQ(bench.WithCategory("session").size(), 3u);  // the timed runs only
  std::map<std::string, int> bench_nodes;
  for (const ParsedSlice* n : bench.WithCategory("node")) ++bench_nodes[n->name];
  ASSERT_EQ(bench_nodes.size(), run_nodes.size());
  for (const auto& [name, count] : bench_nodes) {
    EXPECT_TRUE(run_nodes.count(name)) << name;
    EXPECT_EQ(count, 3) << name;
  }
}

}  // namespace
}  // namespace tfhost::cli
