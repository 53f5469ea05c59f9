// _TfhostLstmLoop: a Keras LSTM layer's whole While loop over time as one
// node. passes/lstm_loop_fusion writes it in place of a While whose body,
// once optimized, is exactly one step of the layer:
//   x_t = TensorListGetItem(projection, time)      (hoisted input product)
//   h', c' = _TfhostLstmCell(x_t, MatMul(h, kernel), bias, c)
//   outputs = TensorListSetItem(outputs, time, h')   (or at a fixed index:
//             a layer without return_sequences keeps only the last h)
// or, in a masked layer, with m = Tile(TensorListGetItem(mask, time), [1, 1 or units]):
//   o' = SelectV2(m, h', o); h' = SelectV2(m, h', h); c' = SelectV2(m, c', c)
//   outputs = TensorListSetItem(outputs, time, o')
//   time + 1, counter + 1; every other loop variable returned unchanged
// and whose condition is counter < limit && time < steps. Run as a While,
// each step is a dozen nodes through the executor (the condition's three, the
// body's seven, the call machinery) around about 10 us of arithmetic at
// batch 1; as one kernel, the step is the product and the cell.
//
// The node keeps the While's inputs, outputs and name, so its readers are
// unchanged. Attrs say which loop variable plays which part (the *_index
// attrs, positions among the inputs) and `steps`, the condition's bound on
// time. Every loop variable not named is passed through. Each step checks
// what the ops it replaces check (list indices, dtypes, shapes), so a
// malformed input fails as the While would have, naming the node and step.
//
// Iterations are bounded by the lists' lengths, so the loop does not draw on
// the run's while-loop budget (--max_loop_iterations), as no kernel does.
#pragma once

#include <cstdint>
#include <functional>

#include "ops/op_kernel.h"

namespace tfhost::ops::nn {

inline constexpr const char* kLstmLoopOp = "_TfhostLstmLoop";

// The positions of the loop variables among the node's inputs.
struct LstmLoopRoles {
  int counter = -1;     // int32 scalar, counts iterations
  int limit = -1;       // int32 scalar, the counter's bound
  int time = -1;        // int32 scalar, the step index
  int outputs = -1;     // TensorList: h of step t goes to element t
  int h = -1;           // float [rows, k]
  int c = -1;           // float [rows, units]
  int projection = -1;  // TensorList: element t is x_t times the input kernel
  int kernel = -1;      // float [k, 4 * units], the recurrent kernel
  int bias = -1;        // float [4 * units]
  int64_t steps = 0;    // time's bound
  int64_t output_slot = -1;  // the outputs' element each h' goes to; -1: element `time`
  // A masked layer (Keras's Masking, Embedding(mask_zero=True)): a
  // TensorList of bool [rows, 1] elements, and the loop variable holding the
  // last output. Both -1 for an unmasked layer.
  int mask = -1;
  int output_state = -1;
  int64_t mask_units = -1;  // the columns the body tiles the mask to: 1 or the units
};

// The attr naming each role, in the order of LstmLoopRoles' fields.
inline constexpr const char* kLstmLoopRoleAttrs[] = {"counter_index", "limit_index",      "time_index",
                                                     "outputs_index", "h_index",          "c_index",
                                                     "projection_index", "kernel_index", "bias_index"};

// Reads and checks the role attrs against ctx's inputs: distinct positions
// among them (mask_index and output_state_index both -1 or both set),
// `steps` in [0, 2^31), `output_slot` -1 or in [0, 2^31). Errors name the
// node and the attr.
StatusOr<LstmLoopRoles> ReadLstmLoopRoles(const KernelContext& ctx);

// One step's operands, checked by RunLstmLoop. Rows broadcast as in
// _TfhostLstmCell: x and c have `rows` rows or one (stride 0).
struct LstmStepArgs {
  const float* x = nullptr;  // x_t, [.., 4 * units]
  int64_t x_stride = 0;
  const float* h = nullptr;  // [h_rows, k]
  int64_t h_rows = 0;
  const float* c = nullptr;  // [.., units]
  int64_t c_stride = 0;
  const float* kernel = nullptr;  // [k, 4 * units]
  const float* bias = nullptr;    // [4 * units]
  float* y = nullptr;             // scratch [h_rows, 4 * units] for h x kernel
  float* h_out = nullptr;         // [rows, units]
  float* c_out = nullptr;         // [rows, units]
  int64_t rows = 0, k = 0, units = 0;
};

// Computes h_out and c_out: y = h x kernel, then the cell on (x, y, bias, c).
using LstmStepFn = std::function<void(const LstmStepArgs&)>;

// Runs the loop on ctx's inputs, `step` computing each step, and sets every
// output.
Status RunLstmLoop(KernelContext& ctx, const LstmStepFn& step);

// The reference step: the product accumulated in double as the reference
// MatMul kernel does, the cell as LstmCellRowReference.
void LstmStepReference(const LstmStepArgs& a);

}  // namespace tfhost::ops::nn
