#include "serving/servable/warmup.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "base/crc32c.h"
#include "base/test_status.h"

namespace tfhost::serving {
namespace {

namespace fs = std::filesystem;

class TempFile {
 public:
  TempFile() {
    std::string tmpl = (fs::temp_directory_path() / "tfhost_warm_XXXXXX").string();
    int fd = mkstemp(tmpl.data());
    close(fd);
    path_ = tmpl;
  }
  ~TempFile() {
    std::error_code ec;
    fs::remove(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string Bytes() const {
    std::ifstream in(path_, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  void Write(const std::string& bytes) const { std::ofstream(path_, std::ios::binary) << bytes; }

 private:
  std::string path_;
};

TEST(TfRecordTest, RoundTripsRecords) {
  TempFile f;
  std::vector<std::string> records = {"abc", "", std::string(100000, 'x'), std::string("\0\1\2", 3)};
  ASSERT_TRUE(WriteTfRecordFile(f.path(), records).ok());
  auto read = ReadTfRecordFile(f.path(), 10);
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(*read, records);
}

TEST(TfRecordTest, HeaderMatchesTheDocumentedFraming) {
  TempFile f;
  ASSERT_TRUE(WriteTfRecordFile(f.path(), {"abc"}).ok());
  std::string bytes = f.Bytes();
  ASSERT_EQ(bytes.size(), 12u + 3 + 4);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x03\0\0\0\0\0\0\0", 8));
  // masked crc32c of the length bytes = 0x0e4999b0, little-endian (docs/formats.md §4).
  EXPECT_EQ(bytes.substr(8, 4), std::string("\xb0\x99\x49\x0e", 4));
}

TEST(TfRecordTest, CorruptDataIsDataLossNamingRecordAndOffset) {
  TempFile f;
  ASSERT_TRUE(WriteTfRecordFile(f.path(), {"first", "second"}).ok());
  std::string bytes = f.Bytes();
  bytes[12 + 5 + 4 + 12] ^= 0x01;  // first byte of "second"
  f.Write(bytes);
  auto read = ReadTfRecordFile(f.path(), 10);
  TFHOST_ASSERT_ERROR(read, StatusCode::kDataLoss, "record 1 at offset 21: corrupted record (data CRC mismatch)");
  EXPECT_NE(read.status().message().find("record 1 at offset 21"), std::string::npos) << read.status().message();
  EXPECT_NE(read.status().message().find("data CRC"), std::string::npos);
}

TEST(TfRecordTest, TruncatedRecordIsDataLoss) {
  TempFile f;
  ASSERT_TRUE(WriteTfRecordFile(f.path(), {"hello world"}).ok());
  std::string bytes = f.Bytes();
  for (size_t cut : {size_t{5}, size_t{12}, size_t{20}, bytes.size() - 1}) {
    f.Write(bytes.substr(0, cut));
    auto read = ReadTfRecordFile(f.path(), 10);
    TFHOST_ASSERT_ERROR(read, StatusCode::kDataLoss, "record 0 at offset 0: truncated record (") << cut;
    EXPECT_NE(read.status().message().find("truncated"), std::string::npos) << read.status().message();
  }
}

TEST(TfRecordTest, HugeDeclaredLengthIsRefusedWithoutAllocating) {
  TempFile f;
  // A record header claiming 2^62 bytes with a valid length CRC, then 1 byte.
  std::string header(8, '\0');
  header[7] = 0x40;
  uint32_t masked = crc32c::Mask(crc32c::Value(header.data(), 8));
  std::string crc(4, '\0');
  for (int i = 0; i < 4; ++i) crc[i] = static_cast<char>((masked >> (8 * i)) & 0xff);
  f.Write(header + crc + "x");
  auto read = ReadTfRecordFile(f.path(), 10);
  TFHOST_ASSERT_ERROR(read, StatusCode::kDataLoss, "record 0 at offset 0: truncated record (declares");
  EXPECT_NE(read.status().message().find("declares 4611686018427387904 bytes"), std::string::npos)
      << read.status().message();
}

TEST(TfRecordTest, MoreRecordsThanTheLimitIsInvalidArgument) {
  TempFile f;
  ASSERT_TRUE(WriteTfRecordFile(f.path(), std::vector<std::string>(5, "r")).ok());
  auto read = ReadTfRecordFile(f.path(), 4);
  TFHOST_ASSERT_ERROR(read, StatusCode::kInvalidArgument, "Number of warmup records exceeds the maximum (4) at");
  EXPECT_NE(read.status().message().find("exceeds the maximum (4)"), std::string::npos) << read.status().message();
  EXPECT_TRUE(ReadTfRecordFile(f.path(), 5).ok());
}

TEST(TfRecordTest, MissingFileIsNotFound) {
  EXPECT_EQ(ReadTfRecordFile("/nonexistent/tfhost/warmup", 10).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace tfhost::serving
