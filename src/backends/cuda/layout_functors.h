// The CUDA backend's data-movement ops (Transpose, ConcatV2, Slice,
// StridedSlice, Pad/PadV2, GatherV2) and Cast: where each output element
// comes from, and Cast's conversions, written once for the device and the
// host, where layout_functors_test.cc runs them against the reference
// kernels. The host-only half builds the indexing from a node's shapes and
// index inputs, validating them with the reference kernels' messages.
//   - StridedGather (Transpose, Slice, StridedSlice): output element i, in
//     row-major order over `dims`, reads offset + sum_d coord_d(i) *
//     strides[d] (strides may be negative). Size-1 dims are dropped and
//     neighbours that step as one merged: any rank with at most
//     kLayoutMaxRank independent dims fits. PadIndexing likewise.
//   - ConcatDest places one [outer, row] input in the [outer, out_row] output;
//     GatherIndexing views params as [outer, limit, inner], indices as [n].
// Elements move as 1/2/4/8-byte words, whatever their dtype. Cast follows
// the reference: the 16-bit floats through float32, round to nearest even
// (bfloat16 truncates with Truncate), float to int saturating with NaN -> 0,
// x -> bool as x != 0.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <cstring>

#include "backends/cuda/elementwise_functors.h"

#if !defined(__CUDACC__)
#include <string>
#include <vector>

#include "base/shape.h"
#include "base/status.h"
#include "ops/array/array_util.h"
#include "ops/array/strided_slice.h"
#endif

namespace tfhost::backends::cuda {

constexpr int kLayoutMaxRank = 8;

struct StridedGather {
  int rank = 0;
  int64_t dims[kLayoutMaxRank] = {};
  int64_t strides[kLayoutMaxRank] = {};
  int64_t offset = 0;
  int64_t count = 0;  // output elements
};

TFHOST_HD int64_t GatherSource(const StridedGather& g, int64_t i) {
  return g.offset + StridedOffset(g.dims, g.strides, g.rank, i);
}

struct PadIndexing {
  int rank = 0;
  int64_t out_dims[kLayoutMaxRank] = {};
  int64_t before[kLayoutMaxRank] = {};
  int64_t in_dims[kLayoutMaxRank] = {};
  int64_t in_strides[kLayoutMaxRank] = {};
  int64_t count = 0;  // output elements
};

// The input element output element i copies, or -1 where it is padding.
TFHOST_HD int64_t PadSource(const PadIndexing& p, int64_t i) {
  int64_t src = 0;
  for (int d = p.rank - 1; d >= 0; --d) {
    const int64_t c = i % p.out_dims[d] - p.before[d];
    i /= p.out_dims[d];
    if (c < 0 || c >= p.in_dims[d]) return -1;
    src += c * p.in_strides[d];
  }
  return src;
}

// Element i of a piece of `row` elements per outer index, placed at
// `column` in output rows of `out_row` elements.
TFHOST_HD int64_t ConcatDest(int64_t i, int64_t row, int64_t out_row, int64_t column) {
  return (i / row) * out_row + column + i % row;
}

struct GatherIndexing {
  int64_t outer = 1, limit = 0, inner = 1;
  int64_t n = 0;      // indices
  int64_t count = 0;  // output elements: outer * n * inner
};

TFHOST_HD bool GatherIndexOk(const GatherIndexing& g, int64_t index) { return index >= 0 && index < g.limit; }
// The index output element i uses.
TFHOST_HD int64_t GatherPosition(const GatherIndexing& g, int64_t i) { return (i / g.inner) % g.n; }
// Its params element, given indices[GatherPosition(i)]; -1 for a bad index,
// which the kernel never reads through (the call fails).
TFHOST_HD int64_t GatherV2Source(const GatherIndexing& g, int64_t i, int64_t index) {
  if (!GatherIndexOk(g, index)) return -1;
  const int64_t o = i / (g.inner * g.n);
  return (o * g.limit + index) * g.inner + i % g.inner;
}

// --- Cast ---

enum class CastType : int { kFloat, kHalf, kBFloat16, kInt32, kInt64, kBool };

template <CastType> struct CastStorage { using type = uint16_t; };  // kHalf, kBFloat16: their bits
template <> struct CastStorage<CastType::kFloat> { using type = float; };
template <> struct CastStorage<CastType::kInt32> { using type = int32_t; };
template <> struct CastStorage<CastType::kInt64> { using type = int64_t; };
template <> struct CastStorage<CastType::kBool> { using type = uint8_t; };

template <CastType kType>
struct CastTag {
  static constexpr CastType value = kType;
  using type = typename CastStorage<kType>::type;
};

TFHOST_HD uint32_t BitsOfFloat(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
TFHOST_HD float FloatOfBits(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }

TFHOST_HD float HalfBitsToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
  if (exponent == 0) {  // zero or subnormal: mantissa units of 2^-24, exact in float
    const float v = static_cast<float>(mantissa) * 0x1p-24f;
    return sign != 0 ? -v : v;
  }
  if (exponent == 31) return FloatOfBits(sign | 0x7f800000u | (mantissa << 13));
  return FloatOfBits(sign | ((exponent + 112) << 23) | (mantissa << 13));
}

// Round to nearest even; NaN becomes the quiet NaN of its sign.
TFHOST_HD uint16_t FloatToHalfBits(float f) {
  const uint32_t u = BitsOfFloat(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t a = u & 0x7fffffffu;
  if (a > 0x7f800000u) return sign | 0x7e00u;
  if (a >= 0x477ff000u) return sign | 0x7c00u;  // 65520 and up (inf included) round to inf
  const int exponent = static_cast<int>(a >> 23);
  if (exponent < 102) return sign;  // below 2^-25, half the smallest subnormal: zero
  // A normal half keeps 10 of the 23 mantissa bits, its exponent rebiased
  // from 127 to 15; a subnormal one counts units of 2^-24, so the implicit
  // bit joins the mantissa and more bits go. `drop` bits are rounded off.
  uint32_t bits, drop;
  if (exponent >= 113) {
    bits = a - (uint32_t{112} << 23);
    drop = 13;
  } else {
    bits = (a & 0x7fffffu) | 0x800000u;
    drop = static_cast<uint32_t>(126 - exponent);
  }
  uint32_t kept = bits >> drop;
  const uint32_t rest = bits & ((uint32_t{1} << drop) - 1), half_way = uint32_t{1} << (drop - 1);
  if (rest > half_way || (rest == half_way && (kept & 1u) != 0)) ++kept;  // a carry rounds up the exponent
  return static_cast<uint16_t>(sign | kept);
}

TFHOST_HD float BFloat16BitsToFloat(uint16_t b) { return FloatOfBits(static_cast<uint32_t>(b) << 16); }

// Round to nearest even, or keep the upper half (truncate); NaN stays a
// quiet NaN either way.
TFHOST_HD uint16_t FloatToBFloat16Bits(float f, bool truncate) {
  const uint32_t u = BitsOfFloat(f);
  if (f != f) return static_cast<uint16_t>((u >> 16) | 0x40u);
  if (truncate) return static_cast<uint16_t>(u >> 16);
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

template <typename I>
TFHOST_HD I SaturatingFloatToInt(float x, I lowest, I highest) {
  if (x != x) return 0;
  if (x <= static_cast<float>(lowest)) return lowest;
  if (x >= static_cast<float>(highest)) return highest;
  return static_cast<I>(x);  // toward zero
}

template <CastType kDst>
TFHOST_HD typename CastStorage<kDst>::type CastFromFloat(float f, bool truncate) {
  if constexpr (kDst == CastType::kFloat) return f;
  else if constexpr (kDst == CastType::kHalf) return FloatToHalfBits(f);
  else if constexpr (kDst == CastType::kBFloat16) return FloatToBFloat16Bits(f, truncate);
  else if constexpr (kDst == CastType::kInt32) return SaturatingFloatToInt<int32_t>(f, INT32_MIN, INT32_MAX);
  else if constexpr (kDst == CastType::kInt64) return SaturatingFloatToInt<int64_t>(f, INT64_MIN, INT64_MAX);
  else return static_cast<uint8_t>(f != 0.0f);  // NaN is true
}

// Integers wrap (int64 -> int32) or widen; the 16-bit floats go through float.
template <CastType kDst, typename Int>
TFHOST_HD typename CastStorage<kDst>::type CastFromInt(Int v, bool truncate) {
  if constexpr (kDst == CastType::kInt32) return static_cast<int32_t>(v);
  else if constexpr (kDst == CastType::kInt64) return static_cast<int64_t>(v);
  else if constexpr (kDst == CastType::kBool) return static_cast<uint8_t>(v != 0);
  else return CastFromFloat<kDst>(static_cast<float>(v), truncate);
}

// One element from kSrc to kDst (different types). A bool is read as a
// byte, any non-zero one true.
template <CastType kSrc, CastType kDst>
TFHOST_HD typename CastStorage<kDst>::type CastOne(typename CastStorage<kSrc>::type x, bool truncate) {
  if constexpr (kSrc == CastType::kFloat) return CastFromFloat<kDst>(x, truncate);
  else if constexpr (kSrc == CastType::kHalf) return CastFromFloat<kDst>(HalfBitsToFloat(x), truncate);
  else if constexpr (kSrc == CastType::kBFloat16) return CastFromFloat<kDst>(BFloat16BitsToFloat(x), truncate);
  else if constexpr (kSrc == CastType::kBool) return CastFromInt<kDst>(static_cast<int32_t>(x != 0), truncate);
  else return CastFromInt<kDst>(x, truncate);
}

// Calls fn(CastTag<t>()).
template <typename Fn>
void WithCastTag(CastType t, Fn&& fn) {
  switch (t) {
    case CastType::kFloat: return fn(CastTag<CastType::kFloat>());
    case CastType::kHalf: return fn(CastTag<CastType::kHalf>());
    case CastType::kBFloat16: return fn(CastTag<CastType::kBFloat16>());
    case CastType::kInt32: return fn(CastTag<CastType::kInt32>());
    case CastType::kInt64: return fn(CastTag<CastType::kInt64>());
    case CastType::kBool: return fn(CastTag<CastType::kBool>());
  }
}

// Calls fn(CastTag<src>(), CastTag<dst>()): the launcher's and the test's
// one dispatch over the pairs.
template <typename Fn>
void VisitCastPair(CastType src, CastType dst, Fn&& fn) {
  WithCastTag(src, [&](auto s) { WithCastTag(dst, [&](auto d) { fn(s, d); }); });
}

#if !defined(__CUDACC__)
using ops::array::JoinInts;
using ops::array::RowMajorStrides;

// The CastType of a DType; false for those the GPU does not cast.
inline bool CastTypeOf(DType t, CastType* c) {
  switch (t) {
    case DType::kFloat: *c = CastType::kFloat; return true;
    case DType::kHalf: *c = CastType::kHalf; return true;
    case DType::kBFloat16: *c = CastType::kBFloat16; return true;
    case DType::kInt32: *c = CastType::kInt32; return true;
    case DType::kInt64: *c = CastType::kInt64; return true;
    case DType::kBool: *c = CastType::kBool; return true;
    default: return false;
  }
}

// An axis in [-rank, rank) as [0, rank), or the reference's error.
inline StatusOr<int> LayoutAxis(int64_t axis, int rank) {
  if (axis < -rank || axis >= rank) {
    return InvalidArgument("axis " + std::to_string(axis) + " is out of range; expected a value in [" +
                           std::to_string(-rank) + ", " + std::to_string(rank) + ") for rank " + std::to_string(rank));
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

// The product of dims [first, last) of `shape`.
inline int64_t DimsProduct(const std::vector<int64_t>& dims, int first, int last) {
  return Shape(std::vector<int64_t>(dims.begin() + first, dims.begin() + last)).num_elements();
}

// Packs a gather over `dims` (the output's, row-major) reading the input at
// `offset` + coord . `strides`, dropping size-1 dims and merging neighbours.
inline StatusOr<StridedGather> PackGather(const std::vector<int64_t>& dims, const std::vector<int64_t>& strides,
                                          int64_t offset) {
  StridedGather g;
  g.offset = offset;
  g.count = Shape(dims).num_elements();
  std::vector<int64_t> d_out, s_out;  // innermost first
  for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
    if (dims[d] == 1) continue;
    if (!d_out.empty() && strides[d] == s_out.back() * d_out.back()) {
      d_out.back() *= dims[d];
    } else {
      d_out.push_back(dims[d]);
      s_out.push_back(strides[d]);
    }
  }
  if (g.count == 0) return g;
  if (d_out.size() > kLayoutMaxRank) {
    return Unimplemented("the GPU moves at most " + std::to_string(kLayoutMaxRank) +
                         " independent dims, got " + Shape(dims).ToString() + " with strides " + JoinInts(strides));
  }
  g.rank = static_cast<int>(d_out.size());
  for (int k = 0; k < g.rank; ++k) {
    g.dims[k] = d_out[g.rank - 1 - k];
    g.strides[k] = s_out[g.rank - 1 - k];
  }
  return g;
}

// Whether the gather reads the whole input in order (the output can share it).
inline bool IsIdentityGather(const StridedGather& g, int64_t input_elements) {
  return g.offset == 0 && g.count == input_elements && (g.rank == 0 || (g.rank == 1 && g.strides[0] == 1));
}

inline StatusOr<StridedGather> MakeTransposeGather(const Shape& x, const std::vector<int64_t>& perm, Shape* out) {
  const int rank = x.rank();
  if (static_cast<int>(perm.size()) != rank) {
    return InvalidArgument("perm " + JoinInts(perm) + " must have " + std::to_string(rank) + " entries");
  }
  std::vector<bool> seen(rank, false);
  for (int64_t p : perm) {
    if (p < 0 || p >= rank || seen[p]) {
      return InvalidArgument("perm " + JoinInts(perm) + " is not a permutation of [0, " + std::to_string(rank) + ")");
    }
    seen[p] = true;
  }
  const std::vector<int64_t> in_strides = RowMajorStrides(x);
  std::vector<int64_t> dims(rank), strides(rank);
  for (int d = 0; d < rank; ++d) {
    dims[d] = x.dim(static_cast<int>(perm[d]));
    strides[d] = in_strides[perm[d]];
  }
  *out = Shape(dims);
  return PackGather(dims, strides, 0);
}

// Slice: size -1 means "to the end of the dim".
inline StatusOr<StridedGather> MakeSliceGather(const Shape& x, const std::vector<int64_t>& begin,
                                               std::vector<int64_t> size, Shape* out) {
  const int rank = x.rank();
  if (static_cast<int>(begin.size()) != rank || static_cast<int>(size.size()) != rank) {
    return InvalidArgument("begin " + JoinInts(begin) + " and size " + JoinInts(size) +
                           " must be 1-D with one entry per dim of input shape " + x.ToString());
  }
  const std::vector<int64_t> in_strides = RowMajorStrides(x);
  int64_t offset = 0;
  for (int d = 0; d < rank; ++d) {
    const int64_t n = x.dim(d);
    if (begin[d] < 0 || begin[d] > n) {
      return InvalidArgument("begin[" + std::to_string(d) + "] = " + std::to_string(begin[d]) +
                             " is out of range; expected a value in [0, " + std::to_string(n) +
                             "] for input shape " + x.ToString());
    }
    if (size[d] == -1) size[d] = n - begin[d];
    if (size[d] < 0 || size[d] > n - begin[d]) {
      return InvalidArgument("size[" + std::to_string(d) + "] = " + std::to_string(size[d]) +
                             " is out of range; expected -1 or a value in [0, " + std::to_string(n - begin[d]) +
                             "] for begin " + JoinInts(begin) + " and input shape " + x.ToString());
    }
    offset += begin[d] * in_strides[d];
  }
  *out = Shape(size);
  return PackGather(size, in_strides, offset);
}

// StridedSlice, every mask included: the spec is resolved by the reference
// kernel's own ops::array::ResolveStridedSlice.
inline StatusOr<StridedGather> MakeStridedSliceGather(const Shape& x, const std::vector<int64_t>& begin,
                                                      const std::vector<int64_t>& end,
                                                      const std::vector<int64_t>& strides,
                                                      const ops::array::StridedSliceMasks& masks, Shape* out) {
  auto r = ops::array::ResolveStridedSlice(x, begin, end, strides, masks);
  if (!r.ok()) {
    return Status(r.status().code(), r.status().message() + " (input shape " + x.ToString() + ", begin " +
                                         JoinInts(begin) + ", end " + JoinInts(end) + ", strides " +
                                         JoinInts(strides) + ")");
  }
  const std::vector<int64_t> in_strides = RowMajorStrides(x);
  std::vector<int64_t> steps(x.rank());
  int64_t offset = 0;
  for (int d = 0; d < x.rank(); ++d) {
    offset += r->begin[d] * in_strides[d];
    steps[d] = r->strides[d] * in_strides[d];
  }
  *out = Shape(r->output_dims);
  return PackGather(r->sizes, steps, offset);
}

// Pad/PadV2: `pads` holds (before, after) per dim, as the [rank, 2] input.
inline StatusOr<PadIndexing> MakePadIndexing(const Shape& x, const std::vector<int64_t>& pads, Shape* out) {
  const int rank = x.rank();
  for (int64_t v : pads) {
    if (v < 0) return InvalidArgument("paddings " + JoinInts(pads) + " must be non-negative");
    if (v > (int64_t{1} << 40)) return InvalidArgument("paddings " + JoinInts(pads) + " is too large");
  }
  std::vector<int64_t> out_dims(rank);
  for (int d = 0; d < rank; ++d) out_dims[d] = pads[2 * d] + x.dim(d) + pads[2 * d + 1];
  TFHOST_ASSIGN_OR_RETURN(*out, MakeShape(out_dims, "padded output"));
  PadIndexing p;
  p.count = out->num_elements();
  const std::vector<int64_t> in_strides = RowMajorStrides(x);
  // Innermost first; an unpadded dim folds into the one before it, whose
  // padding then counts in blocks of the folded size.
  std::vector<int64_t> od, bd, id, sd;
  for (int d = rank - 1; d >= 0; --d) {
    const bool unpadded = pads[2 * d] == 0 && pads[2 * d + 1] == 0;
    if (unpadded && x.dim(d) == 1) continue;
    if (!od.empty() && bd.back() == 0 && od.back() == id.back() && sd.back() * id.back() == in_strides[d]) {
      od.back() *= out_dims[d];
      bd.back() = pads[2 * d] * id.back();
      id.back() *= x.dim(d);
      continue;
    }
    od.push_back(out_dims[d]);
    bd.push_back(pads[2 * d]);
    id.push_back(x.dim(d));
    sd.push_back(in_strides[d]);
  }
  if (p.count == 0) return p;
  if (od.size() > kLayoutMaxRank) {
    return Unimplemented("the GPU pads at most " + std::to_string(kLayoutMaxRank) + " padded dims, got paddings " +
                         JoinInts(pads) + " for " + x.ToString());
  }
  p.rank = static_cast<int>(od.size());
  for (int k = 0; k < p.rank; ++k) {
    const int j = p.rank - 1 - k;
    p.out_dims[k] = od[j];
    p.before[k] = bd[j];
    p.in_dims[k] = id[j];
    p.in_strides[k] = sd[j];
  }
  return p;
}

// ConcatV2 along `axis_value`: input k as [outer, rows[k]] at columns[k]
// of the [outer, out_row] output.
struct ConcatPlan {
  int64_t outer = 0, out_row = 0;
  std::vector<int64_t> rows, columns;
};

inline StatusOr<ConcatPlan> MakeConcatPlan(const std::vector<Shape>& shapes, int64_t axis_value, Shape* out) {
  const Shape& ref = shapes[0];
  const int rank = ref.rank();
  if (rank == 0) return InvalidArgument("cannot concatenate scalars; use Pack");
  TFHOST_ASSIGN_OR_RETURN(const int axis, LayoutAxis(axis_value, rank));
  ConcatPlan plan;
  int64_t total = 0;
  for (size_t k = 0; k < shapes.size(); ++k) {
    const Shape& t = shapes[k];
    bool same = t.rank() == rank;
    for (int d = 0; same && d < rank; ++d) same = d == axis || t.dim(d) == ref.dim(d);
    if (!same) {
      return InvalidArgument("value " + std::to_string(k) + " has shape " + t.ToString() +
                             ", which does not match value 0's shape " + ref.ToString() +
                             " in every dimension but axis " + std::to_string(axis));
    }
    total += t.dim(axis);
  }
  std::vector<int64_t> dims = ref.dims();
  dims[axis] = total;
  TFHOST_ASSIGN_OR_RETURN(*out, MakeShape(dims, "concat output"));
  plan.outer = DimsProduct(dims, 0, axis);
  plan.out_row = DimsProduct(dims, axis, rank);
  int64_t column = 0;
  for (const Shape& t : shapes) {
    const int64_t row = DimsProduct(t.dims(), axis, rank);
    plan.rows.push_back(row);
    plan.columns.push_back(column);
    column += row;
  }
  return plan;
}

// GatherV2 with batch_dims 0; the indices' values are checked by the kernel.
inline StatusOr<GatherIndexing> MakeGatherIndexing(const Shape& params, const Shape& indices, int64_t axis_value,
                                                   Shape* out) {
  const int rank = params.rank();
  if (rank == 0) return InvalidArgument("params must be at least 1-D, got a scalar");
  TFHOST_ASSIGN_OR_RETURN(const int axis, LayoutAxis(axis_value, rank));
  std::vector<int64_t> dims(params.dims().begin(), params.dims().begin() + axis);
  for (int64_t d : indices.dims()) dims.push_back(d);
  for (int d = axis + 1; d < rank; ++d) dims.push_back(params.dim(d));
  TFHOST_ASSIGN_OR_RETURN(*out, MakeShape(dims, "gather output"));
  GatherIndexing g;
  g.limit = params.dim(axis);
  g.n = indices.num_elements();
  g.count = out->num_elements();
  if (g.count > 0) {  // else the other products need not fit in int64
    g.outer = DimsProduct(params.dims(), 0, axis);
    g.inner = DimsProduct(params.dims(), axis + 1, rank);
  }
  return g;
}
#endif

}  // namespace tfhost::backends::cuda
