// Maps ONNX nodes (default domain, opsets kMinOpset..kMaxOpset) to the
// TensorFlow ops tfhost runs. Most nodes become one TensorFlow node; some
// become a few (Gemm's scaling, a Softmax over a middle axis, Reshape's
// "copy this dimension" zeros computed at run time). Layouts stay ONNX's:
// convolutions and pooling run as NCHW TensorFlow ops, and weights are
// permuted into TensorFlow's layout once, at load. An op type without a
// mapper is not faked: FindMapper says no and the load fails naming the node.
//
// Thread-safety: the mapper table is immutable; a NodeContext is used by one
// thread during one load.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "loaders/imported_graph_util.h"
#include "loaders/onnx/onnx_graph_builder.h"

namespace tfhost::loaders::onnx {

// The default-domain opsets the mappers implement: 13 (where Softmax,
// Squeeze/Unsqueeze and ReduceSum took their current form) up to the newest
// ONNX Runtime 1.31 runs.
inline constexpr int64_t kMinOpset = 13;
inline constexpr int64_t kMaxOpset = 26;

struct NodeContext {
  GraphBuilder* b = nullptr;
  const ::onnx::NodeProto* node = nullptr;
  int index = 0;
  int64_t opset = 0;
  std::string where;  // "model.onnx: ONNX node 3 ('conv_3', op Conv, opset 17)"

  // Inputs: an absent optional input is "" or past the end.
  bool Has(int i) const;
  const std::string& InName(int i) const { return node->input(i); }
  StatusOr<ir::TensorRef> In(int i) const;
  StatusOr<const ValueInfo*> Info(int i) const;
  // Input i's value if it is a constant at load, else nullopt.
  StatusOr<std::optional<Tensor>> ConstIn(int i) const;
  // Input i as integers; it must be a constant (an error says `what` needs it).
  StatusOr<std::vector<int64_t>> ConstInts(int i, const std::string& what) const;
  // Input i's rank, which must be known at load (an error says `why`).
  StatusOr<int> Rank(int i, const std::string& why) const;
  DType InType(int i) const;

  // Attributes, checked against their declared type.
  const ::onnx::AttributeProto* Attr(const std::string& name) const;
  StatusOr<int64_t> Int(const std::string& name, int64_t fallback) const;
  StatusOr<float> Float(const std::string& name, float fallback) const;
  StatusOr<std::string> String(const std::string& name, const std::string& fallback) const;
  StatusOr<std::vector<int64_t>> Ints(const std::string& name, std::vector<int64_t> fallback = {}) const;

  Status Error(const std::string& what) const;        // InvalidArgument(where + ": " + what)
  Status Unsupported(const std::string& what) const;  // Unimplemented(where + ": " + what)
  // Base name for helper nodes: output 0's node name.
  std::string Base() const;

  // A helper node (not an ONNX value) named Base()/suffix.
  StatusOr<ir::TensorRef> Helper(const std::string& suffix, const std::string& op, std::vector<ir::TensorRef> inputs,
                                 ir::AttrMap attrs = {}) const;
  StatusOr<ir::TensorRef> Const(const std::string& suffix, Tensor value) const;
  // The node that writes output 0, bound with what is known about it.
  Status Emit(const std::string& op, std::vector<ir::TensorRef> inputs, ir::AttrMap attrs, DType dtype,
              ir::PartialShape shape) const;
  // The NHWC layout (onnx_graph_builder.h, ValueInfo::nhwc): whether input
  // i exists only as NHWC so far, the input in NHWC (a Transpose when it has
  // only its NCHW form), and output 0 bound by an NHWC node `op`.
  bool IsNhwc(int i) const;
  StatusOr<ir::TensorRef> InNhwc(int i) const;
  Status EmitNhwc(const std::string& op, std::vector<ir::TensorRef> inputs, ir::AttrMap attrs, DType dtype,
                  ir::PartialShape shape) const;
  // Output `i` is `ref` (an existing node's output, or an Identity of it
  // when that output is already another ONNX value, so names stay apart).
  Status BindOutput(int i, ir::TensorRef ref, DType dtype, ir::PartialShape shape) const;
};

using MapFn = Status (*)(const NodeContext&);
// The mapper for an op type of the default domain, or null.
MapFn FindMapper(const std::string& op_type);

// Per family (onnx_ops_nn.cc, onnx_ops_conv.cc, onnx_ops_math.cc,
// onnx_ops_array.cc, onnx_ops_slice.cc); null when the family lacks it.
MapFn FindNnMapper(const std::string& op_type);
MapFn FindConvMapper(const std::string& op_type);
MapFn FindMathMapper(const std::string& op_type);
MapFn FindArrayMapper(const std::string& op_type);
MapFn FindSliceMapper(const std::string& op_type);
MapFn FindIndexMapper(const std::string& op_type);     // onnx_ops_index.cc
MapFn FindQuantizeMapper(const std::string& op_type);  // onnx_ops_quantize.cc
MapFn FindControlMapper(const std::string& op_type);   // onnx_ops_control.cc (If, Loop)
MapFn FindResizeMapper(const std::string& op_type);    // onnx_ops_resize.cc
MapFn FindRnnMapper(const std::string& op_type);       // onnx_ops_rnn.cc (LSTM)
MapFn FindGatherMapper(const std::string& op_type);    // onnx_ops_gather.cc (GatherND, ScatterND, EyeLike...)

// Normalizes axis `axis` of a rank-`rank` tensor into [0, rank); errors name
// the attribute or input.
StatusOr<int> NormalizeAxis(const NodeContext& ctx, int64_t axis, int rank, const std::string& what);

// int64 constant helpers.
Tensor Int64Vector(const std::vector<int64_t>& v);
Tensor Int32Vector(const std::vector<int32_t>& v);

// Shape(x) as int64, a helper node named Base()/suffix.
StatusOr<ir::TensorRef> ShapeOf(const NodeContext& ctx, ir::TensorRef x, const std::string& suffix);

// Where the shape of a unary op's output is its input's.
Status EmitUnary(const NodeContext& ctx, const std::string& op, ir::AttrMap attrs = {});

}  // namespace tfhost::loaders::onnx
