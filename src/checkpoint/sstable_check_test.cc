#include "checkpoint/sstable_check.h"

#include <gtest/gtest.h>

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
  ASSERT_FALSE(out.ok());
  EXPECT_EQ(out.status().code(), StatusCode::kDataLoss);
}

TEST(SnappyUncompressTest, LengthMismatchAndOversizeAreErrors) {
  std::string short_in = {5, 0x04, 'a', 'b'};
  EXPECT_FALSE(SnappyUncompress(short_in, 100).ok());
  std::string huge = {static_cast<char>(0xff), static_cast<char>(0xff), 0x7f, 0x00};
  auto out = SnappyUncompress(huge, 1000);
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("more than"), std::string::npos);
}

TEST(SSTableCheckTest, TooShortAndBadMagicAreDataLoss) {
  EXPECT_EQ(CheckSSTableStructure("abc", "f.index").code(), StatusCode::kDataLoss);
  EXPECT_EQ(CheckSSTableStructure(std::string(48, '\0'), "f.index").code(), StatusCode::kDataLoss);
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
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("outside the file"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace tfhost::checkpoint
