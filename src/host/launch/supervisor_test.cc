#include "host/launch/supervisor.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <thread>

namespace tfhost::host::launch {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

class SupervisorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("supervisor_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    options_.out_fd = ::open((dir_ / "out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    options_.err_fd = ::open((dir_ / "err").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    options_.grace_seconds = 2;
  }
  void TearDown() override {
    ::close(options_.out_fd);
    ::close(options_.err_fd);
    fs::remove_all(dir_);
  }
  ProcessSpec Sh(const std::string& label, const std::string& script, bool completes = true) {
    return {label, {"/bin/sh", "-c", script}, {"PATH=/usr/bin:/bin", "DIR=" + dir_.string()}, completes};
  }
  std::string Read(const std::string& name) {
    std::ifstream in(dir_ / name);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // True once `pid` (from a file the task wrote) no longer runs. A killed
  // grandchild is reparented to PID 1, and a container's PID 1 may never reap
  // it: a zombie counts as gone, since kill(pid, 0) still succeeds on it.
  bool Gone(const std::string& pid_file) {
    std::string text = Read(pid_file);
    EXPECT_FALSE(text.empty()) << pid_file << " was never written";
    if (text.empty()) return false;
    pid_t pid = std::stoi(text);
    for (int i = 0; i < 40; ++i) {
      if (::kill(pid, 0) != 0 || IsZombie(pid)) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }
  static bool IsZombie(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    // The state follows the command name, which is in parentheses and may hold spaces.
    size_t close = stat.rfind(')');
    return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] == 'Z';
  }
  fs::path dir_;
  SupervisorOptions options_;
};

TEST_F(SupervisorTest, EveryTaskSucceedsAndOutputIsPrefixedPerLine) {
  SuperviseResult r = Supervise({Sh("worker:0", "echo hello; echo oops >&2; printf 'no newline'"),
                                 Sh("worker:1", "echo one; echo two")},
                                options_);
  EXPECT_EQ(r.exit_code, 0) << r.summary;
  std::string out = Read("out");
  EXPECT_NE(out.find("[worker:0] hello\n"), std::string::npos) << out;
  EXPECT_NE(out.find("[worker:0] no newline\n"), std::string::npos) << out;
  // Lines of different tasks may interleave; each task's own stay in order.
  size_t one = out.find("[worker:1] one\n"), two = out.find("[worker:1] two\n");
  ASSERT_NE(one, std::string::npos) << out;
  ASSERT_NE(two, std::string::npos) << out;
  EXPECT_LT(one, two) << out;
  EXPECT_NE(Read("err").find("[worker:0] oops\n"), std::string::npos) << Read("err");
}

TEST_F(SupervisorTest, OneFailureStopsTheOthersWithinSecondsAndPassesItsStatus) {
  auto start = Clock::now();
  SuperviseResult r = Supervise(
      {Sh("worker:0", "sleep 60 & echo $! > $DIR/grandchild; echo $$ > $DIR/leader; wait"),
       Sh("worker:1", "sleep 0.3; exit 3")},
      options_);
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  EXPECT_EQ(r.exit_code, 3) << r.summary;
  EXPECT_LT(seconds, 5) << "the job took " << seconds << " s to stop";
  EXPECT_NE(r.summary.find("worker:1 exited with status 3"), std::string::npos) << r.summary;
  EXPECT_TRUE(Gone("leader"));
  EXPECT_TRUE(Gone("grandchild")) << "a task's child outlived the job";
  EXPECT_NE(Read("err").find("stopping the other tasks"), std::string::npos);
}

TEST_F(SupervisorTest, TasksIgnoringSigtermAreKilledAfterTheGracePeriod) {
  options_.grace_seconds = 0.5;
  auto start = Clock::now();
  SuperviseResult r = Supervise({Sh("worker:0", "trap '' TERM; echo $$ > $DIR/stubborn; while :; do sleep 0.1; done"),
                                 Sh("worker:1", "sleep 0.3; exit 5")},
                                options_);
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  EXPECT_EQ(r.exit_code, 5);
  EXPECT_LT(seconds, 4);
  EXPECT_TRUE(Gone("stubborn"));
  EXPECT_NE(Read("err").find("grace period over"), std::string::npos) << Read("err");
}

TEST_F(SupervisorTest, DeathBySignalBecomes128PlusSignal) {
  SuperviseResult r = Supervise({Sh("worker:0", "kill -KILL $$")}, options_);
  EXPECT_EQ(r.exit_code, 128 + SIGKILL);
  EXPECT_NE(r.summary.find("killed by signal 9"), std::string::npos) << r.summary;
}

TEST_F(SupervisorTest, SigtermToTheLauncherReachesEveryTask) {
  std::thread sender([] {
    std::this_thread::sleep_for(std::chrono::milliseconds(700));
    ::kill(::getpid(), SIGTERM);
  });
  auto start = Clock::now();
  SuperviseResult r = Supervise(
      {Sh("worker:0", "trap 'echo got TERM; exit 0' TERM; sleep 60 & wait"),
       Sh("worker:1", "trap 'echo got TERM too; exit 0' TERM; sleep 60 & wait")},
      options_);
  sender.join();
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  EXPECT_EQ(r.exit_code, 128 + SIGTERM) << r.summary;
  EXPECT_LT(seconds, 5);
  std::string out = Read("out");
  EXPECT_NE(out.find("[worker:0] got TERM"), std::string::npos) << out;
  EXPECT_NE(out.find("[worker:1] got TERM too"), std::string::npos) << out;
}

TEST_F(SupervisorTest, JobCompletesWhenTheCompletingTasksFinishAndTheRestIsStopped) {
  auto start = Clock::now();
  SuperviseResult r = Supervise({Sh("chief:0", "sleep 0.2; exit 0"),
                                 Sh("ps:0", "echo $$ > $DIR/ps; sleep 60 & wait", /*completes=*/false)},
                                options_);
  EXPECT_EQ(r.exit_code, 0) << r.summary;
  EXPECT_LT(std::chrono::duration<double>(Clock::now() - start).count(), 5);
  EXPECT_TRUE(Gone("ps"));
}

TEST_F(SupervisorTest, MaxRestartsRestartsTheWholeJob) {
  options_.max_restarts = 1;
  SuperviseResult r = Supervise(
      {Sh("worker:0", "echo run $TFHOST_RESTART >> $DIR/runs; [ \"$TFHOST_RESTART\" = 1 ] || { sleep 0.3; exit 4; }"),
       Sh("worker:1", "echo other $TFHOST_RESTART >> $DIR/others; [ \"$TFHOST_RESTART\" = 1 ] || { sleep 60 & wait; }")},
      options_);
  EXPECT_EQ(r.exit_code, 0) << r.summary;
  EXPECT_EQ(r.restarts, 1);
  EXPECT_EQ(Read("runs"), "run 0\nrun 1\n");
  EXPECT_EQ(Read("others"), "other 0\nother 1\n");  // the healthy task was restarted too
  EXPECT_NE(Read("err").find("restarting the job (1 of 1)"), std::string::npos);
}

TEST_F(SupervisorTest, RestartsAreBoundedAndTheLastFailureIsReported) {
  options_.max_restarts = 2;
  SuperviseResult r = Supervise({Sh("worker:0", "echo x >> $DIR/runs; exit 7")}, options_);
  EXPECT_EQ(r.exit_code, 7);
  EXPECT_EQ(r.restarts, 2);
  EXPECT_EQ(Read("runs"), "x\nx\nx\n");
}

TEST_F(SupervisorTest, MissingProgramExits127) {
  SuperviseResult r = Supervise({{"worker:0", {"no-such-program-tfhost"}, {"PATH=/usr/bin:/bin"}, true}}, options_);
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_NE(Read("err").find("cannot execute 'no-such-program-tfhost'"), std::string::npos) << Read("err");
}

TEST_F(SupervisorTest, AClosedOutputDoesNotKillTheJob) {
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  ::close(p[0]);  // nobody reads: writes fail with EPIPE
  ::close(options_.out_fd);
  options_.out_fd = p[1];
  SuperviseResult r = Supervise({Sh("worker:0", "for i in 1 2 3; do echo line $i; done; echo done > $DIR/finished")},
                                options_);
  EXPECT_EQ(r.exit_code, 0) << r.summary;
  EXPECT_EQ(Read("finished"), "done\n");
}

TEST_F(SupervisorTest, LogDirKeepsEachTasksOutputVerbatim) {
  options_.log_dir = dir_.string();
  SuperviseResult r = Supervise({Sh("worker:0", "echo a; echo b >&2"), Sh("worker:1", "echo c")}, options_);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(Read("worker-0.log"), "a\nb\n");
  EXPECT_EQ(Read("worker-1.log"), "c\n");
}

}  // namespace
}  // namespace tfhost::host::launch
