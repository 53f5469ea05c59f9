// layer_norm_fusion: Keras 3's layer normalization over the last axis,
// written in ops by keras.ops.layer_norm as
//   mean = Mean(x, -1, keep_dims)
//   var = Mean(SquaredDifference(x, mean), -1, keep_dims)
//   m = Mul(Rsqrt(AddV2(var, epsilon)), gamma)
//   y = AddV2(Mul(x, m), AddV2(Mul(Neg(mean), m), beta))
// becomes one _TfhostLayerNorm(x, gamma, beta) under y's name
// (ops/nn/layer_norm.h). Run as eleven nodes, the row is read five times and
// four row-sized tensors are written; a backend's kernel reads it once and
// writes it once (BERT-base: 25 of them, about 2% of a batch-1 run).
//
// A residual sum AddV2(a, b) read only by those nodes goes in too:
// _TfhostAddLayerNorm(a, b, gamma, beta), so the sum is never written out
// (BERT's post-norm layers).
//
// The fused node computes exactly what the nodes did (its reference kernel
// is theirs). Matched in any operand order of the commutative ops: the Means'
// axes a Const naming only the last axis of x, whose rank and last dim are
// static; keep_dims on both; epsilon a float Const of one value; gamma and
// beta of static shape [C] or [1, ..., 1, C], of rank at most x's; every
// node but x, gamma and beta read only inside the pattern (m by its two
// Muls, mean by SquaredDifference and Neg), neither kept nor protected.
// Done only where a backend other than the reference takes the fused node
// (PassContext::has_fast_kernel).
#include <algorithm>

#include "ops/nn/layer_norm.h"
#include "passes/pattern_util.h"

namespace tfhost::passes {
namespace {

using internal::AddControlInput;
using internal::ConstValue;
using internal::UsesOf;

struct Match {
  ir::TensorRef x, gamma, beta;
  float epsilon = 0;
  std::vector<int> inner;  // every matched node but the root
};

class Matcher {
 public:
  Matcher(const ir::Graph& graph, const PassContext& ctx, const std::vector<std::vector<int>>& consumers)
      : g_(graph), ctx_(ctx), consumers_(consumers) {}

  std::optional<Match> At(int root_id) {
    const ir::Node& root = g_.node(root_id);
    if (!IsOp(root, "AddV2", 2) || IsProtected(g_, root)) return std::nullopt;
    // y = x * m + shift, in either order.
    for (int k = 0; k < 2; ++k) {
      Match match;
      if (Try(root, root.inputs[k], root.inputs[1 - k], &match)) return match;
    }
    return std::nullopt;
  }

 private:
  bool IsOp(const ir::Node& n, const char* op, size_t arity) const {
    return n.op == op && n.inputs.size() == arity && internal::IsFloatNode(n);
  }

  // `ref` is output 0 of an `op` node read `uses` times, only by data edges
  // of the pattern's nodes, neither kept nor protected.
  const ir::Node* Inner(const ir::TensorRef& ref, const char* op, size_t arity, size_t uses, Match* m) {
    const ir::Node& n = g_.node(ref.node);
    if (ref.index != 0 || !IsOp(n, op, arity) || ctx_.MustKeep(n) || IsProtected(g_, n)) return nullptr;
    internal::Uses u = UsesOf(g_, consumers_, ref.node);
    if (u.control || u.data.size() != uses) return nullptr;
    for (const auto& use : u.data) {
      if (use.output_index != 0) return nullptr;
    }
    m->inner.push_back(ref.node);
    return &n;
  }

  // A Mean of `of` over its last axis with keep_dims, read `uses` times.
  const ir::Node* LastAxisMean(const ir::TensorRef& ref, const ir::TensorRef& of, size_t uses, Match* m) {
    const ir::Node* mean = Inner(ref, "Mean", 2, uses, m);
    if (mean == nullptr || !(mean->inputs[0] == of)) return nullptr;
    auto keep = ir::GetAttrOr<bool>(*mean, "keep_dims", false);
    std::optional<Tensor> axes = ConstValue(g_, mean->inputs[1]);
    if (!keep.ok() || !*keep || !axes || axes->NumElements() != 1) return nullptr;
    auto axis = axes->ToInt64Vector();
    if (!axis.ok() || ((*axis)[0] != -1 && (*axis)[0] != rank_ - 1)) return nullptr;
    return mean;
  }

  // A static per-channel shape: [C] or [1, ..., 1, C], rank at most x's.
  bool PerChannel(const ir::TensorRef& ref) const {
    const ir::Node& n = g_.node(ref.node);
    if (ref.index >= static_cast<int>(n.output_shapes.size()) ||
        ref.index >= static_cast<int>(n.output_dtypes.size()) || n.output_dtypes[ref.index] != DType::kFloat) {
      return false;
    }
    const ir::PartialShape& s = n.output_shapes[ref.index];
    if (!s.rank_known() || s.rank() < 1 || s.rank() > rank_ || s.dim(s.rank() - 1) != channels_) return false;
    for (int d = 0; d + 1 < s.rank(); ++d) {
      if (s.dim(d) != 1) return false;
    }
    return true;
  }

  bool Try(const ir::Node& root, const ir::TensorRef& scaled_ref, const ir::TensorRef& shift_ref, Match* m) {
    // x * m
    const ir::Node* scaled = Inner(scaled_ref, "Mul", 2, 1, m);
    if (scaled == nullptr) return false;
    for (int k = 0; k < 2; ++k) {
      Match attempt = *m;
      if (TryScaled(root, scaled->inputs[k], scaled->inputs[1 - k], shift_ref, &attempt)) {
        *m = std::move(attempt);
        return true;
      }
    }
    return false;
  }

  bool TryScaled(const ir::Node& root, const ir::TensorRef& x, const ir::TensorRef& m_ref,
                 const ir::TensorRef& shift_ref, Match* m) {
    const ir::Node& xn = g_.node(x.node);
    if (x.index >= static_cast<int>(xn.output_shapes.size())) return false;
    const ir::PartialShape& xs = xn.output_shapes[x.index];
    if (!xs.rank_known() || xs.rank() < 1 || xs.dim(xs.rank() - 1) < 0) return false;
    rank_ = xs.rank();
    channels_ = xs.dim(xs.rank() - 1);
    if (root.output_shapes.empty() || !root.output_shapes[0].rank_known() || root.output_shapes[0].rank() != rank_) {
      return false;
    }
    // m = Rsqrt(var + epsilon) * gamma, read by x * m and -mean * m.
    const ir::Node* scale = Inner(m_ref, "Mul", 2, 2, m);
    if (scale == nullptr) return false;
    for (int k = 0; k < 2; ++k) {
      Match attempt = *m;
      if (TryScale(scale->inputs[k], scale->inputs[1 - k], x, m_ref, shift_ref, &attempt)) {
        *m = std::move(attempt);
        return true;
      }
    }
    return false;
  }

  bool TryScale(const ir::TensorRef& rsqrt_ref, const ir::TensorRef& gamma, const ir::TensorRef& x,
                const ir::TensorRef& m_ref, const ir::TensorRef& shift_ref, Match* m) {
    if (!PerChannel(gamma)) return false;
    const ir::Node* rsqrt = Inner(rsqrt_ref, "Rsqrt", 1, 1, m);
    if (rsqrt == nullptr) return false;
    const ir::Node* plus_eps = Inner(rsqrt->inputs[0], "AddV2", 2, 1, m);
    if (plus_eps == nullptr) return false;
    for (int k = 0; k < 2; ++k) {
      std::optional<Tensor> eps = ConstValue(g_, plus_eps->inputs[1 - k]);
      if (!eps || eps->dtype() != DType::kFloat || eps->NumElements() != 1 || eps->rank() > rank_) continue;
      Match attempt = *m;
      attempt.epsilon = eps->data<float>()[0];
      if (TryVariance(plus_eps->inputs[k], gamma, x, m_ref, shift_ref, &attempt)) {
        *m = std::move(attempt);
        return true;
      }
    }
    return false;
  }

  bool TryVariance(const ir::TensorRef& var_ref, const ir::TensorRef& gamma, const ir::TensorRef& x,
                   const ir::TensorRef& m_ref, const ir::TensorRef& shift_ref, Match* m) {
    const ir::Node& var_node = g_.node(var_ref.node);
    if (var_node.inputs.size() != 2) return false;
    const ir::Node* var = LastAxisMean(var_ref, var_node.inputs[0], 1, m);
    if (var == nullptr) return false;
    const ir::Node* diff = Inner(var->inputs[0], "SquaredDifference", 2, 1, m);
    if (diff == nullptr) return false;
    // (x - mean)^2 or (mean - x)^2: the same value.
    int mean_slot = -1;
    if (diff->inputs[0] == x) mean_slot = 1;
    if (diff->inputs[1] == x) mean_slot = 0;
    if (mean_slot < 0) return false;
    const ir::TensorRef mean_ref = diff->inputs[mean_slot];
    if (LastAxisMean(mean_ref, x, 2, m) == nullptr) return false;
    // shift = -mean * m + beta.
    const ir::Node* shift = Inner(shift_ref, "AddV2", 2, 1, m);
    if (shift == nullptr) return false;
    for (int k = 0; k < 2; ++k) {
      Match attempt = *m;
      const ir::TensorRef beta = shift->inputs[1 - k];
      if (!PerChannel(beta)) continue;
      const ir::Node* product = Inner(shift->inputs[k], "Mul", 2, 1, &attempt);
      if (product == nullptr) continue;
      for (int j = 0; j < 2; ++j) {
        Match last = attempt;
        if (!(product->inputs[1 - j] == m_ref)) continue;
        const ir::Node* neg = Inner(product->inputs[j], "Neg", 1, 1, &last);
        if (neg == nullptr || !(neg->inputs[0] == mean_ref)) continue;
        last.x = x;
        last.gamma = gamma;
        last.beta = beta;
        *m = std::move(last);
        return true;
      }
    }
    return false;
  }

  const ir::Graph& g_;
  const PassContext& ctx_;
  const std::vector<std::vector<int>>& consumers_;
  int rank_ = 0;
  int64_t channels_ = 0;
};

// The AddV2 producing the norm's x when the pattern's nodes are its only
// readers (the two Means' SquaredDifference and Mean, and x * m), neither
// kept nor protected; else -1.
int ResidualSum(const ir::Graph& graph, const PassContext& ctx, const std::vector<std::vector<int>>& consumers,
                const Match& match) {
  const ir::Node& add = graph.node(match.x.node);
  if (match.x.index != 0 || (add.op != "AddV2" && add.op != "Add") || add.inputs.size() != 2 ||
      !internal::IsFloatNode(add) || ctx.MustKeep(add) || IsProtected(graph, add)) {
    return -1;
  }
  internal::Uses u = UsesOf(graph, consumers, match.x.node);
  if (u.control) return -1;
  for (const auto& use : u.data) {
    if (use.output_index != 0 ||
        std::find(match.inner.begin(), match.inner.end(), use.consumer) == match.inner.end()) {
      return -1;
    }
  }
  return match.x.node;
}

class LayerNormFusion : public GraphPass {
 public:
  std::string name() const override { return "layer_norm_fusion"; }

  Status Run(ir::Graph* graph, const PassContext& ctx) override {
    const std::vector<std::vector<int>> consumers = graph->Consumers();
    std::vector<bool> absorbed(graph->num_nodes(), false);
    bool changed = false;
    for (int i = 0; i < graph->num_nodes(); ++i) {
      if (absorbed[i]) continue;
      Matcher matcher(*graph, ctx, consumers);
      std::optional<Match> match = matcher.At(i);
      if (!match) continue;
      ir::Node fused = graph->node(i);
      fused.op = ops::nn::kLayerNormOp;
      fused.inputs = {match->x, match->gamma, match->beta};
      fused.attrs.clear();
      fused.attrs["T"] = ops::MakeAttr(DType::kFloat);
      fused.attrs["epsilon"] = ops::MakeAttr(match->epsilon);
      // A residual sum read only by the norm goes into it.
      const int sum = ResidualSum(*graph, ctx, consumers, *match);
      if (sum >= 0) {
        match->inner.push_back(sum);
        fused.op = ops::nn::kAddLayerNormOp;
        fused.inputs = {graph->node(sum).inputs[0], graph->node(sum).inputs[1], match->gamma, match->beta};
      }
      for (int n : match->inner) {
        for (int c : graph->node(n).control_inputs) AddControlInput(&fused.control_inputs, c);
      }
      fused.backend.clear();
      if (ctx.has_fast_kernel && !ctx.has_fast_kernel(fused)) continue;
      graph->mutable_node(i) = std::move(fused);
      for (int n : match->inner) absorbed[n] = true;
      changed = true;
    }
    // The matched nodes are dead now; the element-wise fusion after this
    // pass must not take them.
    return changed ? PruneDeadNodes(graph, ctx) : OkStatus();
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeLayerNormFusion() { return std::make_unique<LayerNormFusion>(); }

}  // namespace tfhost::passes
