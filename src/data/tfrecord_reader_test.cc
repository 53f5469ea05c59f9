#include "data/tfrecord_reader.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "base/crc32c.h"
#include "base/test_fixtures.h"
#include "data/tfrecord_writer.h"
#include "base/test_status.h"

namespace tfhost::data {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string templ = (fs::temp_directory_path() / "tfrecord_test_XXXXXX").string();
    path_ = ::mkdtemp(templ.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string Frames(const std::vector<std::string>& records) {
  std::string out;
  for (const auto& r : records) AppendTFRecordFrame(r, &out);
  return out;
}

std::vector<std::string> FiveRecords() { return {"alpha", "", "gamma-gamma", std::string(300, 'd'), "epsilon"}; }

// Offset of record i's header in Frames(records).
size_t OffsetOf(const std::vector<std::string>& records, size_t i) {
  size_t off = 0;
  for (size_t k = 0; k < i; ++k) off += records[k].size() + 16;
  return off;
}

struct ReadResult {
  std::vector<std::string> records;
  Status status;
  int64_t corruptions = 0;
  std::vector<Corruption> listed;
};

ReadResult ReadOnce(const std::string& path, CorruptionPolicy policy, std::optional<Compression> compression,
                    bool read_ahead) {
  ReadResult result;
  TFRecordReaderOptions options;
  options.policy = policy;
  options.compression = compression;
  options.buffer_bytes = 4096;  // small, so records straddle buffer refills
  options.read_ahead = read_ahead;
  options.read_ahead_chunk_bytes = 4096;
  auto reader = TFRecordReader::Open(path, options);
  if (!reader.ok()) {
    result.status = reader.status();
    return result;
  }
  std::string record;
  while (true) {
    auto got = (*reader)->Read(&record);
    if (!got.ok()) {
      result.status = got.status();
      break;
    }
    if (!*got) break;
    result.records.push_back(record);
  }
  result.corruptions = (*reader)->corruption_count();
  result.listed = (*reader)->corruptions();
  return result;
}

// Reads `path` plainly and with read-ahead; every test that goes through
// here also proves the read-ahead path returns the same records in the same
// order and reports the same corruptions at the same places.
ReadResult ReadFile(const std::string& path, CorruptionPolicy policy = CorruptionPolicy::kFail,
                    std::optional<Compression> compression = std::nullopt) {
  ReadResult plain = ReadOnce(path, policy, compression, false);
  ReadResult ahead = ReadOnce(path, policy, compression, true);
  EXPECT_EQ(ahead.records, plain.records) << "read-ahead differs on " << path;
  EXPECT_EQ(ahead.status.ToString(), plain.status.ToString()) << "read-ahead differs on " << path;
  EXPECT_EQ(ahead.corruptions, plain.corruptions) << "read-ahead differs on " << path;
  EXPECT_EQ(ahead.listed.size(), plain.listed.size()) << "read-ahead differs on " << path;
  for (size_t i = 0; i < std::min(ahead.listed.size(), plain.listed.size()); ++i) {
    EXPECT_EQ(ahead.listed[i].ToString(), plain.listed[i].ToString());
    EXPECT_EQ(ahead.listed[i].skipped_bytes, plain.listed[i].skipped_bytes);
  }
  return plain;
}

int64_t CountRecords(const std::string& path) {
  ReadResult r = ReadFile(path);
  EXPECT_TRUE(r.status.ok()) << r.status.ToString();
  return static_cast<int64_t>(r.records.size());
}

TEST(TFRecordFrameTest, HeaderMatchesTheFormatSpecExample) {
  std::string frame;
  AppendTFRecordFrame("abc", &frame);
  ASSERT_EQ(frame.size(), 3u + 16u);
  EXPECT_EQ(frame.substr(0, 8), std::string("\x03\0\0\0\0\0\0\0", 8));
  uint32_t crc;
  std::memcpy(&crc, frame.data() + 8, 4);
  EXPECT_EQ(crc, 0x0e4999b0u);
  std::memcpy(&crc, frame.data() + 15, 4);
  EXPECT_EQ(crc, crc32c::Mask(crc32c::Value("abc", 3)));
}

TEST(TFRecordFixtureTest, ChicagoTaxiSplitTrainHas9909RecordsInTwelveGzipShards) {
  std::string dir = testing::FixturePath("data/tfx_chicago_taxi/Split-train");
  TFHOST_REQUIRE_FIXTURE(dir);
  int64_t total = 0;
  for (int i = 0; i < 12; ++i) {
    char name[64];
    std::snprintf(name, sizeof(name), "/data_tfrecord-%05d-of-00012.gz", i);
    auto reader = TFRecordReader::Open(dir + name);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    EXPECT_EQ((*reader)->compression(), Compression::kGzip);
    total += CountRecords(dir + name);
  }
  EXPECT_EQ(total, 9909);
}

TEST(TFRecordFixtureTest, ChicagoTaxiExternalHas15000RecordsInTwoShards) {
  std::string dir = testing::FixturePath("data/tfx_chicago_taxi/external_tfrecord");
  TFHOST_REQUIRE_FIXTURE(dir);
  EXPECT_EQ(CountRecords(dir + "/data_tfrecord-00000-of-00002.gz") +
                CountRecords(dir + "/data_tfrecord-00001-of-00002.gz"),
            15000);
}

TEST(TFRecordFixtureTest, ChicagoTaxiSequenceHas15000Records) {
  std::string path = testing::FixturePath("data/tfx_chicago_taxi/sequence/data_tfrecord-00000-of-00001.gz");
  TFHOST_REQUIRE_FIXTURE(path);
  EXPECT_EQ(CountRecords(path), 15000);
}

TEST(TFRecordFixtureTest, GzipIsDetectedFromMagicEvenWithoutTheExtension) {
  std::string path = testing::FixturePath("data/tfx_chicago_taxi/sequence/data_tfrecord-00000-of-00001.gz");
  TFHOST_REQUIRE_FIXTURE(path);
  TempDir dir;
  fs::copy_file(path, dir.File("renamed.tfrecord"));
  EXPECT_EQ(CountRecords(dir.File("renamed.tfrecord")), 15000);
}

TEST(TFRecordDetectTest, ValidUncompressedHeaderWinsOverExtension) {
  std::string frames = Frames({"x"});
  EXPECT_EQ(DetectCompression(frames.substr(0, 12), "a.gz"), Compression::kNone);
  EXPECT_EQ(DetectCompression("\x1f\x8b\x08", "a"), Compression::kGzip);
  EXPECT_EQ(DetectCompression("\x78\x9c", "a"), Compression::kZlib);
  EXPECT_EQ(DetectCompression("", "a.GZ"), Compression::kGzip);
  EXPECT_EQ(DetectCompression("", "a.zlib"), Compression::kZlib);
  EXPECT_EQ(DetectCompression("", "a.tfrecord"), Compression::kNone);
}

TEST(TFRecordDetectTest, ParseCompressionAcceptsTensorFlowAndFlagSpellings) {
  EXPECT_EQ(*ParseCompression(""), Compression::kNone);
  EXPECT_EQ(*ParseCompression("GZIP"), Compression::kGzip);
  EXPECT_EQ(*ParseCompression("zlib"), Compression::kZlib);
  EXPECT_EQ(*ParseCompression("none"), Compression::kNone);
  TFHOST_EXPECT_ERROR(ParseCompression("snappy"), StatusCode::kInvalidArgument,
                      "unknown TFRecord compression 'snappy', expected none, zlib or gzip");
}

TEST(TFRecordRoundTripTest, EveryCompressionRoundTripsRecordsOfAllSizes) {
  std::vector<std::string> records = {"", "a", std::string(5000, 'x'), std::string(3 << 20, '\x7f')};
  for (int i = 0; i < 2000; ++i) records.push_back("record-" + std::to_string(i) + std::string(i % 37, 'z'));
  for (Compression c : {Compression::kNone, Compression::kZlib, Compression::kGzip}) {
    TempDir dir;
    std::string path = dir.File("out.tfrecord");
    TFRecordWriterOptions options;
    options.compression = c;
    options.buffer_bytes = 10000;
    ASSERT_TRUE(WriteTFRecordFile(path, records, options).ok());
    ReadResult detected = ReadFile(path);
    ASSERT_TRUE(detected.status.ok()) << CompressionName(c) << ": " << detected.status.ToString();
    EXPECT_EQ(detected.records, records) << CompressionName(c);
    ReadResult explicit_option = ReadFile(path, CorruptionPolicy::kFail, c);
    EXPECT_EQ(explicit_option.records, records) << CompressionName(c);
  }
}

TEST(TFRecordRoundTripTest, EmptyFileHasNoRecords) {
  TempDir dir;
  for (Compression c : {Compression::kNone, Compression::kZlib, Compression::kGzip}) {
    std::string path = dir.File(std::string("empty.") + CompressionName(c));
    TFRecordWriterOptions options;
    options.compression = c;
    ASSERT_TRUE(WriteTFRecordFile(path, {}, options).ok());
    ReadResult r = ReadFile(path, CorruptionPolicy::kFail, c);
    EXPECT_TRUE(r.status.ok()) << r.status.ToString();
    EXPECT_TRUE(r.records.empty());
  }
}

TEST(TFRecordReaderTest, MissingFileIsNotFoundNamingThePath) {
  auto reader = TFRecordReader::Open("/nonexistent/dir/x.tfrecord");
  TFHOST_ASSERT_ERROR(reader, StatusCode::kNotFound,
                      "cannot open '/nonexistent/dir/x.tfrecord': No such file or directory");
  EXPECT_NE(reader.status().message().find("/nonexistent/dir/x.tfrecord"), std::string::npos);
}

// --- corruption classes (uncompressed) ---

void ExpectLocated(const Status& s, const std::string& path, uint64_t offset, int64_t index, const std::string& what) {
  EXPECT_EQ(s.code(), StatusCode::kDataLoss) << s.ToString();
  EXPECT_NE(s.message().find(path), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("byte offset " + std::to_string(offset) + " "), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("record index " + std::to_string(index) + ")"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find(what), std::string::npos) << s.message();
}

TEST(TFRecordCorruptionTest, BadLengthCrcFailsWithLocationAndSkipResynchronises) {
  auto records = FiveRecords();
  std::string bytes = Frames(records);
  size_t off = OffsetOf(records, 2);
  bytes[off] ^= 0x01;  // length 11 -> 10: length CRC no longer matches
  TempDir dir;
  std::string path = dir.File("bad_len.tfrecord");
  WriteBytes(path, bytes);

  ReadResult fail = ReadFile(path);
  EXPECT_EQ(fail.records.size(), 2u);
  ExpectLocated(fail.status, path, off, 2, "bad length CRC");

  ReadResult skip = ReadFile(path, CorruptionPolicy::kSkip);
  ASSERT_TRUE(skip.status.ok()) << skip.status.ToString();
  EXPECT_EQ(skip.records, (std::vector<std::string>{records[0], records[1], records[3], records[4]}));
  EXPECT_EQ(skip.corruptions, 1);
  ASSERT_EQ(skip.listed.size(), 1u);
  EXPECT_EQ(skip.listed[0].offset, off);
  EXPECT_EQ(skip.listed[0].record_index, 2);
  EXPECT_EQ(skip.listed[0].skipped_bytes, records[2].size() + 16);
}

TEST(TFRecordCorruptionTest, BadDataCrcFailsWithLocationAndSkipDropsOnlyThatRecord) {
  auto records = FiveRecords();
  std::string bytes = Frames(records);
  size_t off = OffsetOf(records, 3);
  bytes[off + 12 + 150] ^= 0x40;
  TempDir dir;
  std::string path = dir.File("bad_data.tfrecord");
  WriteBytes(path, bytes);

  ReadResult fail = ReadFile(path);
  EXPECT_EQ(fail.records.size(), 3u);
  ExpectLocated(fail.status, path, off, 3, "bad data CRC");

  ReadResult skip = ReadFile(path, CorruptionPolicy::kSkip);
  ASSERT_TRUE(skip.status.ok());
  EXPECT_EQ(skip.records, (std::vector<std::string>{records[0], records[1], records[2], records[4]}));
  EXPECT_EQ(skip.corruptions, 1);
}

TEST(TFRecordCorruptionTest, CorruptDataCrcFooterIsABadDataCrc) {
  auto records = FiveRecords();
  std::string bytes = Frames(records);
  bytes[OffsetOf(records, 1) + 12] ^= 0x01;  // record 1 is empty: its footer follows the header
  TempDir dir;
  std::string path = dir.File("bad_footer.tfrecord");
  WriteBytes(path, bytes);
  ExpectLocated(ReadFile(path).status, path, OffsetOf(records, 1), 1, "bad data CRC");
}

TEST(TFRecordCorruptionTest, TruncatedLastRecordIsReportedInDataOrHeader) {
  auto records = FiveRecords();
  std::string bytes = Frames(records);
  size_t last = OffsetOf(records, 4);
  TempDir dir;
  for (size_t cut : {last + 5, last + 12 + 3, bytes.size() - 1}) {
    std::string path = dir.File("truncated_" + std::to_string(cut));
    WriteBytes(path, bytes.substr(0, cut));
    ReadResult fail = ReadFile(path);
    EXPECT_EQ(fail.records.size(), 4u);
    ExpectLocated(fail.status, path, last, 4, "truncated record");
    ReadResult skip = ReadFile(path, CorruptionPolicy::kSkip);
    EXPECT_TRUE(skip.status.ok());
    EXPECT_EQ(skip.records.size(), 4u);
    EXPECT_EQ(skip.corruptions, 1);
  }
}

TEST(TFRecordCorruptionTest, GarbageBetweenRecordsIsSkippedExactly) {
  auto records = FiveRecords();
  std::string bytes = Frames(records);
  size_t off = OffsetOf(records, 2);
  std::string garbage = "this is not a record header, just junk bytes!";
  bytes.insert(off, garbage);
  TempDir dir;
  std::string path = dir.File("garbage.tfrecord");
  WriteBytes(path, bytes);

  ExpectLocated(ReadFile(path).status, path, off, 2, "bad length CRC");
  ReadResult skip = ReadFile(path, CorruptionPolicy::kSkip);
  ASSERT_TRUE(skip.status.ok());
  EXPECT_EQ(skip.records, records);
  ASSERT_EQ(skip.listed.size(), 1u);
  EXPECT_EQ(skip.listed[0].skipped_bytes, garbage.size());
}

TEST(TFRecordCorruptionTest, NonTFRecordFileIsOneCorruptionCoveringTheFile) {
  TempDir dir;
  std::string path = dir.File("text.txt");
  std::string text(10000, 'q');
  WriteBytes(path, text);
  ExpectLocated(ReadFile(path).status, path, 0, 0, "not a TFRecord file");
  ReadResult skip = ReadFile(path, CorruptionPolicy::kSkip);
  EXPECT_TRUE(skip.records.empty());
  ASSERT_EQ(skip.listed.size(), 1u);
  EXPECT_EQ(skip.listed[0].skipped_bytes, text.size());
}

// A header whose CRC is valid but whose length is absurd.
std::string AbsurdHeader(uint64_t length) {
  std::string h(12, '\0');
  std::memcpy(h.data(), &length, 8);
  uint32_t crc = crc32c::Mask(crc32c::Value(h.data(), 8));
  std::memcpy(h.data() + 8, &crc, 4);
  return h;
}

TEST(TFRecordCorruptionTest, AbsurdLengthIsCheckedAgainstTheFileSizeBeforeReading) {
  auto records = FiveRecords();
  std::string bytes = Frames({records[0]}) + AbsurdHeader(uint64_t{1} << 40) + "tail";
  TempDir dir;
  std::string path = dir.File("absurd.tfrecord");
  WriteBytes(path, bytes);
  ReadResult fail = ReadFile(path);
  EXPECT_EQ(fail.records.size(), 1u);
  ExpectLocated(fail.status, path, records[0].size() + 16, 1, "exceeds the limit");

  TFRecordReaderOptions options;
  options.max_record_bytes = uint64_t{1} << 50;
  auto reader = TFRecordReader::Open(path, options);
  ASSERT_TRUE(reader.ok());
  std::string r;
  ASSERT_TRUE(*(*reader)->Read(&r));
  auto second = (*reader)->Read(&r);
  TFHOST_ASSERT_ERROR(second, StatusCode::kDataLoss,
                      "absurd.tfrecord: corrupt TFRecord at byte offset 21 (record index 1): truncated record: its header");
  EXPECT_NE(second.status().message().find("header says 1099511627776 data bytes but only 4 bytes follow"),
            std::string::npos)
      << second.status().message();
}

TEST(TFRecordCorruptionTest, AbsurdLengthInACompressedStreamGrowsNoFurtherThanTheData) {
  // In a compressed stream the size is unknown: the reader must discover the
  // truncation from the data, not allocate 1 GiB up front.
  TempDir dir;
  std::string path = dir.File("absurd.gz");
  gzFile gz = gzopen(path.c_str(), "wb");
  std::string bytes = Frames({"ok"}) + AbsurdHeader(uint64_t{1} << 30) + std::string(1000, 'z');
  gzwrite(gz, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(gz);
  ReadResult fail = ReadFile(path);
  EXPECT_EQ(fail.records, std::vector<std::string>{"ok"});
  ExpectLocated(fail.status, path, 18, 1, "truncated record: the file ends 1012 bytes into a record");
}

TEST(TFRecordCorruptionTest, ErrorsAreStickyAfterAFailure) {
  TempDir dir;
  std::string path = dir.File("junk");
  WriteBytes(path, std::string(100, 'j'));
  auto reader = TFRecordReader::Open(path);
  ASSERT_TRUE(reader.ok());
  std::string r;
  auto first = (*reader)->Read(&r);
  auto second = (*reader)->Read(&r);
  TFHOST_ASSERT_ERROR(first, StatusCode::kDataLoss,
                      "junk: corrupt TFRecord at byte offset 0 (record index 0): bad length CRC");
  TFHOST_ASSERT_ERROR(second, StatusCode::kDataLoss,
                      "junk: corrupt TFRecord at byte offset 0 (record index 0): bad length CRC");
  EXPECT_EQ(first.status().message(), second.status().message());
}

// --- corruption of the compressed stream itself ---

std::string GzipBytes(const std::string& raw) {
  TempDir dir;
  std::string path = dir.File("x.gz");
  gzFile gz = gzopen(path.c_str(), "wb");
  gzwrite(gz, raw.data(), static_cast<unsigned>(raw.size()));
  gzclose(gz);
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

std::vector<std::string> ManyRecords(int n) {
  std::vector<std::string> records;
  uint32_t x = 12345;
  for (int i = 0; i < n; ++i) {
    std::string r(200, '\0');
    for (char& c : r) {
      x = x * 1103515245u + 12345u;
      c = static_cast<char>(x >> 24);  // incompressible-ish, so damage lands mid-stream
    }
    records.push_back(r);
  }
  return records;
}

TEST(TFRecordCorruptionTest, TruncatedGzipStreamIsDataLossAfterTheIntactRecords) {
  auto records = ManyRecords(200);
  std::string gz = GzipBytes(Frames(records));
  TempDir dir;
  std::string path = dir.File("cut.gz");
  WriteBytes(path, gz.substr(0, gz.size() / 2));
  ReadResult fail = ReadFile(path);
  EXPECT_GT(fail.records.size(), 50u);
  EXPECT_LT(fail.records.size(), 150u);
  EXPECT_EQ(fail.status.code(), StatusCode::kDataLoss);
  EXPECT_NE(fail.status.message().find(path), std::string::npos);
  EXPECT_NE(fail.status.message().find("record index " + std::to_string(fail.records.size())), std::string::npos)
      << fail.status.message();
  for (size_t i = 0; i < fail.records.size(); ++i) ASSERT_EQ(fail.records[i], records[i]);

  ReadResult skip = ReadFile(path, CorruptionPolicy::kSkip);
  EXPECT_TRUE(skip.status.ok());
  EXPECT_EQ(skip.records.size(), fail.records.size());
  EXPECT_EQ(skip.corruptions, 1);
}

TEST(TFRecordCorruptionTest, CorruptGzipDataIsDataLossNamingTheFile) {
  auto records = ManyRecords(200);
  std::string gz = GzipBytes(Frames(records));
  for (size_t i = gz.size() / 2; i < gz.size() / 2 + 64; ++i) gz[i] = static_cast<char>(~gz[i]);
  TempDir dir;
  std::string path = dir.File("damaged.gz");
  WriteBytes(path, gz);
  ReadResult fail = ReadFile(path);
  EXPECT_EQ(fail.status.code(), StatusCode::kDataLoss) << fail.status.ToString();
  EXPECT_NE(fail.status.message().find(path), std::string::npos);
  EXPECT_LT(fail.records.size(), records.size());
  for (size_t i = 0; i < fail.records.size(); ++i) ASSERT_EQ(fail.records[i], records[i]);
}

TEST(TFRecordCorruptionTest, BadCrcInsideAGzipStreamIsLocatedInDecompressedOffsets) {
  auto records = FiveRecords();
  std::string raw = Frames(records);
  size_t off = OffsetOf(records, 3);
  raw[off + 20] ^= 0x01;
  TempDir dir;
  std::string path = dir.File("crc.gz");
  WriteBytes(path, GzipBytes(raw));
  ExpectLocated(ReadFile(path).status, path, off, 3, "bad data CRC");
  ReadResult skip = ReadFile(path, CorruptionPolicy::kSkip);
  EXPECT_EQ(skip.records.size(), 4u);
}

TEST(TFRecordReaderTest, MmapReadsTheSameRecordsAndLocatesTheSameCorruptions) {
  auto records = FiveRecords();
  std::string bytes = Frames(records);
  TempDir dir;
  std::string good = dir.File("good.tfrecord"), bad = dir.File("bad.tfrecord");
  WriteBytes(good, bytes);
  bytes[OffsetOf(records, 3) + 12 + 7] ^= 0x10;
  bytes.insert(OffsetOf(records, 1), "junk!");
  WriteBytes(bad, bytes);
  TFRecordReaderOptions options;
  options.mmap = true;
  EXPECT_EQ(*ReadAllRecords(good, options), records);
  options.policy = CorruptionPolicy::kSkip;
  auto reader = TFRecordReader::Open(bad, options);
  ASSERT_TRUE(reader.ok());
  std::vector<std::string> got;
  std::string r;
  while (*(*reader)->Read(&r)) got.push_back(r);
  EXPECT_EQ(got, (std::vector<std::string>{records[0], records[1], records[2], records[4]}));
  ASSERT_EQ((*reader)->corruptions().size(), 2u);
  EXPECT_EQ((*reader)->corruptions()[0].skipped_bytes, 5u);
  EXPECT_EQ((*reader)->corruptions()[1].offset, OffsetOf(records, 3) + 5);
  EXPECT_EQ((*reader)->raw_bytes_consumed(), bytes.size());
  options.policy = CorruptionPolicy::kFail;
  ExpectLocated(ReadAllRecords(bad, options).status(), bad, OffsetOf(records, 1), 1, "bad length CRC");
}

TEST(TFRecordReaderTest, ConcatenatedGzipMembersReadAsOneStream) {
  auto records = FiveRecords();
  std::string first = Frames({records[0], records[1]});
  std::string second = Frames({records[2], records[3], records[4]});
  TempDir dir;
  std::string path = dir.File("cat.gz");
  WriteBytes(path, GzipBytes(first) + GzipBytes(second));
  ReadResult r = ReadFile(path);
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.records, records);
}

TEST(TFRecordReaderTest, ReadAllRecordsEnforcesItsCap) {
  TempDir dir;
  std::string path = dir.File("five");
  ASSERT_TRUE(WriteTFRecordFile(path, FiveRecords()).ok());
  EXPECT_EQ(ReadAllRecords(path)->size(), 5u);
  TFHOST_EXPECT_ERROR(ReadAllRecords(path, {}, 4), StatusCode::kResourceExhausted, path + ": more than 4 records");
}

// --- read-ahead ---

// Records of 0..`max_len` bytes with varied content.
std::vector<std::string> VariedRecords(int n, size_t max_len, uint32_t seed) {
  std::vector<std::string> records;
  uint32_t x = seed;
  for (int i = 0; i < n; ++i) {
    x = x * 1103515245u + 12345u;
    std::string r((x >> 8) % (max_len + 1), '\0');
    for (char& c : r) {
      x = x * 1103515245u + 12345u;
      c = static_cast<char>(x >> 24);
    }
    records.push_back(std::move(r));
  }
  return records;
}

TEST(TFRecordReadAheadTest, CorruptionFoundWhileTheHelperReadsAheadStopsAfterEveryEarlierRecordInOrder) {
  // ~1.8 MB in 4 KiB chunks: when record 3000's data CRC fails, the helper
  // has filled the ring ahead of it and is blocked waiting for a buffer.
  auto records = VariedRecords(5000, 700, 42);
  std::string bytes = Frames(records);
  size_t off = OffsetOf(records, 3000);
  bytes[off + 12 + records[3000].size() / 2] ^= 0x40;
  TempDir dir;
  std::string path = dir.File("bad.tfrecord");
  WriteBytes(path, bytes);
  TFRecordReaderOptions options;
  options.read_ahead = true;
  options.read_ahead_chunk_bytes = 4096;
  auto reader = TFRecordReader::Open(path, options);
  ASSERT_TRUE(reader.ok());
  std::vector<std::string> got;
  std::string r;
  StatusOr<bool> more = true;
  while (true) {
    more = (*reader)->Read(&r);
    if (!more.ok() || !*more) break;
    got.push_back(r);
  }
  ASSERT_EQ(got.size(), 3000u);
  for (size_t i = 0; i < got.size(); ++i) ASSERT_EQ(got[i], records[i]) << "record " << i;
  ExpectLocated(more.status(), path, off, 3000, "bad data CRC");
  EXPECT_EQ((*reader)->Read(&r).status().message(), more.status().message());  // sticky
  reader->reset();  // stops the blocked helper; a hang here fails the test by its timeout
}

TEST(TFRecordReadAheadTest, SkipPolicyDropsOnlyTheCorruptRecordsAndKeepsOrder) {
  auto records = VariedRecords(3000, 900, 7);
  std::string bytes = Frames(records);
  for (int bad : {10, 1500, 2999}) bytes[OffsetOf(records, bad) + 12 + records[bad].size()] ^= 0x01;
  TempDir dir;
  std::string path = dir.File("skips.tfrecord");
  WriteBytes(path, bytes);
  ReadResult r = ReadFile(path, CorruptionPolicy::kSkip);  // compares with and without read-ahead
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  std::vector<std::string> expected;
  for (int i = 0; i < 3000; ++i) {
    if (i != 10 && i != 1500 && i != 2999) expected.push_back(records[i]);
  }
  EXPECT_EQ(r.records, expected);
  EXPECT_EQ(r.corruptions, 3);
}

TEST(TFRecordReadAheadTest, RecordsLongerThanAChunkAreGatheredWhole) {
  // 4 KiB chunks with 4 KiB of headroom: records of 5 KB-300 KB span many
  // chunks and take the gathering path, mixed with records that do not.
  std::vector<std::string> records = VariedRecords(50, 600, 3);
  for (size_t len : {5000u, 4096u, 4097u, 300000u, 8191u, 0u, 123457u}) {
    records.insert(records.begin() + static_cast<long>(len % 50), std::string(len, static_cast<char>('a' + len % 26)));
  }
  TempDir dir;
  std::string path = dir.File("long.tfrecord");
  std::string bytes = Frames(records);
  WriteBytes(path, bytes);
  TFRecordReaderOptions options;
  options.read_ahead = true;
  options.read_ahead_chunk_bytes = 4096;
  auto reader = TFRecordReader::Open(path, options);
  ASSERT_TRUE(reader.ok());
  std::vector<std::string> got;
  std::string r;
  while (*(*reader)->Read(&r)) got.push_back(r);
  EXPECT_EQ(got, records);
  EXPECT_EQ((*reader)->raw_bytes_consumed(), bytes.size());
  EXPECT_EQ((*reader)->offset(), bytes.size());
}

TEST(TFRecordReadAheadTest, GzipStreamIsInflatedAheadWithTheSameRecords) {
  auto records = VariedRecords(4000, 500, 11);
  TempDir dir;
  std::string path = dir.File("many.gz");
  WriteBytes(path, GzipBytes(Frames(records)));
  ReadResult r = ReadFile(path);  // compares with and without read-ahead
  ASSERT_TRUE(r.status.ok()) << r.status.ToString();
  EXPECT_EQ(r.records, records);
}

TEST(TFRecordReadAheadTest, MappedFileIgnoresReadAhead) {
  auto records = VariedRecords(100, 300, 5);
  TempDir dir;
  std::string path = dir.File("mapped.tfrecord");
  WriteBytes(path, Frames(records));
  TFRecordReaderOptions options;
  options.mmap = true;
  options.read_ahead = true;
  EXPECT_EQ(*ReadAllRecords(path, options), records);
}


// --- decompressed size limit (--max_decompressed_mb) ---

// Reads `stream` to its end or first error; *bytes counts what it handed out.
Status Drain(InputStream& stream, uint64_t* bytes) {
  std::vector<char> buf(100000);
  *bytes = 0;
  while (true) {
    auto got = stream.Read(buf.data(), buf.size());
    if (!got.ok()) return got.status();
    if (*got == 0) return OkStatus();
    *bytes += *got;
  }
}

TEST(InflateLimitTest, GzipOfZerosPastTheLimitFailsAfterHandingOutExactlyTheLimit) {
  // 4 MiB of zeros compress to about 4 KiB.
  const std::string bomb = GzipBytes(std::string(4 << 20, '\0'));
  ASSERT_LT(bomb.size(), 16u << 10);
  uint64_t bytes = 0;
  auto at = MakeInflateStream(MakeStringStream(bomb), InflateFormat::kGzip, "bomb.gz", 4 << 20);
  ASSERT_TRUE(Drain(*at, &bytes).ok());
  EXPECT_EQ(bytes, 4u << 20);
  auto under = MakeInflateStream(MakeStringStream(bomb), InflateFormat::kGzip, "bomb.gz", (4 << 20) - 1);
  TFHOST_EXPECT_ERROR(Drain(*under, &bytes), StatusCode::kResourceExhausted,
                      "the gzip data decompresses to more than 4194303 bytes, the most one compressed file may "
                      "(--max_decompressed_mb); a decompression bomb, or raise the limit");
  EXPECT_EQ(bytes, (4u << 20) - 1);
  EXPECT_NE(Drain(*under, &bytes).message().find("bomb.gz (compressed byte offset"), std::string::npos);
}

TEST(InflateLimitTest, ConcatenatedGzipMembersShareOneLimit) {
  const std::string two = GzipBytes(std::string(1000, 'a')) + GzipBytes(std::string(1000, 'b'));
  uint64_t bytes = 0;
  EXPECT_TRUE(Drain(*MakeInflateStream(MakeStringStream(two), InflateFormat::kGzip, "two.gz", 2000), &bytes).ok());
  EXPECT_EQ(bytes, 2000u);
  TFHOST_EXPECT_ERROR(Drain(*MakeInflateStream(MakeStringStream(two), InflateFormat::kGzip, "two.gz", 1999), &bytes),
                      StatusCode::kResourceExhausted, "decompresses to more than 1999 bytes");
}

TEST(TFRecordReaderTest, CompressedFilePastMaxDecompressedBytesFailsAfterTheRecordsBeforeTheLimit) {
  // Four records of 64 KiB of zeros: 4 x (65536 + 16) bytes once inflated.
  const std::vector<std::string> records(4, std::string(1 << 16, '\0'));
  const uint64_t inflated = 4 * ((1 << 16) + 16);
  for (Compression c : {Compression::kGzip, Compression::kZlib}) {
    for (bool read_ahead : {false, true}) {
      SCOPED_TRACE(std::string(CompressionName(c)) + (read_ahead ? " read-ahead" : ""));
      TempDir dir;
      const std::string path = dir.File("zeros");
      TFRecordWriterOptions write;
      write.compression = c;
      ASSERT_TRUE(WriteTFRecordFile(path, records, write).ok());
      TFRecordReaderOptions options;
      options.read_ahead = read_ahead;
      options.read_ahead_chunk_bytes = 4096;
      options.max_decompressed_bytes = inflated;
      auto all = ReadAllRecords(path, options);
      ASSERT_TRUE(all.ok()) << all.status().ToString();
      EXPECT_EQ(all->size(), 4u);

      options.max_decompressed_bytes = inflated - 1;
      auto reader = TFRecordReader::Open(path, options);
      ASSERT_TRUE(reader.ok()) << reader.status().ToString();
      std::string record;
      int read = 0;
      StatusOr<bool> got = true;
      while ((got = (*reader)->Read(&record)).ok() && *got) ++read;
      EXPECT_EQ(read, 3);
      TFHOST_EXPECT_ERROR(got, StatusCode::kResourceExhausted,
                          path + " (compressed byte offset");
      EXPECT_NE(got.status().message().find("decompresses to more than " + std::to_string(inflated - 1) +
                                            " bytes, the most one compressed file may (--max_decompressed_mb)"),
                std::string::npos)
          << got.status().ToString();
    }
  }
}

}  // namespace
}  // namespace tfhost::data
