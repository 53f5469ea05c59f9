#include "base/file_util.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <thread>
#include <vector>

#include "base/test_status.h"

namespace tfhost {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string templ = (fs::temp_directory_path() / "file_util_test_XXXXXX").string();
    path_ = ::mkdtemp(templ.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

TEST(FileUtilTest, CreateParentDirectoriesMakesEveryMissingLevelButNotTheFile) {
  TempDir dir;
  std::string out = dir.File("conv/a/b/taxi");
  Status s = CreateParentDirectories(out);
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_TRUE(fs::is_directory(dir.File("conv/a/b")));
  EXPECT_FALSE(fs::exists(out));
}

TEST(FileUtilTest, ExistingDirectoriesAndBareFileNamesNeedNothing) {
  TempDir dir;
  fs::create_directories(dir.File("x/y"));
  std::ofstream(dir.File("x/y/keep")) << "data";
  EXPECT_TRUE(CreateParentDirectories(dir.File("x/y/out")).ok());
  EXPECT_TRUE(CreateDirectories(dir.File("x/y")).ok());
  EXPECT_TRUE(fs::exists(dir.File("x/y/keep")));  // nothing that exists is touched
  EXPECT_TRUE(CreateParentDirectories("just_a_name").ok());
  EXPECT_TRUE(CreateParentDirectories("/rooted").ok());
  EXPECT_TRUE(CreateDirectories("").ok());
  EXPECT_TRUE(CreateDirectories("/").ok());
}

TEST(FileUtilTest, DoubledAndTrailingSlashesAreTolerated) {
  TempDir dir;
  ASSERT_TRUE(CreateDirectories(dir.File("p//q/")).ok());
  EXPECT_TRUE(fs::is_directory(dir.File("p/q")));
}

TEST(FileUtilTest, ARegularFileInTheWayIsFailedPreconditionNamingIt) {
  TempDir dir;
  std::ofstream(dir.File("plain")) << "not a directory";
  std::string out = dir.File("plain/sub/taxi-00000-of-00001");
  Status s = CreateParentDirectories(out);
  TFHOST_ASSERT_ERROR(s, StatusCode::kFailedPrecondition, "exists and is not a directory");
  EXPECT_EQ(s.message(), "cannot create directory '" + dir.File("plain/sub") + "' for '" + out + "': '" +
                             dir.File("plain") + "' exists and is not a directory");
}

TEST(FileUtilTest, CreateDirectoriesOverAFileNamesThatFile) {
  TempDir dir;
  std::ofstream(dir.File("f")) << "x";
  Status s = CreateDirectories(dir.File("f"));
  TFHOST_ASSERT_ERROR(s, StatusCode::kFailedPrecondition, "exists and is not a directory");
  EXPECT_EQ(s.message(), "cannot create directory '" + dir.File("f") + "': '" + dir.File("f") +
                             "' exists and is not a directory");
}

TEST(FileUtilTest, AnOsRefusalCarriesTheDirectoryAndStrerror) {
  // A directory below /proc/self cannot be made, whoever we run as (root
  // ignores permission bits, so a chmod-based test would pass vacuously).
  if (!fs::is_directory("/proc/self")) GTEST_SKIP() << "no /proc";
  Status s = CreateParentDirectories("/proc/self/tfhost_no_such_dir/out");
  TFHOST_ASSERT_ERROR(s, StatusCode::kUnavailable, "failed: No such file or directory");
  EXPECT_NE(s.code(), StatusCode::kFailedPrecondition) << s.ToString();
  EXPECT_EQ(s.message().rfind("cannot create directory '/proc/self/tfhost_no_such_dir' for "
                              "'/proc/self/tfhost_no_such_dir/out': mkdir '/proc/self/tfhost_no_such_dir' failed: ",
                              0),
            0u)
      << s.ToString();
}

TEST(FileUtilTest, ConcurrentCallersOnOverlappingPathsAllSucceed) {
  TempDir dir;
  std::vector<std::thread> threads;
  std::vector<Status> results(16);
  for (int i = 0; i < 16; ++i) {
    threads.emplace_back([&, i] {
      results[i] = CreateParentDirectories(dir.File("deep/a/b/c/d/e/" + std::to_string(i % 4) + "/file"));
    });
  }
  for (auto& t : threads) t.join();
  for (const Status& s : results) EXPECT_TRUE(s.ok()) << s.ToString();
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(fs::is_directory(dir.File("deep/a/b/c/d/e/" + std::to_string(i))));
}

}  // namespace
}  // namespace tfhost
