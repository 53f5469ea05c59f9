// common_subexpression_elimination: two nodes with the same op, the same
// data inputs in the same order, the same control inputs and the same attrs
// compute the same values (the op is stateless and deterministic, which
// IsProtected guarantees), so the later one is removed and its consumers read
// the earlier one. Const nodes are merged when their values are equal (same
// dtype, shape and bytes), whatever spelling the TensorProto used, up to
// kMaxMergedConstBytes each (comparing costs a pass over the bytes).
//
// Nodes are visited in PassOrder and consumers are rewired on the spot, so an
// input reference is already canonical when its consumer is keyed: a chain of
// duplicates collapses in one pass.
//
// Not merged: kept names (a fetch of the duplicate's name must still
// resolve; the representative may itself be kept), protected nodes (stateful
// ops such as RandomUniform give different values per node), string Consts
// (asset paths may be fed by name), Consts whose value proto carries no
// values (see IsValueStub), and non-Const nodes without inputs.
#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "ir/attrs.h"
#include "passes/pass_manager.h"

namespace tfhost::passes {
namespace {

constexpr size_t kMaxMergedConstBytes = 1 << 20;

// Everything that decides a node's outputs except its name.
std::string NodeKey(const ir::Node& node) {
  std::string key = node.op;
  key += '\0';
  for (const auto& in : node.inputs) key += std::to_string(in.node) + ":" + std::to_string(in.index) + ",";
  key += '\0';
  std::vector<int> controls = node.control_inputs;
  std::sort(controls.begin(), controls.end());
  controls.erase(std::unique(controls.begin(), controls.end()), controls.end());
  for (int c : controls) key += std::to_string(c) + ",";
  key += '\0';
  // AttrMap is ordered by name; AttrValue has no map fields outside function
  // attrs (protected), so its serialization is canonical.
  for (const auto& [name, value] : node.attrs) {
    key += name;
    key += '=';
    key += value.SerializeAsString();
    key += '\0';
  }
  return key;
}

// Const identity by value: dtype, dims, control inputs and the bytes.
std::string ConstKey(const ir::Node& node, const Tensor& t) {
  std::string key = "Const";
  key += '\0';
  key += std::to_string(static_cast<int>(t.dtype())) + ":";
  for (int64_t d : t.shape().dims()) key += std::to_string(d) + ",";
  key += '\0';
  std::vector<int> controls = node.control_inputs;
  std::sort(controls.begin(), controls.end());
  controls.erase(std::unique(controls.begin(), controls.end()), controls.end());
  for (int c : controls) key += std::to_string(c) + ",";
  key += '\0';
  key.append(static_cast<const char*>(t.raw_data()), t.ByteSize());
  return key;
}

// A TensorProto with a shape and no values reads as zeros, but it is also
// what the graph runner leaves in a session's graph once it has taken a large
// constant's bytes out (runtime/graph_runner.cc): comparing such stubs would
// merge different weights when passes are replayed on a session's graph
// (tfhost inspect --optimized). A real all-zero constant only misses a merge.
bool IsValueStub(const ir::Node& node) {
  if (node.constant.valid()) return false;  // the value is held as a tensor
  const tensorflow::AttrValue* attr = node.FindAttr("value");
  if (attr == nullptr || !attr->has_tensor()) return false;
  const tensorflow::TensorProto& t = attr->tensor();
  if (!t.tensor_content().empty() || t.float_val_size() || t.double_val_size() || t.int_val_size() ||
      t.string_val_size() || t.int64_val_size() || t.bool_val_size() || t.half_val_size() ||
      t.uint32_val_size() || t.uint64_val_size() || t.scomplex_val_size() || t.dcomplex_val_size()) {
    return false;
  }
  for (const auto& d : t.tensor_shape().dim()) {
    if (d.size() == 0) return false;  // empty tensor: nothing missing
  }
  return true;
}

class CommonSubexpressionElimination : public GraphPass {
 public:
  std::string name() const override { return "common_subexpression_elimination"; }

  Status Run(ir::Graph* graph, const PassContext& ctx) override {
    if (ctx.keep_all) return OkStatus();
    std::vector<int> order = PassOrder(*graph);
    if (order.empty()) return OkStatus();
    const std::vector<std::vector<int>> consumers = graph->Consumers();
    std::vector<bool> keep(graph->num_nodes(), true);
    std::unordered_map<std::string, int> seen;
    for (int i : order) {
      const ir::Node& node = graph->node(i);
      if (IsProtected(*graph, node)) continue;
      std::string key;
      if (node.op == "Const") {
        if (IsValueStub(node)) continue;
        auto value = ir::GetAttr<Tensor>(node, "value");
        if (!value.ok() || value->dtype() == DType::kString || value->dtype() == DType::kVariant ||
            value->dtype() == DType::kResource || value->ByteSize() > kMaxMergedConstBytes) {
          continue;
        }
        key = ConstKey(node, *value);
      } else {
        if (node.inputs.empty()) continue;
        key = NodeKey(node);
      }
      auto [it, inserted] = seen.emplace(std::move(key), i);
      if (inserted) continue;
      const int rep = it->second;
      if (ctx.MustKeep(node) || graph->node(rep).output_dtypes != node.output_dtypes) continue;
      for (int u : consumers[i]) {
        ir::Node& user = graph->mutable_node(u);
        for (auto& in : user.inputs) {
          if (in.node == i) in.node = rep;
        }
        bool has_rep = false;
        for (int c : user.control_inputs) has_rep = has_rep || c == rep;
        std::vector<int> controls;
        for (int c : user.control_inputs) {
          if (c == i) {
            if (!has_rep) controls.push_back(rep);
            has_rep = true;
          } else {
            controls.push_back(c);
          }
        }
        user.control_inputs = std::move(controls);
      }
      keep[i] = false;
    }
    return graph->Compact(keep);
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeCommonSubexpressionElimination() {
  return std::make_unique<CommonSubexpressionElimination>();
}

}  // namespace tfhost::passes
