#include "data/tfrecord_writer.h"
#include "base/test_status.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace tfhost::data {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string templ = (fs::temp_directory_path() / "tfrecord_writer_test_XXXXXX").string();
    path_ = ::mkdtemp(templ.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }
  std::vector<std::string> Entries() const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(path_)) names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  }

 private:
  std::string path_;
};

TEST(TFRecordWriterTest, NothingAppearsUnderTheFinalNameBeforeClose) {
  TempDir dir;
  std::string path = dir.File("out.tfrecord");
  auto writer = TFRecordWriter::Create(path);
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Write("one").ok());
  EXPECT_FALSE(fs::exists(path));
  ASSERT_EQ(dir.Entries().size(), 1u);
  EXPECT_EQ(dir.Entries()[0].rfind(".out.tfrecord.tmp-", 0), 0u) << dir.Entries()[0];
  ASSERT_TRUE((*writer)->Close().ok());
  EXPECT_EQ(dir.Entries(), std::vector<std::string>{"out.tfrecord"});
  EXPECT_EQ((*writer)->records_written(), 1);
  EXPECT_EQ((*writer)->bytes_written(), 3u + 16u);
  EXPECT_EQ(fs::file_size(path), 3u + 16u);
}

TEST(TFRecordWriterTest, AbandonedWriterLeavesTheOldFileAndNoTemporary) {
  TempDir dir;
  std::string path = dir.File("keep.tfrecord");
  ASSERT_TRUE(WriteTFRecordFile(path, {"old"}).ok());
  {
    auto writer = TFRecordWriter::Create(path);
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE((*writer)->Write("new").ok());
  }  // destroyed without Close
  EXPECT_EQ(dir.Entries(), std::vector<std::string>{"keep.tfrecord"});
  EXPECT_EQ(*ReadAllRecords(path), std::vector<std::string>{"old"});
}

TEST(TFRecordWriterTest, CloseReplacesAnExistingFile) {
  TempDir dir;
  std::string path = dir.File("replace.tfrecord");
  ASSERT_TRUE(WriteTFRecordFile(path, {"old"}).ok());
  ASSERT_TRUE(WriteTFRecordFile(path, {"new", "newer"}).ok());
  EXPECT_EQ(*ReadAllRecords(path), (std::vector<std::string>{"new", "newer"}));
}

TEST(TFRecordWriterTest, WriteAfterCloseFails) {
  TempDir dir;
  auto writer = TFRecordWriter::Create(dir.File("x"));
  ASSERT_TRUE(writer.ok());
  ASSERT_TRUE((*writer)->Close().ok());
  EXPECT_EQ((*writer)->Write("late").code(), StatusCode::kFailedPrecondition);
  TFHOST_EXPECT_ERROR((*writer)->Close(), StatusCode::kFailedPrecondition, "x' is already closed");
}

TEST(TFRecordWriterTest, MissingParentDirectoriesAreCreated) {
  TempDir dir;
  std::string path = dir.File("a/b/out.tfrecord");
  auto writer = TFRecordWriter::Create(path);
  ASSERT_TRUE(writer.ok()) << writer.status().ToString();
  ASSERT_TRUE((*writer)->Write("one").ok());
  ASSERT_TRUE((*writer)->Close().ok());
  EXPECT_TRUE(fs::is_regular_file(path));
}

TEST(TFRecordWriterTest, AParentThatIsAFileIsAnErrorNamingItAndThePath) {
  TempDir dir;
  std::ofstream(dir.File("a")) << "file";
  auto writer = TFRecordWriter::Create(dir.File("a/out.tfrecord"));
  TFHOST_ASSERT_ERROR(writer, StatusCode::kFailedPrecondition, "exists and is not a directory");
  EXPECT_EQ(writer.status().message(), "cannot create directory '" + dir.File("a") + "' for '" +
                                           dir.File("a/out.tfrecord") + "': '" + dir.File("a") +
                                           "' exists and is not a directory");
}

TEST(TFRecordWriterTest, GzipOutputStartsWithTheGzipMagicAndZlibWithAZlibHeader) {
  TempDir dir;
  for (Compression c : {Compression::kGzip, Compression::kZlib}) {
    std::string path = dir.File(CompressionName(c));
    TFRecordWriterOptions options;
    options.compression = c;
    ASSERT_TRUE(WriteTFRecordFile(path, {"payload"}, options).ok());
    std::ifstream f(path, std::ios::binary);
    std::string head(3, '\0');
    f.read(head.data(), 3);
    EXPECT_EQ(DetectCompression(head, "no_extension"), c);
  }
}

TEST(TFRecordWriterTest, RejectsAnInvalidCompressionLevel) {
  TempDir dir;
  TFRecordWriterOptions options;
  options.compression_level = 12;
  TFHOST_EXPECT_ERROR(TFRecordWriter::Create(dir.File("x"), options), StatusCode::kInvalidArgument,
                      "compression level 12 is outside zlib's 0..9");
}

}  // namespace
}  // namespace tfhost::data
