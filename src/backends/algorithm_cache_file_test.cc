#include "backends/algorithm_cache_file.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "base/test_status.h"
#include "base/test_temp_dir.h"

namespace tfhost::backends {
namespace {

namespace fs = std::filesystem;
using std::chrono::milliseconds;

// A save interval no test waits for: saves then come from Flush and the
// destructor only.
constexpr milliseconds kNever{3600 * 1000};

AlgorithmKey Key(const std::string& op) {
  AlgorithmKey k;
  k.op = op;
  k.dtypes = {DType::kFloat, DType::kFloat, DType::kFloat};
  k.layout = "column-major";
  k.shapes = {{64, 64}};
  k.device = "NVIDIA H100 80GB HBM3 sm_90";
  k.libraries = "cublasLt 13.1.0";
  return k;
}

TEST(AlgorithmCacheFileTest, AFirstStartReadsNothingAndWritesOnlyWhenSomethingWasAdded) {
  testing::TempDir dir("tfhost_algo_file");
  const std::string path = dir.Sub("tfhost/gpu_algorithms.tsv");
  std::ostringstream log;
  { AlgorithmCacheFile file(path, kNever, log); }
  EXPECT_FALSE(fs::exists(path));  // nothing added: no file
  {
    AlgorithmCacheFile file(path, kNever, log);
    file.cache().Insert(Key("matmul"), AlgorithmChoice{5, 1024, -1, std::string("\0\1", 2)});
  }
  EXPECT_EQ(log.str(), "");
  AlgorithmCacheFile again(path, kNever, log);
  auto hit = again.cache().Lookup(Key("matmul"), INT64_MAX);
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->blob, std::string("\0\1", 2));
}

TEST(AlgorithmCacheFileTest, AnUnreadableFileIsReportedOnceAndTheCacheStartsEmpty) {
  testing::TempDir dir("tfhost_algo_file");
  const std::string path = dir.Sub("gpu_algorithms.tsv");
  std::ofstream(path) << "# tfhost algorithm cache v2\nop=x\t3\t0\t-1\theuristic\tnot-hex\n";
  std::ostringstream log;
  {
    AlgorithmCacheFile file(path, kNever, log);
    EXPECT_EQ(file.cache().size(), 0u);
    EXPECT_EQ(log.str(), "tfhost: ignoring the GPU algorithm cache: " + path +
                             ":2: entry 'op=x' has a malformed algorithm blob 'not-hex' (expected \"-\" or pairs of "
                             "hex digits, at most 1024 bytes); starting with an empty cache, which replaces the file "
                             "at the next save\n");
    file.cache().Insert(Key("matmul"), AlgorithmChoice{5, 0, -1, ""});
  }
  AlgorithmCache reread;
  ASSERT_TRUE(reread.Load(path).ok());  // replaced by a good file
  EXPECT_EQ(reread.size(), 1u);
}

TEST(AlgorithmCacheFileTest, TheSaverWritesSoonAfterAnInsertionWithoutWaitingForTheEnd) {
  testing::TempDir dir("tfhost_algo_file");
  const std::string path = dir.Sub("gpu_algorithms.tsv");
  std::ostringstream log;
  AlgorithmCacheFile file(path, milliseconds(20), log);
  file.cache().Insert(Key("matmul"), AlgorithmChoice{5, 0, -1, ""});
  for (int i = 0; i < 500 && !fs::exists(path); ++i) std::this_thread::sleep_for(milliseconds(10));
  AlgorithmCache reread;
  ASSERT_TRUE(reread.Load(path).ok()) << "no save within 5 s of an insertion";
  EXPECT_EQ(reread.size(), 1u);
}

TEST(AlgorithmCacheFileTest, AnEmptyPathKeepsTheCacheInMemory) {
  std::ostringstream log;
  AlgorithmCacheFile file("", milliseconds(1), log);
  file.cache().Insert(Key("matmul"), AlgorithmChoice{5, 0, -1, ""});
  EXPECT_TRUE(file.SaveIfChanged().ok());
  file.Flush();
  EXPECT_EQ(file.cache().size(), 1u);
  EXPECT_EQ(log.str(), "");
}

TEST(AlgorithmCacheFileTest, AFailedSaveIsReportedOnce) {
  testing::TempDir dir("tfhost_algo_file");
  const std::string blocker = dir.Sub("file");
  std::ofstream(blocker) << "a file where a folder should be\n";
  std::ostringstream log;
  AlgorithmCacheFile file(blocker + "/gpu_algorithms.tsv", kNever, log);
  file.cache().Insert(Key("matmul"), AlgorithmChoice{5, 0, -1, ""});
  EXPECT_FALSE(file.SaveIfChanged().ok());
  file.cache().Insert(Key("matmul2"), AlgorithmChoice{5, 0, -1, ""});
  EXPECT_FALSE(file.SaveIfChanged().ok());
  const std::string text = log.str();
  EXPECT_EQ(text.find("tfhost: cannot save the GPU algorithm cache: "), 0u) << text;
  EXPECT_EQ(text.find('\n'), text.size() - 1) << text;  // one line
}

}  // namespace
}  // namespace tfhost::backends
