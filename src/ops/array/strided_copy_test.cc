#include "ops/array/strided_copy.h"

#include <gtest/gtest.h>

#include <string>

#include "ops/array/array_test_util.h"

namespace tfhost::ops::array {
namespace {

using test_util::Floats;
using test_util::Iota;

TEST(CopyStridedTest, NegativeAndZeroSourceStrides) {
  Tensor src = Iota({2, 3});
  Tensor dst(DType::kFloat, Shape({2, 2, 3}));
  // dst[r, k, c] = src[1 - r, 2 - c]: rows and columns reversed, k repeated.
  StridedLayout s{5, {-3, 0, -1}};
  CopyStrided({2, 2, 3}, src, s, dst, DenseLayout(dst.shape()));
  EXPECT_EQ(Floats(dst), (std::vector<float>{5, 4, 3, 5, 4, 3, 2, 1, 0, 2, 1, 0}));
}

TEST(CopyStridedTest, StridedDestinationLeavesGapsUntouched) {
  Tensor src = Iota({2});
  Tensor dst(DType::kFloat, Shape({5}));
  CopyStrided({2}, src, DenseLayout(src.shape()), dst, StridedLayout{1, {2}});
  EXPECT_EQ(Floats(dst), (std::vector<float>{0, 0, 0, 1, 0}));
}

TEST(CopyStridedTest, StringsAndSixteenByteElements) {
  Tensor src = test_util::Str({"a", "b", "c"}, {3});
  Tensor dst(DType::kString, Shape({3}));
  CopyStrided({3}, src, StridedLayout{2, {-1}}, dst, DenseLayout(dst.shape()));
  EXPECT_EQ(test_util::Strings(dst), (std::vector<std::string>{"c", "b", "a"}));
  Tensor c(DType::kComplex128, Shape({2}));
  c.data<double>()[0] = 1;
  c.data<double>()[3] = 4;
  Tensor r(DType::kComplex128, Shape({2}));
  CopyStrided({2}, c, StridedLayout{1, {-1}}, r, DenseLayout(r.shape()));
  EXPECT_EQ(r.data<double>()[1], 4);
  EXPECT_EQ(r.data<double>()[2], 1);
}

TEST(CopyStridedTest, ThreadPoolGivesSameResultAsInline) {
  Tensor src = Iota({64, 48, 40});
  // A transpose [2, 0, 1], large enough to be split across threads.
  StridedLayout s{0, {1, 48 * 40, 40}};
  Tensor inline_out(DType::kFloat, Shape({40, 64, 48}));
  Tensor pooled_out(DType::kFloat, Shape({40, 64, 48}));
  CopyStrided({40, 64, 48}, src, s, inline_out, DenseLayout(inline_out.shape()));
  ThreadPool pool(3);
  CopyStrided({40, 64, 48}, src, s, pooled_out, DenseLayout(pooled_out.shape()), &pool);
  EXPECT_TRUE(TensorsEqual(inline_out, pooled_out));
  // out[k, i, j] = in[i, j, k].
  EXPECT_EQ(inline_out.data<float>()[(7 * 64 + 5) * 48 + 3], static_cast<float>((5 * 48 + 3) * 40 + 7));
}

TEST(CopyStridedTest, EmptyBlockCopiesNothing) {
  Tensor src = Iota({3});
  Tensor dst(DType::kFloat, Shape({3}));
  CopyStrided({0, 3}, src, StridedLayout{0, {3, 1}}, dst, StridedLayout{0, {3, 1}});
  EXPECT_EQ(Floats(dst), (std::vector<float>{0, 0, 0}));
}

}  // namespace
}  // namespace tfhost::ops::array
