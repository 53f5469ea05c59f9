// `tfhost data cache` through DataCommand, over a directory source (the S3
// source is covered by src/data/cache/s3_cache_test.cc).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include "cli/cli.h"

namespace tfhost::cli {
namespace {

class DataCacheCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* base = std::getenv("TMPDIR");
    std::string tmpl = std::string(base ? base : "/tmp") + "/data_cache_command_test.XXXXXX";
    root_ = ::mkdtemp(tmpl.data());
    ::mkdir((root_ + "/ds").c_str(), 0755);
    for (int i = 0; i < 3; ++i) std::ofstream(root_ + "/ds/part-" + std::to_string(i)) << std::string(1000, 'a' + i);
  }
  void TearDown() override { std::system(("rm -rf '" + root_ + "'").c_str()); }

  int Run(std::vector<std::string> args) {
    out_.str("");
    err_.str("");
    args.insert(args.begin(), "cache");
    args.push_back("--cache-dir");
    args.push_back(root_ + "/cache");
    return DataCommand(args, out_, err_);
  }

  std::string root_;
  std::ostringstream out_, err_;
};

TEST_F(DataCacheCommandTest, WarmStatusAndEvictKeepTheLimitAndCounts) {
  // One job: parts arrive in listing order, so part-0 is the least recently used.
  ASSERT_EQ(Run({"warm", root_ + "/ds", "--max-bytes", "2500", "--jobs", "1"}), 0) << err_.str();
  EXPECT_NE(out_.str().find("3 of 3 object(s) warmed"), std::string::npos) << out_.str();
  ASSERT_EQ(Run({"warm", root_ + "/ds/part-2"}), 0) << err_.str();
  EXPECT_NE(out_.str().find("cached     " + root_ + "/ds/part-2"), std::string::npos) << out_.str();
  ASSERT_EQ(Run({"status", "--json"}), 0) << err_.str();
  const std::string json = out_.str();
  EXPECT_NE(json.find("\"entries\":2"), std::string::npos) << json;  // 2500 bytes hold two parts
  EXPECT_NE(json.find("\"max_bytes\":2500"), std::string::npos) << json;
  EXPECT_NE(json.find("\"hits\":1,\"misses\":3"), std::string::npos) << json;
  EXPECT_NE(json.find("\"evictions\":1"), std::string::npos) << json;
  EXPECT_EQ(json.find("part-0"), std::string::npos) << json;  // the least recently used went
  EXPECT_EQ(Run({"evict", root_ + "/ds/part-0"}), 1);      // not cached
  EXPECT_EQ(Run({"evict", root_ + "/ds/"}), 0) << err_.str();
  EXPECT_NE(out_.str().find("2 object(s) evicted"), std::string::npos) << out_.str();
  ASSERT_EQ(Run({"status"}), 0);
  EXPECT_NE(out_.str().find("0 object(s)"), std::string::npos) << out_.str();
}

TEST_F(DataCacheCommandTest, FailuresAndBadCommandLinesHaveTheirExitCodes) {
  EXPECT_EQ(Run({"warm"}), 2);
  EXPECT_EQ(Run({"warm", root_ + "/ds", "--max-bytes", "lots"}), 2);
  EXPECT_EQ(Run({"evict"}), 2);
  EXPECT_EQ(Run({"evict", "x", "--all"}), 2);
  EXPECT_EQ(Run({"frobnicate"}), 2);
  EXPECT_EQ(Run({"warm", root_ + "/nothing-here"}), 1);
  EXPECT_NE(err_.str().find("nothing-here"), std::string::npos) << err_.str();
  // A shard named as a TFRecord that is not one is refused and not cached.
  std::ofstream(root_ + "/ds/bad.tfrecord") << "this is not a tfrecord";
  EXPECT_EQ(Run({"warm", root_ + "/ds/bad.tfrecord"}), 1);
  EXPECT_NE(out_.str().find("FAILED"), std::string::npos) << out_.str();
  ASSERT_EQ(Run({"status", "--json"}), 0);
  EXPECT_NE(out_.str().find("\"entries\":0"), std::string::npos) << out_.str();
  EXPECT_NE(out_.str().find("\"failed_fetches\":1"), std::string::npos) << out_.str();
}

}  // namespace
}  // namespace tfhost::cli
