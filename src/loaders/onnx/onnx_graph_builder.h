// Turns an ONNX graph (GraphProto) into ir::Graph nodes: each graph input
// becomes a Placeholder, each initializer a Const where something reads it,
// and each node is handed to the op mappers (onnx_ops.h), in the order the
// file lists them (ONNX requires that order to be topological). Every ONNX
// value is tracked with what the load knows statically (dtype, partial
// shape, and the value itself when it is a constant), because several ONNX
// ops need a rank or a constant operand to be expressed in TensorFlow ops.
// Node names come from ONNX value names, made valid TensorFlow node names and
// unique.
//
// Thread-safety: single-threaded; one builder per load.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/partial_shape.h"
#include "onnx/onnx.pb.h"

namespace tfhost::loaders::onnx {

// What the load knows about one ONNX value.
struct ValueInfo {
  ir::TensorRef ref;                // node -1 until a constant is first read
  DType dtype = DType::kInvalid;    // kInvalid: not known at load
  ir::PartialShape shape;           // Unknown() when not even the rank is known
  std::optional<Tensor> constant;   // initializers, Constant nodes, values folded at load
  // A rank-4 value held in TensorFlow's NHWC layout as well: convolutions,
  // pooling and the element-wise ops between them work on this form, so a
  // tf2onnx CNN runs on the NHWC kernels and fusions. `ref` (ONNX's NCHW)
  // is made from it, a Transpose, only when something reads it that way
  // (node -1 until then). `shape` is always the NCHW shape.
  ir::TensorRef nhwc{-1, 0};
  int rank() const { return shape.unknown_rank ? -1 : static_cast<int>(shape.dims.size()); }
};

class GraphBuilder {
 public:
  // `path` names the model file in errors; `model_dir` is where external
  // data lives; `opset` is the default domain's version.
  GraphBuilder(const ::onnx::GraphProto& graph, std::string path, std::string model_dir, int64_t opset,
               ir::Graph* out);

  // Adds inputs and initializers, then every node. Fails on the first node
  // that cannot be mapped, naming it.
  Status Build();

  // The value named `name`; errors when nothing defines it.
  StatusOr<const ValueInfo*> Value(const std::string& name) const;
  // The graph output holding value `name` (a constant gets its Const node on
  // first use).
  StatusOr<ir::TensorRef> Ref(const std::string& name);
  // Value `name` (rank 4) in NHWC layout: its NHWC form, or a Transpose of
  // its NCHW one, made once.
  StatusOr<ir::TensorRef> RefNhwc(const std::string& name);
  // Whether value `name` exists only in NHWC form so far.
  bool OnlyNhwc(const std::string& name) const;
  // "node:0" for value `name` (materializing it like Ref).
  StatusOr<std::string> TensorName(const std::string& name);

  // For the op mappers.
  // A Const node of `value` under a fresh name built from `base`.
  StatusOr<ir::TensorRef> AddConst(const std::string& base, Tensor value);
  // A node with a fresh name built from `base`; returns its output 0.
  StatusOr<ir::TensorRef> AddNode(const std::string& base, const std::string& op,
                                  std::vector<ir::TensorRef> inputs, ir::AttrMap attrs = {});
  // The node that produces ONNX value `name`, named after it; returns its
  // output 0. Bind() must still record the value.
  StatusOr<ir::TensorRef> AddNamedNode(const std::string& name, const std::string& op,
                                       std::vector<ir::TensorRef> inputs, ir::AttrMap attrs = {});
  // Records value `name` as graph output `ref` with what is known about it;
  // the file's value_info (and the graph outputs' declared types) fill in
  // what the mapper did not know. A value may be defined only once.
  Status Bind(const std::string& name, ir::TensorRef ref, DType dtype, ir::PartialShape shape,
              std::optional<Tensor> constant = std::nullopt);
  // Records value `name` (NCHW shape `shape`) by its NHWC form `nhwc`.
  Status BindNhwc(const std::string& name, ir::TensorRef nhwc, DType dtype, ir::PartialShape shape);
  // Records value `name` as a constant, added as a Const only if read.
  Status BindConstant(const std::string& name, Tensor value);
  // The node name reserved for value `name` (base for helper node names).
  std::string NodeName(const std::string& name) const;

  // For a subgraph (an If branch) built into its own scratch graph: `root`
  // is the model's graph, whose library receives the functions nested
  // control flow makes (default: the graph this builder writes).
  void set_root(ir::Graph* root) { root_ = root; }
  ir::Graph* root() const { return root_ != nullptr ? root_ : graph_; }
  // Before Build: value `name`, which the subgraph reads from its enclosing
  // graph, becomes a Placeholder of that dtype and shape; returns its node.
  StatusOr<int> AddCapture(const std::string& name, DType dtype, const ir::PartialShape& shape);

  const std::string& path() const { return path_; }
  const std::string& model_dir() const { return model_dir_; }
  int64_t opset() const { return opset_; }

 private:
  Status ReserveNames();
  Status AddInputs();
  Status AddInitializers();
  Status AddOperator(int index);
  std::string FreshName(const std::string& base) const;
  // The declared type of `name` from value_info or the graph outputs.
  void MergeDeclared(const std::string& name, ValueInfo* info) const;

  const ::onnx::GraphProto& proto_;
  std::string path_;
  std::string model_dir_;
  int64_t opset_;
  ir::Graph* graph_;
  ir::Graph* root_ = nullptr;
  std::map<std::string, ValueInfo> values_;
  std::map<std::string, std::string> names_;  // ONNX value -> reserved node name
  std::set<std::string> reserved_;
  std::map<std::string, const ::onnx::ValueInfoProto*> declared_;
};

// A valid TensorFlow node name from an ONNX value name: characters outside
// [A-Za-z0-9_./-] become '_', and a name starting with '_', '/', '-' or '.'
// gets a "v" in front.
std::string NodeNameFromValueName(const std::string& name);

// The values a subgraph reads but does not define (nor its inputs and
// initializers): those of its enclosing graphs, in first-use order,
// including those its own nested subgraphs read.
std::vector<std::string> FreeValueNames(const ::onnx::GraphProto& graph);

// The DType and PartialShape a ValueInfoProto declares (dim_param and absent
// dims are unknown; an absent shape is an unknown rank). Errors for
// non-tensor types and element types tfhost has no DType for.
StatusOr<std::pair<DType, ir::PartialShape>> DeclaredType(const ::onnx::ValueInfoProto& info,
                                                          const std::string& where);

}  // namespace tfhost::loaders::onnx
