// Small helpers the rewriting passes (batch_norm_folding,
// conv_bias_activation_fusion, elementwise_fusion) share for matching
// patterns: who reads a node and how, Const values, float-typed nodes,
// per-channel constants, and adding a Const node. Internal to src/passes.
#pragma once

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "ir/attrs.h"
#include "ir/graph.h"
#include "ops/run_single_op.h"
#include "passes/pass_manager.h"

namespace tfhost::passes::internal {

// The nodes reading `node` by data edge, with which output and input slot,
// and whether any node depends on it by control edge.
struct Uses {
  struct Use {
    int consumer;
    int input_slot;
    int output_index;
  };
  std::vector<Use> data;
  bool control = false;
};

inline Uses UsesOf(const ir::Graph& graph, const std::vector<std::vector<int>>& consumers, int node) {
  Uses u;
  std::vector<int> seen;
  for (int c : consumers[node]) {
    if (std::find(seen.begin(), seen.end(), c) != seen.end()) continue;
    seen.push_back(c);
    const ir::Node& n = graph.node(c);
    for (size_t s = 0; s < n.inputs.size(); ++s) {
      if (n.inputs[s].node == node) u.data.push_back({c, static_cast<int>(s), n.inputs[s].index});
    }
    for (int ci : n.control_inputs) u.control = u.control || ci == node;
  }
  return u;
}

// The one consumer reading output 0 of `node` exactly once (no control
// users, no other outputs read), or -1.
inline int SoleConsumer(const ir::Graph& graph, const std::vector<std::vector<int>>& consumers, int node) {
  Uses u = UsesOf(graph, consumers, node);
  if (u.control || u.data.size() != 1 || u.data[0].output_index != 0) return -1;
  return u.data[0].consumer;
}

inline bool IsFloatNode(const ir::Node& node) {
  if (node.output_dtypes.empty() || node.output_dtypes[0] != DType::kFloat) return false;
  auto t = ir::GetAttrOr<DType>(node, "T", DType::kFloat);
  return t.ok() && *t == DType::kFloat;
}

// The value of a Const node's output, when `ref` is one.
inline std::optional<Tensor> ConstValue(const ir::Graph& graph, const ir::TensorRef& ref) {
  const ir::Node& n = graph.node(ref.node);
  if (n.op != "Const" || ref.index != 0) return std::nullopt;
  auto t = ir::GetAttr<Tensor>(n, "value");
  if (!t.ok() || !t->valid()) return std::nullopt;
  return *t;
}

// A float constant that broadcasts along the last dim of a rank-`rank`
// tensor with `channels` channels without enlarging it: shape [C], [1, C],
// ..., of rank <= `rank`. Returns its `channels` values.
inline std::optional<std::vector<float>> PerChannelValues(const Tensor& t, int rank, int64_t channels) {
  if (t.dtype() != DType::kFloat || t.rank() < 1 || t.rank() > rank || channels <= 0) return std::nullopt;
  for (int i = 0; i + 1 < t.rank(); ++i) {
    if (t.dim(i) != 1) return std::nullopt;
  }
  if (t.dim(t.rank() - 1) != channels) return std::nullopt;
  return std::vector<float>(t.data<float>(), t.data<float>() + channels);
}

// Static channel count (last dim) of output 0, or -1.
inline int64_t StaticChannels(const ir::Node& node, int* rank = nullptr) {
  if (node.output_shapes.empty() || !node.output_shapes[0].rank_known() || node.output_shapes[0].rank() < 1) {
    return -1;
  }
  const ir::PartialShape& s = node.output_shapes[0];
  if (rank != nullptr) *rank = s.rank();
  return s.dim(s.rank() - 1);
}

inline StatusOr<int> AddConstNode(ir::Graph* graph, const std::string& base, const Tensor& value,
                                  std::vector<int> controls) {
  ir::Node c;
  c.name = graph->UniqueName(base);
  c.op = "Const";
  c.control_inputs = std::move(controls);
  ir::SetConstValue(&c, value);
  c.output_dtypes = {value.dtype()};
  c.output_shapes = {ir::PartialShape::FromShape(value.shape())};
  return graph->AddNode(std::move(c));
}

inline void AddControlInput(std::vector<int>* controls, int c) {
  if (std::find(controls->begin(), controls->end(), c) == controls->end()) controls->push_back(c);
}

}  // namespace tfhost::passes::internal
