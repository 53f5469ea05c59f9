// Turns one TFLite subgraph into ir::Graph nodes: every tensor becomes one
// node output (a Placeholder for a subgraph input, a Const for a tensor
// with buffer data, else the output of the nodes its operator maps to), and
// each operator is handed to the op mappers (tflite_ops.h) with the context
// they need. Node names come from tensor names, made valid TensorFlow node
// names and unique across the whole graph.
//
// Quantized tensors (int8, uint8 or int16 with a scale and zero point) hold
// their integers in the graph, as in TFLite: a computed one is written by a
// _TfhostAffineQuantize of the float32 value its operator computes, and
// each reader gets that tensor dequantized once (Operand). Operators thus
// map the same way whether their tensors are quantized or not, and every
// stored integer is the one LiteRT's kernels round to. Quantized constants
// (weights, int32 biases) are dequantized at load.
//
// Stateful operators (resource reads and writes, and control flow whose
// subgraphs run them) keep TFLite's operator order: each gets a control
// edge on the previous one, since TFLite runs every operator in turn while
// a TensorFlow graph orders only what data edges connect.
//
// Thread-safety: single-threaded; one builder per subgraph during a load.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "loaders/tflite/tflite_file.h"

namespace tfhost::loaders::tflite {

class SubgraphLibrary;

class GraphBuilder {
 public:
  // `prefix` goes before every node name ("" for the main subgraph).
  // `library` converts the subgraphs control flow calls (and must outlive
  // the builder); `function_body` says this subgraph becomes a function,
  // whose inputs may also be resource handles.
  GraphBuilder(const TfliteFile& file, int subgraph_index, std::string prefix, ir::Graph* graph,
               SubgraphLibrary* library, bool function_body = false);

  // Adds the subgraph's inputs, constants and operators, in operator order.
  Status Build();

  // The graph output holding tensor `index` (a constant is added on first
  // use); errors name the tensor.
  StatusOr<ir::TensorRef> Ref(int index);
  // What an operator computes with: Ref, but a quantized tensor reads as its
  // float32 value (a _TfhostAffineDequantize made on first use), except
  // while mapping an operator that reads stored integers (CAST).
  StatusOr<ir::TensorRef> Operand(int index);
  struct Quantization {
    DType type = DType::kInvalid;  // int8, uint8 or int16
    std::vector<float> scales;      // one per tensor, or one per slice along axis
    std::vector<int64_t> zero_points;
    int64_t axis = -1;
  };
  // The quantization of a computed (non-constant) tensor, or nullopt for a
  // float or plain integer tensor. Errors name the tensor whose scales and
  // zero points do not fit its shape.
  StatusOr<std::optional<Quantization>> ActivationQuantization(int index);
  // The scales, zero_points and axis attrs of the affine quantize ops.
  static void SetAffineAttrs(const Quantization& q, ir::AttrMap* attrs);
  // A quantized tensor's stored integers minus its zero point, as float32:
  // exact, so that a float kernel's sums of products of such operands are
  // the integer accumulators TFLite's kernels compute (while below 2^24).
  StatusOr<ir::TensorRef> CenteredOperand(int index);
  // The same without subtracting the zero point: the stored integers.
  StatusOr<ir::TensorRef> StoredOperand(int index);
  // A quantized constant as stored (int8 weights, int32 biases) with its
  // quantization, or nullopt when `index` is not one.
  struct StoredConstant {
    Tensor stored;
    Quantization quantization;
  };
  StatusOr<std::optional<StoredConstant>> StoredConstantValue(int index);
  // The graph tensor name ("node:0") of tensor `index`, once built.
  StatusOr<std::string> TensorName(int index);
  // The tensor name a signature output of tensor `index` reads: TensorName,
  // or, when the subgraph runs stateful operators, an Identity that waits
  // for the last of them (a write nobody reads still happens per run).
  StatusOr<std::string> SignatureOutputName(int index);
  // The node index of the last stateful operator, or -1.
  int last_stateful() const { return last_stateful_; }

  const fb::SubGraph& subgraph() const { return *subgraph_; }
  const fb::Tensor& tensor(int index) const { return *subgraph_->tensors()->Get(index); }
  int num_tensors() const;
  // "model.tflite: subgraph 0 tensor 3 'conv/weights'".
  std::string TensorWhere(int index) const;

  // For the op mappers.
  // The constant value of tensor `index`, if it has buffer data; a
  // quantized constant comes dequantized to float32 (per channel where it
  // has one scale per slice of its quantized_dimension).
  StatusOr<std::optional<Tensor>> ConstantValue(int index);
  // A Const node of `value`, named after `base`.
  StatusOr<ir::TensorRef> AddConst(const std::string& base, Tensor value);
  // A node with a fresh name under `base`; returns its output 0.
  StatusOr<ir::TensorRef> AddNode(const std::string& base, const std::string& op,
                                  std::vector<ir::TensorRef> inputs, ir::AttrMap attrs = {});
  // The node that produces output tensor `index`, with the name reserved
  // for that tensor; binds outputs 0..n-1 to `tensors` in order.
  StatusOr<ir::TensorRef> AddOutputNode(const std::vector<int>& tensors, const std::string& op,
                                        std::vector<ir::TensorRef> inputs, ir::AttrMap attrs = {});
  // AddOutputNode for a node that computes quantized outputs' stored
  // integers itself (nothing is quantized after it).
  StatusOr<ir::TensorRef> AddStoredOutputNode(const std::vector<int>& tensors, const std::string& op,
                                              std::vector<ir::TensorRef> inputs, ir::AttrMap attrs = {});
  // Makes output tensor `index` a constant (a DEQUANTIZE folded at load).
  Status AddOutputConst(int index, Tensor value);
  // The node name reserved for tensor `index` (base for helper nodes).
  const std::string& NodeName(int index) const { return names_[index]; }

  const TfliteFile& file() const { return file_; }
  int subgraph_index() const { return subgraph_index_; }
  SubgraphLibrary& library() const { return *library_; }

 private:
  Status ReserveNames();
  Status AddInputs();
  Status AddOperator(int op_index);
  // Chains the stateful nodes among [first, graph size) after the previous.
  void OrderStatefulNodes(int first);
  // Binds quantized tensor `index` to the _TfhostAffineQuantize of `real`.
  Status BindQuantized(int index, ir::TensorRef real, const Quantization& q);
  bool HasBufferData(int index) const;
  std::string FreshName(const std::string& base) const;

  const TfliteFile& file_;
  const fb::SubGraph* subgraph_;
  int subgraph_index_;
  std::string prefix_;
  ir::Graph* graph_;
  SubgraphLibrary* library_;
  bool function_body_;
  int last_stateful_ = -1;
  std::map<int, std::string> output_names_;     // SignatureOutputName's barriers
  std::vector<std::string> names_;               // per tensor
  std::map<int, ir::TensorRef> refs_;            // tensor -> graph output
  std::map<int, ir::TensorRef> real_refs_;       // quantized tensor -> its dequantized value
  std::map<int, ir::TensorRef> centered_refs_;   // quantized tensor -> q - zero_point
  std::map<int, ir::TensorRef> stored_refs_;     // quantized tensor -> q as float32
  // CenteredOperand / StoredOperand, each cached per tensor.
  StatusOr<ir::TensorRef> IntegerOperand(int index, bool centered);
  bool raw_operator_ = false;                    // the operator reads stored integers
  std::set<std::string> reserved_;
};

// Tensor shape for signatures and Placeholders: shape_signature when
// present (-1 = unknown), else shape.
std::vector<int64_t> SignatureDims(const fb::Tensor& tensor);

// A valid TensorFlow node name from a TFLite tensor name: characters
// outside [A-Za-z0-9_./-] become '_', and a leading '_', '/' or '-' gets
// a "t" in front.
std::string NodeNameFromTensorName(const std::string& name);

}  // namespace tfhost::loaders::tflite
