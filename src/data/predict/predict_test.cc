#include "data/predict/predict.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <thread>

#include "data/example_json.h"
#include "data/tfrecord_writer.h"
#include "base/test_status.h"

namespace tfhost::data::predict {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string templ = (fs::temp_directory_path() / "predict_test_XXXXXX").string();
    path_ = ::mkdtemp(templ.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

TensorInfo Info(std::string key, std::string tensor, DType dtype, ir::PartialShape shape) {
  TensorInfo t;
  t.key = std::move(key);
  t.tensor_name = std::move(tensor);
  t.dtype = dtype;
  t.shape = std::move(shape);
  return t;
}

// y = 0.5 x + 2 on x: float [-1,1], like half_plus_two's serving_default.
SignatureInfo HalfPlusTwo() {
  SignatureInfo s;
  s.name = "serving_default";
  s.method_name = "tensorflow/serving/predict";
  s.inputs = {Info("x", "x:0", DType::kFloat, ir::PartialShape::Known({-1, 1}))};
  s.outputs = {Info("y", "y:0", DType::kFloat, ir::PartialShape::Known({-1, 1}))};
  return s;
}

StatusOr<std::map<std::string, Tensor>> HalfPlusTwoRun(const std::map<std::string, Tensor>& in) {
  const Tensor& x = in.at("x");
  Tensor y(DType::kFloat, x.shape());
  for (int64_t i = 0; i < x.NumElements(); ++i) y.data<float>()[i] = 0.5f * x.data<float>()[i] + 2.0f;
  return std::map<std::string, Tensor>{{"y", y}};
}

// Writes `count` Examples {x: [first + i]} to `path`.
void WriteXs(const std::string& path, int first, int count) {
  std::vector<std::string> records;
  for (int i = 0; i < count; ++i) {
    records.push_back(EncodeExample(Example{{{"x", Feature::Floats({static_cast<float>(first + i)})}}}));
  }
  ASSERT_TRUE(WriteTFRecordFile(path, records).ok());
}

// The y values of an output TFRecord file.
std::vector<float> ReadYs(const std::string& path) {
  std::vector<float> ys;
  auto records = ReadAllRecords(path);
  EXPECT_TRUE(records.ok()) << path << ": " << records.status().message();
  if (!records.ok()) return ys;
  for (const std::string& r : *records) {
    auto ex = DecodeExample(r);
    EXPECT_TRUE(ex.ok());
    if (!ex.ok()) continue;
    const Feature& y = ex->features.at("y");
    EXPECT_EQ(y.floats.size(), 1u);
    ys.push_back(y.floats.empty() ? -1 : y.floats[0]);
  }
  return ys;
}

std::vector<float> Expected(int first, int count) {
  std::vector<float> v;
  for (int i = 0; i < count; ++i) v.push_back(0.5f * static_cast<float>(first + i) + 2.0f);
  return v;
}

std::vector<std::string> Temporaries(const std::string& dir) {
  std::vector<std::string> t;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().find(".tmp-") != std::string::npos) t.push_back(e.path().string());
  }
  return t;
}

TEST(RunPredictTest, OutputsKeepInputOrderAcrossFilesAndBatches) {
  TempDir dir;
  // Sizes that make batches of 7 straddle files, and an empty file.
  const std::vector<int> sizes = {10, 0, 23, 7, 1};
  PredictOptions o;
  int first = 0;
  for (size_t f = 0; f < sizes.size(); ++f) {
    o.inputs.push_back(dir / ("in-" + std::to_string(f)));
    WriteXs(o.inputs.back(), first, sizes[f]);
    first += sizes[f];
  }
  o.output_prefix = dir / "out/pred";
  o.batch_size = 7;
  o.parse_threads = 3;
  o.prefetch_batches = 2;
  auto stats = RunPredict(HalfPlusTwo(), HalfPlusTwoRun, o);
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->records, 41);
  EXPECT_EQ(stats->batches, 6);  // ceil(41 / 7)
  EXPECT_EQ(stats->units_written, 5);
  EXPECT_EQ(stats->feed_mode, FeedMode::kFeatures);
  first = 0;
  for (size_t f = 0; f < sizes.size(); ++f) {
    std::string out = o.output_prefix + "-0000" + std::to_string(f) + "-of-00005";
    EXPECT_EQ(ReadYs(out), Expected(first, sizes[f])) << out;
    first += sizes[f];
  }
  EXPECT_TRUE(Temporaries(dir / "out").empty());
}

TEST(RunPredictTest, ShardsTogetherPredictEveryRecordExactlyOnce) {
  TempDir dir;
  // Five files on three machines (split by file), then one file on four
  // machines (split by record).
  std::vector<std::string> files;
  for (int f = 0; f < 5; ++f) {
    files.push_back(dir / ("in-" + std::to_string(f)));
    WriteXs(files.back(), f * 100, 10 + f);
  }
  std::multiset<float> ys;
  for (int i = 0; i < 3; ++i) {
    PredictOptions o;
    o.inputs = files;
    o.output_prefix = dir / "by_file/p";
    o.shard = {i, 3};
    o.batch_size = 4;
    auto stats = RunPredict(HalfPlusTwo(), HalfPlusTwoRun, o);
    ASSERT_TRUE(stats.ok()) << stats.status().message();
    for (const std::string& out : stats->outputs_written) {
      for (float y : ReadYs(out)) ys.insert(y);
    }
  }
  std::multiset<float> want;
  for (int f = 0; f < 5; ++f) {
    for (float y : Expected(f * 100, 10 + f)) want.insert(y);
  }
  EXPECT_EQ(ys, want);

  const std::string big = dir / "big";
  WriteXs(big, 0, 50);
  ys.clear();
  for (int i = 0; i < 4; ++i) {
    PredictOptions o;
    o.inputs = {big};
    o.output_prefix = dir / "by_record/p";
    o.shard = {i, 4};
    o.batch_size = 3;
    auto stats = RunPredict(HalfPlusTwo(), HalfPlusTwoRun, o);
    ASSERT_TRUE(stats.ok()) << stats.status().message();
    ASSERT_EQ(stats->outputs_written.size(), 1u);
    std::vector<float> got = ReadYs(stats->outputs_written[0]);
    // Shard i holds records i, i+4, i+8, ... in order.
    std::vector<float> expect;
    for (int r = i; r < 50; r += 4) expect.push_back(0.5f * r + 2);
    EXPECT_EQ(got, expect) << "shard " << i;
    for (float y : got) ys.insert(y);
  }
  want.clear();
  for (float y : Expected(0, 50)) want.insert(y);
  EXPECT_EQ(ys, want);
}

TEST(RunPredictTest, FinishedOutputsAreSkippedOnRestartAndStaleTemporariesRemoved) {
  TempDir dir;
  PredictOptions o;
  for (int f = 0; f < 3; ++f) {
    o.inputs.push_back(dir / ("in-" + std::to_string(f)));
    WriteXs(o.inputs.back(), f * 10, 10);
  }
  o.output_prefix = dir / "p";
  o.batch_size = 4;
  ASSERT_TRUE(RunPredict(HalfPlusTwo(), HalfPlusTwoRun, o).ok());
  // As if the job was killed while writing unit 1.
  fs::remove(dir / "p-00001-of-00003");
  std::ofstream(dir / ".p-00001-of-00003.tmp-Xy12Zw") << "half a record";
  std::atomic<int> runs{0};
  RunFn counting = [&](const std::map<std::string, Tensor>& in) {
    ++runs;
    return HalfPlusTwoRun(in);
  };
  auto stats = RunPredict(HalfPlusTwo(), counting, o);
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->units_skipped, 2);
  EXPECT_EQ(stats->units_written, 1);
  EXPECT_EQ(stats->stale_temporaries_removed, 1);
  EXPECT_EQ(stats->records, 10);
  EXPECT_EQ(runs.load(), 3);  // 10 records in batches of 4
  EXPECT_EQ(ReadYs(dir / "p-00001-of-00003"), Expected(10, 10));
  EXPECT_TRUE(Temporaries(dir.path()).empty());
  // --overwrite redoes everything.
  o.overwrite = true;
  stats = RunPredict(HalfPlusTwo(), HalfPlusTwoRun, o);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->units_written, 3);
}

// Restart finds GZIP outputs under the name they are written with: the
// ".gz" name is both what is written and what a rerun skips.
TEST(RunPredictTest, GzipOutputsEndInGzAndARerunSkipsThemByThatName) {
  TempDir dir;
  PredictOptions o;
  for (int f = 0; f < 2; ++f) {
    o.inputs.push_back(dir / ("in-" + std::to_string(f)));
    WriteXs(o.inputs.back(), f * 10, 10);
  }
  o.output_prefix = dir / "p";
  o.output_compression = Compression::kGzip;
  auto stats = RunPredict(HalfPlusTwo(), HalfPlusTwoRun, o);
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->outputs_written,
            (std::vector<std::string>{dir / "p-00000-of-00002.gz", dir / "p-00001-of-00002.gz"}));
  EXPECT_FALSE(fs::exists(dir / "p-00000-of-00002"));
  std::ifstream in(dir / "p-00001-of-00002.gz", std::ios::binary);
  char magic[2] = {};
  in.read(magic, 2);
  EXPECT_EQ(static_cast<unsigned char>(magic[0]), 0x1f);
  EXPECT_EQ(static_cast<unsigned char>(magic[1]), 0x8b);
  EXPECT_EQ(ReadYs(dir / "p-00001-of-00002.gz"), Expected(10, 10));

  fs::remove(dir / "p-00001-of-00002.gz");
  stats = RunPredict(HalfPlusTwo(), HalfPlusTwoRun, o);
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->outputs_skipped, std::vector<std::string>{dir / "p-00000-of-00002.gz"});
  EXPECT_EQ(stats->outputs_written, std::vector<std::string>{dir / "p-00001-of-00002.gz"});
}

// A GZIP output finished by an older tfhost, which wrote it without ".gz",
// is neither redone beside it nor skipped under a name the job no longer
// uses: the run stops before predicting anything and says what to do.
TEST(RunPredictTest, AGzipOutputUnderTheOldNameWithoutGzStopsTheRunSayingHowToKeepOrRedoIt) {
  TempDir dir;
  PredictOptions o;
  o.inputs.push_back(dir / "in-0");
  WriteXs(o.inputs.back(), 0, 10);
  o.output_prefix = dir / "p";
  o.output_compression = Compression::kGzip;
  ASSERT_TRUE(RunPredict(HalfPlusTwo(), HalfPlusTwoRun, o).ok());
  fs::rename(dir / "p-00000-of-00001.gz", dir / "p-00000-of-00001");
  for (bool overwrite : {false, true}) {
    o.overwrite = overwrite;
    auto stats = RunPredict(HalfPlusTwo(), HalfPlusTwoRun, o);
    TFHOST_ASSERT_ERROR(stats, StatusCode::kFailedPrecondition,
                        "is a GZIP output named without the '.gz' that GZIP outputs now end in; rename it to '")
        << "overwrite " << overwrite;
    EXPECT_EQ(stats.status().message(),
              "output '" + (dir / "p-00000-of-00001") +
                  "' is a GZIP output named without the '.gz' that GZIP outputs now end in; rename it to '" +
                  (dir / "p-00000-of-00001.gz") + "' to keep it (the unit is then skipped), or delete it to "
                  "predict the unit again");
    EXPECT_FALSE(fs::exists(dir / "p-00000-of-00001.gz"));
  }
  // An uncompressed output under the bare name belongs to a run without
  // --output-compression gzip: not ours to judge, so the unit is predicted.
  o.output_compression = Compression::kNone;
  o.overwrite = true;  // rewrites p-00000-of-00001 uncompressed
  ASSERT_TRUE(RunPredict(HalfPlusTwo(), HalfPlusTwoRun, o).ok());
  o.output_compression = Compression::kGzip;
  o.overwrite = false;
  auto stats = RunPredict(HalfPlusTwo(), HalfPlusTwoRun, o);
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->units_written, 1);
}

TEST(RunPredictTest, AnEngineErrorLeavesNoPartialOutputUnderAFinalName) {
  TempDir dir;
  PredictOptions o;
  for (int f = 0; f < 3; ++f) {
    o.inputs.push_back(dir / ("in-" + std::to_string(f)));
    WriteXs(o.inputs.back(), f * 10, 10);
  }
  o.output_prefix = dir / "p";
  o.batch_size = 5;
  RunFn failing = [](const std::map<std::string, Tensor>& in) -> StatusOr<std::map<std::string, Tensor>> {
    if (in.at("x").data<float>()[0] >= 25) return Internal("engine broke");
    return HalfPlusTwoRun(in);
  };
  auto stats = RunPredict(HalfPlusTwo(), failing, o);
  TFHOST_ASSERT_ERROR(stats, StatusCode::kInternal, "engine broke");
  EXPECT_NE(stats.status().message().find(o.inputs[2]), std::string::npos) << stats.status().message();
  EXPECT_TRUE(fs::exists(dir / "p-00000-of-00003"));
  EXPECT_TRUE(fs::exists(dir / "p-00001-of-00003"));
  EXPECT_FALSE(fs::exists(dir / "p-00002-of-00003"));
  EXPECT_TRUE(Temporaries(dir.path()).empty());
}

TEST(RunPredictTest, ABadRecordStopsTheJobNamingFileAndRecord) {
  TempDir dir;
  PredictOptions o;
  o.inputs = {dir / "in.jsonl"};
  std::ofstream(o.inputs[0]) << "{\"x\": 1.0}\n\n{\"x\": 2.0}\n{\"z\": 3.0}\n";
  o.output_prefix = dir / "p";
  auto stats = RunPredict(HalfPlusTwo(), HalfPlusTwoRun, o);
  TFHOST_ASSERT_ERROR(stats, StatusCode::kInvalidArgument,
                      "in.jsonl' line 4 (record 2) has no feature 'x' for signature input 'x' (float32 [?,1])");
  EXPECT_NE(stats.status().message().find("file '" + o.inputs[0] + "' line 4 (record 2) has no feature 'x'"),
            std::string::npos)
      << stats.status().message();
  EXPECT_FALSE(fs::exists(dir / "p-00000-of-00001.jsonl"));
}

TEST(RunPredictTest, JsonLinesInAndOutWithKeptFeatures) {
  TempDir dir;
  PredictOptions o;
  o.inputs = {dir / "in.jsonl"};
  std::ofstream(o.inputs[0]) << "{\"id\": \"a\", \"x\": 2.0}\n{\"id\": \"b\", \"x\": 80.0}\n";
  o.output_prefix = dir / "p";
  o.output_format = OutputFormat::kJsonl;
  o.feed.keep_features = {"id"};
  auto stats = RunPredict(HalfPlusTwo(), HalfPlusTwoRun, o);
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  std::ifstream in(dir / "p-00000-of-00001.jsonl");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text, "{\"id\":\"a\",\"y\":3.0}\n{\"id\":\"b\",\"y\":42.0}\n");
}

TEST(RunPredictTest, SerializedExamplesFeedStringSignatures) {
  TempDir dir;
  PredictOptions o;
  o.inputs = {dir / "in"};
  WriteXs(o.inputs[0], 0, 9);
  o.output_prefix = dir / "p";
  o.batch_size = 4;
  SignatureInfo s;
  s.name = "regress_x_to_y";
  s.method_name = "tensorflow/serving/regress";
  s.inputs = {Info("inputs", "tf_example:0", DType::kString, ir::PartialShape::Unknown())};
  s.outputs = {Info("outputs", "y:0", DType::kFloat, ir::PartialShape::Known({-1, 1}))};
  // Stands in for a graph with ParseExample inside.
  RunFn parse_and_run = [](const std::map<std::string, Tensor>& in) -> StatusOr<std::map<std::string, Tensor>> {
    const Tensor& t = in.at("inputs");
    Tensor y(DType::kFloat, Shape({t.dim(0), 1}));
    for (int64_t i = 0; i < t.dim(0); ++i) {
      TFHOST_ASSIGN_OR_RETURN(Example ex, DecodeExample(t.strings()[i]));
      y.data<float>()[i] = 0.5f * ex.features.at("x").floats[0] + 2;
    }
    return std::map<std::string, Tensor>{{"outputs", y}};
  };
  auto stats = RunPredict(s, parse_and_run, o);
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->feed_mode, FeedMode::kSerializedExamples);
  auto records = ReadAllRecords(dir / "p-00000-of-00001");
  ASSERT_TRUE(records.ok());
  ASSERT_EQ(records->size(), 9u);
  EXPECT_EQ(DecodeExample((*records)[8])->features.at("outputs"), Feature::Floats({6.0f}));
}

TEST(RunPredictTest, EngineTimeIsSplitIntoRunningAndWaiting) {
  TempDir dir;
  PredictOptions o;
  o.inputs = {dir / "in"};
  WriteXs(o.inputs[0], 0, 200);
  o.output_prefix = dir / "p";
  o.batch_size = 10;
  // A slow engine: input is always ready, so it should barely wait.
  RunFn slow = [](const std::map<std::string, Tensor>& in) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return HalfPlusTwoRun(in);
  };
  auto stats = RunPredict(HalfPlusTwo(), slow, o);
  ASSERT_TRUE(stats.ok());
  EXPECT_EQ(stats->batches, 20);
  EXPECT_GE(stats->engine_busy_seconds, 0.2);
  EXPECT_GT(stats->engine_busy_share(), 0.6);
  EXPECT_LE(stats->engine_busy_seconds + stats->engine_input_wait_seconds, stats->wall_seconds + 1e-3);
  // The threads around the engine account for their CPU: they did work, and
  // sleeping in the engine is nobody's CPU.
  EXPECT_GT(stats->reader_cpu_seconds, 0);
  EXPECT_GT(stats->parse_cpu_seconds, 0);
  EXPECT_GT(stats->writer_cpu_seconds, 0);
  EXPECT_LT(stats->reader_cpu_seconds + stats->parse_cpu_seconds + stats->writer_cpu_seconds,
            stats->engine_busy_seconds);
  // A slow input (a pipe fed one line every 2 ms) against an instant
  // engine: now the engine mostly waits.
  const std::string fifo = dir / "slow.jsonl";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread feeder([&] {
    std::ofstream pipe(fifo);
    for (int i = 0; i < 100; ++i) {
      pipe << "{\"x\": " << i << ".0}\n" << std::flush;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });
  o.inputs = {fifo};
  o.output_prefix = dir / "q";
  o.batch_size = 5;
  stats = RunPredict(HalfPlusTwo(), HalfPlusTwoRun, o);
  feeder.join();
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->records, 100);
  EXPECT_GT(stats->engine_input_wait_share(), 0.5);
  EXPECT_LT(stats->engine_busy_share(), 0.5);
}

}  // namespace
}  // namespace tfhost::data::predict
