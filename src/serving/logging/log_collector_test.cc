#include "serving/logging/log_collector.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <thread>

#include "base/test_status.h"
#include "base/test_temp_dir.h"
#include "data/tfrecord_reader.h"

namespace tfhost::serving::logging {
namespace {

namespace fs = std::filesystem;

struct TempDir : tfhost::testing::TempDir {
  TempDir() : tfhost::testing::TempDir("tfhost_log") {}
  // Published log files (hidden temporaries excluded), sorted by name.
  std::vector<std::string> Files() const {
    std::vector<std::string> files;
    for (const auto& e : fs::recursive_directory_iterator(path())) {
      if (e.is_regular_file() && e.path().filename().string()[0] != '.') files.push_back(e.path().string());
    }
    std::sort(files.begin(), files.end());
    return files;
  }
};

std::vector<std::string> ReadAll(const std::vector<std::string>& files) {
  std::vector<std::string> records;
  for (const auto& f : files) {
    auto got = data::ReadAllRecords(f);
    EXPECT_TRUE(got.ok()) << got.status().ToString();
    if (got.ok()) records.insert(records.end(), got->begin(), got->end());
  }
  return records;
}

TEST(LogCollectorTest, FlushPublishesQueuedRecordsInOrderUnderThePrefix) {
  TempDir dir;
  LogCollectorOptions o;
  o.filename_prefix = dir.Sub("logs/model_a");
  auto c = TFRecordLogCollector::Create(o);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  for (int i = 0; i < 10; ++i) EXPECT_TRUE((*c)->Add("record " + std::to_string(i)));
  ASSERT_TRUE((*c)->Flush().ok());
  auto files = dir.Files();
  ASSERT_EQ(files.size(), 1u);
  const std::string name = fs::path(files[0]).filename().string();
  EXPECT_EQ(name.rfind("model_a-", 0), 0u) << name;
  EXPECT_EQ(name.substr(name.size() - 15), "-00000.tfrecord") << name;
  auto records = ReadAll(files);
  ASSERT_EQ(records.size(), 10u);
  EXPECT_EQ(records[0], "record 0");
  EXPECT_EQ(records[9], "record 9");
  EXPECT_EQ((*c)->stats().written, 10);
  EXPECT_EQ((*c)->stats().files, 1);
}

TEST(LogCollectorTest, RotatesWhenAFileReachesMaxFileBytes) {
  TempDir dir;
  LogCollectorOptions o;
  o.filename_prefix = dir.Sub("m");
  o.max_file_bytes = 1000;  // each framed 300-byte record takes 316 bytes
  auto c = TFRecordLogCollector::Create(o);
  ASSERT_TRUE(c.ok());
  for (int i = 0; i < 8; ++i) ASSERT_TRUE((*c)->Add(std::string(300, static_cast<char>('a' + i))));
  ASSERT_TRUE((*c)->Flush().ok());
  auto files = dir.Files();
  // 4 records reach 1000 bytes: files of 4, 4 (the last published by Flush).
  ASSERT_EQ(files.size(), 2u);
  EXPECT_NE(files[0].find("-00000.tfrecord"), std::string::npos);
  EXPECT_NE(files[1].find("-00001.tfrecord"), std::string::npos);
  auto records = ReadAll(files);
  ASSERT_EQ(records.size(), 8u);
  EXPECT_EQ(records[7], std::string(300, 'h'));
}

TEST(LogCollectorTest, PublishesAnOpenFileOnceItIsOlderThanMaxFileAge) {
  TempDir dir;
  LogCollectorOptions o;
  o.filename_prefix = dir.Sub("aged");
  o.max_file_age = std::chrono::milliseconds(100);
  auto c = TFRecordLogCollector::Create(o);
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE((*c)->Add("one"));
  for (int i = 0; i < 100 && dir.Files().empty(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_EQ(ReadAll(dir.Files()), std::vector<std::string>{"one"});
}

TEST(LogCollectorTest, AFullQueueDropsAndCountsInsteadOfBlocking) {
  TempDir dir;
  CounterCell dropped;
  LogCollectorOptions o;
  o.filename_prefix = dir.Sub("slow");
  o.max_queued_records = 3;
  o.dropped_queue_full = &dropped;
  auto c = TFRecordLogCollector::Create(o);
  ASSERT_TRUE(c.ok());
  (*c)->HoldWriterForTesting(true);
  int accepted = 0;
  for (int i = 0; i < 10; ++i) accepted += (*c)->Add("r" + std::to_string(i)) ? 1 : 0;
  EXPECT_EQ(accepted, 3);
  EXPECT_EQ(dropped.value(), 7);
  EXPECT_EQ((*c)->stats().dropped_queue_full, 7);
  (*c)->HoldWriterForTesting(false);
  ASSERT_TRUE((*c)->Flush().ok());
  EXPECT_EQ(ReadAll(dir.Files()), (std::vector<std::string>{"r0", "r1", "r2"}));
}

TEST(LogCollectorTest, AFileThatCannotBeCreatedDropsRecordsAndNamesThePrefix) {
  TempDir dir;
  // A regular file where the log folder should be: creating it fails, as on
  // a broken or full disk, whoever runs the test.
  std::ofstream(dir.Sub("blocker")) << "x";
  CounterCell dropped;
  LogCollectorOptions o;
  o.filename_prefix = dir.Sub("blocker/logs/m");
  o.dropped_write_error = &dropped;
  auto c = TFRecordLogCollector::Create(o);
  ASSERT_TRUE(c.ok());
  ASSERT_TRUE((*c)->Add("lost 1"));
  ASSERT_TRUE((*c)->Add("lost 2"));
  (void)(*c)->Flush();
  EXPECT_EQ(dropped.value(), 2);
  EXPECT_EQ((*c)->stats().dropped_write_error, 2);
  EXPECT_EQ((*c)->stats().written, 0);
  Status error = (*c)->last_error();
  TFHOST_EXPECT_ERROR(error, StatusCode::kFailedPrecondition, "creating a request log file for prefix \"");
  EXPECT_NE(error.message().find("request log file for prefix \"" + o.filename_prefix + "\""), std::string::npos)
      << error.ToString();
}

TEST(LogCollectorTest, DestructionPublishesWhatIsQueued) {
  TempDir dir;
  LogCollectorOptions o;
  o.filename_prefix = dir.Sub("bye");
  {
    auto c = TFRecordLogCollector::Create(o);
    ASSERT_TRUE(c.ok());
    (*c)->HoldWriterForTesting(true);
    ASSERT_TRUE((*c)->Add("last words"));
  }
  EXPECT_EQ(ReadAll(dir.Files()), std::vector<std::string>{"last words"});
}

TEST(LogCollectorTest, RejectsAnEmptyPrefixOrAFolderWithoutFileNamePrefix) {
  LogCollectorOptions o;
  auto empty = TFRecordLogCollector::Create(o);
  EXPECT_EQ(empty.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(empty.status().message().find("filename_prefix is empty"), std::string::npos);
  o.filename_prefix = "/tmp/logs/";
  auto folder = TFRecordLogCollector::Create(o);
  EXPECT_EQ(folder.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(folder.status().message().find("\"/tmp/logs/\" ends in '/'"), std::string::npos);
}

}  // namespace
}  // namespace tfhost::serving::logging
