#include "base/trace/chrome_json.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

#include "base/test_status.h"
#include "base/test_temp_dir.h"

namespace tfhost::trace {
namespace {

Trace TwoSlices() {
  Trace t;
  t.start_ns = 1'000'000;
  t.end_ns = 9'000'000;
  Event outer;
  outer.name = "run \"m\"";
  outer.category = "session";
  outer.tid = 3;
  outer.start_ns = 1'000'500;  // 0.5 us after the start
  outer.duration_ns = 2'000'001;
  outer.args = Args().Add("id", 11).Take();
  Event inner;
  inner.name = "conv";
  inner.category = "node";
  inner.tid = 3;
  inner.start_ns = 1'001'000;
  inner.duration_ns = 1'000;
  inner.args = Args().Add("op", "Conv2D").Add("backend", "simd").Add("run", 11).Take();
  t.events = {outer, inner};
  t.track_names = {{3, "batch thread 0"}};
  t.dropped_events = 4;
  return t;
}

TEST(ChromeJsonTest, WritesCompleteEventsInMicrosecondsFromTheStart) {
  const std::string json = ToChromeJson(TwoSlices(), "tfhost test");
  rapidjson::Document doc;
  ASSERT_FALSE(doc.Parse(json.c_str()).HasParseError()) << json;
  ASSERT_TRUE(doc["traceEvents"].IsArray());
  const auto& events = doc["traceEvents"].GetArray();
  int complete = 0;
  for (const auto& e : events) {
    if (std::string(e["ph"].GetString()) != "X") continue;
    ++complete;
    EXPECT_EQ(e["pid"].GetInt(), static_cast<int>(::getpid()));
    EXPECT_EQ(e["tid"].GetInt(), 3);
    if (std::string(e["name"].GetString()) == "conv") {
      EXPECT_DOUBLE_EQ(e["ts"].GetDouble(), 1.0);
      EXPECT_DOUBLE_EQ(e["dur"].GetDouble(), 1.0);
      EXPECT_STREQ(e["cat"].GetString(), "node");
      EXPECT_STREQ(e["args"]["backend"].GetString(), "simd");
      EXPECT_EQ(e["args"]["run"].GetInt(), 11);
    } else {
      EXPECT_STREQ(e["name"].GetString(), "run \"m\"");
      EXPECT_DOUBLE_EQ(e["ts"].GetDouble(), 0.5);
      EXPECT_DOUBLE_EQ(e["dur"].GetDouble(), 2000.001);
    }
  }
  EXPECT_EQ(complete, 2);
  EXPECT_EQ(doc["otherData"]["dropped_slices"].GetInt(), 4);
  EXPECT_EQ(doc["otherData"]["slices"].GetInt(), 2);
}

TEST(ChromeJsonTest, NamesTheProcessAndEachNamedTrack) {
  const std::string json = ToChromeJson(TwoSlices(), "tfhost test");
  rapidjson::Document doc;
  ASSERT_FALSE(doc.Parse(json.c_str()).HasParseError());
  std::string process, thread;
  for (const auto& e : doc["traceEvents"].GetArray()) {
    if (std::string(e["ph"].GetString()) != "M") continue;
    const std::string name = e["name"].GetString();
    if (name == "process_name") process = e["args"]["name"].GetString();
    if (name == "thread_name") {
      EXPECT_EQ(e["tid"].GetInt(), 3);
      thread = e["args"]["name"].GetString();
    }
  }
  EXPECT_EQ(process, "tfhost test");
  EXPECT_EQ(thread, "batch thread 0");
}

TEST(ChromeJsonTest, EmptyTraceIsStillValidJson) {
  Trace t;
  rapidjson::Document doc;
  const std::string json = ToChromeJson(t, "p");
  ASSERT_FALSE(doc.Parse(json.c_str()).HasParseError()) << json;
  EXPECT_EQ(doc["traceEvents"].GetArray().Size(), 1u);  // the process name
}

TEST(ChromeJsonTest, WriteCreatesMissingParentDirectories) {
  testing::TempDir dir("tfhost_trace");
  const std::string path = dir.Sub("a/b/trace.json");
  ASSERT_TRUE(WriteChromeJson(path, TwoSlices(), "p").ok());
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  rapidjson::Document doc;
  EXPECT_FALSE(doc.Parse(text.str().c_str()).HasParseError());
}

TEST(ChromeJsonTest, UnwritablePathIsAnErrorNamingTheFile) {
  testing::TempDir dir("tfhost_trace");
  // A regular file where a folder is needed.
  { std::ofstream(dir.Sub("file")) << "x"; }
  const std::string path = dir.Sub("file/trace.json");
  TFHOST_EXPECT_ERROR(CheckTraceFileWritable(path), StatusCode::kFailedPrecondition, "trace file '" + path + "'");
  TFHOST_EXPECT_ERROR(WriteChromeJson(path, TwoSlices(), "p"), StatusCode::kFailedPrecondition, path);
}

TEST(ChromeJsonTest, ReadOnlyFolderIsAnErrorNamingTheFile) {
  if (::geteuid() == 0) GTEST_SKIP() << "root writes into read-only folders";
  testing::TempDir dir("tfhost_trace");
  ASSERT_EQ(::chmod(dir.path().c_str(), 0500), 0);
  const std::string path = dir.Sub("trace.json");
  TFHOST_EXPECT_ERROR(CheckTraceFileWritable(path), StatusCode::kPermissionDenied, "trace file '" + path + "'");
  ::chmod(dir.path().c_str(), 0700);
}

TEST(ChromeJsonTest, EmptyPathIsInvalidArgument) {
  TFHOST_EXPECT_ERROR(CheckTraceFileWritable(""), StatusCode::kInvalidArgument, "path is empty");
}

}  // namespace
}  // namespace tfhost::trace
