// Maps TFLite builtin operators (float32) to TensorFlow ops the runtime
// runs: each operator becomes one node, or a few where TFLite fuses what
// TensorFlow keeps apart (a convolution's bias and activation) or lays
// weights out differently (OHWI filters are transposed to HWIO at load).
// A builtin without a mapping is not faked: IsMappedBuiltin says no and the
// load fails naming it. The mappers see quantized tensors as float32: the
// builder dequantizes what they read and quantizes what they write
// (tflite_graph_builder.h).
//
// Thread-safety: stateless; the builder passed in is not shared.
#pragma once

#include <string>
#include <vector>

#include "loaders/imported_graph_util.h"
#include "loaders/tflite/tflite_graph_builder.h"

namespace tfhost::loaders::tflite {

struct OpContext {
  GraphBuilder* b = nullptr;
  const fb::Operator* op = nullptr;
  int op_index = 0;
  int32_t code = 0;
  std::string where;         // "model.tflite: operator 12 (CONV_2D)"
  std::vector<int> inputs;   // tensor indices; -1 = optional input absent
  std::vector<int> outputs;

  // Input i's graph output (GraphBuilder::Operand); errors when it is absent
  // or out of range.
  StatusOr<ir::TensorRef> In(int i) const;
  bool HasInput(int i) const { return i < static_cast<int>(inputs.size()) && inputs[i] >= 0; }
  // Base name for helper nodes: the first output's node name.
  const std::string& Base() const { return b->NodeName(outputs.at(0)); }
  Status Error(const std::string& what) const;  // InvalidArgument(where + ": " + what)
};

bool IsMappedBuiltin(int32_t code);
// Operators that only act on state (CALL_ONCE, ASSIGN_VARIABLE,
// HASHTABLE_IMPORT) write no tensor; every other operator must.
bool MayHaveNoOutputs(int32_t code);
// Adds the nodes of one operator and binds its outputs.
Status MapOperator(const OpContext& ctx);

// Per family, called by MapOperator (tflite_ops_nn.cc, tflite_ops_math.cc,
// tflite_ops_array.cc, tflite_ops_control.cc).
bool IsMappedNnBuiltin(int32_t code);
Status MapNnOperator(const OpContext& ctx);
bool IsMappedMathBuiltin(int32_t code);
Status MapMathOperator(const OpContext& ctx);
bool IsMappedArrayBuiltin(int32_t code);
Status MapArrayOperator(const OpContext& ctx);
// IF, WHILE, CALL_ONCE and the resource operators (tflite_ops_control.cc).
bool IsMappedControlBuiltin(int32_t code);
Status MapControlOperator(const OpContext& ctx);

// ParseExample and ParseExampleV2, the custom operators TF Serving's TFLite
// sessions run (tflite_ops_custom.cc).
bool IsMappedCustomOperator(const std::string& custom_code);
Status MapCustomOperator(const OpContext& ctx, const std::string& custom_code);

// CONV_2D, DEPTHWISE_CONV_2D, TRANSPOSE_CONV and FULLY_CONNECTED on quantized tensors with
// quantized constant weights (tflite_ops_quantized.cc): `op` with `attrs`
// on the centered integers, then TFLite's fixed-point rescaling. False when
// the operator is not in that form (the float mapping then applies).
enum class IntegerProduct { kConv2D, kDepthwise, kTransposeConv, kFullyConnected };
StatusOr<bool> MapIntegerProduct(const OpContext& ctx, IntegerProduct kind, const std::string& op,
                                 ir::AttrMap attrs, fb::ActivationFunctionType activation);
// AVERAGE_POOL_2D (`attrs` of AvgPool, `window` cells) on a quantized input
// with the output's quantization, rounded as TFLite's integer kernel does.
StatusOr<bool> MapIntegerAveragePool(const OpContext& ctx, ir::AttrMap attrs, fb::ActivationFunctionType activation,
                                     int64_t window);
// MEAN (`attrs` of Mean) of a quantized input over constant axes of known
// size, rescaled as TFLite's integer kernel does.
StatusOr<bool> MapIntegerMean(const OpContext& ctx, ir::AttrMap attrs);
// MUL or BATCH_MATMUL (`op` with `attrs`), and ADD, of two quantized
// operands (computed or constant, one scale each).
StatusOr<bool> MapIntegerBinaryProduct(const OpContext& ctx, const std::string& op, ir::AttrMap attrs,
                                       fb::ActivationFunctionType activation);
// ADD, or SUB when `subtract`.
StatusOr<bool> MapIntegerAdd(const OpContext& ctx, fb::ActivationFunctionType activation, bool subtract);
// SQUARED_DIFFERENCE of two quantized operands.
StatusOr<bool> MapIntegerSquaredDifference(const OpContext& ctx);

// HARD_SWISH, RSQRT and GELU on a quantized tensor, as a 256-entry table
// of what TFLite's integer kernel gives for each stored value
// (tflite_ops_lookup.cc). False for other operators and forms.
StatusOr<bool> MapIntegerLookup(const OpContext& ctx);

// Shared by the mappers.
// Inputs 0..count-1, all required.
StatusOr<std::vector<ir::TensorRef>> AllInputs(const OpContext& ctx, int count);
// One node of `op` on the first `arity` inputs that writes the outputs.
Status MapSimple(const OpContext& ctx, const std::string& op, int arity, ir::AttrMap attrs = {});
// The same, with the type attr `attr` set to the output tensor's type
// (Cast's DstT, Shape's out_type, ArgMax's output_type).
Status MapToOutputType(const OpContext& ctx, const std::string& op, const std::string& attr, int arity);


// Applies a fused activation to `x`; the last node added is the output
// node of `outputs` (pass {} to leave it unnamed). Refuses SIGN_BIT.
StatusOr<ir::TensorRef> FinishWithActivation(const OpContext& ctx, fb::ActivationFunctionType activation,
                                             const std::string& op, std::vector<ir::TensorRef> inputs,
                                             ir::AttrMap attrs = {});

}  // namespace tfhost::loaders::tflite
