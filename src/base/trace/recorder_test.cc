#include "base/trace/recorder.h"

#include <gtest/gtest.h>

#include <map>
#include <thread>
#include <vector>

#include "base/test_status.h"
#include "base/trace/request_span.h"

namespace tfhost::trace {
namespace {

// Every test leaves the process's one recording off.
class RecorderTest : public ::testing::Test {
 protected:
  void TearDown() override { Recorder::Global().Stop(); }
};

TEST_F(RecorderTest, NothingIsRecordedWhileNoRecordingIsOn) {
  EXPECT_FALSE(Enabled());
  { ScopedSlice slice("cli", "before"); EXPECT_FALSE(slice.active()); }
  ASSERT_TRUE(Recorder::Global().Start("test").ok());
  EXPECT_TRUE(Enabled());
  { ScopedSlice slice("cli", "during"); }
  Trace t = Recorder::Global().Stop();
  EXPECT_FALSE(Enabled());
  { ScopedSlice slice("cli", "after"); }
  ASSERT_EQ(t.events.size(), 1u);
  EXPECT_EQ(t.events[0].name, "during");
  EXPECT_STREQ(t.events[0].category, "cli");
  EXPECT_EQ(t.events[0].tid, ThisThreadId());
  EXPECT_GE(t.events[0].start_ns, t.start_ns);
  EXPECT_LE(t.events[0].start_ns + t.events[0].duration_ns, t.end_ns);
}

TEST_F(RecorderTest, SecondStartIsAbortedNamingTheRecordingInProgress) {
  ASSERT_TRUE(Recorder::Global().Start("serve --trace").ok());
  TFHOST_EXPECT_ERROR(Recorder::Global().Start("GET /v1/trace"), StatusCode::kAborted, "serve --trace");
  Recorder::Global().Stop();
  EXPECT_TRUE(Recorder::Global().Start("GET /v1/trace").ok());
}

TEST_F(RecorderTest, BadBoundIsInvalidArgument) {
  TFHOST_EXPECT_ERROR(Recorder::Global().Start("test", 0), StatusCode::kInvalidArgument, "max_events");
  EXPECT_FALSE(Enabled());
}

TEST_F(RecorderTest, SlicesPastTheBoundAreCountedAsDropped) {
  ASSERT_TRUE(Recorder::Global().Start("test", 3).ok());
  for (int i = 0; i < 5; ++i) ScopedSlice slice("cli", std::string("s") + std::to_string(i));
  Trace t = Recorder::Global().Stop();
  ASSERT_EQ(t.events.size(), 3u);
  EXPECT_EQ(t.events[2].name, "s2");
  EXPECT_EQ(t.dropped_events, 2);
}

TEST_F(RecorderTest, SliceThatBeganBeforeTheStartIsDropped) {
  Event early;
  early.name = "early";
  early.start_ns = NowNanos();
  ASSERT_TRUE(Recorder::Global().Start("test").ok());
  Record(early);
  Trace t = Recorder::Global().Stop();
  EXPECT_TRUE(t.events.empty());
}

TEST_F(RecorderTest, SlicesFromManyThreadsAreAllKeptOnTheirOwnTracks) {
  ASSERT_TRUE(Recorder::Global().Start("test").ok());
  std::vector<std::thread> threads;
  std::vector<uint32_t> tids(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t, &tids] {
      tids[t] = ThisThreadId();
      SetThreadName("worker " + std::to_string(t));
      for (int i = 0; i < 100; ++i) ScopedSlice slice("node", "n");
    });
  }
  for (auto& th : threads) th.join();
  Trace t = Recorder::Global().Stop();
  EXPECT_EQ(t.events.size(), 400u);
  std::map<uint32_t, int> per_track;
  for (const Event& e : t.events) ++per_track[e.tid];
  for (uint32_t tid : tids) EXPECT_EQ(per_track[tid], 100);
  ASSERT_EQ(t.track_names.size(), 4u);
  for (const auto& [tid, name] : t.track_names) EXPECT_EQ(name.rfind("worker ", 0), 0u) << name;
}

TEST_F(RecorderTest, ArgsAreJsonMembersWithEscapedStrings) {
  Args args;
  args.Add("op", "Conv2D").Add("run", 7).Add("path", "a\"b\\c\n").AddJson("outputs", "[\"f32[1]\"]");
  EXPECT_EQ(args.members(), R"("op":"Conv2D","run":7,"path":"a\"b\\c\n","outputs":["f32[1]"])");
}

TEST_F(RecorderTest, RequestSpansTakeTheLowestFreeLaneAndNameIt) {
  ASSERT_TRUE(Recorder::Global().Start("test").ok());
  RequestSpan a, b;
  a.Begin("POST /a");
  b.Begin("POST /b");
  ASSERT_TRUE(a.active());
  ASSERT_TRUE(b.active());
  EXPECT_NE(a.context().lane, b.context().lane);
  EXPECT_NE(a.context().span, b.context().span);
  const uint32_t a_lane = a.context().lane;
  a.args().Add("status", 200);
  a.End();
  EXPECT_FALSE(a.active());
  RequestSpan c;
  c.Begin("POST /c");
  EXPECT_EQ(c.context().lane, a_lane);  // reused once free
  c.End();
  b.End();
  Trace t = Recorder::Global().Stop();
  ASSERT_EQ(t.events.size(), 3u);
  EXPECT_EQ(t.events[0].name, "POST /a");
  EXPECT_STREQ(t.events[0].category, "request");
  EXPECT_EQ(t.events[0].tid, a_lane);
  EXPECT_EQ(t.events[0].args.rfind("\"id\":", 0), 0u) << t.events[0].args;
  EXPECT_NE(t.events[0].args.find("\"status\":200"), std::string::npos);
  EXPECT_EQ(TrackName(a_lane), "request lane " + std::to_string(a_lane - kFirstLaneTid));
}

TEST_F(RecorderTest, RequestSpanIsInertWhenNoRecordingIsOn) {
  RequestSpan span;
  span.Begin("GET /x");
  EXPECT_FALSE(span.active());
  EXPECT_EQ(span.context().span, 0u);
}

TEST_F(RecorderTest, ScopedContextIsCurrentOnlyInItsScope) {
  EXPECT_EQ(CurrentContext().span, 0u);
  {
    ScopedContext outer(Context{5, kFirstLaneTid});
    EXPECT_EQ(CurrentContext().span, 5u);
    {
      ScopedContext inner(Context{9, 0});
      EXPECT_EQ(CurrentContext().span, 9u);
    }
    EXPECT_EQ(CurrentContext().span, 5u);
    std::thread([] { EXPECT_EQ(CurrentContext().span, 0u); }).join();
  }
  EXPECT_EQ(CurrentContext().span, 0u);
}

}  // namespace
}  // namespace tfhost::trace
