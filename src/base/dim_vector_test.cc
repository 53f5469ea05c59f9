#include "base/dim_vector.h"

#include <gtest/gtest.h>

#include <vector>

namespace tfhost {
namespace {

std::vector<int64_t> V(const DimVector& d) { return std::vector<int64_t>(d.begin(), d.end()); }

TEST(DimVectorTest, GrowsPastTheInlineDimsAndKeepsEveryValue) {
  DimVector d;
  std::vector<int64_t> want;
  for (int64_t i = 0; i < 40; ++i) {
    d.push_back(i * 3 - 7);
    want.push_back(i * 3 - 7);
    ASSERT_EQ(V(d), want) << "after " << i + 1;
  }
  d.resize(3);
  EXPECT_EQ(V(d), (std::vector<int64_t>{-7, -4, -1}));
  d.resize(5, 9);
  EXPECT_EQ(V(d), (std::vector<int64_t>{-7, -4, -1, 9, 9}));
}

TEST(DimVectorTest, CopiesAndMovesAreIndependentInlineAndOnTheHeap) {
  for (size_t n : {size_t{0}, size_t{2}, DimVector::kInlineDims, DimVector::kInlineDims + 1, size_t{30}}) {
    DimVector a;
    for (size_t i = 0; i < n; ++i) a.push_back(static_cast<int64_t>(i) + 1);
    DimVector b = a;
    EXPECT_EQ(a, b);
    if (n > 0) {
      b[0] = 100;
      EXPECT_EQ(a[0], 1) << "a copy shares storage, n=" << n;
    }
    DimVector c = std::move(b);
    EXPECT_TRUE(b.empty());  // NOLINT: moved-from is specified empty
    EXPECT_EQ(c.size(), n);
    b = c;  // a moved-from vector can be reused
    EXPECT_EQ(b, c);
    DimVector d;
    d = std::move(c);
    EXPECT_EQ(d, b);
    DimVector& alias = d;
    d = alias;  // self-assignment keeps the values
    EXPECT_EQ(d, b);
  }
}

TEST(DimVectorTest, InsertEraseAndAssignFromItsOwnElements) {
  DimVector d = {1, 2, 3, 4, 5};
  d.insert(d.begin() + 1, d.begin() + 2, d.end());  // 1 3 4 5 2 3 4 5: past the inline size
  EXPECT_EQ(V(d), (std::vector<int64_t>{1, 3, 4, 5, 2, 3, 4, 5}));
  d.erase(d.begin() + 2, d.begin() + 5);
  EXPECT_EQ(V(d), (std::vector<int64_t>{1, 3, 3, 4, 5}));
  d.insert(d.end(), int64_t{6});
  d.erase(d.begin());
  EXPECT_EQ(V(d), (std::vector<int64_t>{3, 3, 4, 5, 6}));
  d.assign(d.begin() + 1, d.end());
  EXPECT_EQ(V(d), (std::vector<int64_t>{3, 4, 5, 6}));
  d.assign(3, 7);
  EXPECT_EQ(V(d), (std::vector<int64_t>{7, 7, 7}));
}

TEST(DimVectorTest, ComparesWithVectorsAndConvertsToOne) {
  const DimVector d = {2, 3};
  const std::vector<int64_t> v = d;
  EXPECT_EQ(v, (std::vector<int64_t>{2, 3}));
  EXPECT_TRUE(d == v);
  EXPECT_TRUE(v == d);
  EXPECT_TRUE(d != (std::vector<int64_t>{2, 3, 1}));
  EXPECT_TRUE((DimVector{1, 2}) < (DimVector{1, 3}));
  EXPECT_FALSE((DimVector{1, 2}) < (DimVector{1, 2}));
}

}  // namespace
}  // namespace tfhost
