#include "serving/model_manager/model_manager.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

#include "base/test_status.h"
#include "serving/metrics/metrics_registry.h"

namespace tfhost::serving {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "tfhost_mm_XXXXXX").string();
    path_ = mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string Sub(const std::string& name) const { return (fs::path(path_) / name).string(); }

 private:
  std::string path_;
};

// Captures log lines and counts loads; servables carry no model (the manager
// never looks inside one).
struct Harness {
  std::mutex mu;
  std::vector<std::string> lines;
  std::atomic<int> loads{0};
  std::set<int64_t> failing;  // versions whose loads fail
  int fail_first_attempts = 0;  // every version fails this many times first
  std::string required_file;    // loads fail while the version folder lacks it
  std::map<int64_t, int> attempts;
  milliseconds load_delay{0};

  ModelManagerOptions Options() {
    ModelManagerOptions o;
    o.file_system_poll_wait_seconds = 0;
    o.max_num_load_retries = 0;
    o.load_retry_interval_micros = 1000;
    o.log_sink = [this](const std::string& line) {
      std::lock_guard lock(mu);
      lines.push_back(line);
    };
    o.loader = [this](const std::string& name, int64_t version,
                      const std::string& path) -> StatusOr<std::shared_ptr<Servable>> {
      std::this_thread::sleep_for(load_delay);
      int attempt;
      bool fail;
      {
        std::lock_guard lock(mu);
        attempt = ++attempts[version];
        fail = failing.count(version) || attempt <= fail_first_attempts ||
               (!required_file.empty() && !fs::exists(fs::path(path) / required_file));
      }
      if (fail) return Internal("simulated load failure of " + path + " (attempt " + std::to_string(attempt) + ")");
      ++loads;
      auto s = std::make_shared<Servable>();
      s->name = name;
      s->version = version;
      s->path = path;
      return s;
    };
    return o;
  }
  std::vector<std::string> Lines() {
    std::lock_guard lock(mu);
    return lines;
  }
};

ModelServerConfig OneModel(const std::string& name, const std::string& base, const std::string& policy = "") {
  ModelServerConfig c = SingleModelConfig(name, base);
  if (!policy.empty()) {
    auto parsed = ParseModelServerConfig("model_config_list { config { name: \"" + name + "\" base_path: \"" + base +
                                             "\" model_version_policy { " + policy + " } } }",
                                         "test");
    EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
    c = *parsed;
  }
  return c;
}

std::map<int64_t, VersionState> States(const ModelManager& m, const std::string& name) {
  std::map<int64_t, VersionState> out;
  auto st = m.GetModelStatus(name, std::nullopt);
  if (!st.ok()) return out;
  for (const auto& v : *st) out[v.version] = v.state;
  return out;
}

TEST(ModelManagerTest, LoadsLatestVersionAndLogsEachStateChange) {
  TempDir dir;
  fs::create_directory(dir.Sub("1"));
  fs::create_directory(dir.Sub("2"));
  Harness h;
  ModelManager m(h.Options());
  ASSERT_TRUE(m.ReloadConfig(OneModel("m", dir.path())).ok());
  ASSERT_TRUE(m.WaitUntilSettled(milliseconds(10000)));
  EXPECT_EQ(States(m, "m"), (std::map<int64_t, VersionState>{{2, VersionState::kAvailable}}));
  auto s = m.GetServable({"m", std::nullopt, std::nullopt});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ((*s)->version, 2);
  EXPECT_TRUE(m.AllModelsAvailable());
  int state_lines = 0;
  for (const auto& l : h.Lines()) {
    if (l.find("\"event\":\"model_version_state\"") != std::string::npos) {
      ++state_lines;
      EXPECT_NE(l.find("\"model\":\"m\""), std::string::npos) << l;
    }
  }
  EXPECT_EQ(state_lines, 3);  // START, LOADING, AVAILABLE
}

TEST(ModelManagerTest, NotFoundTextsMatchTfServing) {
  TempDir dir;
  fs::create_directory(dir.Sub("5"));
  Harness h;
  ModelManager m(h.Options());
  ModelServerConfig config = OneModel("m", dir.path());
  (*config.mutable_model_config_list()->mutable_config(0)->mutable_version_labels())["stable"] = 5;
  ASSERT_TRUE(m.ReloadConfig(config).ok());
  ASSERT_TRUE(m.WaitUntilSettled(milliseconds(10000)));
  ASSERT_TRUE(m.UpdateVersionLabels(VersionLabelPolicy::kRequireAvailable).ok());
  auto r = m.GetServable({"half", std::nullopt, std::nullopt});
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(r.status().message(), "Servable not found for request: Latest(half)");
  r = m.GetServable({"m", 9, std::nullopt});
  EXPECT_EQ(r.status().message(), "Servable not found for request: Specific(m, 9)");
  r = m.GetServable({"m", std::nullopt, std::string("nolabel")});
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "Unrecognized servable version label: nolabel");
  r = m.GetServable({"m", std::nullopt, std::string("stable")});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ((*r)->version, 5);
  auto st = m.GetModelStatus("nope", std::nullopt);
  EXPECT_EQ(st.status().message(), "Could not find any versions of model nope");
  st = m.GetModelStatus("m", 4);
  EXPECT_EQ(st.status().message(), "Could not find version 4 of model m");
}

TEST(ModelManagerTest, AllAndSpecificPoliciesLoadTheRightVersions) {
  TempDir dir;
  for (const char* v : {"1", "2", "3", "notaversion"}) fs::create_directory(dir.Sub(v));
  Harness h;
  ModelManager m(h.Options());
  ASSERT_TRUE(m.ReloadConfig(OneModel("m", dir.path(), "all {}")).ok());
  ASSERT_TRUE(m.WaitUntilSettled(milliseconds(10000)));
  EXPECT_EQ(States(m, "m").size(), 3u);
  // Switching to specific{2} unloads 1 and 3 (2 stays available throughout).
  ASSERT_TRUE(m.ReloadConfig(OneModel("m", dir.path(), "specific { versions: 2 }")).ok());
  ASSERT_TRUE(m.WaitUntilSettled(milliseconds(10000)));
  auto states = States(m, "m");
  EXPECT_EQ(states[2], VersionState::kAvailable);
  EXPECT_EQ(states[1], VersionState::kEnd);
  EXPECT_EQ(states[3], VersionState::kEnd);
  TFHOST_EXPECT_ERROR(m.GetServable({"m", 1, std::nullopt}), StatusCode::kNotFound,
                      "Servable not found for request: Specific(m, 1)");
  EXPECT_EQ(h.loads.load(), 3);  // version 2 was not reloaded
}

TEST(ModelManagerTest, FailedLoadIsRetriedThenReportedWithItsError) {
  TempDir dir;
  fs::create_directory(dir.Sub("1"));
  Harness h;
  h.failing = {1};
  auto options = h.Options();
  options.max_num_load_retries = 2;
  ModelManager m(options);
  ASSERT_TRUE(m.ReloadConfig(OneModel("m", dir.path())).ok());
  ASSERT_TRUE(m.WaitUntilSettled(milliseconds(10000)));
  EXPECT_EQ(h.attempts[1], 3);
  auto st = m.GetModelStatus("m", std::nullopt);
  ASSERT_TRUE(st.ok());
  ASSERT_EQ(st->size(), 1u);
  EXPECT_EQ((*st)[0].state, VersionState::kEnd);
  EXPECT_EQ((*st)[0].status.code(), StatusCode::kInternal);
  EXPECT_NE((*st)[0].status.message().find("simulated load failure"), std::string::npos);
  EXPECT_FALSE(m.AllModelsAvailable());
}

TEST(ModelManagerTest, RetrySucceedsWithinTheAllowedAttempts) {
  TempDir dir;
  fs::create_directory(dir.Sub("1"));
  Harness h;
  h.fail_first_attempts = 2;
  auto options = h.Options();
  options.max_num_load_retries = 2;
  ModelManager m(options);
  ASSERT_TRUE(m.ReloadConfig(OneModel("m", dir.path())).ok());
  ASSERT_TRUE(m.WaitUntilSettled(milliseconds(10000)));
  EXPECT_EQ(States(m, "m")[1], VersionState::kAvailable);
  EXPECT_EQ(h.attempts[1], 3);
}

// A folder that appears before its files are copied fails its first loads;
// with polling on, the retries come 1 s, then 2 s later (the poll interval,
// doubling), not after TF Serving's one-minute retry interval.
TEST(ModelManagerTest, RetriesWhileTheFileSystemIsPolledStartAtThePollInterval) {
  TempDir dir;
  fs::create_directory(dir.Sub("1"));
  Harness h;
  h.fail_first_attempts = 2;
  auto options = h.Options();
  options.file_system_poll_wait_seconds = 1;
  options.max_num_load_retries = 5;
  options.load_retry_interval_micros = 60 * 1000 * 1000;
  ModelManager m(options);
  ASSERT_TRUE(m.ReloadConfig(OneModel("m", dir.path())).ok());
  const auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(m.WaitUntilSettled(milliseconds(20000)));
  EXPECT_EQ(States(m, "m")[1], VersionState::kAvailable);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(15));
  bool announced = false;
  for (const auto& line : h.Lines()) announced |= line.find("attempt 1 of 6 failed; retrying in 1000 ms") != std::string::npos;
  EXPECT_TRUE(announced);
}

// Once its retries are spent a version stays failed, until a scan finds its
// folder changed (the rest of the files arrived): then it loads again.
TEST(ModelManagerTest, VersionWhoseLoadGaveUpLoadsAgainWhenItsFolderChanges) {
  TempDir dir;
  fs::create_directory(dir.Sub("1"));
  Harness h;
  h.required_file = "saved_model.pb";
  auto options = h.Options();
  options.file_system_poll_wait_seconds = 1;
  ModelManager m(options);
  ASSERT_TRUE(m.ReloadConfig(OneModel("m", dir.path())).ok());
  ASSERT_TRUE(m.WaitUntilSettled(milliseconds(10000)));
  EXPECT_EQ(States(m, "m")[1], VersionState::kEnd);
  std::ofstream(dir.Sub("1/saved_model.pb")) << "now complete";
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (States(m, "m")[1] != VersionState::kAvailable && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(milliseconds(50));
  }
  EXPECT_EQ(States(m, "m")[1], VersionState::kAvailable);
  bool logged = false;
  for (const auto& line : h.Lines()) logged |= line.find("\"event\":\"version_folder_changed\"") != std::string::npos;
  EXPECT_TRUE(logged);
}

TEST(ModelManagerTest, EveryLoggedLineStartsWithItsTime) {
  Harness h;
  ModelManager m(h.Options());
  m.LogLine("{\"event\":\"config_file_reload\",\"status\":\"OK\"}");
  m.LogLine("{\"time\":\"2026-01-01T00:00:00.000Z\",\"event\":\"kept\"}");
  ASSERT_TRUE(m.WaitUntilSettled(milliseconds(1000)));
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (h.Lines().size() < 2 && std::chrono::steady_clock::now() < until) std::this_thread::sleep_for(milliseconds(5));
  const auto lines = h.Lines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].rfind("{\"time\":\"20", 0), 0u) << lines[0];
  EXPECT_NE(lines[0].find("Z\",\"event\":\"config_file_reload\",\"status\":\"OK\"}"), std::string::npos) << lines[0];
  EXPECT_EQ(lines[1], "{\"time\":\"2026-01-01T00:00:00.000Z\",\"event\":\"kept\"}");
}

TEST(ModelManagerTest, FailingNewVersionNeverTakesDownTheServingOne) {
  TempDir dir;
  fs::create_directory(dir.Sub("1"));
  Harness h;
  h.failing = {2};
  ModelManager m(h.Options());
  ASSERT_TRUE(m.ReloadConfig(OneModel("m", dir.path())).ok());
  ASSERT_TRUE(m.WaitUntilSettled(milliseconds(10000)));
  fs::create_directory(dir.Sub("2"));
  m.PollFileSystem();
  ASSERT_TRUE(m.WaitUntilSettled(milliseconds(10000)));
  auto states = States(m, "m");
  EXPECT_EQ(states[1], VersionState::kAvailable);
  EXPECT_EQ(states[2], VersionState::kEnd);
  auto s = m.GetServable({"m", std::nullopt, std::nullopt});
  ASSERT_TRUE(s.ok());
  EXPECT_EQ((*s)->version, 1);
}

TEST(ModelManagerTest, NewVersionIsAvailableBeforeTheOldOneUnloads) {
  TempDir dir;
  fs::create_directory(dir.Sub("1"));
  Harness h;
  ModelManager m(h.Options());
  ASSERT_TRUE(m.ReloadConfig(OneModel("m", dir.path())).ok());
  ASSERT_TRUE(m.WaitUntilSettled(milliseconds(10000)));
  h.load_delay = milliseconds(200);
  fs::create_directory(dir.Sub("2"));
  m.PollFileSystem();
  // While 2 loads, 1 keeps serving.
  {
    auto during = m.GetServable({"m", std::nullopt, std::nullopt});
    ASSERT_TRUE(during.ok());
    EXPECT_EQ((*during)->version, 1);
  }  // a held handle would (rightly) keep version 1 from unloading
  ASSERT_TRUE(m.WaitUntilSettled(milliseconds(10000)));
  EXPECT_EQ((*m.GetServable({"m", std::nullopt, std::nullopt}))->version, 2);
  // The log shows 2 AVAILABLE before 1 UNLOADING.
  size_t available2 = 0, unloading1 = 0;
  auto lines = h.Lines();
  for (size_t i = 0; i < lines.size(); ++i) {
    if (lines[i].find("\"version\":2,\"state\":\"AVAILABLE\"") != std::string::npos) available2 = i;
    if (lines[i].find("\"version\":1,\"state\":\"UNLOADING\"") != std::string::npos) unloading1 = i;
  }
  EXPECT_GT(available2, 0u);
  EXPECT_GT(unloading1, available2);
}

TEST(ModelManagerTest, UnloadWaitsForInFlightHandles) {
  TempDir dir;
  fs::create_directory(dir.Sub("1"));
  Harness h;
  ModelManager m(h.Options());
  ASSERT_TRUE(m.ReloadConfig(OneModel("m", dir.path())).ok());
  ASSERT_TRUE(m.WaitUntilSettled(milliseconds(10000)));
  ServableHandle held = *m.GetServable({"m", std::nullopt, std::nullopt});
  ASSERT_TRUE(m.ReloadConfig(ModelServerConfig()).ok());  // remove the model
  TFHOST_EXPECT_ERROR(m.GetServable({"m", std::nullopt, std::nullopt}), StatusCode::kNotFound,
                      "Servable not found for request: Latest(m)");
  EXPECT_FALSE(m.WaitUntilSettled(milliseconds(100)));  // unload waits for `held`
  held.reset();
  EXPECT_TRUE(m.WaitUntilSettled(milliseconds(10000)));
  bool ended = false;
  for (const auto& l : h.Lines()) ended = ended || l.find("\"state\":\"END\"") != std::string::npos;
  EXPECT_TRUE(ended);
}

TEST(ModelManagerTest, PollingPicksUpAddedAndRemovedVersionsWhileRequestsRun) {
  TempDir dir;
  fs::create_directory(dir.Sub("1"));
  Harness h;
  auto options = h.Options();
  options.file_system_poll_wait_seconds = 1;
  ModelManager m(options);
  ASSERT_TRUE(m.ReloadConfig(OneModel("m", dir.path(), "latest { num_versions: 2 }")).ok());
  ASSERT_TRUE(m.WaitUntilSettled(milliseconds(10000)));
  std::atomic<bool> stop{false};
  std::atomic<int> failures{0}, requests{0};
  std::vector<std::thread> clients;
  for (int t = 0; t < 3; ++t) {
    clients.emplace_back([&] {
      while (!stop) {
        if (!m.GetServable({"m", std::nullopt, std::nullopt}).ok()) ++failures;
        ++requests;
      }
    });
  }
  fs::create_directory(dir.Sub("2"));
  fs::create_directory(dir.Sub("3"));  // latest 2 -> {2, 3}; 1 goes once they serve
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline && States(m, "m")[1] != VersionState::kEnd) {
    std::this_thread::sleep_for(milliseconds(20));
  }
  fs::remove(dir.Sub("1"));
  fs::remove(dir.Sub("3"));  // on disk now only {2}: 3 unloads, 2 keeps serving
  deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline && States(m, "m")[3] != VersionState::kEnd) {
    std::this_thread::sleep_for(milliseconds(20));
  }
  stop = true;
  for (auto& c : clients) c.join();
  auto states = States(m, "m");
  EXPECT_EQ(states[2], VersionState::kAvailable);
  EXPECT_EQ(states[3], VersionState::kEnd);
  EXPECT_EQ(failures.load(), 0);
  EXPECT_GT(requests.load(), 0);
}

TEST(ModelManagerTest, EmptyBasePathIsReportedOnceNotEveryPoll) {
  TempDir dir;
  Harness h;
  ModelManager m(h.Options());
  ASSERT_TRUE(m.ReloadConfig(OneModel("m", dir.path())).ok());
  for (int i = 0; i < 3; ++i) m.PollFileSystem();
  ASSERT_TRUE(m.WaitUntilSettled(milliseconds(10000)));  // flushes the log
  int reports = 0;
  for (const auto& l : h.Lines()) reports += l.find("\"event\":\"no_versions\"") != std::string::npos;
  EXPECT_EQ(reports, 1);
  auto models = m.ListModels();
  ASSERT_EQ(models.size(), 1u);
  EXPECT_NE(models[0].scan_error.find("no numeric version folders"), std::string::npos) << models[0].scan_error;
  fs::create_directory(dir.Sub("4"));
  m.PollFileSystem();
  ASSERT_TRUE(m.WaitUntilSettled(milliseconds(10000)));
  EXPECT_TRUE(m.ListModels()[0].scan_error.empty());
  EXPECT_TRUE(m.AllModelsAvailable());
}

// A server that reloads every 30 s must not keep every version's metric
// series: once a version has ended and its folder is gone, they go too.
TEST(ModelManagerTest, AForgottenVersionTakesItsMetricSeriesWithIt) {
  TempDir dir;
  fs::create_directory(dir.Sub("1"));
  Harness h;
  MetricsRegistry registry;
  ServingMetrics metrics(&registry);
  auto options = h.Options();
  options.metrics = &metrics;
  ModelManager m(options);
  ASSERT_TRUE(m.ReloadConfig(OneModel("m", dir.path())).ok());
  ASSERT_TRUE(m.WaitUntilSettled(milliseconds(10000)));
  const std::string v1_state = ":tfhost:serving:model_version_state{model_name=\"m\",version=\"1\"}";
  const std::string v1_path = "model_path=\"" + dir.Sub("1") + "\"";
  EXPECT_NE(registry.ToPrometheusText().find(v1_state + " 30"), std::string::npos);
  EXPECT_NE(registry.ToPrometheusText().find(v1_path), std::string::npos);

  fs::create_directory(dir.Sub("2"));  // latest 1: 2 loads, then 1 unloads
  m.PollFileSystem();
  ASSERT_TRUE(m.WaitUntilSettled(milliseconds(10000)));
  ASSERT_EQ(States(m, "m")[1], VersionState::kEnd);
  EXPECT_NE(registry.ToPrometheusText().find(v1_state + " 50"), std::string::npos);  // ended, still listed

  fs::remove(dir.Sub("1"));
  m.PollFileSystem();
  ASSERT_TRUE(m.WaitUntilSettled(milliseconds(10000)));
  EXPECT_EQ(States(m, "m").count(1), 0u);
  const std::string text = registry.ToPrometheusText();
  EXPECT_EQ(text.find("version=\"1\""), std::string::npos) << text;
  EXPECT_EQ(text.find(v1_path), std::string::npos) << text;
  EXPECT_NE(text.find(":tfhost:serving:model_version_state{model_name=\"m\",version=\"2\"} 30"), std::string::npos)
      << text;
  EXPECT_NE(text.find("model_path=\"" + dir.Sub("2") + "\",status=\"success\"} 1"), std::string::npos) << text;
}

TEST(ModelManagerTest, ABlockedLogSinkNeverBlocksRequests) {
  TempDir dir;
  fs::create_directory(dir.Sub("1"));
  Harness h;
  auto options = h.Options();
  std::mutex gate;
  std::unique_lock<std::mutex> closed(gate);  // the sink blocks until the test opens the gate
  options.log_sink = [&gate](const std::string&) { std::lock_guard wait(gate); };
  {
    ModelManager m(options);
    // Declared after `m`, so it opens the gate before `m` is destroyed even
    // when an assertion returns early.
    struct OpenOnExit {
      std::unique_lock<std::mutex>& lock;
      ~OpenOnExit() {
        if (lock.owns_lock()) lock.unlock();
      }
    } open_on_exit{closed};
    ASSERT_TRUE(m.ReloadConfig(OneModel("m", dir.path())).ok());
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < deadline && !m.GetServable({"m", std::nullopt, std::nullopt}).ok()) {
      std::this_thread::sleep_for(milliseconds(5));
    }
    EXPECT_TRUE(m.GetServable({"m", std::nullopt, std::nullopt}).ok());
    EXPECT_FALSE(m.WaitUntilSettled(milliseconds(50)));  // the log has not drained
    closed.unlock();
    EXPECT_TRUE(m.WaitUntilSettled(milliseconds(10000)));
  }
}

TEST(ModelManagerTest, InvalidConfigChangesNothing) {
  TempDir dir;
  fs::create_directory(dir.Sub("1"));
  Harness h;
  ModelManager m(h.Options());
  ASSERT_TRUE(m.ReloadConfig(OneModel("m", dir.path())).ok());
  ASSERT_TRUE(m.WaitUntilSettled(milliseconds(10000)));
  ModelServerConfig bad = OneModel("m", dir.path());
  bad.mutable_model_config_list()->add_config()->set_name("m");
  EXPECT_EQ(m.ReloadConfig(bad).code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(m.GetServable({"m", std::nullopt, std::nullopt}).ok());
}

TEST(ModelManagerTest, ChangingTheBasePathOfAServedModelIsRefused) {
  TempDir a, b;
  fs::create_directory(a.Sub("1"));
  fs::create_directory(b.Sub("1"));
  Harness h;
  ModelManager m(h.Options());
  ASSERT_TRUE(m.ReloadConfig(OneModel("m", a.path())).ok());
  ASSERT_TRUE(m.WaitUntilSettled(milliseconds(10000)));
  Status s = m.ReloadConfig(OneModel("m", b.path()));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("changing base_path"), std::string::npos) << s.message();
  EXPECT_EQ((*m.GetServable({"m", std::nullopt, std::nullopt}))->path, a.Sub("1"));
}

TEST(ModelManagerTest, AddingAModelDoesNotDisturbAnother) {
  TempDir a, b;
  fs::create_directory(a.Sub("1"));
  fs::create_directory(b.Sub("1"));
  Harness h;
  ModelManager m(h.Options());
  ASSERT_TRUE(m.ReloadConfig(OneModel("a", a.path())).ok());
  ASSERT_TRUE(m.WaitUntilSettled(milliseconds(10000)));
  h.load_delay = milliseconds(300);
  ModelServerConfig both = OneModel("a", a.path());
  *both.mutable_model_config_list()->add_config() = OneModel("b", b.path()).model_config_list().config(0);
  auto start = std::chrono::steady_clock::now();
  ASSERT_TRUE(m.ReloadConfig(both).ok());
  // Requests to "a" are answered at once while "b" loads.
  EXPECT_TRUE(m.GetServable({"a", std::nullopt, std::nullopt}).ok());
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(200));
  TFHOST_EXPECT_ERROR(m.GetServable({"b", std::nullopt, std::nullopt}), StatusCode::kNotFound,
                      "Servable not found for request: Latest(b)");
  ASSERT_TRUE(m.WaitUntilSettled(milliseconds(10000)));
  EXPECT_TRUE(m.GetServable({"b", std::nullopt, std::nullopt}).ok());
  EXPECT_EQ(m.ListModels().size(), 2u);
}

TEST(ModelManagerTest, DestructionDuringRetryWaitDoesNotHang) {
  TempDir dir;
  fs::create_directory(dir.Sub("1"));
  Harness h;
  h.failing = {1};
  auto options = h.Options();
  options.max_num_load_retries = 100;
  options.load_retry_interval_micros = INT64_MAX;  // clamped, and woken by destruction
  options.file_system_poll_wait_seconds = INT64_MAX;
  auto start = std::chrono::steady_clock::now();
  {
    ModelManager m(options);
    ASSERT_TRUE(m.ReloadConfig(OneModel("m", dir.path())).ok());
    std::this_thread::sleep_for(milliseconds(50));
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

}  // namespace
}  // namespace tfhost::serving
