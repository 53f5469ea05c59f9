#include "cli/stop_watchdog.h"

#include <gtest/gtest.h>

#include <iostream>
#include <sstream>

namespace tfhost::cli {
namespace {

TEST(StopWatchdogTest, AStopThatFinishesInTimeLeavesTheProcessAlone) {
  std::ostringstream err;
  {
    StopWatchdog watchdog(err, std::chrono::milliseconds(200));
    watchdog.Phase("draining requests");
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_EQ(err.str(), "");
}

TEST(StopWatchdogDeathTest, AStopStuckPastTheLimitExitsNamingThePhase) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        StopWatchdog watchdog(std::cerr, std::chrono::milliseconds(100));
        watchdog.Phase("unloading models");
        std::this_thread::sleep_for(std::chrono::seconds(30));  // a stop that hangs
      },
      ::testing::ExitedWithCode(1), "the shutdown is still unloading models 100 ms after SIGTERM");
}

}  // namespace
}  // namespace tfhost::cli
