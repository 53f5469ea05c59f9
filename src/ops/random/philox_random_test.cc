#include "ops/random/philox_random.h"

#include <gtest/gtest.h>

#include <cmath>

#include "base/dtype.h"

namespace tfhost::ops::random {
namespace {

using Block = PhiloxRandom::Block;

// Random123's published known-answer vectors for Philox4x32-10
// (counter, key -> output).
TEST(PhiloxRandomTest, MatchesRandom123KnownAnswers) {
  EXPECT_EQ(PhiloxRandom::Compute({0, 0, 0, 0}, {0, 0}),
            (Block{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(PhiloxRandom::Compute({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
                                  {0xffffffff, 0xffffffff}),
            (Block{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(PhiloxRandom::Compute({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
                                  {0xa4093822, 0x299f31d0}),
            (Block{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(PhiloxRandomTest, SeedFillsKeyAndSeed2FillsUpperCounterWords) {
  PhiloxRandom gen(0x1122334455667788ull, 0x99aabbccddeeff00ull);
  EXPECT_EQ(gen.key(), (PhiloxRandom::Key{0x55667788, 0x11223344}));
  EXPECT_EQ(gen.counter(), (Block{0, 0, 0xddeeff00, 0x99aabbcc}));
}

TEST(PhiloxRandomTest, EachCallReturnsTheBlockOfTheCurrentCounterThenAdvances) {
  PhiloxRandom gen(7, 9);
  const Block first = gen();
  const Block second = gen();
  EXPECT_EQ(first, PhiloxRandom::Compute({0, 0, 9, 0}, {7, 0}));
  EXPECT_EQ(second, PhiloxRandom::Compute({1, 0, 9, 0}, {7, 0}));
  EXPECT_EQ(gen.counter(), (Block{2, 0, 9, 0}));
}

TEST(PhiloxRandomTest, SkipCarriesThroughAllCounterWords) {
  PhiloxRandom gen({0xffffffff, 0xffffffff, 0xffffffff, 5}, {0, 0});
  gen.Skip(1);
  EXPECT_EQ(gen.counter(), (Block{0, 0, 0, 6}));

  PhiloxRandom big({0xfffffff0, 0x1, 0, 0}, {0, 0});
  big.Skip(0x100000020ull);  // low word overflows into the high-word add
  EXPECT_EQ(big.counter(), (Block{0x10, 0x3, 0, 0}));

  PhiloxRandom wrap({1, 0xffffffff, 0, 0}, {0, 0});
  wrap.Skip(0xffffffffffffffffull);  // both carries at once
  EXPECT_EQ(wrap.counter(), (Block{0, 0xffffffff, 1, 0}));
}

TEST(PhiloxRandomTest, UniformConversionsSpanZeroToJustBelowOne) {
  EXPECT_EQ(Uint32ToFloat(0), 0.0f);
  EXPECT_EQ(Uint32ToFloat(0xff800000u), 0.0f);  // only the low 23 bits count
  EXPECT_EQ(Uint32ToFloat(0xffffffffu), 1.0f - std::ldexp(1.0f, -23));
  EXPECT_EQ(Uint32ToFloat(0x400000u), 0.5f);
  EXPECT_EQ(Uint64ToDouble(0, 0), 0.0);
  EXPECT_EQ(Uint64ToDouble(0xffffffffu, 0xffffffffu), 1.0 - std::ldexp(1.0, -52));
  EXPECT_EQ(Uint64ToDouble(0x80000u, 0), 0.5);
  EXPECT_EQ(HalfToFloat(Uint16ToHalfBits(0)), 0.0f);
  EXPECT_EQ(HalfToFloat(Uint16ToHalfBits(0xffffu)), 1.0f - std::ldexp(1.0f, -10));
  EXPECT_EQ(BFloat16ToFloat(Uint16ToBFloat16Bits(0)), 0.0f);
  EXPECT_EQ(BFloat16ToFloat(Uint16ToBFloat16Bits(0xffffu)), 1.0f - std::ldexp(1.0f, -7));
}

TEST(PhiloxRandomTest, BoxMullerClampsTheFirstUniformAwayFromZero) {
  float f0, f1;
  BoxMullerFloat(0, 0, &f0, &f1);  // u1 = 0 -> 1e-7; angle 0 -> (0, r)
  EXPECT_EQ(f0, 0.0f);
  EXPECT_NEAR(f1, std::sqrt(-2.0 * std::log(1e-7)), 1e-4);
  double d0, d1;
  BoxMullerDouble(0, 0, 0x40000u, 0, &d0, &d1);  // angle 2*pi*0.25 -> (r, ~0)
  EXPECT_NEAR(d0, std::sqrt(-2.0 * std::log(1e-7)), 1e-9);
  EXPECT_NEAR(d1, 0.0, 1e-9);
}

}  // namespace
}  // namespace tfhost::ops::random
