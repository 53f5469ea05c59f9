// Roll and ReverseSequence: element reorderings along axes.
//
//   Roll(input, shift, axis): output[..., (i + shift) mod n, ...] =
//     input[..., i, ...] per axis; shift and axis are scalars or equal-length
//     vectors, several shifts on one axis add up (Swin-style transformers,
//     tf.roll).
//   ReverseSequence(input, seq_lengths): for each b along batch_dim, the first
//     seq_lengths[b] entries along seq_dim are reversed and the rest kept
//     (TF1 bidirectional_dynamic_rnn with sequence_length).
#include "ops/array/array_util.h"

namespace tfhost::ops::array {
namespace {

Status Roll(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  TFHOST_RETURN_IF_ERROR(CheckMovable(ctx, input.dtype()));
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> shifts, ReadIndexVector(ctx, 1, "shift"));
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> axes, ReadIndexVector(ctx, 2, "axis"));
  if (ctx.input(1).rank() > 1 || ctx.input(2).rank() > 1 || shifts.size() != axes.size()) {
    return ctx.Error("shift and axis must be scalars or vectors of the same length, got " +
                     ctx.input(1).shape().ToString() + " and " + ctx.input(2).shape().ToString());
  }
  const int rank = input.rank();
  if (rank == 0 && !axes.empty()) return ctx.Error("input must be at least 1-D to roll");
  std::vector<int64_t> total(rank, 0);
  for (size_t k = 0; k < axes.size(); ++k) {
    TFHOST_ASSIGN_OR_RETURN(int axis, NormalizeAxis(ctx, axes[k], rank, "axis"));
    const int64_t n = input.dim(axis);
    if (n > 0) total[axis] = ((total[axis] + shifts[k] % n) % n + n) % n;
  }
  Tensor out(input.dtype(), input.shape());
  const int64_t count = input.NumElements();
  if (count == 0) {
    ctx.set_output(0, std::move(out));
    return OkStatus();
  }
  const std::vector<int64_t> strides = RowMajorStrides(input.shape());
  // Walk input elements in order, tracking the output offset incrementally.
  std::vector<int64_t> index(rank, 0);
  int64_t dst = 0;
  for (int d = 0; d < rank; ++d) dst += total[d] * strides[d];
  for (int64_t src = 0; src < count; ++src) {
    CopyElements(input, src, out, dst, 1);
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t n = input.dim(d);
      const int64_t before = (index[d] + total[d]) % n;
      ++index[d];
      if (index[d] < n) {
        const int64_t after = (index[d] + total[d]) % n;
        dst += (after - before) * strides[d];
        break;
      }
      index[d] = 0;
      dst += (total[d] - before) * strides[d];
    }
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status ReverseSequence(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  TFHOST_RETURN_IF_ERROR(CheckMovable(ctx, input.dtype()));
  TFHOST_ASSIGN_OR_RETURN(int64_t seq_attr, ctx.Attr<int64_t>("seq_dim"));
  TFHOST_ASSIGN_OR_RETURN(int64_t batch_attr, ctx.AttrOr<int64_t>("batch_dim", 0));
  const int rank = input.rank();
  TFHOST_ASSIGN_OR_RETURN(int seq_dim, NormalizeAxis(ctx, seq_attr, rank, "seq_dim"));
  TFHOST_ASSIGN_OR_RETURN(int batch_dim, NormalizeAxis(ctx, batch_attr, rank, "batch_dim"));
  if (seq_dim == batch_dim) return ctx.Error("seq_dim and batch_dim must differ, both are " + std::to_string(seq_dim));
  const Tensor& lengths_t = ctx.input(1);
  if (lengths_t.rank() != 1 || lengths_t.dim(0) != input.dim(batch_dim)) {
    return ctx.Error("seq_lengths must be a vector of length " + std::to_string(input.dim(batch_dim)) + ", got " +
                     lengths_t.shape().ToString());
  }
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> lengths, lengths_t.ToInt64Vector());
  for (size_t b = 0; b < lengths.size(); ++b) {
    if (lengths[b] < 0 || lengths[b] > input.dim(seq_dim)) {
      return ctx.Error("seq_lengths[" + std::to_string(b) + "] = " + std::to_string(lengths[b]) + " is not in [0, " +
                       std::to_string(input.dim(seq_dim)) + "]");
    }
  }
  Tensor out(input.dtype(), input.shape());
  CopyElements(input, 0, out, 0, input.NumElements());
  const std::vector<int64_t> strides = RowMajorStrides(input.shape());
  std::vector<int64_t> index(rank, 0);
  for (int64_t src = 0; src < input.NumElements(); ++src) {
    const int64_t len = lengths[index[batch_dim]];
    const int64_t s = index[seq_dim];
    if (s < len) CopyElements(input, src, out, src + (len - 1 - 2 * s) * strides[seq_dim], 1);
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[d] < input.dim(d)) break;
      index[d] = 0;
    }
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterReorderOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("Roll")
                        .Input("input: T")
                        .Input("shift: Tshift")
                        .Input("axis: Taxis")
                        .Output("output: T")
                        .Attr("T: type")
                        .Attr("Tshift: {int32, int64}")
                        .Attr("Taxis: {int32, int64}"),
                    Roll);
  registry.Register(ir::OpDefBuilder("ReverseSequence")
                        .Input("input: T")
                        .Input("seq_lengths: Tlen")
                        .Output("output: T")
                        .Attr("seq_dim: int")
                        .Attr("batch_dim: int = 0")
                        .Attr("T: type")
                        .Attr("Tlen: {int32, int64} = DT_INT64"),
                    ReverseSequence);
}

}  // namespace tfhost::ops::array
