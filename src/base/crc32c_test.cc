#include "base/crc32c.h"

#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

namespace tfhost::crc32c {
namespace {

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

// --- Value/Extend: whichever implementation this CPU picked ---------------

TEST(Crc32cTest, CheckValueOfStandardTestVector) {
  const char* s = "123456789";
  EXPECT_EQ(Value(s, 9), 0xE3069283u);
  EXPECT_EQ(ExtendPortable(0, s, 9), 0xE3069283u);
}

TEST(Crc32cTest, EmptyInputIsZero) { EXPECT_EQ(Value("", 0), 0u); }

TEST(Crc32cTest, ExtendEqualsValueOfConcatenation) {
  std::string a = "hello ", b = "world, a longer piece of text that spans several words";
  std::string ab = a + b;
  EXPECT_EQ(Extend(Value(a.data(), a.size()), b.data(), b.size()), Value(ab.data(), ab.size()));
}

TEST(Crc32cTest, ExtendUsesTheActiveImplementation) {
  std::vector<uint8_t> buf = RandomBytes(5000, 4242);
  for (size_t n : {0, 7, 100, 600, 5000}) {
    EXPECT_EQ(Extend(0x7u, buf.data(), n), ExtendWith(ActiveImpl(), 0x7u, buf.data(), n)) << "n " << n;
  }
  EXPECT_TRUE(ImplSupported(ActiveImpl()));
  EXPECT_EQ(UsingHardware(), ActiveImpl() != Impl::kPortable);
}

TEST(Crc32cTest, TheFastestSupportedImplementationIsActive) {
  // The vector paths are preferred where the CPU has them; a build or CPU
  // without any falls back in order.
  for (Impl better : {Impl::kAvx512Vpclmulqdq, Impl::kAvx2Vpclmulqdq, Impl::kSse42}) {
    if (ImplSupported(better)) {
      EXPECT_EQ(ActiveImpl(), better) << ImplName(better);
      return;
    }
  }
  EXPECT_EQ(ActiveImpl(), Impl::kPortable);
}

TEST(Crc32cTest, UnsupportedImplementationRunsThePortableCode) {
  std::vector<uint8_t> buf = RandomBytes(3000, 5);
  for (Impl impl : {Impl::kPortable, Impl::kSse42, Impl::kAvx2Vpclmulqdq, Impl::kAvx512Vpclmulqdq}) {
    // Supported or not, the result is the CRC; an unsupported one must not
    // execute instructions the CPU lacks.
    EXPECT_EQ(ExtendWith(impl, 0, buf.data(), buf.size()), ExtendPortable(0, buf.data(), buf.size()))
        << ImplName(impl) << (ImplSupported(impl) ? " (supported)" : " (not supported here)");
  }
}

TEST(Crc32cTest, Value64IsTheCrcOfTheEightLittleEndianBytes) {
  std::vector<uint8_t> buf = RandomBytes(8 * 1000, 64);
  for (size_t i = 0; i < buf.size(); i += 8) {
    uint64_t v = 0;
    for (int k = 0; k < 8; ++k) v |= uint64_t{buf[i + k]} << (8 * k);
    ASSERT_EQ(Value64(v), ExtendPortable(0, &buf[i], 8)) << "v " << v;
  }
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

// --- Every implementation this CPU runs, against the portable one ---------

class Crc32cImplTest : public ::testing::TestWithParam<Impl> {
 protected:
  void SetUp() override {
    if (!ImplSupported(GetParam())) GTEST_SKIP() << ImplName(GetParam()) << " is not supported on this CPU";
  }
  uint32_t Run(uint32_t init, const void* data, size_t n) const { return ExtendWith(GetParam(), init, data, n); }
};

TEST_P(Crc32cImplTest, KnownVectorsFromRfc3720) {
  const char* s = "123456789";
  EXPECT_EQ(Run(0, s, 9), 0xE3069283u);
  // iSCSI (RFC 3720 B.4) test patterns.
  std::vector<uint8_t> zeros(32, 0), ones(32, 0xff), inc(32), dec(32);
  for (int i = 0; i < 32; ++i) {
    inc[i] = static_cast<uint8_t>(i);
    dec[i] = static_cast<uint8_t>(31 - i);
  }
  EXPECT_EQ(Run(0, zeros.data(), 32), 0x8A9136AAu);
  EXPECT_EQ(Run(0, ones.data(), 32), 0x62A8AB43u);
  EXPECT_EQ(Run(0, inc.data(), 32), 0x46DD794Eu);
  EXPECT_EQ(Run(0, dec.data(), 32), 0x113FDB5Cu);
  EXPECT_EQ(Run(0, "", 0), 0u);
}

TEST_P(Crc32cImplTest, ExtendOfAPrefixEqualsValueOfTheWhole) {
  std::vector<uint8_t> buf = RandomBytes(40000, 31337);
  uint32_t whole = Run(0, buf.data(), buf.size());
  EXPECT_EQ(whole, ExtendPortable(0, buf.data(), buf.size()));
  for (size_t split : {1, 64, 300, 12345, 39999}) {
    EXPECT_EQ(Run(Run(0, buf.data(), split), buf.data() + split, buf.size() - split), whole) << "split " << split;
  }
}

TEST_P(Crc32cImplTest, EveryLengthUpTo4096AtEveryAlignmentMatchesPortable) {
  std::vector<uint8_t> buf = RandomBytes(4096 + 64, 12345);
  for (size_t start = 0; start < 16; ++start) {
    for (size_t n = 0; n <= 4096; ++n) {
      ASSERT_EQ(Run(0, buf.data() + start, n), ExtendPortable(0, buf.data() + start, n))
          << ImplName(GetParam()) << " start " << start << " n " << n;
    }
  }
}

TEST_P(Crc32cImplTest, RecordSizedInputsMatchPortableFromAnyInitialCrc) {
  // Records of a few hundred bytes take the folds, which place the initial
  // state at a length-dependent byte of their first block (AVX-512) or take
  // the last partial window as one that ends with the input (AVX2): every
  // residue mod 64 and 128, and states whose bytes all differ, are covered.
  std::vector<uint8_t> buf = RandomBytes(700 + 16, 777);
  for (uint32_t init : {0x00000000u, 0xffffffffu, 0x01234567u, 0x89abcdefu, 0xdeadbeefu}) {
    for (size_t start : {0, 3, 13}) {
      for (size_t n = 60; n <= 700; ++n) {
        ASSERT_EQ(Run(init, buf.data() + start, n), ExtendPortable(init, buf.data() + start, n))
            << ImplName(GetParam()) << " init " << init << " start " << start << " n " << n;
      }
    }
  }
}

TEST_P(Crc32cImplTest, LongInputsAroundEveryBlockSizeMatchPortable) {
  // Lengths around each block size (three 128-byte and six 2-KiB crc32
  // streams, 64- and 128-byte AVX2 windows, 256-byte AVX-512 windows), at
  // odd offsets and continuing from a non-trivial CRC, up to 3 MiB.
  std::vector<uint8_t> buf = RandomBytes((3 << 20) + 64, 2463534242u);
  std::vector<size_t> lengths = {79,   80,    81,    95,    96,    97,    127,         128,   129,
                                 383,  384,   385,   479,   480,   1000,  1023,        1024,  1025,
                                 1535, 1536,  1537,  2047,  2048,  2049,  2303,        2304,  2305,
                                 4113, 12287, 12288, 12289, 12775, 25343, 65536,       1 << 20, 3 << 20};
  for (size_t n : lengths) {
    for (size_t start : {0, 1, 5}) {
      ASSERT_EQ(Run(0xdeadbeefu, buf.data() + start, n), ExtendPortable(0xdeadbeefu, buf.data() + start, n))
          << ImplName(GetParam()) << " n " << n << " start " << start;
    }
  }
}

TEST_P(Crc32cImplTest, LongRunOfZerosMatchesPortable) {
  // 24 KiB of zeros: every stream's and every accumulator's own CRC is the
  // same, so a join that drops or doubles one shows.
  std::vector<uint8_t> zeros(3 * 4096 * 2, 0);
  EXPECT_EQ(Run(0, zeros.data(), zeros.size()), ExtendPortable(0, zeros.data(), zeros.size()));
}

TEST_P(Crc32cImplTest, InputsNextToUnreadablePagesAreReadWithoutFaulting) {
  // The AVX-512 fold's first block is a masked load that starts before the
  // input, and the AVX2 fold's last window ends exactly at the input's end:
  // bytes outside the input must not be touched, or this would crash.
  const size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  void* m = ::mmap(nullptr, 3 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(m, MAP_FAILED);
  auto* middle = static_cast<uint8_t*>(m) + page;
  std::vector<uint8_t> bytes = RandomBytes(page, 99);
  std::memcpy(middle, bytes.data(), page);
  ASSERT_EQ(::mprotect(m, page, PROT_NONE), 0);
  ASSERT_EQ(::mprotect(middle + page, page, PROT_NONE), 0);
  for (size_t n : {1, 63, 64, 65, 67, 80, 127, 128, 129, 500, 1000, 1024, 1025, 4095, 4096}) {
    if (n > page) continue;
    EXPECT_EQ(Run(0, middle, n), ExtendPortable(0, bytes.data(), n)) << "at the start, n " << n;
    EXPECT_EQ(Run(0, middle + page - n, n), ExtendPortable(0, bytes.data() + page - n, n)) << "at the end, n " << n;
  }
  ::munmap(m, 3 * page);
}

INSTANTIATE_TEST_SUITE_P(AllImplementations, Crc32cImplTest,
                         ::testing::Values(Impl::kPortable, Impl::kSse42, Impl::kAvx2Vpclmulqdq,
                                           Impl::kAvx512Vpclmulqdq),
                         [](const ::testing::TestParamInfo<Impl>& info) {
                           switch (info.param) {
                             case Impl::kPortable: return std::string("Portable");
                             case Impl::kSse42: return std::string("Sse42");
                             case Impl::kAvx2Vpclmulqdq: return std::string("Avx2Vpclmulqdq");
                             case Impl::kAvx512Vpclmulqdq: return std::string("Avx512Vpclmulqdq");
                           }
                           return std::string("Unknown");
                         });

}  // namespace
}  // namespace tfhost::crc32c
