// `tfhost predict` on real models: TF Serving's half_plus_two fixtures (its
// regress/classify signatures parse serialized Examples inside the graph)
// and the demo models tfhost writes, in-process and as the real binary
// (killed mid-run with SIGKILL, then resumed).
#include <gtest/gtest.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "base/test_fixtures.h"
#include "cli/cli.h"
#include "data/example.h"
#include "data/tfrecord_reader.h"
#include "data/tfrecord_writer.h"
#include "loaders/model_loader.h"
#include "loaders/savedmodel/demo_models.h"

namespace tfhost::cli {

// Also declared in cli.h; repeated so this test builds on its own.
int PredictCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string templ = (fs::temp_directory_path() / "predict_cmd_XXXXXX").string();
    path_ = ::mkdtemp(templ.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

struct Result {
  int code = -1;
  std::string out, err;
};

Result Predict(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  Result r;
  r.code = PredictCommand(args, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

std::string HalfPlusTwoFixture() {
  return testing::FixturePath("models/tfserving/saved_model_half_plus_two_cpu/00000123");
}

// `count` Examples {x: [first + i]}.
void WriteXs(const std::string& path, int first, int count) {
  std::vector<std::string> records;
  for (int i = 0; i < count; ++i) {
    records.push_back(data::EncodeExample(data::Example{{{"x", data::Feature::Floats({float(first + i)})}}}));
  }
  ASSERT_TRUE(data::WriteTFRecordFile(path, records).ok());
}

// Feature `key` (one float per record) of every record of an output file.
std::vector<float> ReadFloats(const std::string& path, const std::string& key) {
  std::vector<float> v;
  auto records = data::ReadAllRecords(path);
  EXPECT_TRUE(records.ok()) << path << ": " << records.status().message();
  if (!records.ok()) return v;
  for (const std::string& r : *records) {
    auto ex = data::DecodeExample(r);
    EXPECT_TRUE(ex.ok());
    if (!ex.ok() || !ex->features.count(key)) {
      ADD_FAILURE() << path << ": a record without '" << key << "'";
      continue;
    }
    const data::Feature& f = ex->features.at(key);
    EXPECT_EQ(f.floats.size(), 1u) << path;
    v.push_back(f.floats.empty() ? -1 : f.floats[0]);
  }
  return v;
}

std::vector<float> HalfPlusTwo(int first, int count, float add = 2) {
  std::vector<float> v;
  for (int i = 0; i < count; ++i) v.push_back(0.5f * float(first + i) + add);
  return v;
}

std::vector<std::string> TempFiles(const std::string& dir) {
  std::vector<std::string> t;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().find(".tmp-") != std::string::npos) t.push_back(e.path().string());
  }
  return t;
}

TEST(PredictCommandTest, RegressSignatureOverSerializedExamplesGivesHalfXPlusTwo) {
  TFHOST_REQUIRE_FIXTURE(HalfPlusTwoFixture());
  TempDir dir;
  WriteXs(dir / "a.tfrecord", 0, 30);
  WriteXs(dir / "b.tfrecord", 30, 11);
  Result r = Predict({HalfPlusTwoFixture(), "--input", dir / "a.tfrecord", dir / "b.tfrecord", "--output",
                      dir / "out/y", "--signature", "regress_x_to_y", "--batch", "8", "--threads", "1", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\"feed\":\"examples\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"records\":41"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"batches\":6"), std::string::npos) << r.out;  // 4 + 2 (batches span files)
  EXPECT_EQ(ReadFloats(dir / "out/y-00000-of-00002", "outputs"), HalfPlusTwo(0, 30));
  EXPECT_EQ(ReadFloats(dir / "out/y-00001-of-00002", "outputs"), HalfPlusTwo(30, 11));
  // regress_x_to_y2 computes 0.5x + 3; the upstream case {x: 80} -> 42 for y.
  r = Predict({HalfPlusTwoFixture(), "--input", dir / "b.tfrecord", "--output", dir / "y2", "--signature",
               "regress_x_to_y2", "--threads", "1", "--quiet"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(ReadFloats(dir / "y2-00000-of-00001", "outputs"), HalfPlusTwo(30, 11, 3));
}

TEST(PredictCommandTest, ClassifySignatureWritesScoresPerRecord) {
  TFHOST_REQUIRE_FIXTURE(HalfPlusTwoFixture());
  TempDir dir;
  WriteXs(dir / "in", 18, 5);  // x = 20 -> score 12 (upstream REST test)
  Result r = Predict({HalfPlusTwoFixture(), "--input", dir / "in", "--output", dir / "c", "--signature",
                      "classify_x_to_y", "--threads", "1"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("predicted 5 records (examples -> 'classify_x_to_y')"), std::string::npos) << r.out;
  std::vector<float> scores = ReadFloats(dir / "c-00000-of-00001", "scores");
  EXPECT_EQ(scores, HalfPlusTwo(18, 5));
  EXPECT_EQ(scores[2], 12.0f);
}

TEST(PredictCommandTest, PredictSignatureTakesFeaturesByNameFromJsonLines) {
  TFHOST_REQUIRE_FIXTURE(HalfPlusTwoFixture());
  TempDir dir;
  std::ofstream(dir / "in.jsonl") << "{\"id\": 1, \"x\": 1.0}\n{\"id\": 2, \"x\": 2}\n\n{\"id\": 3, \"x\": [5.0]}\n";
  Result r = Predict({HalfPlusTwoFixture(), "--input", dir / "in.jsonl", "--output", dir / "p", "--format", "jsonl",
                      "--keep", "id", "--threads", "1"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream in(dir / "p-00000-of-00001.jsonl");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "{\"id\":1,\"y\":2.5}\n{\"id\":2,\"y\":3.0}\n{\"id\":3,\"y\":4.5}\n");
  // A record without x: the error names file, line, feature and the input.
  std::ofstream(dir / "bad.jsonl") << "{\"x\": 1.0}\n{\"z\": 1.0}\n";
  r = Predict({HalfPlusTwoFixture(), "--input", dir / "bad.jsonl", "--output", dir / "q", "--threads", "1"});
  EXPECT_EQ(r.code, 1);
  EXPECT_NE(r.err.find("line 2 (record 1) has no feature 'x' for signature input 'x' (float32 [?,1])"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir / "q-00000-of-00001"));
}

TEST(PredictCommandTest, DemoCnnResultsMatchRunningTheModelDirectly) {
  TempDir dir;
  auto written = loaders::WriteDemoModels(dir / "models");
  ASSERT_TRUE(written.ok()) << written.status().message();
  const std::string cnn = dir / "models/cnn";
  std::vector<std::string> records;
  std::vector<float> all;
  const int n = 37;
  for (int r = 0; r < n; ++r) {
    std::vector<float> px(64);
    for (int i = 0; i < 64; ++i) px[i] = float((r * 7 + i * 3) % 17) / 17.0f - 0.3f;
    all.insert(all.end(), px.begin(), px.end());
    records.push_back(data::EncodeExample(data::Example{{{"x", data::Feature::Floats(px)}}}));
  }
  ASSERT_TRUE(data::WriteTFRecordFile(dir / "images", records).ok());
  Result r = Predict({cnn, "--input", dir / "images", "--output", dir / "pred", "--batch", "16", "--threads", "2",
                      "--parse-threads", "2", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\"feed\":\"features\""), std::string::npos) << r.out;

  auto model = loaders::LoadModel(cnn);
  ASSERT_TRUE(model.ok()) << model.status().message();
  auto sig = (*model)->FindSignature("serving_default");
  ASSERT_TRUE(sig.ok());
  ASSERT_EQ((*sig)->outputs.size(), 1u);
  const std::string key = (*sig)->outputs[0].key;
  auto direct = (*model)->RunSignature("serving_default",
                                       {{(*sig)->inputs[0].key, Tensor::FromVector(all, Shape({n, 8, 8, 1}))}});
  ASSERT_TRUE(direct.ok()) << direct.status().message();
  const Tensor& want = direct->at(key);
  ASSERT_EQ(want.shape(), Shape({n, 3}));
  auto out = data::ReadAllRecords(dir / "pred-00000-of-00001");
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(out->size(), size_t(n));
  for (int i = 0; i < n; ++i) {
    auto ex = data::DecodeExample((*out)[i]);
    ASSERT_TRUE(ex.ok());
    const auto& got = ex->features.at(key).floats;
    ASSERT_EQ(got.size(), 3u);
    for (int j = 0; j < 3; ++j) EXPECT_NEAR(got[j], want.data<float>()[i * 3 + j], 1e-6) << "record " << i;
  }
}

TEST(PredictCommandTest, ShardedRunsTogetherPredictEveryRecordOnce) {
  TFHOST_REQUIRE_FIXTURE(HalfPlusTwoFixture());
  TempDir dir;
  WriteXs(dir / "one", 0, 25);
  std::multiset<float> got;
  for (int i = 0; i < 3; ++i) {
    Result r = Predict({HalfPlusTwoFixture(), "--input", dir / "one", "--output", dir / "s", "--signature",
                        "regress_x_to_y", "--shard", std::to_string(i) + "/3", "--batch", "4", "--threads", "1"});
    ASSERT_EQ(r.code, 0) << r.err;
    std::vector<float> part = ReadFloats(dir / ("s-0000" + std::to_string(i) + "-of-00003"), "outputs");
    std::vector<float> want;
    for (int x = i; x < 25; x += 3) want.push_back(0.5f * x + 2);
    EXPECT_EQ(part, want) << "shard " << i;
    got.insert(part.begin(), part.end());
  }
  std::vector<float> all = HalfPlusTwo(0, 25);
  EXPECT_EQ(got, std::multiset<float>(all.begin(), all.end()));
}

TEST(PredictCommandTest, BadCommandLinesExitTwoAndUnknownSignaturesOne) {
  EXPECT_EQ(Predict({"m", "--input", "a", "--output", "p", "--shard", "3/3"}).code, kExitUsage);
  EXPECT_EQ(Predict({"m", "--input", "a"}).code, kExitUsage);
  EXPECT_EQ(Predict({"m", "--output", "p"}).code, kExitUsage);
  EXPECT_EQ(Predict({"m", "--input", "a", "--output", "p", "--format", "csv"}).code, kExitUsage);
  EXPECT_EQ(Predict({"m", "--input", "a", "--output", "p", "--batch", "0"}).code, kExitUsage);
  TFHOST_REQUIRE_FIXTURE(HalfPlusTwoFixture());
  TempDir dir;
  WriteXs(dir / "in", 0, 2);
  Result r = Predict({HalfPlusTwoFixture(), "--input", dir / "in", "--output", dir / "p", "--signature", "nope"});
  EXPECT_EQ(r.code, kExitFailure);
  EXPECT_NE(r.err.find("regress_x_to_y"), std::string::npos) << r.err;
}

// The real binary, killed with SIGKILL in the middle of a job and run again:
// every input record gets exactly one result, in order, and no file under a
// final name is ever partial.
TEST(PredictCommandTest, KilledBinaryResumesWithExactlyOneResultPerRecord) {
  TempDir dir;
  auto written = loaders::WriteDemoModels(dir / "models");
  ASSERT_TRUE(written.ok()) << written.status().message();
  const int files = 24, per_file = 3000;
  std::vector<std::string> inputs;
  for (int f = 0; f < files; ++f) {
    char name[32];
    std::snprintf(name, sizeof(name), "in-%02d", f);
    inputs.push_back(dir / name);
    WriteXs(inputs.back(), f * per_file, per_file);
  }
  fs::create_directories(dir / "out");
  std::vector<std::string> args = {TFHOST_BINARY, "predict", dir / "models/half_plus_two", "--input"};
  args.insert(args.end(), inputs.begin(), inputs.end());
  for (const char* a : {"--signature", "regress_x_to_y", "--batch", "2", "--threads", "1", "--quiet", "--output"}) {
    args.push_back(a);
  }
  args.push_back(dir / "out/r");
  auto finished = [&] {
    int n = 0;
    for (const auto& e : fs::directory_iterator(dir / "out")) n += e.path().filename().string()[0] != '.';
    return n;
  };

  // Built before fork: the child only calls async-signal-safe functions.
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    int null = ::open("/dev/null", O_WRONLY);
    ::dup2(null, 1);
    ::dup2(null, 2);
    ::execv(TFHOST_BINARY, argv.data());
    ::_exit(127);
  }
  // Kill it as soon as the first output is published.
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  int status = 0;
  bool exited = false;
  while (finished() == 0 && std::chrono::steady_clock::now() < deadline) {
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      exited = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  if (!exited) {
    ::kill(pid, SIGKILL);
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  }
  ASSERT_TRUE(WIFSIGNALED(status)) << "the job ended before it could be killed (status " << status << ")";
  const int done_at_kill = finished();
  ASSERT_GE(done_at_kill, 1);
  ASSERT_LT(done_at_kill, files) << "the job finished before the kill; give it more work";

  // Whatever has a final name is complete and correct.
  std::set<std::string> done_before;
  for (const auto& e : fs::directory_iterator(dir / "out")) {
    std::string name = e.path().filename().string();
    if (name[0] == '.') continue;
    done_before.insert(name);
    int unit = std::stoi(name.substr(2, 5));
    EXPECT_EQ(ReadFloats(e.path().string(), "outputs"), HalfPlusTwo(unit * per_file, per_file)) << name;
  }

  // Run again, to completion.
  std::string cmd;
  for (size_t i = 0; i < args.size(); ++i) {
    cmd += "'" + args[i] + "' ";
    if (args[i] == "--quiet") cmd += "--json ";
  }
  FILE* pipe = ::popen((cmd + "2>&1").c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buf[4096];
  size_t got;
  while ((got = std::fread(buf, 1, sizeof(buf), pipe)) > 0) output.append(buf, got);
  ASSERT_EQ(::pclose(pipe), 0) << output;
  EXPECT_NE(output.find("\"units_skipped\":" + std::to_string(done_before.size())), std::string::npos) << output;
  EXPECT_NE(output.find("\"units_written\":" + std::to_string(files - done_before.size())), std::string::npos)
      << output;

  // The union of both runs: one result per record, in order; no leftovers.
  std::vector<float> all;
  for (int u = 0; u < files; ++u) {
    char name[64];
    std::snprintf(name, sizeof(name), "out/r-%05d-of-%05d", u, files);
    std::vector<float> part = ReadFloats(dir / name, "outputs");
    all.insert(all.end(), part.begin(), part.end());
  }
  EXPECT_EQ(all, HalfPlusTwo(0, files * per_file));
  EXPECT_TRUE(TempFiles(dir / "out").empty());
}

}  // namespace
}  // namespace tfhost::cli
