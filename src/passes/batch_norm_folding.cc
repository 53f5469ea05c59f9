// batch_norm_folding: an inference batch norm right after a linear op whose
// weights are constant is itself linear per output channel,
//   y = conv(x, W) * m + s,   m = scale / sqrt(variance + epsilon),
//                             s = offset - mean * m,
// so it folds into the weights: y = BiasAdd(conv(x, W * m), s). That removes
// one full pass over the activation tensor per layer and leaves a
// conv + BiasAdd that conv_bias_activation_fusion turns into one fused op.
//
// Matched: Conv2D, DepthwiseConv2dNative (NHWC) or MatMul whose filter is a
// float Const, optionally followed by the layer's own bias (BiasAdd or Add
// of a per-channel Const, folded into the new bias), followed by
//  - FusedBatchNorm/V2/V3 with is_training = false, NHWC, all four
//    parameters Const, only output y read; or
//  - the form Keras and older TF leave after constant folding: Mul by a
//    per-channel (or scalar) Const, then Add/AddV2/Sub of a per-channel Const.
// The linear op's output must have no other reader and its name must not be
// kept (its value changes). The batch-norm node (or the final Add) keeps its
// name, so fetches of it still resolve, and becomes the BiasAdd. When that
// node's name must be kept it is not folded: a fetch of "bn:1" (the batch
// mean) would have nothing to return from a BiasAdd, and a kept name could
// be fetched with any output index. The folded filter is a new Const (the old
// one may be shared); the old one is pruned when nothing else reads it.
//
// Results differ from the unfolded graph by float rounding only (W * m is
// rounded once, instead of conv(x, W) * m), within 1e-5 relative on real
// models.
#include <cmath>

#include "passes/pattern_util.h"

namespace tfhost::passes {
namespace {

using internal::AddConstNode;
using internal::AddControlInput;
using internal::ConstValue;
using internal::SoleConsumer;

bool IsBatchNorm(const std::string& op) {
  return op == "FusedBatchNorm" || op == "FusedBatchNormV2" || op == "FusedBatchNormV3";
}

// Channel of filter element i, per linear op; -1 when the op or layout is not
// one we fold into.
struct FilterLayout {
  int64_t channels = 0;
  // channel = (i / inner) % channels
  int64_t inner = 1;
};

std::optional<FilterLayout> LayoutOf(const ir::Node& op, const Tensor& filter) {
  if (filter.dtype() != DType::kFloat) return std::nullopt;
  if (op.op == "Conv2D" || op.op == "DepthwiseConv2dNative") {
    auto format = ir::GetAttrOr<std::string>(op, "data_format", "NHWC");
    if (!format.ok() || *format != "NHWC" || filter.rank() != 4) return std::nullopt;
    // Conv2D: [kh, kw, in, out]; depthwise: [kh, kw, in, mult] with output
    // channel c * mult + q = the flat index of (c, q).
    const int64_t c = op.op == "Conv2D" ? filter.dim(3) : filter.dim(2) * filter.dim(3);
    return FilterLayout{c, 1};
  }
  if (op.op == "MatMul") {
    auto tb = ir::GetAttrOr<bool>(op, "transpose_b", false);
    if (!tb.ok() || filter.rank() != 2) return std::nullopt;
    // [k, n] (channel = i % n) or, transposed, [n, k] (channel = i / k).
    return *tb ? FilterLayout{filter.dim(0), filter.dim(1)} : FilterLayout{filter.dim(1), 1};
  }
  return std::nullopt;
}

// The per-channel float Const that node `id` adds to `linear_id`'s output
// (BiasAdd NHWC, or Add/AddV2 with a [C] / [1, ..., C] Const either side),
// when `id` may be absorbed.
std::optional<std::vector<float>> PerChannelBias(const ir::Graph& graph, const PassContext& ctx, int id,
                                                 int linear_id, int64_t channels) {
  const ir::Node& node = graph.node(id);
  if (node.inputs.size() != 2 || !internal::IsFloatNode(node) || ctx.MustKeep(node) || IsProtected(graph, node)) {
    return std::nullopt;
  }
  int rank = 0;
  if (internal::StaticChannels(graph.node(linear_id), &rank) != channels) return std::nullopt;
  if (node.op == "BiasAdd") {
    auto format = ir::GetAttrOr<std::string>(node, "data_format", "NHWC");
    if (!format.ok() || *format != "NHWC" || node.inputs[0].node != linear_id || node.inputs[0].index != 0) {
      return std::nullopt;
    }
    std::optional<Tensor> b = ConstValue(graph, node.inputs[1]);
    if (!b || b->rank() != 1) return std::nullopt;
    return internal::PerChannelValues(*b, 1, channels);
  }
  if (node.op != "Add" && node.op != "AddV2") return std::nullopt;
  const int other = node.inputs[0].node == linear_id ? 1 : 0;
  if (node.inputs[1 - other].node != linear_id || node.inputs[1 - other].index != 0) return std::nullopt;
  std::optional<Tensor> b = ConstValue(graph, node.inputs[other]);
  if (!b) return std::nullopt;
  return internal::PerChannelValues(*b, rank, channels);
}

class BatchNormFolding : public GraphPass {
 public:
  std::string name() const override { return "batch_norm_folding"; }

  Status Run(ir::Graph* graph, const PassContext& ctx) override {
    if (ctx.keep_all) return OkStatus();
    std::vector<int> order = PassOrder(*graph);
    if (order.empty()) return OkStatus();
    const std::vector<std::vector<int>> consumers = graph->Consumers();
    std::vector<bool> keep(graph->num_nodes(), true);
    for (int i : order) {
      if (!keep[i]) continue;
      TFHOST_RETURN_IF_ERROR(TryFold(graph, ctx, consumers, i, &keep));
    }
    keep.resize(graph->num_nodes(), true);
    return graph->Compact(keep);
  }

 private:
  static Status TryFold(ir::Graph* graph, const PassContext& ctx, const std::vector<std::vector<int>>& consumers,
                        int linear_id, std::vector<bool>* keep) {
    const ir::Node& linear = graph->node(linear_id);
    if (linear.op != "Conv2D" && linear.op != "DepthwiseConv2dNative" && linear.op != "MatMul") return OkStatus();
    if (linear.inputs.size() != 2 || !internal::IsFloatNode(linear) || ctx.MustKeep(linear) ||
        IsProtected(*graph, linear)) {
      return OkStatus();
    }
    std::optional<Tensor> filter = ConstValue(*graph, linear.inputs[1]);
    if (!filter) return OkStatus();
    std::optional<FilterLayout> layout = LayoutOf(linear, *filter);
    if (!layout || layout->channels <= 0) return OkStatus();
    const int64_t channels = layout->channels;

    std::vector<int> param_controls;  // control inputs of the parameter Consts
    std::vector<int> absorbed;        // nodes removed
    auto note_const = [&](const ir::TensorRef& ref) {
      for (int c : graph->node(ref.node).control_inputs) AddControlInput(&param_controls, c);
    };
    // A bias the layer adds before its batch norm (Keras Conv2D with
    // use_bias, as in ResNet-50): (x + b) * m + s = x * m + (b * m + s).
    int bn_input_id = linear_id;  // what the batch norm reads
    std::vector<double> pre_bias(channels, 0.0);
    int next_id = SoleConsumer(*graph, consumers, linear_id);
    if (next_id < 0 || !(*keep)[next_id]) return OkStatus();
    if (std::optional<std::vector<float>> b = PerChannelBias(*graph, ctx, next_id, linear_id, channels)) {
      const int after_bias = SoleConsumer(*graph, consumers, next_id);
      if (after_bias < 0 || !(*keep)[after_bias]) return OkStatus();
      pre_bias.assign(b->begin(), b->end());
      const ir::Node& bias_node = graph->node(next_id);
      note_const(bias_node.inputs[bias_node.inputs[0].node == linear_id ? 1 : 0]);
      absorbed.push_back(next_id);
      bn_input_id = next_id;
      next_id = after_bias;
    }
    const ir::Node& next = graph->node(next_id);

    std::vector<double> mul, shift;
    int result_id = -1;  // node that becomes BiasAdd
    if (IsBatchNorm(next.op)) {
      if (next.inputs.size() != 5 || next.inputs[0].node != bn_input_id || ctx.MustKeep(next) ||
          IsProtected(*graph, next) || !internal::IsFloatNode(next)) {
        return OkStatus();
      }
      auto training = ir::GetAttrOr<bool>(next, "is_training", true);
      auto format = ir::GetAttrOr<std::string>(next, "data_format", "NHWC");
      auto epsilon = ir::GetAttrOr<float>(next, "epsilon", 0.0001f);
      if (!training.ok() || *training || !format.ok() || *format != "NHWC" || !epsilon.ok()) return OkStatus();
      if (linear.op == "MatMul") return OkStatus();  // batch norm needs 4-D input
      // Only y may be read: the other outputs vanish with the node.
      internal::Uses uses = internal::UsesOf(*graph, consumers, next_id);
      for (const auto& u : uses.data) {
        if (u.output_index != 0) return OkStatus();
      }
      std::vector<std::vector<double>> p;
      for (int k = 1; k <= 4; ++k) {
        std::optional<Tensor> t = ConstValue(*graph, next.inputs[k]);
        if (!t || t->dtype() != DType::kFloat || t->rank() != 1 || t->dim(0) != channels) return OkStatus();
        p.push_back(t->ToDoubleVector());
        note_const(next.inputs[k]);
      }
      // Same arithmetic as the FusedBatchNorm kernel, in double.
      mul.resize(channels);
      shift.resize(channels);
      for (int64_t c = 0; c < channels; ++c) {
        mul[c] = p[0][c] / std::sqrt(p[3][c] + double(*epsilon));
        shift[c] = p[1][c] - p[2][c] * mul[c];
      }
      result_id = next_id;
    } else if (next.op == "Mul") {
      // linear * s (either order), then + t / - t.
      if (next.inputs.size() != 2 || !internal::IsFloatNode(next) || ctx.MustKeep(next)) return OkStatus();
      const int other = next.inputs[0].node == bn_input_id ? 1 : 0;
      if (next.inputs[1 - other].node != bn_input_id || next.inputs[1 - other].index != 0) return OkStatus();
      int rank = 0;
      if (internal::StaticChannels(linear, &rank) != channels) return OkStatus();
      std::optional<Tensor> s = ConstValue(*graph, next.inputs[other]);
      if (!s) return OkStatus();
      std::optional<std::vector<float>> sv;
      if (s->dtype() == DType::kFloat && s->NumElements() == 1 && s->rank() <= rank) {
        sv = std::vector<float>(channels, s->data<float>()[0]);
      } else {
        sv = internal::PerChannelValues(*s, rank, channels);
      }
      if (!sv) return OkStatus();
      const int add_id = SoleConsumer(*graph, consumers, next_id);
      if (add_id < 0 || !(*keep)[add_id]) return OkStatus();
      const ir::Node& add = graph->node(add_id);
      if ((add.op != "Add" && add.op != "AddV2" && add.op != "Sub") || add.inputs.size() != 2 ||
          !internal::IsFloatNode(add) || ctx.MustKeep(add)) {
        return OkStatus();
      }
      const int add_other = add.inputs[0].node == next_id ? 1 : 0;
      if (add.inputs[1 - add_other].node != next_id) return OkStatus();
      if (add.op == "Sub" && add_other != 1) return OkStatus();  // t - x*s is not x*s' + t'
      std::optional<Tensor> t = ConstValue(*graph, add.inputs[add_other]);
      if (!t) return OkStatus();
      std::optional<std::vector<float>> tv;
      if (t->dtype() == DType::kFloat && t->NumElements() == 1 && t->rank() <= rank) {
        tv = std::vector<float>(channels, t->data<float>()[0]);
      } else {
        tv = internal::PerChannelValues(*t, rank, channels);
      }
      if (!tv) return OkStatus();
      note_const(next.inputs[other]);
      note_const(add.inputs[add_other]);
      mul.assign(sv->begin(), sv->end());
      shift.resize(channels);
      for (int64_t c = 0; c < channels; ++c) shift[c] = add.op == "Sub" ? -double((*tv)[c]) : double((*tv)[c]);
      result_id = add_id;
      absorbed.push_back(next_id);
    } else {
      return OkStatus();
    }
    for (int64_t c = 0; c < channels; ++c) shift[c] += pre_bias[c] * mul[c];

    // Folded filter and bias.
    Tensor folded(DType::kFloat, filter->shape());
    const float* w = filter->data<float>();
    float* fw = folded.data<float>();
    for (int64_t k = 0; k < filter->NumElements(); ++k) {
      const int64_t c = (k / layout->inner) % channels;
      fw[k] = static_cast<float>(double(w[k]) * mul[c]);
    }
    Tensor bias(DType::kFloat, Shape({channels}));
    for (int64_t c = 0; c < channels; ++c) bias.data<float>()[c] = static_cast<float>(shift[c]);

    const std::string linear_name = graph->node(linear_id).name;
    std::vector<int> filter_controls = graph->node(linear.inputs[1].node).control_inputs;
    TFHOST_ASSIGN_OR_RETURN(int filter_id, AddConstNode(graph, linear_name + "/folded_filter", folded, filter_controls));
    TFHOST_ASSIGN_OR_RETURN(int bias_id, AddConstNode(graph, linear_name + "/folded_bias", bias, param_controls));
    graph->mutable_node(linear_id).inputs[1] = ir::TensorRef{filter_id, 0};

    ir::Node& result = graph->mutable_node(result_id);
    const std::vector<ir::PartialShape> shapes = {result.output_shapes.empty() ? ir::PartialShape::Unknown()
                                                                              : result.output_shapes[0]};
    std::vector<int> controls = result.control_inputs;
    for (int a : absorbed) {
      for (int c : graph->node(a).control_inputs) AddControlInput(&controls, c);
    }
    ir::Node& r = graph->mutable_node(result_id);
    r.op = "BiasAdd";
    r.inputs = {ir::TensorRef{linear_id, 0}, ir::TensorRef{bias_id, 0}};
    r.control_inputs = controls;
    r.attrs.clear();
    r.attrs["T"] = ops::MakeAttr(DType::kFloat);
    r.attrs["data_format"] = ops::MakeAttr("NHWC");
    r.output_dtypes = {DType::kFloat};
    r.output_shapes = shapes;
    for (int a : absorbed) (*keep)[a] = false;
    return OkStatus();
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeBatchNormFolding() { return std::make_unique<BatchNormFolding>(); }

}  // namespace tfhost::passes
