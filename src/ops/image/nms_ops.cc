// Greedy non-max suppression, as TensorFlow's DoNonMaxSuppressionOp runs it:
//   * candidates are the boxes with score > score_threshold, taken highest
//     score first (ties: lower box index first);
//   * hard NMS: a candidate whose IoU with an already selected box is
//     > iou_threshold (strictly: equal overlap keeps it) is dropped;
//   * soft-NMS (V5, soft_nms_sigma > 0): nothing is dropped outright; each
//     selected box scales the candidate's score by exp(-0.5 * iou^2 / sigma)
//     whatever the overlap; a candidate whose score changed goes back into
//     the queue if still > score_threshold, and is compared only against
//     boxes selected since. (TensorFlow.js hard-drops at IoU >= threshold in
//     both modes; TensorFlow's kernel, which this follows, does not.)
// CombinedNonMaxSuppression runs hard NMS per batch and class, then keeps the
// best max_total_size detections of each batch by score, zero-padded.
// _TfhostBatchedNonMaxSuppression is ONNX's NonMaxSuppression (the ONNX
// loader maps it there): hard NMS per batch and class, listing the selected
// [batch, class, box] triples. ONNX Runtime follows the same rules (strict
// IoU and score comparisons, zero-area boxes never suppress); where ONNX
// leaves the order of equal scores open, the lower box index goes first.
#include <algorithm>
#include <cmath>
#include <queue>

#include "ops/op_registry.h"
#include "ops/image/image_ops.h"

namespace tfhost::ops::image {

float BoxIou(const float* a, const float* b) {
  const float ay0 = std::min(a[0], a[2]), ay1 = std::max(a[0], a[2]);
  const float ax0 = std::min(a[1], a[3]), ax1 = std::max(a[1], a[3]);
  const float by0 = std::min(b[0], b[2]), by1 = std::max(b[0], b[2]);
  const float bx0 = std::min(b[1], b[3]), bx1 = std::max(b[1], b[3]);
  const float area_a = (ay1 - ay0) * (ax1 - ax0);
  const float area_b = (by1 - by0) * (bx1 - bx0);
  if (area_a <= 0 || area_b <= 0) return 0.0f;
  const float iy0 = std::max(ay0, by0), iy1 = std::min(ay1, by1);
  const float ix0 = std::max(ax0, bx0), ix1 = std::min(ax1, bx1);
  const float inter = std::max(iy1 - iy0, 0.0f) * std::max(ix1 - ix0, 0.0f);
  return inter / (area_a + area_b - inter);
}

namespace {

std::string Str(int64_t v) { return std::to_string(v); }

struct Candidate {
  int box;
  float score;
  int suppress_begin;
};
// Priority: higher score first, then lower index.
struct Lower {
  bool operator()(const Candidate& a, const Candidate& b) const {
    return a.score < b.score || (a.score == b.score && a.box > b.box);
  }
};

// boxes: num_boxes x 4 floats (row stride `stride` floats).
void Suppress(const float* boxes, int stride, const std::vector<float>& scores, int max_out, float iou_threshold,
              float score_threshold, float sigma, std::vector<int>* selected, std::vector<float>* selected_scores) {
  std::priority_queue<Candidate, std::vector<Candidate>, Lower> queue;
  for (int i = 0; i < static_cast<int>(scores.size()); ++i) {
    if (scores[i] > score_threshold) queue.push({i, scores[i], 0});
  }
  const bool soft = sigma > 0;
  const float scale = soft ? -0.5f / sigma : 0.0f;
  while (static_cast<int>(selected->size()) < max_out && !queue.empty()) {
    Candidate c = queue.top();
    queue.pop();
    const float original = c.score;
    bool drop = false;
    for (int j = static_cast<int>(selected->size()) - 1; j >= c.suppress_begin; --j) {
      const float iou = BoxIou(boxes + static_cast<int64_t>(c.box) * stride,
                               boxes + static_cast<int64_t>((*selected)[j]) * stride);
      if (!soft && iou > iou_threshold) {
        drop = true;
        break;
      }
      c.score *= soft || iou <= iou_threshold ? std::exp(scale * iou * iou) : 0.0f;
      if (c.score <= score_threshold) break;
    }
    c.suppress_begin = static_cast<int>(selected->size());
    if (drop) continue;
    if (c.score == original) {
      selected->push_back(c.box);
      selected_scores->push_back(c.score);
    } else if (c.score > score_threshold) {
      queue.push(c);
    }
  }
}

StatusOr<float> ScalarFloat(const KernelContext& ctx, int i, const char* what) {
  const Tensor& t = ctx.input(i);
  if (t.NumElements() != 1 || t.rank() > 1) {
    return ctx.Error(std::string(what) + " must be a scalar, got " + t.shape().ToString());
  }
  return static_cast<float>(t.ToDoubleVector()[0]);
}

std::vector<float> FloatValues(const Tensor& t) {
  std::vector<double> d = t.ToDoubleVector();
  return std::vector<float>(d.begin(), d.end());
}

Tensor FloatTensorAs(DType dtype, const std::vector<float>& v) {
  Tensor t(dtype, Shape({static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) {
    if (dtype == DType::kHalf) t.data<uint16_t>()[i] = FloatToHalf(v[i]);
    else t.data<float>()[i] = v[i];
  }
  return t;
}

// version: 1 (iou_threshold attr), 2 (no score threshold), 3, 4
// (valid_outputs, padding), 5 (+ soft NMS and selected_scores).
template <int kVersion>
Status NonMaxSuppression(KernelContext& ctx) {
  const Tensor& boxes_t = ctx.input(0);
  const Tensor& scores_t = ctx.input(1);
  if (boxes_t.rank() != 2 || boxes_t.dim(1) != 4) {
    return ctx.Error("boxes must be 2-D [num_boxes, 4], got " + boxes_t.shape().ToString());
  }
  const int64_t num_boxes = boxes_t.dim(0);
  if (scores_t.rank() != 1 || scores_t.dim(0) != num_boxes) {
    return ctx.Error("scores has incompatible shape " + scores_t.shape().ToString() + " for " + Str(num_boxes) +
                     " boxes");
  }
  if (num_boxes > std::numeric_limits<int32_t>::max()) return ctx.Error("too many boxes");
  const Tensor& max_t = ctx.input(2);
  if (max_t.NumElements() != 1 || max_t.rank() != 0) {
    return ctx.Error("max_output_size must be 0-D, got shape " + max_t.shape().ToString());
  }
  const int max_out = max_t.data<int32_t>()[0];
  if (max_out < 0 && kVersion >= 4) return ctx.Error("max_output_size must be non-negative");
  float iou_threshold = 0.5f;
  if (kVersion == 1) {
    TFHOST_ASSIGN_OR_RETURN(iou_threshold, ctx.AttrOr<float>("iou_threshold", 0.5f));
  } else {
    TFHOST_ASSIGN_OR_RETURN(iou_threshold, ScalarFloat(ctx, 3, "iou_threshold"));
  }
  if (!(iou_threshold >= 0 && iou_threshold <= 1)) return ctx.Error("iou_threshold must be in [0, 1]");
  float score_threshold = -std::numeric_limits<float>::infinity();
  if (kVersion >= 3) {
    TFHOST_ASSIGN_OR_RETURN(score_threshold, ScalarFloat(ctx, 4, "score_threshold"));
  }
  float sigma = 0;
  if (kVersion == 5) {
    TFHOST_ASSIGN_OR_RETURN(sigma, ScalarFloat(ctx, 5, "soft_nms_sigma"));
    if (!(sigma >= 0)) return ctx.Error("soft_nms_sigma must be non-negative");
  }
  bool pad = false;
  if (kVersion >= 4) {
    TFHOST_ASSIGN_OR_RETURN(pad, ctx.AttrOr<bool>("pad_to_max_output_size", false));
  }
  // Padding allocates max_output_size entries whatever the box count; a
  // model-supplied size must not make that unbounded.
  if (pad && max_out > (1 << 26)) {
    return ctx.Error("max_output_size " + Str(max_out) + " is too large to pad to");
  }
  const std::vector<float> boxes = FloatValues(boxes_t);
  const std::vector<float> scores = FloatValues(scores_t);
  std::vector<int> selected;
  std::vector<float> selected_scores;
  Suppress(boxes.data(), 4, scores, std::max(max_out, 0), iou_threshold, score_threshold, sigma, &selected,
           &selected_scores);
  const int valid = static_cast<int>(selected.size());
  if (pad && valid < max_out) {
    selected.resize(max_out, 0);
    selected_scores.resize(max_out, 0.0f);
  }
  ctx.set_output(0, Tensor::FromVector<int32_t>(std::vector<int32_t>(selected.begin(), selected.end())));
  if (kVersion == 4) ctx.set_output(1, Tensor::Scalar<int32_t>(valid));
  if (kVersion == 5) {
    ctx.set_output(1, FloatTensorAs(scores_t.dtype(), selected_scores));
    ctx.set_output(2, Tensor::Scalar<int32_t>(valid));
  }
  return OkStatus();
}

Status CombinedNonMaxSuppression(KernelContext& ctx) {
  const Tensor& boxes_t = ctx.input(0);
  const Tensor& scores_t = ctx.input(1);
  if (boxes_t.rank() != 4 || boxes_t.dim(3) != 4) {
    return ctx.Error("boxes must be 4-D [batch, num_boxes, q, 4], got " + boxes_t.shape().ToString());
  }
  if (scores_t.rank() != 3) return ctx.Error("scores must be 3-D [batch, num_boxes, num_classes]");
  const int64_t batch = boxes_t.dim(0), num_boxes = boxes_t.dim(1), q = boxes_t.dim(2);
  const int64_t num_classes = scores_t.dim(2);
  if (scores_t.dim(0) != batch || scores_t.dim(1) != num_boxes) {
    return ctx.Error("scores " + scores_t.shape().ToString() + " do not match boxes " + boxes_t.shape().ToString());
  }
  if (q != 1 && q != num_classes) return ctx.Error("third dimension of boxes must be either 1 or num_classes");
  if (ctx.input(2).NumElements() != 1 || ctx.input(3).NumElements() != 1) {
    return ctx.Error("max_output_size_per_class and max_total_size must be scalars");
  }
  const int64_t per_class = ctx.input(2).data<int32_t>()[0];
  const int64_t max_total = ctx.input(3).data<int32_t>()[0];
  if (per_class <= 0) return ctx.Error("max_size_per_class must be > 0");
  if (max_total <= 0) return ctx.Error("max_total_size must be > 0");
  TFHOST_ASSIGN_OR_RETURN(float iou_threshold, ScalarFloat(ctx, 4, "iou_threshold"));
  if (!(iou_threshold >= 0 && iou_threshold <= 1)) return ctx.Error("iou_threshold must be in [0, 1]");
  TFHOST_ASSIGN_OR_RETURN(float score_threshold, ScalarFloat(ctx, 5, "score_threshold"));
  TFHOST_ASSIGN_OR_RETURN(bool pad_per_class, ctx.AttrOr<bool>("pad_per_class", false));
  TFHOST_ASSIGN_OR_RETURN(bool clip, ctx.AttrOr<bool>("clip_boxes", true));
  const int64_t detections = pad_per_class ? std::min(max_total, per_class * num_classes) : max_total;
  if (detections > (int64_t{1} << 26) || batch * detections > (int64_t{1} << 28)) {
    return ctx.Error("max_total_size " + Str(max_total) + " x batch " + Str(batch) + " is too large");
  }
  const std::vector<float> boxes = FloatValues(boxes_t);
  const std::vector<float> scores = FloatValues(scores_t);
  Tensor out_boxes(DType::kFloat, Shape({batch, detections, 4}));
  Tensor out_scores(DType::kFloat, Shape({batch, detections}));
  Tensor out_classes(DType::kFloat, Shape({batch, detections}));
  Tensor out_valid(DType::kInt32, Shape({batch}));
  struct Detection {
    float score;
    int64_t cls;
    int64_t box;
  };
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<Detection> all;
    for (int64_t c = 0; c < num_classes; ++c) {
      std::vector<float> class_scores(num_boxes);
      for (int64_t i = 0; i < num_boxes; ++i) class_scores[i] = scores[(b * num_boxes + i) * num_classes + c];
      const float* class_boxes = boxes.data() + (b * num_boxes * q + (q == 1 ? 0 : c)) * 4;
      std::vector<int> selected;
      std::vector<float> selected_scores;
      Suppress(class_boxes, static_cast<int>(q * 4), class_scores, static_cast<int>(per_class), iou_threshold,
               score_threshold, 0.0f, &selected, &selected_scores);
      for (size_t k = 0; k < selected.size(); ++k) all.push_back({selected_scores[k], c, selected[k]});
    }
    std::stable_sort(all.begin(), all.end(), [](const Detection& x, const Detection& y) { return x.score > y.score; });
    const int64_t kept = std::min<int64_t>(detections, static_cast<int64_t>(all.size()));
    for (int64_t k = 0; k < kept; ++k) {
      const Detection& d = all[k];
      const float* src = boxes.data() + ((b * num_boxes + d.box) * q + (q == 1 ? 0 : d.cls)) * 4;
      float* dst = out_boxes.data<float>() + (b * detections + k) * 4;
      for (int j = 0; j < 4; ++j) dst[j] = clip ? std::clamp(src[j], 0.0f, 1.0f) : src[j];
      out_scores.data<float>()[b * detections + k] = d.score;
      out_classes.data<float>()[b * detections + k] = static_cast<float>(d.cls);
    }
    out_valid.data<int32_t>()[b] = static_cast<int32_t>(kept);
  }
  ctx.set_output(0, std::move(out_boxes));
  ctx.set_output(1, std::move(out_scores));
  ctx.set_output(2, std::move(out_classes));
  ctx.set_output(3, std::move(out_valid));
  return OkStatus();
}

// ONNX's NonMaxSuppression: hard NMS of every (batch, class) pair on its own,
// the selections listed as [batch, class, box] rows, batch by batch, class by
// class, each class's in selection order. Boxes are [batch, boxes, 4]:
// corners (y1, x1, y2, x2) in either order, or with center_point_box
// (x_center, y_center, width, height), turned into corners as ONNX Runtime
// does. A negative max_output_boxes_per_class selects nothing, as 0 does.
// Without a score threshold every box is a candidate except those scoring
// NaN or -inf (ONNX Runtime's heap takes those too, in no defined place).
Status BatchedNonMaxSuppression(KernelContext& ctx) {
  const Tensor& boxes_t = ctx.input(0);
  const Tensor& scores_t = ctx.input(1);
  if (boxes_t.rank() != 3 || boxes_t.dim(2) != 4) {
    return ctx.Error("boxes must be 3-D [batches, boxes, 4], got " + boxes_t.shape().ToString());
  }
  if (scores_t.rank() != 3 || scores_t.dim(0) != boxes_t.dim(0) || scores_t.dim(2) != boxes_t.dim(1)) {
    return ctx.Error("scores must be [batches, classes, boxes] = [" + Str(boxes_t.dim(0)) + ", classes, " +
                     Str(boxes_t.dim(1)) + "] for boxes " + boxes_t.shape().ToString() + ", got " +
                     scores_t.shape().ToString());
  }
  const int64_t batches = boxes_t.dim(0), num_boxes = boxes_t.dim(1), classes = scores_t.dim(1);
  if (num_boxes > std::numeric_limits<int32_t>::max()) return ctx.Error("too many boxes: " + Str(num_boxes));
  const Tensor& max_t = ctx.input(2);
  if (max_t.NumElements() != 1 || max_t.rank() > 1) {
    return ctx.Error("max_output_boxes_per_class must hold one value, got shape " + max_t.shape().ToString());
  }
  const int64_t max_out = std::clamp<int64_t>(max_t.data<int64_t>()[0], 0, num_boxes);
  TFHOST_ASSIGN_OR_RETURN(float iou_threshold, ScalarFloat(ctx, 3, "iou_threshold"));
  if (!(iou_threshold >= 0 && iou_threshold <= 1)) {
    return ctx.Error("iou_threshold must be in [0, 1], got " + std::to_string(iou_threshold));
  }
  TFHOST_ASSIGN_OR_RETURN(bool has_score_threshold, ctx.AttrOr<bool>("has_score_threshold", true));
  float score_threshold = -std::numeric_limits<float>::infinity();
  if (has_score_threshold) {
    TFHOST_ASSIGN_OR_RETURN(score_threshold, ScalarFloat(ctx, 4, "score_threshold"));
  }
  TFHOST_ASSIGN_OR_RETURN(int64_t center_point_box, ctx.AttrOr<int64_t>("center_point_box", 0));
  if (center_point_box != 0 && center_point_box != 1) {
    return ctx.Error("center_point_box must be 0 or 1, got " + Str(center_point_box));
  }
  std::vector<float> boxes = FloatValues(boxes_t);
  if (center_point_box == 1) {
    for (size_t i = 0; i + 3 < boxes.size(); i += 4) {
      const float xc = boxes[i], yc = boxes[i + 1], half_w = boxes[i + 2] / 2, half_h = boxes[i + 3] / 2;
      boxes[i] = yc - half_h;
      boxes[i + 1] = xc - half_w;
      boxes[i + 2] = yc + half_h;
      boxes[i + 3] = xc + half_w;
    }
  }
  const std::vector<float> scores = FloatValues(scores_t);
  std::vector<int64_t> rows;
  std::vector<float> class_scores(num_boxes);
  for (int64_t b = 0; b < batches && max_out > 0; ++b) {
    for (int64_t c = 0; c < classes; ++c) {
      std::copy_n(scores.begin() + (b * classes + c) * num_boxes, num_boxes, class_scores.begin());
      std::vector<int> selected;
      std::vector<float> selected_scores;
      Suppress(boxes.data() + b * num_boxes * 4, 4, class_scores, static_cast<int>(max_out), iou_threshold,
               score_threshold, 0.0f, &selected, &selected_scores);
      for (int box : selected) rows.insert(rows.end(), {b, c, box});
    }
  }
  const int64_t n = static_cast<int64_t>(rows.size()) / 3;
  Tensor out(DType::kInt64, Shape({n, 3}));
  std::copy(rows.begin(), rows.end(), out.data<int64_t>());
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterNmsOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("_TfhostBatchedNonMaxSuppression")
                        .Input("boxes: float")
                        .Input("scores: float")
                        .Input("max_output_boxes_per_class: int64")
                        .Input("iou_threshold: float")
                        .Input("score_threshold: float")
                        .Output("selected_indices: int64")
                        .Attr("center_point_box: int = 0")
                        .Attr("has_score_threshold: bool = true"),
                    BatchedNonMaxSuppression);
  registry.Register(ir::OpDefBuilder("NonMaxSuppression")
                        .Input("boxes: float")
                        .Input("scores: float")
                        .Input("max_output_size: int32")
                        .Output("selected_indices: int32")
                        .Attr("iou_threshold: float = 0.5"),
                    NonMaxSuppression<1>);
  registry.Register(ir::OpDefBuilder("NonMaxSuppressionV2")
                        .Input("boxes: T")
                        .Input("scores: T")
                        .Input("max_output_size: int32")
                        .Input("iou_threshold: T_threshold")
                        .Output("selected_indices: int32")
                        .Attr("T: {half, float} = DT_FLOAT")
                        .Attr("T_threshold: {half, float} = DT_FLOAT"),
                    NonMaxSuppression<2>);
  registry.Register(ir::OpDefBuilder("NonMaxSuppressionV3")
                        .Input("boxes: T")
                        .Input("scores: T")
                        .Input("max_output_size: int32")
                        .Input("iou_threshold: T_threshold")
                        .Input("score_threshold: T_threshold")
                        .Output("selected_indices: int32")
                        .Attr("T: {half, float} = DT_FLOAT")
                        .Attr("T_threshold: {half, float} = DT_FLOAT"),
                    NonMaxSuppression<3>);
  registry.Register(ir::OpDefBuilder("NonMaxSuppressionV4")
                        .Input("boxes: T")
                        .Input("scores: T")
                        .Input("max_output_size: int32")
                        .Input("iou_threshold: T_threshold")
                        .Input("score_threshold: T_threshold")
                        .Output("selected_indices: int32")
                        .Output("valid_outputs: int32")
                        .Attr("T: {half, float} = DT_FLOAT")
                        .Attr("T_threshold: {half, float} = DT_FLOAT")
                        .Attr("pad_to_max_output_size: bool = false"),
                    NonMaxSuppression<4>);
  registry.Register(ir::OpDefBuilder("NonMaxSuppressionV5")
                        .Input("boxes: T")
                        .Input("scores: T")
                        .Input("max_output_size: int32")
                        .Input("iou_threshold: T")
                        .Input("score_threshold: T")
                        .Input("soft_nms_sigma: T")
                        .Output("selected_indices: int32")
                        .Output("selected_scores: T")
                        .Output("valid_outputs: int32")
                        .Attr("T: {half, float} = DT_FLOAT")
                        .Attr("pad_to_max_output_size: bool = false"),
                    NonMaxSuppression<5>);
  registry.Register(ir::OpDefBuilder("CombinedNonMaxSuppression")
                        .Input("boxes: float")
                        .Input("scores: float")
                        .Input("max_output_size_per_class: int32")
                        .Input("max_total_size: int32")
                        .Input("iou_threshold: float")
                        .Input("score_threshold: float")
                        .Output("nmsed_boxes: float")
                        .Output("nmsed_scores: float")
                        .Output("nmsed_classes: float")
                        .Output("valid_detections: int32")
                        .Attr("pad_per_class: bool = false")
                        .Attr("clip_boxes: bool = true"),
                    CombinedNonMaxSuppression);
}

}  // namespace tfhost::ops::image
