// Static shape inference over an ir::Graph: the part of TensorFlow's graph
// construction that works out each tensor's (partial) shape before anything
// runs. Every op family contributes shape functions, keyed by TensorFlow op
// name, from src/ops/<family>/shape_fns.cc; InferShapes walks the graph in
// topological order and fills ir::Node::output_shapes.
//
// Contract of a shape function: it reads input shapes (and the values of
// inputs that are constants), sets the outputs it can, and leaves the rest
// unknown. It fails ONLY on a definite conflict between known facts (MatMul
// inner dims 3 vs 4, Reshape of 6 elements to [4,2], broadcasting 2 vs 3):
// the model could never run, so loading fails, as TensorFlow's graph
// construction would. Unknown dims, unknown ranks, non-constant shape inputs
// and attrs it cannot read all mean "leave it unknown"; the kernel still
// checks everything at run time.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "base/tensor.h"
#include "ir/attrs.h"
#include "ir/graph.h"
#include "ir/partial_shape.h"

namespace tfhost::ops {

class ShapeContext {
 public:
  // `input_values[i]` is the value of input i when it is known statically
  // (a Const producer), else null; the pointees must outlive the context.
  // `input_handle_shapes[i]` is, for a resource input, the shape of the
  // variable it points to (VarHandleOp's `shape`), else null.
  ShapeContext(const ir::Node& node, std::vector<ir::PartialShape> inputs,
               std::vector<const Tensor*> input_values, int num_outputs,
               std::vector<const ir::PartialShape*> input_handle_shapes = {});

  const ir::Node& node() const { return node_; }
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  // Unknown rank for an index past the end (never fails).
  const ir::PartialShape& input(int i) const;
  const Tensor* input_value(int i) const;
  int num_outputs() const { return static_cast<int>(outputs_.size()); }

  // Out-of-range indices are ignored (a node with fewer outputs than a shape
  // function assumes keeps unknown shapes rather than crashing).
  void set_output(int i, ir::PartialShape shape);
  const ir::PartialShape& output(int i) const { return outputs_[i]; }
  std::vector<ir::PartialShape> TakeOutputs() { return std::move(outputs_); }
  // Publishes a statically known value of output i (Shape of a fully known
  // input, say) so that consumers see it through input_value(). Kept small.
  void set_output_value(int i, Tensor value);
  std::vector<std::optional<Tensor>> TakeOutputValues() { return std::move(output_values_); }
  // Shape of the variable behind a resource-handle input, or unknown rank;
  // and the same for an output (VarHandleOp, Identity of a handle).
  const ir::PartialShape& input_handle_shape(int i) const;
  void set_output_handle_shape(int i, ir::PartialShape shape);
  std::vector<std::optional<ir::PartialShape>> TakeOutputHandleShapes() {
    return std::move(output_handle_shapes_);
  }

  // Attr value, or nullopt when absent or malformed: shape functions then
  // leave outputs unknown and the kernel reports the bad attr at run time.
  template <typename T>
  std::optional<T> Attr(const std::string& key) const {
    auto v = ir::GetAttr<T>(node_, key);
    if (!v.ok()) return std::nullopt;
    return std::move(*v);
  }
  template <typename T>
  std::optional<T> AttrOr(const std::string& key, T default_value) const {
    if (node_.FindAttr(key) == nullptr) return default_value;
    return Attr<T>(key);
  }

  // Integer contents of a constant input (any integer dtype), or nullopt.
  std::optional<std::vector<int64_t>> InputInts(int i) const;
  // Input i read as a shape (Reshape's `shape`, Fill's `dims`): a constant
  // gives its values (negative entries = unknown dims); a non-constant 1-D
  // input of known length n gives n unknown dims; otherwise unknown rank.
  ir::PartialShape InputAsShape(int i) const;

  // InvalidArgument prefixed with the node ("node 'mm' (MatMul): ...").
  Status Error(const std::string& message) const;

 private:
  const ir::Node& node_;
  std::vector<ir::PartialShape> inputs_;
  std::vector<const Tensor*> input_values_;
  std::vector<ir::PartialShape> outputs_;
  std::vector<std::optional<Tensor>> output_values_;
  std::vector<const ir::PartialShape*> input_handle_shapes_;
  std::vector<std::optional<ir::PartialShape>> output_handle_shapes_;
};

using ShapeFn = std::function<Status(ShapeContext&)>;

class ShapeFnRegistry {
 public:
  // Every family's shape functions; built once on first use, read-only after
  // (safe to share across threads).
  static const ShapeFnRegistry& Global();

  // Replaces any earlier function for `op`.
  void Register(const std::string& op, ShapeFn fn);
  // Registers `fn` for each op name.
  void Register(std::initializer_list<const char*> ops, const ShapeFn& fn);
  const ShapeFn* Find(const std::string& op) const;

 private:
  std::map<std::string, ShapeFn> fns_;
};

// Fills output_shapes of every node (one entry per output_dtypes entry, so
// run ir::InferTypes first). Placeholder/PlaceholderWithDefault come from
// their `shape` attr, Const from its value, ops without a shape function get
// unknown rank. Nodes on or after a cycle (TF1 while loops) are left unknown.
// Fails only on a definite conflict, naming the node.
Status InferShapes(ir::Graph& graph, const ShapeFnRegistry& registry = ShapeFnRegistry::Global());

// Shape functions shared by several families.
// Output 0 has input 0's shape (Identity, Relu, Cast, Softmax, ...).
Status UnchangedShape(ShapeContext& ctx);
// Element-wise with broadcasting over every input (Add, Less, SelectV2, ...).
Status BroadcastingShape(ShapeContext& ctx);
// Every output i has input i's shape, value and handle shape (Identity,
// IdentityN, Snapshot, ...).
Status ForwardAllInputs(ShapeContext& ctx);

// Helpers for shape functions.
// Axis in [-rank, rank) made non-negative, or -1 when out of range.
int NormalizeAxis(int64_t axis, int rank);

// One function per family (src/ops/<family>/shape_fns.cc).
void RegisterArrayShapeFns(ShapeFnRegistry& registry);
void RegisterMathShapeFns(ShapeFnRegistry& registry);
void RegisterNnShapeFns(ShapeFnRegistry& registry);
void RegisterStateShapeFns(ShapeFnRegistry& registry);
void RegisterParsingShapeFns(ShapeFnRegistry& registry);
void RegisterStringShapeFns(ShapeFnRegistry& registry);
void RegisterControlFlowShapeFns(ShapeFnRegistry& registry);
void RegisterRandomShapeFns(ShapeFnRegistry& registry);
void RegisterLookupShapeFns(ShapeFnRegistry& registry);
void RegisterSparseShapeFns(ShapeFnRegistry& registry);
void RegisterImageShapeFns(ShapeFnRegistry& registry);
void RegisterAudioShapeFns(ShapeFnRegistry& registry);
void RegisterTextShapeFns(ShapeFnRegistry& registry);

}  // namespace tfhost::ops
