// The CUDA backend's float32 reductions (Sum, Mean, Max, Min, Prod over a
// set of axes, keep_dims or not): how an output element finds its input
// elements, and the math of combining them, written once for the device and
// the host, where reduce_functors_test.cc runs them against the reference
// kernels on random shapes and axes.
//
// Indexing: the input's kept dims give an output element's base offset, and
// the reduced dims, walked in row-major order, its R inputs. When the reduced
// dims are the input's last ones (a layer norm's statistics, a softmax-like
// row), the kernel instead gives each row to one block.
//
// Semantics as the reference kernels': Max and Min propagate NaN; an empty
// reduction gives the identity (0, 1, -inf, +inf), and Mean's is NaN (0/0).
// The device sums in float where the reference sums in double.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/cuda/elementwise_functors.h"

#if !defined(__CUDACC__)
#include "base/shape.h"
#include "base/status.h"
#endif

namespace tfhost::backends::cuda {

enum class ReduceOp : int { kSum, kMean, kMax, kMin, kProd };

struct ReduceIndexing {
  static constexpr int kMaxRank = 8;
  int kept_rank = 0;
  int64_t kept_dims[kMaxRank] = {};
  int64_t kept_strides[kMaxRank] = {};  // in the input
  int reduced_rank = 0;
  int64_t reduced_dims[kMaxRank] = {};
  int64_t reduced_strides[kMaxRank] = {};
  int64_t count = 1;    // inputs per output element
  int64_t outputs = 1;  // output elements
  bool rows = false;    // the reduced dims are the last ones: output o reads [o * count, (o + 1) * count)
};

TFHOST_HD float ReduceInit(ReduceOp op) {
  switch (op) {
    case ReduceOp::kProd: return 1.0f;
    case ReduceOp::kMax: return -INFINITY;
    case ReduceOp::kMin: return INFINITY;
    default: return 0.0f;
  }
}

TFHOST_HD float ReduceCombine(ReduceOp op, float acc, float v) {
  switch (op) {
    case ReduceOp::kProd: return acc * v;
    case ReduceOp::kMax: return (acc != acc || v != v) ? acc + v : (v > acc ? v : acc);
    case ReduceOp::kMin: return (acc != acc || v != v) ? acc + v : (v < acc ? v : acc);
    default: return acc + v;
  }
}

TFHOST_HD float ReduceFinish(ReduceOp op, float acc, int64_t count) {
  return op == ReduceOp::kMean ? acc / static_cast<float>(count) : acc;
}

// The offset of output element o's first input, and of its r-th.
TFHOST_HD int64_t ReduceBase(const ReduceIndexing& p, int64_t o) {
  return StridedOffset(p.kept_dims, p.kept_strides, p.kept_rank, o);
}
TFHOST_HD int64_t ReduceOffset(const ReduceIndexing& p, int64_t r) {
  return StridedOffset(p.reduced_dims, p.reduced_strides, p.reduced_rank, r);
}

// Output element o, its inputs combined in order (the generic kernel's way).
TFHOST_HD float ReduceOne(ReduceOp op, const ReduceIndexing& p, const float* x, int64_t o) {
  const int64_t base = ReduceBase(p, o);
  float acc = ReduceInit(op);
  for (int64_t r = 0; r < p.count; ++r) acc = ReduceCombine(op, acc, x[base + ReduceOffset(p, r)]);
  return ReduceFinish(op, acc, p.count);
}

#if !defined(__CUDACC__)
// "Sum", "Mean", "Max", "Min", "Prod"; false for the others.
inline bool ReduceOpOf(const std::string& name, ReduceOp* op) {
  static const struct { const char* name; ReduceOp op; } kOps[] = {{"Sum", ReduceOp::kSum},
                                                                   {"Mean", ReduceOp::kMean},
                                                                   {"Max", ReduceOp::kMax},
                                                                   {"Min", ReduceOp::kMin},
                                                                   {"Prod", ReduceOp::kProd}};
  for (const auto& e : kOps) {
    if (name == e.name) {
      *op = e.op;
      return true;
    }
  }
  return false;
}

// The indexing of a reduction of `x` over `axes` (each in [-rank, rank),
// no duplicates) and the output shape. InvalidArgument names a bad axis.
inline StatusOr<ReduceIndexing> MakeReduceIndexing(const Shape& x, const std::vector<int64_t>& axes, bool keep_dims,
                                                   Shape* out) {
  ReduceIndexing p;
  const int rank = x.rank();
  if (rank > ReduceIndexing::kMaxRank) {
    return InvalidArgument("the GPU reduces tensors of at most " + std::to_string(ReduceIndexing::kMaxRank) +
                           " dims, got " + x.ToString());
  }
  std::vector<bool> reduced(rank, false);
  for (int64_t a : axes) {
    const int64_t axis = a < 0 ? a + rank : a;
    if (axis < 0 || axis >= rank) {
      return InvalidArgument("Invalid reduction dimension (" + std::to_string(a) + " for input with " +
                             std::to_string(rank) + " dimension(s)");
    }
    if (reduced[axis]) return InvalidArgument("Axes contains duplicate dimension: " + std::to_string(a));
    reduced[axis] = true;
  }
  std::vector<int64_t> strides(rank, 1), out_dims;
  for (int d = rank - 2; d >= 0; --d) strides[d] = strides[d + 1] * x.dim(d + 1);
  int last_kept = -1;
  for (int d = 0; d < rank; ++d) {
    if (reduced[d]) {
      p.reduced_dims[p.reduced_rank] = x.dim(d);
      p.reduced_strides[p.reduced_rank++] = strides[d];
      p.count *= x.dim(d);
      if (keep_dims) out_dims.push_back(1);
    } else {
      p.kept_dims[p.kept_rank] = x.dim(d);
      p.kept_strides[p.kept_rank++] = strides[d];
      p.outputs *= x.dim(d);
      out_dims.push_back(x.dim(d));
      last_kept = d;
    }
  }
  bool tail = true;  // every reduced dim comes after every kept one
  for (int d = 0; d < last_kept; ++d) tail = tail && !reduced[d];
  p.rows = tail && p.reduced_rank > 0;
  *out = Shape(out_dims);
  return p;
}
#endif

}  // namespace tfhost::backends::cuda
