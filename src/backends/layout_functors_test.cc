// The CUDA backend's data-movement ops (cuda/layout_functors.h): the host
// half's indexing and the per-element functors the kernels run, evaluated on
// the host element by element as the kernels do, against the Transpose,
// Slice, StridedSlice (every mask), Pad, PadV2, ConcatV2, GatherV2 and Cast
// reference kernels on random shapes, ranks 0-9 (size-1 dims merged away),
// empty dims, and every float16/bfloat16 bit pattern for Cast.
#include "backends/cuda/layout_functors.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "base/test_status.h"
#include "ops/run_single_op.h"

namespace tfhost::backends::cuda {
namespace {

using ops::MakeAttr;

// Distinct values, so a wrong source index shows.
Tensor Iota(const Shape& shape) {
  Tensor t(DType::kFloat, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = static_cast<float>(i) + 0.5f;
  return t;
}

// Dims in [0, 4], mostly non-zero; `ones` makes size-1 dims likely.
std::vector<int64_t> RandomDims(std::mt19937& rng, int rank, bool ones = false) {
  std::vector<int64_t> dims;
  for (int d = 0; d < rank; ++d) {
    const uint32_t r = rng() % 12;
    dims.push_back(r == 0 ? 0 : (ones && r < 7) ? 1 : 1 + static_cast<int64_t>(rng() % 4));
  }
  return dims;
}

std::string Ints(const std::vector<int64_t>& v) { return ops::array::JoinInts(v); }

// Every output element of a strided gather reads what the reference wrote.
void ExpectGather(const Tensor& x, const StridedGather& g, const Tensor& want, const std::string& what) {
  ASSERT_EQ(g.count, want.NumElements()) << what;
  for (int64_t i = 0; i < g.count; ++i) {
    const int64_t src = GatherSource(g, i);
    ASSERT_TRUE(src >= 0 && src < x.NumElements()) << what << " at " << i << ": source " << src;
    ASSERT_EQ(x.data<float>()[src], want.data<float>()[i]) << what << " at " << i;
  }
}

// The builder's error is the reference kernel's message, less its node prefix.
template <typename T>
void ExpectSameError(const StatusOr<T>& ours, const Status& ref, const std::string& what) {
  ASSERT_FALSE(ours.ok()) << what << ": the reference failed with " << ref.ToString();
  const std::string& m = ours.status().message();
  EXPECT_TRUE(ref.message().size() >= m.size() && ref.message().compare(ref.message().size() - m.size(), m.size(), m) == 0)
      << what << ": ours '" << m << "', reference '" << ref.message() << "'";
}

TEST(LayoutFunctorsTest, TransposeMatchesTheReferenceOnRandomShapesAndPerms) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 400; ++trial) {
    const int rank = static_cast<int>(rng() % 10);
    const Tensor x = Iota(Shape(RandomDims(rng, rank, rank > 6)));
    std::vector<int64_t> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    const std::string what = "Transpose of " + x.shape().ToString() + " by " + Ints(perm);
    auto ref = ops::RunSingleOp("Transpose", {x, Tensor::FromVector<int64_t>(perm)},
                                {{"T", MakeAttr(DType::kFloat)}, {"Tperm", MakeAttr(DType::kInt64)}});
    ASSERT_TRUE(ref.ok()) << what << ": " << ref.status().ToString();
    Shape out;
    auto g = MakeTransposeGather(x.shape(), perm, &out);
    if (!g.ok() && g.status().code() == StatusCode::kUnimplemented) continue;  // > 8 independent dims
    ASSERT_TRUE(g.ok()) << what << ": " << g.status().ToString();
    ASSERT_EQ(out, (*ref)[0].shape()) << what;
    ExpectGather(x, *g, (*ref)[0], what);
  }
  Shape out;
  auto bad = MakeTransposeGather(Shape({2, 3}), {0, 0}, &out);
  auto ref = ops::RunSingleOp("Transpose", {Iota(Shape({2, 3})), Tensor::FromVector<int64_t>({0, 0})},
                              {{"T", MakeAttr(DType::kFloat)}, {"Tperm", MakeAttr(DType::kInt64)}});
  ExpectSameError(bad, ref.status(), "perm [0, 0]");
  TFHOST_EXPECT_ERROR(MakeTransposeGather(Shape({2, 3}), {0}, &out), StatusCode::kInvalidArgument, "2 entries");
}

TEST(LayoutFunctorsTest, SizeOneDimsAndContiguousRunsAreMergedAway) {
  Shape out;
  auto identity = MakeTransposeGather(Shape({1, 5, 1, 3}), {2, 1, 0, 3}, &out);
  ASSERT_TRUE(identity.ok());
  EXPECT_EQ(identity->rank, 1);
  EXPECT_TRUE(IsIdentityGather(*identity, 15));
  auto nchw = MakeTransposeGather(Shape({2, 4, 4, 3}), {0, 3, 1, 2}, &out);  // NHWC -> NCHW: H and W merge
  ASSERT_TRUE(nchw.ok());
  EXPECT_EQ(nchw->rank, 3);
  EXPECT_FALSE(IsIdentityGather(*nchw, 96));
  // Nine dims of 2 reversed cannot merge: more than the kernel indexes.
  std::vector<int64_t> perm = {8, 7, 6, 5, 4, 3, 2, 1, 0};
  TFHOST_EXPECT_ERROR(MakeTransposeGather(Shape({2, 2, 2, 2, 2, 2, 2, 2, 2}), perm, &out), StatusCode::kUnimplemented,
                      "at most 8 independent dims");
}

TEST(LayoutFunctorsTest, SliceMatchesTheReferenceOnRandomRanges) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 400; ++trial) {
    const int rank = static_cast<int>(rng() % 6);
    const Tensor x = Iota(Shape(RandomDims(rng, rank)));
    std::vector<int64_t> begin, size;
    for (int d = 0; d < rank; ++d) {
      const int64_t n = x.dim(d);
      begin.push_back(static_cast<int64_t>(rng() % (n + 1)) + (trial % 50 == 1 ? n + 1 : 0));
      const int64_t left = std::max<int64_t>(0, n - begin.back());
      size.push_back(rng() % 4 == 0 ? -1 : static_cast<int64_t>(rng() % (left + 1)) + (trial % 50 == 2 ? left + 1 : 0));
    }
    const std::string what = "Slice of " + x.shape().ToString() + " at " + Ints(begin) + " size " + Ints(size);
    auto ref = ops::RunSingleOp("Slice", {x, Tensor::FromVector<int64_t>(begin), Tensor::FromVector<int64_t>(size)},
                                {{"T", MakeAttr(DType::kFloat)}, {"Index", MakeAttr(DType::kInt64)}});
    Shape out;
    auto g = MakeSliceGather(x.shape(), begin, size, &out);
    if (!ref.ok()) {
      ExpectSameError(g, ref.status(), what);
      continue;
    }
    ASSERT_TRUE(g.ok()) << what << ": " << g.status().ToString();
    ASSERT_EQ(out, (*ref)[0].shape()) << what;
    ExpectGather(x, *g, (*ref)[0], what);
  }
}

TEST(LayoutFunctorsTest, StridedSliceMatchesTheReferenceWithEveryMask) {
  std::mt19937 rng(7);
  int checked = 0, refused = 0;
  for (int trial = 0; trial < 1500; ++trial) {
    const int rank = 1 + static_cast<int>(rng() % 5);
    const Tensor x = Iota(Shape(RandomDims(rng, rank)));
    const int m = 1 + static_cast<int>(rng() % (rank + 1));
    std::vector<int64_t> begin, end, strides;
    for (int k = 0; k < m; ++k) {
      const int64_t n = x.dim(std::min(k, rank - 1));
      begin.push_back(static_cast<int64_t>(rng() % (2 * n + 5)) - n - 2);
      end.push_back(static_cast<int64_t>(rng() % (2 * n + 5)) - n - 2);
      strides.push_back(trial % 97 == 0 ? 0 : (rng() % 2 ? 1 : -1) * (1 + static_cast<int64_t>(rng() % 3)));
    }
    ops::array::StridedSliceMasks masks;
    const int64_t all = (int64_t{1} << m) - 1;
    masks.begin_mask = rng() & all;
    masks.end_mask = rng() & all;
    masks.shrink_axis_mask = rng() % 3 == 0 ? rng() & all : 0;
    masks.new_axis_mask = rng() % 3 == 0 ? rng() & all : 0;
    masks.ellipsis_mask = rng() % 3 == 0 ? int64_t{1} << (rng() % m) : 0;
    const std::string what = "StridedSlice of " + x.shape().ToString() + " begin " + Ints(begin) + " end " +
                             Ints(end) + " strides " + Ints(strides) + " masks " + std::to_string(masks.begin_mask) +
                             "/" + std::to_string(masks.end_mask) + "/" + std::to_string(masks.ellipsis_mask) + "/" +
                             std::to_string(masks.new_axis_mask) + "/" + std::to_string(masks.shrink_axis_mask);
    auto ref = ops::RunSingleOp(
        "StridedSlice",
        {x, Tensor::FromVector<int64_t>(begin), Tensor::FromVector<int64_t>(end), Tensor::FromVector<int64_t>(strides)},
        {{"T", MakeAttr(DType::kFloat)}, {"Index", MakeAttr(DType::kInt64)},
         {"begin_mask", MakeAttr(masks.begin_mask)}, {"end_mask", MakeAttr(masks.end_mask)},
         {"ellipsis_mask", MakeAttr(masks.ellipsis_mask)}, {"new_axis_mask", MakeAttr(masks.new_axis_mask)},
         {"shrink_axis_mask", MakeAttr(masks.shrink_axis_mask)}});
    Shape out;
    auto g = MakeStridedSliceGather(x.shape(), begin, end, strides, masks, &out);
    if (!ref.ok()) {
      ExpectSameError(g, ref.status(), what);
      ++refused;
      continue;
    }
    ASSERT_TRUE(g.ok()) << what << ": " << g.status().ToString();
    ASSERT_EQ(out, (*ref)[0].shape()) << what;
    ExpectGather(x, *g, (*ref)[0], what);
    ++checked;
  }
  EXPECT_GT(checked, 1000);  // the masks' mix leaves most specs valid
  EXPECT_GT(refused, 10);
}

TEST(LayoutFunctorsTest, PadAndPadV2MatchTheReferenceOnRandomPaddings) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 400; ++trial) {
    const int rank = static_cast<int>(rng() % 10);
    const Tensor x = Iota(Shape(RandomDims(rng, rank, rank > 5)));
    std::vector<int64_t> pads;
    for (int d = 0; d < 2 * rank; ++d) pads.push_back(rng() % 3 == 0 ? static_cast<int64_t>(rng() % 3) : 0);
    const bool v2 = trial % 2 == 1;
    const float constant = v2 ? -7.25f : 0.0f;
    const std::string what = std::string(v2 ? "PadV2" : "Pad") + " of " + x.shape().ToString() + " by " + Ints(pads);
    std::vector<Tensor> inputs = {x, Tensor::FromVector<int64_t>(pads, Shape({static_cast<int64_t>(rank), 2}))};
    if (v2) inputs.push_back(Tensor::Scalar<float>(constant));
    auto ref = ops::RunSingleOp(v2 ? "PadV2" : "Pad", inputs,
                                {{"T", MakeAttr(DType::kFloat)}, {"Tpaddings", MakeAttr(DType::kInt64)}});
    ASSERT_TRUE(ref.ok()) << what << ": " << ref.status().ToString();
    Shape out;
    auto p = MakePadIndexing(x.shape(), pads, &out);
    if (!p.ok() && p.status().code() == StatusCode::kUnimplemented) continue;  // > 8 padded dims
    ASSERT_TRUE(p.ok()) << what << ": " << p.status().ToString();
    ASSERT_EQ(out, (*ref)[0].shape()) << what;
    ASSERT_EQ(p->count, out.num_elements()) << what;
    for (int64_t i = 0; i < p->count; ++i) {
      const int64_t src = PadSource(*p, i);
      ASSERT_LT(src, x.NumElements()) << what << " at " << i;
      ASSERT_EQ(src < 0 ? constant : x.data<float>()[src], (*ref)[0].data<float>()[i]) << what << " at " << i;
    }
  }
  Shape out;
  TFHOST_EXPECT_ERROR(MakePadIndexing(Shape({2}), {1, -1}, &out), StatusCode::kInvalidArgument,
                      "paddings [1, -1] must be non-negative");
}

TEST(LayoutFunctorsTest, ConcatV2MatchesTheReferenceOnRandomPieces) {
  std::mt19937 rng(13);
  for (int trial = 0; trial < 300; ++trial) {
    const int rank = 1 + static_cast<int>(rng() % 4);
    const int n = 2 + static_cast<int>(rng() % 3);
    const int64_t axis = static_cast<int64_t>(rng() % (2 * rank)) - rank;
    const int a = static_cast<int>(axis < 0 ? axis + rank : axis);
    const std::vector<int64_t> base = RandomDims(rng, rank);
    std::vector<Tensor> inputs;
    std::vector<Shape> shapes;
    std::string what = "ConcatV2 on axis " + std::to_string(axis) + " of";
    for (int k = 0; k < n; ++k) {
      std::vector<int64_t> dims = base;
      dims[a] = static_cast<int64_t>(rng() % 4);
      Tensor t = Iota(Shape(dims));
      for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] += 1000.0f * k;
      inputs.push_back(t);
      shapes.push_back(t.shape());
      what += " " + t.shape().ToString();
    }
    inputs.push_back(Tensor::Scalar<int64_t>(axis));
    auto ref = ops::RunSingleOp("ConcatV2", inputs,
                                {{"T", MakeAttr(DType::kFloat)}, {"Tidx", MakeAttr(DType::kInt64)}, {"N", MakeAttr(n)}});
    ASSERT_TRUE(ref.ok()) << what << ": " << ref.status().ToString();
    Shape out;
    auto plan = MakeConcatPlan(shapes, axis, &out);
    ASSERT_TRUE(plan.ok()) << what << ": " << plan.status().ToString();
    ASSERT_EQ(out, (*ref)[0].shape()) << what;
    std::vector<float> got(out.num_elements(), std::numeric_limits<float>::quiet_NaN());
    for (int k = 0; k < n; ++k) {
      for (int64_t i = 0; i < plan->outer * plan->rows[k]; ++i) {
        const int64_t dst = ConcatDest(i, plan->rows[k], plan->out_row, plan->columns[k]);
        ASSERT_TRUE(dst >= 0 && dst < out.num_elements()) << what << ": piece " << k << " element " << i;
        got[dst] = inputs[k].data<float>()[i];
      }
    }
    for (int64_t i = 0; i < out.num_elements(); ++i) ASSERT_EQ(got[i], (*ref)[0].data<float>()[i]) << what << " at " << i;
  }
  Shape out;
  auto bad = MakeConcatPlan({Shape({2, 3}), Shape({3, 3})}, 1, &out);
  auto ref = ops::RunSingleOp("ConcatV2", {Iota(Shape({2, 3})), Iota(Shape({3, 3})), Tensor::Scalar<int64_t>(1)},
                              {{"T", MakeAttr(DType::kFloat)}, {"Tidx", MakeAttr(DType::kInt64)}, {"N", MakeAttr(2)}});
  ExpectSameError(bad, ref.status(), "mismatched pieces");
}

TEST(LayoutFunctorsTest, GatherV2MatchesTheReferenceAndFindsItsFirstBadIndex) {
  std::mt19937 rng(17);
  for (int trial = 0; trial < 400; ++trial) {
    const int prank = 1 + static_cast<int>(rng() % 4), irank = static_cast<int>(rng() % 3);
    const Tensor params = Iota(Shape(RandomDims(rng, prank)));
    const int64_t axis = static_cast<int64_t>(rng() % (2 * prank)) - prank;
    const int64_t limit = params.dim(static_cast<int>(axis < 0 ? axis + prank : axis));
    const Shape ishape(RandomDims(rng, irank));
    const bool with_bad = trial % 5 == 0;
    std::vector<int64_t> idx(ishape.num_elements());
    for (auto& v : idx) v = limit > 0 ? static_cast<int64_t>(rng() % limit) : 0;
    for (auto& v : idx) {
      if (with_bad && rng() % 3 == 0) v = rng() % 2 ? -1 - static_cast<int64_t>(rng() % 3) : limit + (rng() % 3);
    }
    const bool wide = trial % 2 == 0;
    Tensor indices(wide ? DType::kInt64 : DType::kInt32, ishape);
    for (size_t j = 0; j < idx.size(); ++j) {
      if (wide) indices.data<int64_t>()[j] = idx[j];
      else indices.data<int32_t>()[j] = static_cast<int32_t>(idx[j]);
    }
    const std::string what = "GatherV2 of " + params.shape().ToString() + " on axis " + std::to_string(axis) +
                             " by " + Ints(idx) + " shaped " + ishape.ToString();
    auto ref = ops::RunSingleOp("GatherV2", {params, indices, Tensor::Scalar<int64_t>(axis)},
                                {{"Tparams", MakeAttr(DType::kFloat)},
                                 {"Tindices", MakeAttr(wide ? DType::kInt64 : DType::kInt32)},
                                 {"Taxis", MakeAttr(DType::kInt64)}});
    Shape out;
    auto g = MakeGatherIndexing(params.shape(), ishape, axis, &out);
    ASSERT_TRUE(g.ok()) << what << ": " << g.status().ToString();
    // The check kernel's verdict: the smallest position of a bad index.
    int64_t first_bad = -1;
    for (int64_t j = 0; j < g->n && first_bad < 0; ++j) {
      if (!GatherIndexOk(*g, idx[j])) first_bad = j;
    }
    if (first_bad >= 0) {
      ASSERT_FALSE(ref.ok()) << what;
      EXPECT_NE(ref.status().message().find("indices[" + std::to_string(first_bad) + "] = " +
                                            std::to_string(idx[first_bad]) + " is not in [0, " +
                                            std::to_string(limit) + ")"),
                std::string::npos)
          << what << ": " << ref.status().message();
      continue;
    }
    ASSERT_TRUE(ref.ok()) << what << ": " << ref.status().ToString();
    ASSERT_EQ(out, (*ref)[0].shape()) << what;
    ASSERT_EQ(g->count, out.num_elements()) << what;
    for (int64_t i = 0; i < g->count; ++i) {
      const int64_t src = GatherV2Source(*g, i, idx[GatherPosition(*g, i)]);
      ASSERT_TRUE(src >= 0 && src < params.NumElements()) << what << " at " << i;
      ASSERT_EQ(params.data<float>()[src], (*ref)[0].data<float>()[i]) << what << " at " << i;
    }
  }
}

// Values of each type that probe Cast's edges: every float16 and bfloat16,
// floats around every rounding boundary, integer extremes.
Tensor CastInputs(CastType type, std::mt19937& rng) {
  switch (type) {
    case CastType::kHalf:
    case CastType::kBFloat16: {
      Tensor t(type == CastType::kHalf ? DType::kHalf : DType::kBFloat16, Shape({65536}));
      for (int i = 0; i < 65536; ++i) t.data<uint16_t>()[i] = static_cast<uint16_t>(i);
      return t;
    }
    case CastType::kFloat: {
      std::vector<float> v = {0.0f, -0.0f, 1.0f, -1.0f, 0.5f, -0.5f, 1.5f, -2.5f, 65504.0f, 65519.99f, 65520.0f,
                              -65520.0f, 2147483520.0f, 2147483648.0f, -2147483648.0f, -2147483904.0f,
                              9.2233720e18f, -9.2233720e18f, 3.0e38f, 1e-8f, 5.96e-8f, 2.98e-8f, 6.1e-5f,
                              std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::infinity(),
                              -std::numeric_limits<float>::infinity(), std::numeric_limits<float>::quiet_NaN(),
                              -std::numeric_limits<float>::quiet_NaN()};
      // Bit patterns over the whole range, each with low bits at, around and
      // past float16's (bit 12) and bfloat16's (bit 15) half-way points.
      const uint32_t lows[] = {0x0000, 0x0fff, 0x1000, 0x1001, 0x7fff, 0x8000, 0x8001, 0x3000};
      for (uint32_t k = 0; k < (1u << 16); ++k) {
        for (uint32_t low : lows) {
          const uint32_t u = (k << 16) | low;
          float f;
          std::memcpy(&f, &u, 4);
          v.push_back(f);
        }
      }
      for (int i = 0; i < 100000; ++i) {
        const uint32_t u = static_cast<uint32_t>(rng());
        float f;
        std::memcpy(&f, &u, 4);
        v.push_back(f);
      }
      return Tensor::FromVector<float>(v);
    }
    case CastType::kInt32: {
      std::vector<int32_t> v = {0, 1, -1, 2, INT32_MAX, INT32_MIN, INT32_MAX - 64, 16777217, -16777217, 65504,
                                65519, 65520, 65536, -65520, 33554435};
      for (int i = 0; i < 20000; ++i) v.push_back(static_cast<int32_t>(rng()) >> (rng() % 31));
      return Tensor::FromVector<int32_t>(v);
    }
    case CastType::kInt64: {
      std::vector<int64_t> v = {0, 1, -1, INT64_MAX, INT64_MIN, int64_t{1} << 31, -(int64_t{1} << 31) - 1,
                                (int64_t{1} << 53) + 1, (int64_t{1} << 24) + 1, 4294967297, -4294967297};
      for (int i = 0; i < 20000; ++i) {
        v.push_back(static_cast<int64_t>((uint64_t{rng()} << 32) | rng()) >> (rng() % 63));
      }
      return Tensor::FromVector<int64_t>(v);
    }
    case CastType::kBool: {
      Tensor t(DType::kBool, Shape({2}));
      t.data<bool>()[0] = false;
      t.data<bool>()[1] = true;
      return t;
    }
  }
  return Tensor();
}

TEST(LayoutFunctorsTest, CastMatchesTheReferenceBitForBitOnEveryPair) {
  std::mt19937 rng(19);
  const DType dtypes[] = {DType::kFloat, DType::kHalf, DType::kBFloat16, DType::kInt32, DType::kInt64, DType::kBool};
  for (DType src : dtypes) {
    CastType s;
    ASSERT_TRUE(CastTypeOf(src, &s));
    const Tensor x = CastInputs(s, rng);
    for (DType dst : dtypes) {
      CastType d;
      ASSERT_TRUE(CastTypeOf(dst, &d));
      if (src == dst) continue;
      for (bool truncate : {false, true}) {
        const std::string what = "Cast " + DTypeShortName(src) + " -> " + DTypeShortName(dst) +
                                 (truncate ? " (Truncate)" : "");
        auto ref = ops::RunSingleOp("Cast", {x}, {{"SrcT", MakeAttr(src)}, {"DstT", MakeAttr(dst)},
                                                  {"Truncate", MakeAttr(truncate)}});
        ASSERT_TRUE(ref.ok()) << what << ": " << ref.status().ToString();
        const Tensor& want = (*ref)[0];
        ASSERT_EQ(want.dtype(), dst) << what;
        const size_t bytes = DTypeSize(dst);
        int64_t mismatches = 0;
        VisitCastPair(s, d, [&](auto st, auto dt) {
          using S = decltype(st);
          using D = decltype(dt);
          if constexpr (S::value != D::value) {
            const auto* in = static_cast<const typename S::type*>(x.raw_data());
            for (int64_t i = 0; i < x.NumElements(); ++i) {
              const typename D::type got = CastOne<S::value, D::value>(in[i], truncate);
              if (std::memcmp(&got, static_cast<const char*>(want.raw_data()) + i * bytes, bytes) != 0 &&
                  mismatches++ < 5) {
                uint64_t src_bits = 0, want_bits = 0, got_bits = 0;
                std::memcpy(&src_bits, &in[i], sizeof(in[i]));
                std::memcpy(&want_bits, static_cast<const char*>(want.raw_data()) + i * bytes, bytes);
                std::memcpy(&got_bits, &got, bytes);
                ADD_FAILURE() << what << ": input bits 0x" << std::hex << src_bits << " gave 0x" << got_bits
                              << ", reference 0x" << want_bits;
              }
            }
          }
        });
        EXPECT_EQ(mismatches, 0) << what;
      }
    }
  }
  CastType none;
  EXPECT_FALSE(CastTypeOf(DType::kDouble, &none));
  EXPECT_FALSE(CastTypeOf(DType::kString, &none));
}

}  // namespace
}  // namespace tfhost::backends::cuda
