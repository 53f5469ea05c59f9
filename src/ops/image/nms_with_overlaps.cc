// NonMaxSuppressionWithOverlaps: greedy non-max suppression where the caller
// supplies the pairwise overlap matrix instead of boxes (any similarity, not
// only IoU). As TensorFlow's kernel runs it:
//   * candidates are the entries with score > score_threshold, taken highest
//     score first (ties: lower index first);
//   * a candidate is dropped when overlaps[candidate, s] > overlap_threshold
//     (strictly greater) for some already selected s;
//   * at most max_output_size indices are returned, in selection order.
#include <algorithm>
#include <numeric>

#include "ops/op_registry.h"
#include "ops/image/image_ops.h"

namespace tfhost::ops::image {
namespace {

StatusOr<float> Scalar(const KernelContext& ctx, int i, const char* what) {
  const Tensor& t = ctx.input(i);
  if (t.rank() != 0) return ctx.Error(std::string(what) + " must be 0-D, got shape " + t.shape().ToString());
  return t.data<float>()[0];
}

Status NonMaxSuppressionWithOverlaps(KernelContext& ctx) {
  const Tensor& overlaps = ctx.input(0);
  const Tensor& scores = ctx.input(1);
  const Tensor& max_t = ctx.input(2);
  if (overlaps.rank() != 2 || overlaps.dim(0) != overlaps.dim(1)) {
    return ctx.Error("overlaps must be a square 2-D matrix [num_boxes, num_boxes], got shape " +
                     overlaps.shape().ToString());
  }
  const int64_t n = overlaps.dim(0);
  if (scores.rank() != 1 || scores.dim(0) != n) {
    return ctx.Error("scores must be 1-D with " + std::to_string(n) + " entries (one per overlaps row), got shape " +
                     scores.shape().ToString());
  }
  if (max_t.rank() != 0) return ctx.Error("max_output_size must be 0-D, got shape " + max_t.shape().ToString());
  const int32_t max_out = max_t.data<int32_t>()[0];
  if (max_out < 0) return ctx.Error("max_output_size must be non-negative, got " + std::to_string(max_out));
  TFHOST_ASSIGN_OR_RETURN(float overlap_threshold, Scalar(ctx, 3, "overlap_threshold"));
  TFHOST_ASSIGN_OR_RETURN(float score_threshold, Scalar(ctx, 4, "score_threshold"));
  const float* ov = overlaps.data<float>();
  const float* sc = scores.data<float>();
  std::vector<int64_t> order;
  for (int64_t i = 0; i < n; ++i) {
    if (sc[i] > score_threshold) order.push_back(i);
  }
  std::stable_sort(order.begin(), order.end(), [sc](int64_t a, int64_t b) { return sc[a] > sc[b]; });
  std::vector<int32_t> selected;
  for (int64_t cand : order) {
    if (static_cast<int64_t>(selected.size()) >= max_out) break;
    bool keep = true;
    for (auto s = selected.rbegin(); s != selected.rend(); ++s) {
      if (ov[cand * n + *s] > overlap_threshold) {
        keep = false;
        break;
      }
    }
    if (keep) selected.push_back(static_cast<int32_t>(cand));
  }
  ctx.set_output(0, Tensor::FromVector<int32_t>(selected));
  return OkStatus();
}

}  // namespace

void RegisterNmsWithOverlapsOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("NonMaxSuppressionWithOverlaps")
                        .Input("overlaps: float")
                        .Input("scores: float")
                        .Input("max_output_size: int32")
                        .Input("overlap_threshold: float")
                        .Input("score_threshold: float")
                        .Output("selected_indices: int32"),
                    NonMaxSuppressionWithOverlaps);
}

}  // namespace tfhost::ops::image
