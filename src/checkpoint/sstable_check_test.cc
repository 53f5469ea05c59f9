#include "checkpoint/sstable_check.h"

#include <fstream>

#include <gtest/gtest.h>

#include "base/crc32c.h"
#include "checkpoint/tensor_bundle_reader.h"
#include "checkpoint/test_util.h"
#include "base/test_status.h"

namespace tfhost::checkpoint {
namespace {

TEST(SnappyUncompressTest, LiteralAndOverlappingCopyDecode) {
  // Preamble 10; literal "ab" (tag (2-1)<<2); copy-1 of len 8 at offset 2:
  // tag = 1 | ((8-4)<<2) | (0<<5) = 0x11, offset byte 2.
  std::string in = {10, 0x04, 'a', 'b', 0x11, 0x02};
  auto out = SnappyUncompress(in, 100);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*out, "ababababab");
}

TEST(SnappyUncompressTest, TwoByteOffsetCopyDecodes) {
  // literal "xyz", copy-2 len 3 offset 3: tag = 2 | ((3-1)<<2) = 0x0a.
  std::string in = {6, 0x08, 'x', 'y', 'z', 0x0a, 0x03, 0x00};
  auto out = SnappyUncompress(in, 100);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(*out, "xyzxyz");
}

TEST(SnappyUncompressTest, CopyBeforeStartIsDataLoss) {
  std::string in = {4, 0x00, 'a', 0x11, 0x05};
  auto out = SnappyUncompress(in, 100);
  TFHOST_ASSERT_ERROR(out, StatusCode::kDataLoss, "snappy copy offset 5 is outside the 1 bytes produced so far");
}

TEST(SnappyUncompressTest, LengthMismatchAndOversizeAreErrors) {
  std::string short_in = {5, 0x04, 'a', 'b'};
  TFHOST_EXPECT_ERROR(SnappyUncompress(short_in, 100), StatusCode::kDataLoss,
                      "snappy block produced 2 bytes, declared 5");
  std::string huge = {static_cast<char>(0xff), static_cast<char>(0xff), 0x7f, 0x00};
  auto out = SnappyUncompress(huge, 1000);
  TFHOST_EXPECT_ERROR(out, StatusCode::kDataLoss,
                      "snappy block declares 2097151 uncompressed bytes, more than the 1000 its size allows");
}

TEST(SSTableCheckTest, TooShortAndBadMagicAreDataLoss) {
  TFHOST_EXPECT_ERROR(CheckSSTableStructure("abc", "f.index"), StatusCode::kDataLoss,
                      "index file f.index is too short (3 bytes) to be an SSTable");
  TFHOST_EXPECT_ERROR(CheckSSTableStructure(std::string(48, '\0'), "f.index"), StatusCode::kDataLoss,
                      "index file f.index is truncated or not an SSTable: bad footer magic");
}

TEST(SSTableCheckTest, FooterHandleBeyondFileIsRejected) {
  std::string footer(48, '\0');
  // metaindex handle: offset 0 size 0; index handle: offset 0, size 2^63 (varint).
  footer[0] = 0;
  footer[1] = 0;
  footer[2] = 0;
  for (int i = 0; i < 9; ++i) footer[3 + i] = static_cast<char>(0xff);
  footer[12] = 0x7f;
  const unsigned char magic[8] = {0x57, 0xfb, 0x80, 0x8b, 0x24, 0x75, 0x47, 0xdb};
  for (int i = 0; i < 8; ++i) footer[40 + i] = static_cast<char>(magic[i]);
  Status s = CheckSSTableStructure(footer, "f.index");
  TFHOST_ASSERT_ERROR(s, StatusCode::kDataLoss,
                      "index file f.index footer points outside the file (metaindex offset 0 size 0, index offset 0 size");
}

void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

// Appends an uncompressed block with a correct trailer; returns its handle.
std::pair<uint64_t, uint64_t> AppendBlock(std::string* file, const std::string& block) {
  uint64_t offset = file->size();
  file->append(block);
  file->push_back(0);  // no compression
  uint32_t crc = crc32c::Mask(crc32c::Value(file->data() + offset, block.size() + 1));
  file->append(reinterpret_cast<const char*>(&crc), 4);
  return {offset, block.size()};
}

// One-entry block (restart array [0], count 1) mapping `key` to `value`.
std::string OneEntryBlock(const std::string& key, const std::string& value) {
  std::string b;
  PutVarint(&b, 0);
  PutVarint(&b, key.size());
  PutVarint(&b, value.size());
  b += key + value;
  uint32_t restart = 0, count = 1;
  b.append(reinterpret_cast<const char*>(&restart), 4);
  b.append(reinterpret_cast<const char*>(&count), 4);
  return b;
}

// A table whose checksums are all valid but whose index block points at a
// data block of size 2^64 - 3: LevelDB alone would wrap size + 5 and read
// out of bounds.
std::string TableWithWrappingDataHandle() {
  std::string file;
  std::string empty_block(8, '\0');
  empty_block[4] = 1;  // restarts [0], num_restarts 1
  auto meta = AppendBlock(&file, empty_block);
  std::string handle;
  PutVarint(&handle, 0);
  PutVarint(&handle, ~uint64_t{0} - 2);
  auto index = AppendBlock(&file, OneEntryBlock("z", handle));
  std::string footer;
  PutVarint(&footer, meta.first);
  PutVarint(&footer, meta.second);
  PutVarint(&footer, index.first);
  PutVarint(&footer, index.second);
  footer.resize(40, '\0');
  const unsigned char magic[8] = {0x57, 0xfb, 0x80, 0x8b, 0x24, 0x75, 0x47, 0xdb};
  footer.append(reinterpret_cast<const char*>(magic), 8);
  return file + footer;
}

TEST(SSTableCheckTest, DataHandleThatWrapsIsRejectedDespiteValidChecksums) {
  Status s = CheckSSTableStructure(TableWithWrappingDataHandle(), "f.index");
  TFHOST_ASSERT_ERROR(s, StatusCode::kDataLoss,
                      "index file f.index: a data block handle (offset 0 size 18446744073709551613) lies outside the data");
}

TEST(SSTableCheckTest, BundleReaderRejectsTheCraftedTableWithoutCrashing) {
  testing::TempDir dir;
  {
    std::ofstream out(dir.Join("b.index"), std::ios::binary);
    std::string t = TableWithWrappingDataHandle();
    out.write(t.data(), static_cast<std::streamsize>(t.size()));
  }
  auto reader = TensorBundleReader::Open(dir.Join("b"));
  TFHOST_ASSERT_ERROR(reader, StatusCode::kDataLoss, ") lies outside the data area of 13 bytes");
  EXPECT_NE(reader.status().message().find("b.index"), std::string::npos);
}

}  // namespace
}  // namespace tfhost::checkpoint
