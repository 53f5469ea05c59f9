#include "base/crc32c.h"

#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

namespace tfhost::crc32c {
namespace {

TEST(Crc32cTest, CheckValueOfStandardTestVector) {
  const char* s = "123456789";
  EXPECT_EQ(Value(s, 9), 0xE3069283u);
  EXPECT_EQ(ExtendPortable(0, s, 9), 0xE3069283u);
}

TEST(Crc32cTest, KnownVectorsFromRfc3720) {
  // iSCSI (RFC 3720 B.4) test patterns.
  std::vector<uint8_t> zeros(32, 0), ones(32, 0xff), inc(32), dec(32);
  for (int i = 0; i < 32; ++i) {
    inc[i] = static_cast<uint8_t>(i);
    dec[i] = static_cast<uint8_t>(31 - i);
  }
  EXPECT_EQ(Value(zeros.data(), 32), 0x8A9136AAu);
  EXPECT_EQ(Value(ones.data(), 32), 0x62A8AB43u);
  EXPECT_EQ(Value(inc.data(), 32), 0x46DD794Eu);
  EXPECT_EQ(Value(dec.data(), 32), 0x113FDB5Cu);
}

TEST(Crc32cTest, EmptyInputIsZero) { EXPECT_EQ(Value("", 0), 0u); }

TEST(Crc32cTest, ExtendEqualsValueOfConcatenation) {
  std::string a = "hello ", b = "world, a longer piece of text that spans several words";
  std::string ab = a + b;
  EXPECT_EQ(Extend(Value(a.data(), a.size()), b.data(), b.size()), Value(ab.data(), ab.size()));
}

TEST(Crc32cTest, HardwareAndPortableAgreeOnEveryLengthAndAlignment) {
  std::vector<uint8_t> buf(300);
  for (size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<uint8_t>(i * 131 + 7);
  for (size_t start = 0; start < 9; ++start) {
    for (size_t n = 0; n + start <= buf.size(); n += 7) {
      ASSERT_EQ(Extend(0x12345678u, buf.data() + start, n),
                ExtendPortable(0x12345678u, buf.data() + start, n))
          << "start " << start << " n " << n << " hardware " << UsingHardware();
    }
  }
}

TEST(Crc32cTest, MultiStreamBlocksAgreeWithPortableAcrossBlockBoundaries) {
  // Lengths around every block size, at odd
  // offsets and continuing from a non-trivial CRC, and a multi-megabyte run.
  std::vector<uint8_t> buf((3 << 20) + 64);
  uint32_t x = 2463534242u;
  for (auto& b : buf) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    b = static_cast<uint8_t>(x);
  }
  // Blocks are 6 streams of 2048 bytes and 3 streams of 128; with AVX-512
  // VPCLMULQDQ, inputs of 2048 bytes and more fold 256-byte windows first.
  std::vector<size_t> lengths = {95,    96,    97,    383,          384,         385,   479,     480,    1000,
                                 1535,  1536,  1537,  2047,         2048,        2049,  2303,    2304,   2305,
                                 4096 + 17,    12287,        12288,       12289, 12288 + 384 + 96 + 7,
                                 24576 + 767,  65536, 1 << 20,      3 << 20};
  for (size_t n : lengths) {
    for (size_t start : {0, 1, 5}) {
      ASSERT_EQ(Extend(0xdeadbeefu, buf.data() + start, n), ExtendPortable(0xdeadbeefu, buf.data() + start, n))
          << "n " << n << " start " << start << " hardware " << UsingHardware();
    }
  }
  // Split points inside blocks still compose.
  uint32_t whole = Value(buf.data(), 40000);
  EXPECT_EQ(Extend(Value(buf.data(), 12345), buf.data() + 12345, 40000 - 12345), whole);
  EXPECT_EQ(whole, ExtendPortable(0, buf.data(), 40000));
}

std::vector<uint8_t> RandomBytes(size_t n, uint32_t seed) {
  std::vector<uint8_t> buf(n);
  uint32_t x = seed;
  for (auto& b : buf) {
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    b = static_cast<uint8_t>(x >> 7);
  }
  return buf;
}

TEST(Crc32cTest, EveryLengthUpTo4096AtEveryAlignmentMatchesPortable) {
  std::vector<uint8_t> buf = RandomBytes(4096 + 64, 12345);
  for (size_t start = 0; start < 16; ++start) {
    for (size_t n = 0; n <= 4096; ++n) {
      ASSERT_EQ(Value(buf.data() + start, n), ExtendPortable(0, buf.data() + start, n))
          << "start " << start << " n " << n << " hardware " << UsingHardware();
    }
  }
}

TEST(Crc32cTest, RecordSizedInputsMatchPortableFromAnyInitialCrc) {
  // Records of a few hundred bytes take the one-accumulator fold, which
  // places the initial state at byte (-n mod 64) of its first block; every
  // residue mod 64 (the state straddling two blocks when it is 1..3) and
  // states whose bytes all differ are covered.
  std::vector<uint8_t> buf = RandomBytes(700 + 16, 777);
  for (uint32_t init : {0x00000000u, 0xffffffffu, 0x01234567u, 0x89abcdefu, 0xdeadbeefu}) {
    for (size_t start : {0, 3, 13}) {
      for (size_t n = 60; n <= 700; ++n) {
        ASSERT_EQ(Extend(init, buf.data() + start, n), ExtendPortable(init, buf.data() + start, n))
            << "init " << init << " start " << start << " n " << n;
      }
    }
  }
}

TEST(Crc32cTest, InputRightAfterAnUnreadablePageIsReadWithoutFaulting) {
  // The fold's first block is a masked load that starts before the input;
  // the masked-off bytes must not be touched, or this would crash.
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  void* m = ::mmap(nullptr, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(m, MAP_FAILED);
  auto* second = static_cast<uint8_t*>(m) + page;
  std::vector<uint8_t> bytes = RandomBytes(page, 99);
  std::memcpy(second, bytes.data(), page);
  ASSERT_EQ(::mprotect(m, page, PROT_NONE), 0);
  for (size_t n : {64, 65, 67, 127, 500, 1000, 4095}) {
    EXPECT_EQ(Value(second, n), ExtendPortable(0, bytes.data(), n)) << "n " << n;
  }
  ::munmap(m, 2 * page);
}

TEST(Crc32cTest, LongRunOfZerosMatchesRfc3720Pattern) {
  // 32 zero bytes is the RFC vector; 24 KiB of zeros exercises the long-block
  // combine on data where every stream's own CRC is the same.
  std::vector<uint8_t> zeros(3 * 4096 * 2, 0);
  EXPECT_EQ(Value(zeros.data(), zeros.size()), ExtendPortable(0, zeros.data(), zeros.size()));
}

TEST(Crc32cTest, MaskOfZeroIsTheDelta) {
  EXPECT_EQ(Mask(0), 0xa282ead8u);
  EXPECT_EQ(Unmask(0xa282ead8u), 0u);
}

TEST(Crc32cTest, MaskChangesValueAndUnmaskRestoresIt) {
  uint32_t crc = Value("foo", 3);
  EXPECT_NE(crc, Mask(crc));
  EXPECT_NE(crc, Mask(Mask(crc)));
  EXPECT_EQ(crc, Unmask(Mask(crc)));
  EXPECT_EQ(crc, Unmask(Unmask(Mask(Mask(crc)))));
}

}  // namespace
}  // namespace tfhost::crc32c
