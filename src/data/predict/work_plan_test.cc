#include "data/predict/work_plan.h"
#include "base/test_status.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>

namespace tfhost::data::predict {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> Files(int n) {
  std::vector<std::string> f;
  for (int i = 0; i < n; ++i) f.push_back("in/part-" + std::to_string(i) + ".tfrecord");
  return f;
}

TEST(ParseShardSpecTest, AcceptsIOverNAndRejectsOutOfRangeOrJunk) {
  auto s = ParseShardSpec("3/10");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->index, 3);
  EXPECT_EQ(s->count, 10);
  EXPECT_TRUE(ParseShardSpec("0/1").ok());
  for (const char* bad : {"10/10", "3", "/10", "3/", "-1/4", "a/b", "1/0", "1/2/3"}) {
    TFHOST_EXPECT_ERROR(ParseShardSpec(bad), StatusCode::kInvalidArgument, "--shard '") << bad;
  }
}

TEST(PlanWorkTest, ManyFilesAreSplitByFileAndEveryFileBelongsToExactlyOneShard) {
  const auto files = Files(10);
  std::map<std::string, int> input_seen;
  std::set<std::string> outputs;
  for (int i = 0; i < 3; ++i) {
    auto plan = PlanWork(files, {i, 3}, "out/pred", OutputFormat::kTFRecord);
    ASSERT_TRUE(plan.ok()) << plan.status().message();
    EXPECT_EQ(plan->total_units, 10);
    for (const WorkUnit& u : plan->units) {
      EXPECT_EQ(u.unit % 3, i);
      EXPECT_EQ(u.record_modulo, 1);
      EXPECT_EQ(u.input, files[u.unit]);
      ++input_seen[u.input];
      outputs.insert(u.output);
    }
  }
  EXPECT_EQ(input_seen.size(), 10u);
  for (auto& [f, n] : input_seen) EXPECT_EQ(n, 1) << f;
  EXPECT_EQ(outputs.size(), 10u);
  EXPECT_TRUE(outputs.count("out/pred-00000-of-00010"));
  EXPECT_TRUE(outputs.count("out/pred-00009-of-00010"));
}

TEST(PlanWorkTest, OneFileOnManyShardsIsSplitByRecordIntoDistinctOutputs) {
  std::set<int64_t> remainders;
  std::set<std::string> outputs;
  for (int i = 0; i < 4; ++i) {
    auto plan = PlanWork({"big.jsonl"}, {i, 4}, "p", OutputFormat::kJsonl);
    ASSERT_TRUE(plan.ok());
    EXPECT_EQ(plan->total_units, 4);
    ASSERT_EQ(plan->units.size(), 1u);
    const WorkUnit& u = plan->units[0];
    EXPECT_EQ(u.input_format, InputFormat::kJsonl);
    EXPECT_EQ(u.record_modulo, 4);
    remainders.insert(u.record_remainder);
    outputs.insert(u.output);
  }
  EXPECT_EQ(remainders, (std::set<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(outputs, (std::set<std::string>{"p-00000-of-00004.jsonl", "p-00001-of-00004.jsonl",
                                            "p-00002-of-00004.jsonl", "p-00003-of-00004.jsonl"}));
}

TEST(PlanWorkTest, TwoFilesOnThreeShardsSplitEveryFileByRecord) {
  std::map<std::pair<std::string, int64_t>, int> parts;
  for (int i = 0; i < 3; ++i) {
    auto plan = PlanWork(Files(2), {i, 3}, "p", OutputFormat::kTFRecord);
    ASSERT_TRUE(plan.ok());
    EXPECT_EQ(plan->total_units, 6);
    EXPECT_EQ(plan->units.size(), 2u);
    for (const WorkUnit& u : plan->units) ++parts[{u.input, u.record_remainder}];
  }
  EXPECT_EQ(parts.size(), 6u);
}

TEST(PlanWorkTest, SingleShardTakesEverythingAndAFileGivenTwiceIsRejected) {
  auto plan = PlanWork(Files(3), {}, "p", OutputFormat::kTFRecord);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->units.size(), 3u);
  auto dup = PlanWork({"a", "b", "a"}, {}, "p", OutputFormat::kTFRecord);
  TFHOST_ASSERT_ERROR(dup, StatusCode::kInvalidArgument,
                      "input file 'a' is given twice; its records would be predicted twice");
  TFHOST_EXPECT_ERROR(PlanWork({}, {}, "p", OutputFormat::kTFRecord), StatusCode::kInvalidArgument, "no input files");
}

// As `data convert` names its shards (data::ShardName): ".gz" for GZIP, the
// bare name for ZLIB (no agreed suffix) and none; JSON Lines are never
// compressed and keep ".jsonl".
TEST(PlanWorkTest, GzipTFRecordOutputsEndInGzAndOtherOutputsKeepTheirNames) {
  auto gzip = PlanWork(Files(2), {}, "out/p", OutputFormat::kTFRecord, Compression::kGzip);
  ASSERT_TRUE(gzip.ok()) << gzip.status().message();
  ASSERT_EQ(gzip->units.size(), 2u);
  EXPECT_EQ(gzip->units[0].output, "out/p-00000-of-00002.gz");
  EXPECT_EQ(gzip->units[1].output, "out/p-00001-of-00002.gz");
  EXPECT_EQ(OutputPath("p", 3, 10, OutputFormat::kTFRecord, Compression::kZlib), "p-00003-of-00010");
  EXPECT_EQ(OutputPath("p", 3, 10, OutputFormat::kTFRecord), "p-00003-of-00010");
  EXPECT_EQ(OutputPath("p", 3, 10, OutputFormat::kJsonl, Compression::kGzip), "p-00003-of-00010.jsonl");
}

TEST(RemoveStaleTemporariesTest, DeletesOnlyThisOutputsTemporaries) {
  std::string templ = (fs::temp_directory_path() / "predict_plan_XXXXXX").string();
  ASSERT_NE(::mkdtemp(templ.data()), nullptr);
  fs::path dir = templ;
  auto touch = [&](const std::string& name) { std::ofstream(dir / name) << "x"; };
  touch(".p-00001-of-00004.tmp-abcdef");   // ours
  touch(".p-00001-of-00004.tmp-a1B2c3");   // ours
  touch(".p-00002-of-00004.tmp-abcdef");   // another unit's
  touch("p-00001-of-00004");                // a finished output
  touch(".p-00001-of-00004.tmp-abc");       // not the writers' pattern
  auto removed = RemoveStaleTemporaries((dir / "p-00001-of-00004").string());
  ASSERT_TRUE(removed.ok()) << removed.status().message();
  EXPECT_EQ(*removed, 2);
  EXPECT_FALSE(fs::exists(dir / ".p-00001-of-00004.tmp-abcdef"));
  EXPECT_TRUE(fs::exists(dir / ".p-00002-of-00004.tmp-abcdef"));
  EXPECT_TRUE(fs::exists(dir / "p-00001-of-00004"));
  EXPECT_TRUE(fs::exists(dir / ".p-00001-of-00004.tmp-abc"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tfhost::data::predict
