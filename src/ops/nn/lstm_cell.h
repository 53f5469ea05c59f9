// _TfhostLstmCell: one step of a Keras LSTM cell (implementation 2, the
// default) after its two matrix products, as one node. The pass
// passes/lstm_cell_fusion writes it in place of
//   z = BiasAdd(AddV2(x, y), bias); i, f, g, o = Split(z, 4, axis 1)
//   c_out = sigmoid(f) * c + sigmoid(i) * tanh(g); h = sigmoid(o) * tanh(c_out)
// Inputs: x, y [B, 4u] (the input and recurrent products, in either order),
// bias [4u], c [B, u]; outputs h and c_out [B, u]. Rows broadcast as AddV2
// and Mul broadcast them: each of x, y and c has B rows or one row.
// Every value is computed in float32 in the order the ops above compute it
// (x + y, then + bias), so the reference kernel gives the ops' results.
#pragma once

#include <cstdint>

#include "ops/op_kernel.h"

namespace tfhost::ops::nn {

inline constexpr const char* kLstmCellOp = "_TfhostLstmCell";

struct LstmCellGeometry {
  int64_t batch = 0;  // rows of the outputs
  int64_t units = 0;
  // Row strides in floats: 0 for an input of one row broadcast to `batch`.
  int64_t x_stride = 0, y_stride = 0, c_stride = 0;
};

// Checks the inputs' dtypes and shapes; errors name the node and the input.
StatusOr<LstmCellGeometry> CheckLstmCellInputs(const KernelContext& ctx);
// The same for a cell's operands held elsewhere (the fused loop's step);
// errors name ctx's node.
StatusOr<LstmCellGeometry> CheckLstmCellOperands(const KernelContext& ctx, const Tensor& x, const Tensor& y,
                                                 const Tensor& bias, const Tensor& c);

// One row of the cell as the reference kernel computes it: x, y and bias
// hold 4 * units floats, c, h and c_out units.
void LstmCellRowReference(const float* x, const float* y, const float* bias, const float* c, float* h, float* c_out,
                          int64_t units);

}  // namespace tfhost::ops::nn
