#include "backends/cpu/simd/cpu_features.h"

#include <gtest/gtest.h>

namespace tfhost::backends::simd {
namespace {

TEST(CpuFeaturesTest, SupportedLevelsStartAtGenericAndEndAtTheDetectedOne) {
  const std::vector<IsaLevel> levels = SupportedIsaLevels();
  ASSERT_FALSE(levels.empty());
  EXPECT_EQ(levels.front(), IsaLevel::kGeneric);
  EXPECT_EQ(levels.back(), DetectedIsaLevel());
  EXPECT_EQ(ActiveIsaLevel(), DetectedIsaLevel());
}

TEST(CpuFeaturesTest, ScopedLevelForcesALowerLevelAndRestoresOnExit) {
  {
    ScopedIsaLevel generic(IsaLevel::kGeneric);
    EXPECT_EQ(ActiveIsaLevel(), IsaLevel::kGeneric);
    {
      ScopedIsaLevel highest(IsaLevel::kAvx512);
      // Never above what the CPU can run.
      EXPECT_EQ(ActiveIsaLevel(), DetectedIsaLevel());
    }
    EXPECT_EQ(ActiveIsaLevel(), IsaLevel::kGeneric);
  }
  EXPECT_EQ(ActiveIsaLevel(), DetectedIsaLevel());
}

TEST(CpuFeaturesTest, LevelNamesAreStable) {
  EXPECT_STREQ(IsaLevelName(IsaLevel::kGeneric), "generic");
  EXPECT_STREQ(IsaLevelName(IsaLevel::kAvx2), "avx2");
  EXPECT_STREQ(IsaLevelName(IsaLevel::kAvx512), "avx512");
}

}  // namespace
}  // namespace tfhost::backends::simd
