#include "ops/math/broadcast.h"
#include "base/test_status.h"

#include <gtest/gtest.h>

#include <vector>

namespace tfhost::ops::math {
namespace {

// Collects (offset of input 0, offset of input 1) for every output element.
std::vector<std::pair<int64_t, int64_t>> Offsets(const Broadcaster& bc, int64_t begin, int64_t end) {
  std::vector<std::pair<int64_t, int64_t>> out;
  bc.ForEach(begin, end, [&](int64_t, const int64_t* off) { out.emplace_back(off[0], off[1]); });
  return out;
}

TEST(BroadcastTest, MatrixPlusRowRepeatsTheRow) {
  auto bc = Broadcaster::Make({Shape({2, 3}), Shape({3})});
  ASSERT_TRUE(bc.ok());
  EXPECT_EQ(bc->output_shape(), Shape({2, 3}));
  EXPECT_TRUE(bc->IsIdentity(0));
  EXPECT_FALSE(bc->IsIdentity(1));
  std::vector<std::pair<int64_t, int64_t>> expected = {{0, 0}, {1, 1}, {2, 2}, {3, 0}, {4, 1}, {5, 2}};
  EXPECT_EQ(Offsets(*bc, 0, 6), expected);
}

TEST(BroadcastTest, ColumnTimesRowIsOuterProduct) {
  auto bc = Broadcaster::Make({Shape({2, 1}), Shape({1, 3})});
  ASSERT_TRUE(bc.ok());
  EXPECT_EQ(bc->output_shape(), Shape({2, 3}));
  std::vector<std::pair<int64_t, int64_t>> expected = {{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {1, 2}};
  EXPECT_EQ(Offsets(*bc, 0, 6), expected);
}

TEST(BroadcastTest, PartialRangeStartsAtTheRightOffsets) {
  auto bc = Broadcaster::Make({Shape({2, 3, 4}), Shape({3, 1})});
  ASSERT_TRUE(bc.ok());
  auto all = Offsets(*bc, 0, 24);
  for (int64_t begin = 0; begin < 24; ++begin) {
    for (int64_t end = begin; end <= 24; ++end) {
      auto part = Offsets(*bc, begin, end);
      std::vector<std::pair<int64_t, int64_t>> expected(all.begin() + begin, all.begin() + end);
      ASSERT_EQ(part, expected)
          << begin << ".." << end;
    }
  }
  EXPECT_EQ(all[5], std::make_pair(int64_t{5}, int64_t{1}));  // [0,1,1] -> y[1,0]
  EXPECT_EQ(all[13], std::make_pair(int64_t{13}, int64_t{0}));  // [1,0,1] -> y[0,0]
}

TEST(BroadcastTest, ScalarWithScalarIsOneElement) {
  auto bc = Broadcaster::Make({Shape(), Shape()});
  ASSERT_TRUE(bc.ok());
  EXPECT_EQ(bc->num_elements(), 1);
  EXPECT_EQ(Offsets(*bc, 0, 1).size(), 1u);
}

TEST(BroadcastTest, AnEmptyShapeWithHugeDimsBroadcastsWithoutOverflow) {
  // [0, 2^40, 2^40] holds nothing, but its row-major strides and the merged
  // dims of its iteration space would pass int64 (UBSan caught both).
  const int64_t big = int64_t{1} << 40;
  const Shape empty({0, big, big});
  std::vector<int64_t> strides = BroadcastStrides(empty, empty);
  EXPECT_EQ(strides[1], big);
  EXPECT_EQ(strides[2], 1);
  auto bc = Broadcaster::Make({empty, Shape()});
  ASSERT_TRUE(bc.ok()) << bc.status().ToString();
  EXPECT_EQ(bc->output_shape(), empty);
  EXPECT_EQ(bc->num_elements(), 0);
  int visited = 0;
  bc->ForEach(0, bc->num_elements(), [&](int64_t, const int64_t*) { ++visited; });
  EXPECT_EQ(visited, 0);
  auto outer = Broadcaster::Make({Shape({big, big, 0}), Shape({big, 1, 1})});
  ASSERT_TRUE(outer.ok()) << outer.status().ToString();
  EXPECT_EQ(outer->num_elements(), 0);
}

TEST(BroadcastTest, IncompatibleShapesNameEveryShape) {
  auto bc = Broadcaster::Make({Shape({2, 3}), Shape({4})});
  TFHOST_ASSERT_ERROR(bc, StatusCode::kInvalidArgument, "incompatible shapes for broadcasting: [2,3] and [4]");
  EXPECT_NE(bc.status().message().find("[4]"), std::string::npos);
}

TEST(BroadcastTest, MakeToRejectsInputsThatWouldGrowTheTarget) {
  TFHOST_EXPECT_ERROR(Broadcaster::MakeTo({Shape({2, 3})}, Shape({3})), StatusCode::kInvalidArgument,
                      "shape [2,3] cannot be broadcast to [3]");
  EXPECT_TRUE(Broadcaster::MakeTo({Shape({1, 3})}, Shape({4, 3})).ok());
}

TEST(BroadcastTest, StridesAreZeroOnBroadcastDims) {
  EXPECT_EQ(BroadcastStrides(Shape({3, 1}), Shape({2, 3, 4})), (std::vector<int64_t>{0, 1, 0}));
  EXPECT_EQ(BroadcastStrides(Shape({2, 3, 4}), Shape({2, 3, 4})), (std::vector<int64_t>{12, 4, 1}));
}

}  // namespace
}  // namespace tfhost::ops::math
