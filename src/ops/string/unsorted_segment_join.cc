// UnsortedSegmentJoin: the strings of `inputs` joined per segment, as
// tf.strings.unsorted_segment_join and RaggedSegmentJoin (tf.strings.reduce_join
// over ragged rows) compute them.
//
// segment_ids has the shape of a prefix of inputs' shape (rank >= 1); each of
// its entries names the output row that the matching slice of inputs joins.
// The output is [num_segments] + inputs.shape[rank(segment_ids):]; a segment
// no id names is the empty string. Within a segment, slices join in the flat
// order of segment_ids.
//
// As TensorFlow's kernel, and unlike the numeric unsorted segment reductions:
//  * an id < 0 or >= num_segments is an error (not a dropped slice);
//  * the separator goes in only when the text so far is non-empty, so empty
//    strings at the start of a segment leave no separator behind:
//    ["", "", "b", "", "c"] joined by "|" is "b||c".
#include "ops/op_registry.h"
#include "ops/string/string_ops.h"

namespace tfhost::ops {
namespace {

std::string Str(int64_t v) { return std::to_string(v); }

Status UnsortedSegmentJoin(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(std::string separator, ctx.AttrOr<std::string>("separator", ""));
  const Tensor& inputs = ctx.input(0);
  const Tensor& segment_ids = ctx.input(1);
  const Tensor& num_segments_t = ctx.input(2);
  if (num_segments_t.rank() != 0) {
    return ctx.Error("num_segments must be a scalar, got shape " + num_segments_t.shape().ToString());
  }
  auto num_segments_v = num_segments_t.ToInt64Vector();
  if (!num_segments_v.ok()) return ctx.Error("num_segments must be int32 or int64");
  const int64_t num_segments = (*num_segments_v)[0];
  if (num_segments < 0) return ctx.Error("num_segments must be non-negative, got " + Str(num_segments));
  const int seg_rank = segment_ids.rank();
  if (seg_rank == 0) return ctx.Error("segment_ids must have rank >= 1, got a scalar");
  if (seg_rank > inputs.rank()) {
    return OutOfRange(ir::NodeContext(ctx.node()) + ": segment_ids of rank " + Str(seg_rank) +
                      " cannot index inputs of rank " + Str(inputs.rank()));
  }
  for (int d = 0; d < seg_rank; ++d) {
    if (segment_ids.dim(d) != inputs.dim(d)) {
      return ctx.Error("segment_ids shape " + segment_ids.shape().ToString() + " must be a prefix of inputs shape " +
                       inputs.shape().ToString() + " (dimension " + Str(d) + " differs)");
    }
  }
  // Every id is checked before any output is built, so a bad id fails the
  // whole op (TensorFlow's kernel validates them all first as well) rather
  // than yielding a partly joined result.
  auto ids = segment_ids.ToInt64Vector();
  if (!ids.ok()) return ctx.Error("segment_ids must be int32 or int64");
  for (size_t i = 0; i < ids->size(); ++i) {
    const int64_t id = (*ids)[i];
    if (id < 0 || id >= num_segments) {
      return ctx.Error("segment_ids[" + Str(static_cast<int64_t>(i)) + "] = " + Str(id) + " is outside [0, " +
                       Str(num_segments) + ")");
    }
  }

  // Each id owns a slice of `inner` consecutive strings (the dims after
  // segment_ids' rank); output row id collects those slices.
  std::vector<int64_t> out_dims = {num_segments};
  int64_t inner = 1;
  for (int d = seg_rank; d < inputs.rank(); ++d) {
    out_dims.push_back(inputs.dim(d));
    inner *= inputs.dim(d);
  }
  Tensor out(DType::kString, Shape(out_dims));
  std::string* o = out.strings();
  const std::string* in = inputs.strings();
  for (size_t i = 0; i < ids->size(); ++i) {
    std::string* row = o + (*ids)[i] * inner;
    const std::string* slice = in + static_cast<int64_t>(i) * inner;
    for (int64_t k = 0; k < inner; ++k) {
      if (!row[k].empty()) row[k] += separator;
      row[k] += slice[k];
    }
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterUnsortedSegmentJoinOp(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("UnsortedSegmentJoin")
                        .Input("inputs: string")
                        .Input("segment_ids: Tindices")
                        .Input("num_segments: Tnumsegments")
                        .Output("output: string")
                        .Attr("separator: string = ''")
                        .Attr("Tindices: {int32, int64}")
                        .Attr("Tnumsegments: {int32, int64} = DT_INT32"),
                    UnsortedSegmentJoin);
}

}  // namespace tfhost::ops
