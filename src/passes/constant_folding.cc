// constant_folding: a stateless, deterministic node whose data inputs are
// all Const is evaluated once at load time with tfhost's reference kernel
// and becomes a Const; Shape, Size and Rank become Consts when static shape
// inference knows enough about their input. Folded nodes keep their name
// when they have one output (so fetches still resolve) and inherit the
// control inputs of the Consts they read (a Const inside a loop or cond body
// is tied to its frame by a control edge from the pivot).
//
// Not folded: protected nodes (pass_manager.h), string tensors (asset paths
// are string Consts the loader may feed), outputs whose static shape is not
// fully known or larger than PassContext::max_folded_bytes (a Fill must not
// turn into 100 MB of model), and nodes whose kernel fails: the failure then
// happens at run time, as it would have without the pass.
#include <algorithm>

#include "ir/attrs.h"
#include "ir/tensor_proto.h"
#include "ops/run_single_op.h"
#include "passes/pass_manager.h"

namespace tfhost::passes {
namespace {

void AddControl(std::vector<int>* controls, int c) {
  if (std::find(controls->begin(), controls->end(), c) == controls->end()) controls->push_back(c);
}

ir::AttrMap ConstAttrs(const Tensor& t) {
  ir::AttrMap attrs;
  attrs["dtype"] = ops::MakeAttr(t.dtype());
  attrs["value"] = ops::MakeAttr(t);
  return attrs;
}

// The static shape facts Shape/Size/Rank need, or an invalid tensor.
Tensor FoldShapeOp(const ir::Graph& graph, const ir::Node& node) {
  if (node.inputs.size() != 1 || node.output_dtypes.size() != 1) return Tensor();
  const ir::TensorRef in = node.inputs[0];
  const ir::Node& producer = graph.node(in.node);
  if (IsControlFlowOp(producer.op)) return Tensor();
  if (in.index < 0 || in.index >= static_cast<int>(producer.output_shapes.size())) return Tensor();
  const ir::PartialShape& s = producer.output_shapes[in.index];
  const DType out = node.output_dtypes[0];
  if (out != DType::kInt32 && out != DType::kInt64) return Tensor();
  std::vector<int64_t> values;
  Shape shape;
  if (node.op == "Rank") {
    if (!s.rank_known()) return Tensor();
    values = {s.rank()};
  } else if (node.op == "Size") {
    if (!s.IsFullyDefined() || s.NumElements() < 0) return Tensor();
    values = {s.NumElements()};
  } else {  // Shape
    if (!s.IsFullyDefined()) return Tensor();
    values = s.dims;
    shape = Shape({static_cast<int64_t>(values.size())});
  }
  Tensor t(out, shape);
  for (size_t k = 0; k < values.size(); ++k) {
    if (out == DType::kInt32) {
      if (values[k] > INT32_MAX) return Tensor();
      t.data<int32_t>()[k] = static_cast<int32_t>(values[k]);
    } else {
      t.data<int64_t>()[k] = values[k];
    }
  }
  return t;
}

class ConstantFolding : public GraphPass {
 public:
  std::string name() const override { return "constant_folding"; }

  Status Run(ir::Graph* graph, const PassContext& ctx) override {
    std::vector<int> order = PassOrder(*graph);
    if (order.empty()) return OkStatus();
    std::vector<std::vector<int>> consumers = graph->Consumers();
    std::vector<bool> keep(graph->num_nodes(), true);
    for (int i : order) {
      const ir::Node& node = graph->node(i);
      if (node.op == "Const" || node.inputs.empty() || IsProtected(*graph, node)) continue;
      if (std::find(node.output_dtypes.begin(), node.output_dtypes.end(), DType::kString) !=
          node.output_dtypes.end()) {
        continue;
      }
      std::vector<Tensor> outputs;
      std::vector<int> controls = node.control_inputs;
      if (node.op == "Shape" || node.op == "Size" || node.op == "Rank") {
        Tensor t = FoldShapeOp(*graph, node);
        if (!t.valid()) continue;
        outputs.push_back(std::move(t));
        // Runs when (and in the frame where) the input would have.
        AddControl(&controls, node.inputs[0].node);
      } else {
        if (!AllInputsConst(*graph, node) || !OutputsFit(node, ctx)) continue;
        std::vector<Tensor> inputs;
        bool ok = true;
        for (const auto& in : node.inputs) {
          const ir::Node& c = graph->node(in.node);
          auto t = ir::GetAttr<Tensor>(c, "value");
          if (!t.ok() || t->dtype() == DType::kString) {
            ok = false;
            break;
          }
          inputs.push_back(std::move(*t));
          for (int cc : c.control_inputs) AddControl(&controls, cc);
        }
        if (!ok) continue;
        auto result = ops::RunSingleOp(node.op, std::move(inputs), node.attrs);
        if (!result.ok() || result->size() != node.output_dtypes.size()) continue;
        int64_t bytes = 0;
        for (size_t k = 0; k < result->size(); ++k) {
          const Tensor& t = (*result)[k];
          if (!t.valid() || t.dtype() != node.output_dtypes[k]) ok = false;
          if (ok) bytes += static_cast<int64_t>(t.ByteSize());
        }
        if (!ok || bytes > ctx.max_folded_bytes) continue;
        outputs = std::move(*result);
      }
      if (outputs.size() == 1) {
        ir::Node& n = graph->mutable_node(i);
        n.op = "Const";
        n.inputs.clear();
        n.control_inputs = controls;
        n.attrs = ConstAttrs(outputs[0]);
        n.output_shapes = {ir::PartialShape::FromShape(outputs[0].shape())};
        continue;
      }
      // Several outputs: one Const each, when the name need not survive and
      // nothing depends on the node by control edge.
      if (ctx.MustKeep(node)) continue;
      bool control_users = false;
      for (int u : consumers[i]) {
        const auto& ci = graph->node(u).control_inputs;
        control_users = control_users || std::find(ci.begin(), ci.end(), i) != ci.end();
      }
      if (control_users) continue;
      const std::string base = node.name;
      std::vector<int> new_ids;
      for (size_t k = 0; k < outputs.size(); ++k) {
        ir::Node c;
        c.name = graph->UniqueName(base + "/folded_" + std::to_string(k));
        c.op = "Const";
        c.control_inputs = controls;
        c.attrs = ConstAttrs(outputs[k]);
        c.output_dtypes = {outputs[k].dtype()};
        c.output_shapes = {ir::PartialShape::FromShape(outputs[k].shape())};
        TFHOST_ASSIGN_OR_RETURN(int id, graph->AddNode(std::move(c)));
        new_ids.push_back(id);
      }
      keep.resize(graph->num_nodes(), true);
      for (int u : consumers[i]) {
        for (auto& in : graph->mutable_node(u).inputs) {
          if (in.node == i) in = ir::TensorRef{new_ids[in.index], 0};
        }
      }
      keep[i] = false;
    }
    return graph->Compact(keep);
  }

 private:
  static bool AllInputsConst(const ir::Graph& graph, const ir::Node& node) {
    for (const auto& in : node.inputs) {
      if (graph.node(in.node).op != "Const") return false;
    }
    return true;
  }

  // Static output shapes must be fully known and small enough before the
  // kernel is allowed to allocate them.
  static bool OutputsFit(const ir::Node& node, const PassContext& ctx) {
    if (node.output_shapes.size() != node.output_dtypes.size()) return false;
    int64_t bytes = 0;
    for (size_t k = 0; k < node.output_shapes.size(); ++k) {
      const ir::PartialShape& s = node.output_shapes[k];
      if (!s.IsFullyDefined()) return false;
      const int64_t n = s.NumElements();
      const int64_t size = static_cast<int64_t>(DTypeSize(node.output_dtypes[k]));
      if (n < 0 || size <= 0 || n > ctx.max_folded_bytes / size) return false;
      bytes += n * size;
      if (bytes > ctx.max_folded_bytes) return false;
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeConstantFolding() { return std::make_unique<ConstantFolding>(); }

}  // namespace tfhost::passes
