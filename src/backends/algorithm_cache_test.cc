#include "backends/algorithm_cache.h"
#include "base/test_status.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include <unistd.h>

namespace tfhost::backends {
namespace {

namespace fs = std::filesystem;

AlgorithmKey ConvKey() {
  AlgorithmKey k;
  k.op = "conv2d_fwd";
  k.dtypes = {DType::kBFloat16, DType::kBFloat16, DType::kBFloat16};
  k.layout = "NHWC";
  k.shapes = {{32, 224, 224, 3}, {7, 7, 3, 64}};
  k.attrs = "stride=2,2;pad=3,3;dilation=1,1";
  k.device = "NVIDIA H100 80GB HBM3 sm_90";
  k.libraries = "cudnn 9.19.0";
  return k;
}

std::string TempPath(const std::string& name) {
  return (fs::temp_directory_path() / ("tfhost_algo_" + std::to_string(::getpid())) / name).string();
}

TEST(AlgorithmCacheTest, KeyNamesEveryFactTheChoiceDependsOn) {
  EXPECT_EQ(ConvKey().ToString(),
            "op=conv2d_fwd;dtypes=bfloat16,bfloat16,bfloat16;layout=NHWC;shapes=32x224x224x3,7x7x3x64;"
            "attrs=stride=2,2;pad=3,3;dilation=1,1;device=NVIDIA H100 80GB HBM3 sm_90;libraries=cudnn 9.19.0");
  // Each part changes the key: shape, dtype, layout, device, library version.
  const std::string base = ConvKey().ToString();
  auto changed = [&](auto edit) {
    AlgorithmKey k = ConvKey();
    edit(k);
    return k.ToString() != base;
  };
  EXPECT_TRUE(changed([](AlgorithmKey& k) { k.shapes[0][0] = 1; }));
  EXPECT_TRUE(changed([](AlgorithmKey& k) { k.dtypes[0] = DType::kHalf; }));
  EXPECT_TRUE(changed([](AlgorithmKey& k) { k.layout = "NCHW"; }));
  EXPECT_TRUE(changed([](AlgorithmKey& k) { k.device = "NVIDIA A100-SXM4-80GB sm_80"; }));
  EXPECT_TRUE(changed([](AlgorithmKey& k) { k.libraries = "cudnn 9.20.0"; }));
  EXPECT_TRUE(changed([](AlgorithmKey& k) { k.attrs = "stride=1,1;pad=3,3;dilation=1,1"; }));
  AlgorithmKey tabs = ConvKey();
  tabs.device = "bad\tname\n";
  EXPECT_EQ(tabs.ToString().find_first_of("\t\n"), std::string::npos);
}

TEST(AlgorithmCacheTest, LookupHonoursTheWorkspaceCapAndExhaustiveSearchsNeedForTimings) {
  AlgorithmCache cache;
  cache.Insert(ConvKey(), AlgorithmChoice{7, 64 << 20, -1, ""});
  ASSERT_TRUE(cache.Lookup(ConvKey(), 64 << 20).has_value());
  EXPECT_EQ(cache.Lookup(ConvKey(), 64 << 20)->algorithm, 7);
  EXPECT_FALSE(cache.Lookup(ConvKey(), 32 << 20).has_value());  // needs more workspace than allowed
  EXPECT_FALSE(cache.Lookup(ConvKey(), 64 << 20, /*need_measured=*/true).has_value());
  cache.Insert(ConvKey(), AlgorithmChoice{3, 1 << 20, 812.5, ""});
  EXPECT_EQ(cache.Lookup(ConvKey(), 32 << 20, true)->algorithm, 3);
  // A heuristic pick never replaces a timed one.
  cache.Insert(ConvKey(), AlgorithmChoice{9, 0, -1, ""});
  EXPECT_EQ(cache.Lookup(ConvKey(), 32 << 20)->algorithm, 3);
  AlgorithmKey other = ConvKey();
  other.libraries = "cudnn 9.20.0";
  EXPECT_FALSE(cache.Lookup(other, INT64_MAX).has_value());
}

TEST(AlgorithmCacheTest, SavedCacheLoadsBackIntoAnotherProcessesCache) {
  const std::string path = TempPath("nested/cache.tsv");
  AlgorithmCache cache;
  cache.Insert(ConvKey(), AlgorithmChoice{3, 1 << 20, 812.5, ""});
  AlgorithmKey matmul = ConvKey();
  matmul.op = "matmul";
  matmul.layout = "row-major";
  matmul.shapes = {{32, 768}, {768, 3072}};
  matmul.attrs = "epilogue=gelu_bias";
  cache.Insert(matmul, AlgorithmChoice{0, 0, -1, ""});
  ASSERT_TRUE(cache.Save(path).ok());
  AlgorithmCache loaded;
  ASSERT_TRUE(loaded.Load(path).ok());
  EXPECT_EQ(loaded.size(), 2u);
  auto conv = loaded.Lookup(ConvKey(), INT64_MAX, true);
  ASSERT_TRUE(conv.has_value());
  EXPECT_EQ(conv->algorithm, 3);
  EXPECT_EQ(conv->workspace_bytes, 1 << 20);
  EXPECT_DOUBLE_EQ(conv->micros, 812.5);
  ASSERT_TRUE(loaded.Lookup(matmul, 0).has_value());
  EXPECT_FALSE(loaded.Lookup(matmul, 0)->measured());
  fs::remove_all(fs::path(path).parent_path().parent_path());
}

TEST(AlgorithmCacheTest, MissingOrCorruptFilesAreRefusedNamingFileAndLine) {
  AlgorithmCache cache;
  Status missing = cache.Load(TempPath("none.tsv"));
  TFHOST_EXPECT_ERROR(missing, StatusCode::kNotFound, "no algorithm cache at " + TempPath("none.tsv"));
  const std::string path = TempPath("bad.tsv");
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << "not a cache\n";
  Status header = cache.Load(path);
  EXPECT_EQ(header.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(header.message(), path +
                                  ":1: not a tfhost algorithm cache of a version this tfhost reads (expected the line "
                                  "\"# tfhost algorithm cache v2\" or \"# tfhost algorithm cache v1\")");
  std::ofstream(path) << "# tfhost algorithm cache v3\nop=x\t3\t0\t-1\theuristic\t-\n";
  TFHOST_EXPECT_ERROR(cache.Load(path), StatusCode::kInvalidArgument,
                      path + ":1: not a tfhost algorithm cache of a version this tfhost reads");
  std::ofstream(path) << "# tfhost algorithm cache v1\nop=x\t3\t0\t-1\theuristic\nop=y\tseven\t0\t-1\theuristic\n";
  Status line = cache.Load(path);
  EXPECT_EQ(line.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(line.message().find(path + ":3: expected key, algorithm, workspace bytes"), std::string::npos)
      << line.message();
  EXPECT_EQ(cache.size(), 0u);  // nothing from a refused file
  std::ofstream(path) << "# tfhost algorithm cache v1\nop=x\t3\t0\t12.5\theuristic\n";
  TFHOST_EXPECT_ERROR(cache.Load(path), StatusCode::kInvalidArgument,  // timed but marked heuristic
                      path + ":2: entry 'op=x' is heuristic but its microseconds field is 12.5");
  fs::remove_all(fs::path(path).parent_path());
}

// cuBLASLt's algorithms are 64-byte structs, not enum values: every byte
// value, zeros and tabs included, comes back as it was saved.
TEST(AlgorithmCacheTest, BlobsRoundTripThroughTheFile) {
  const std::string path = TempPath("blob.tsv");
  std::string bytes;
  for (int i = 0; i < 64; ++i) bytes += static_cast<char>((i * 37) & 0xff);  // 0x00, 0x09 (tab), 0x0a, 0xff...
  AlgorithmKey matmul = ConvKey();
  matmul.op = "matmul";
  AlgorithmCache cache;
  cache.Insert(matmul, AlgorithmChoice{21, 4 << 20, 15.25, bytes});
  cache.Insert(ConvKey(), AlgorithmChoice{1, 0, -1, ""});
  ASSERT_TRUE(cache.Save(path).ok());
  std::ifstream in(path);
  std::string header, first;
  std::getline(in, header);
  EXPECT_EQ(header, "# tfhost algorithm cache v2");
  std::getline(in, first);  // entries in key order: conv2d_fwd first, with no blob
  EXPECT_EQ(first.substr(first.rfind('\t')), "\t-");
  AlgorithmCache loaded;
  ASSERT_TRUE(loaded.Load(path).ok());
  auto lt = loaded.Lookup(matmul, INT64_MAX, true);
  ASSERT_TRUE(lt.has_value());
  EXPECT_EQ(lt->algorithm, 21);
  EXPECT_EQ(lt->workspace_bytes, 4 << 20);
  EXPECT_EQ(lt->blob, bytes);
  ASSERT_TRUE(loaded.Lookup(ConvKey(), 0).has_value());
  EXPECT_EQ(loaded.Lookup(ConvKey(), 0)->blob, "");
  fs::remove_all(fs::path(path).parent_path());
}

TEST(AlgorithmCacheTest, VersionOneFilesStillLoadWithoutBlobs) {
  const std::string path = TempPath("v1.tsv");
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << "# tfhost algorithm cache v1\n" << ConvKey().ToString() << "\t3\t1048576\t812.500\tmeasured\n";
  AlgorithmCache cache;
  ASSERT_TRUE(cache.Load(path).ok());
  auto conv = cache.Lookup(ConvKey(), INT64_MAX, true);
  ASSERT_TRUE(conv.has_value());
  EXPECT_EQ(conv->algorithm, 3);
  EXPECT_DOUBLE_EQ(conv->micros, 812.5);
  EXPECT_EQ(conv->blob, "");
  // A v1 line is not a v2 line: the blob field is required there.
  std::ofstream(path) << "# tfhost algorithm cache v2\n" << ConvKey().ToString() << "\t3\t1048576\t812.500\tmeasured\n";
  TFHOST_EXPECT_ERROR(AlgorithmCache().Load(path), StatusCode::kInvalidArgument,
                      path + ":2: expected key, algorithm, workspace bytes, microseconds, \"measured\" or "
                             "\"heuristic\" and the algorithm blob, separated by tabs");
  fs::remove_all(fs::path(path).parent_path());
}

TEST(AlgorithmCacheTest, MalformedBlobsAreRefusedNamingFileLineAndEntry) {
  const std::string path = TempPath("badblob.tsv");
  fs::create_directories(fs::path(path).parent_path());
  const std::string too_long(2 * (kMaxAlgorithmBlobBytes + 1), 'a');
  for (const std::string& bad : {std::string("abc"), std::string("zz"), std::string(""), std::string("0x12"),
                                 std::string("--"), too_long}) {
    std::ofstream(path) << "# tfhost algorithm cache v2\nop=x\t3\t0\t-1\theuristic\t00ff\nop=y\t-1\t0\t-1\theuristic\t"
                        << bad << "\n";
    AlgorithmCache cache;
    const std::string shown = bad.size() > 40 ? bad.substr(0, 40) + "..." : bad;
    TFHOST_EXPECT_ERROR(cache.Load(path), StatusCode::kInvalidArgument,
                        path + ":3: entry 'op=y' has a malformed algorithm blob '" + shown +
                            "' (expected \"-\" or pairs of hex digits, at most 1024 bytes)");
    EXPECT_EQ(cache.size(), 0u) << bad;  // nothing from a refused file, not even line 2
  }
  fs::remove_all(fs::path(path).parent_path());
}

TEST(AlgorithmCacheTest, ReplaceOverridesAMeasuredEntryAndChangesAreCounted) {
  AlgorithmCache cache;
  EXPECT_EQ(cache.changes(), 0u);
  cache.Insert(ConvKey(), AlgorithmChoice{3, 0, 10, "\x01"});
  EXPECT_EQ(cache.changes(), 1u);
  cache.Insert(ConvKey(), AlgorithmChoice{4, 0, -1, "\x02"});  // heuristic: refused, no change
  EXPECT_EQ(cache.changes(), 1u);
  cache.Replace(ConvKey(), AlgorithmChoice{4, 0, -1, "\x02"});  // the measured blob no longer ran
  EXPECT_EQ(cache.changes(), 2u);
  EXPECT_EQ(cache.Lookup(ConvKey(), 0)->blob, "\x02");
}

}  // namespace
}  // namespace tfhost::backends
