// The graph IR that every loader produces and the runtime executes.
//
// A Graph is a list of Nodes named and typed as in TensorFlow: `op` is the
// TensorFlow op name ("Conv2D"), attrs are TensorFlow AttrValues, and edges
// refer to (node index, output index). Function libraries are kept beside the
// graph so that call nodes can be inlined (ir/function_inliner.h).
//
// Thread-safety: a Graph is not synchronized; build it on one thread, then
// share it read-only.
#pragma once

#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/dtype.h"
#include "base/status.h"
#include "base/tensor.h"
#include "ir/partial_shape.h"
#include "tensorflow/core/framework/attr_value.pb.h"
#include "tensorflow/core/framework/function.pb.h"
#include "tensorflow/core/framework/graph.pb.h"

namespace tfhost::ir {

// One output of one node.
struct TensorRef {
  int node = -1;
  int index = 0;
  bool operator==(const TensorRef& o) const { return node == o.node && index == o.index; }
  bool operator<(const TensorRef& o) const {
    return node != o.node ? node < o.node : index < o.index;
  }
};

using AttrMap = std::map<std::string, tensorflow::AttrValue>;

struct Node {
  std::string name;
  std::string op;
  std::string device;  // kept for information; placement is decided by tfhost
  // The backend placement chose (backends/placement.h); empty until then.
  std::string backend;
  std::vector<TensorRef> inputs;  // data inputs in order
  std::vector<int> control_inputs;
  AttrMap attrs;
  // Filled by InferTypes (ir/type_inference.h); empty until then.
  std::vector<DType> output_dtypes;
  // Filled by static shape inference (ops/shape_inference.h), one entry per
  // output; empty until then. Unknown parts are facts not yet known, not
  // errors: kernels still check the real shapes at run time.
  std::vector<PartialShape> output_shapes;
  // A Const's value held as a tensor rather than serialized in attr "value"
  // (which then holds only its dtype and shape): weights the loader made
  // (frozen variables, folded filters) go to the session without being
  // copied into a proto and decoded back. GetAttr<Tensor>(node, "value") and
  // ToGraphDef() see it; invalid for every other node. Set with SetConstValue.
  Tensor constant;

  const tensorflow::AttrValue* FindAttr(const std::string& key) const {
    auto it = attrs.find(key);
    return it == attrs.end() ? nullptr : &it->second;
  }
};

// Makes `node` a Const of `value` held in Node::constant, with attrs dtype
// and a "value" that carries only the dtype and shape.
void SetConstValue(Node* node, Tensor value);

// "name" -> (name, 0); "name:3" -> (name, 3); "^name" -> control. Used for
// GraphDef inputs, signature TensorInfo names and command-line tensor names.
struct ParsedTensorName {
  std::string node;
  int index = 0;
  bool is_control = false;
};
StatusOr<ParsedTensorName> ParseTensorName(const std::string& name);

class Graph {
 public:
  Graph() = default;

  // Builds a graph from a GraphDef's nodes (top-level input grammar,
  // docs/formats.md §1.4) and keeps its function library. Fails with the node name
  // on duplicate names, missing inputs or malformed input strings.
  static StatusOr<Graph> FromGraphDef(const tensorflow::GraphDef& graph_def);

  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  const Node& node(int i) const { return nodes_[i]; }
  Node& mutable_node(int i) { return nodes_[i]; }
  const std::vector<Node>& nodes() const { return nodes_; }

  // Index of the node with this name, or -1.
  int FindNode(const std::string& name) const;
  // Resolves "node:i" to a TensorRef; error names the tensor.
  StatusOr<TensorRef> ResolveTensor(const std::string& tensor_name) const;
  // Adds a node (its name must be new) and returns its index.
  StatusOr<int> AddNode(Node node);
  // Renames are not supported; nodes are removed only by Compact().
  // Removes nodes whose `keep[i]` is false and renumbers edges. Edges into a
  // removed node are an internal error.
  Status Compact(const std::vector<bool>& keep);
  // A name not used yet, built from `base`.
  std::string UniqueName(const std::string& base) const;

  const tensorflow::FunctionDefLibrary& library() const { return library_; }
  tensorflow::FunctionDefLibrary& mutable_library() { return library_; }
  const tensorflow::FunctionDef* FindFunction(const std::string& name) const;

  // Nodes in an order where every node comes after its inputs (data and
  // control). Fails naming a node on a cycle.
  StatusOr<std::vector<int>> TopologicalOrder() const;
  // Consumers of each node (data and control), for passes and the executor.
  std::vector<std::vector<int>> Consumers() const;

  // Writes the graph back as a GraphDef (nodes, attrs, inputs by name, library).
  tensorflow::GraphDef ToGraphDef() const;

 private:
  std::vector<Node> nodes_;
  std::unordered_map<std::string, int> index_;
  tensorflow::FunctionDefLibrary library_;
};

}  // namespace tfhost::ir
