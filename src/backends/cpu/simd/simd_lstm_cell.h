// One row of the vectorized LSTM cell (simd_lstm_cell.cc), for the kernels
// that run cells: _TfhostLstmCell's and the fused loop's
// (simd_lstm_loop.cc). Stateless; rows may run on any thread.
#pragma once

#include <cstdint>

namespace tfhost::backends::simd {

struct LstmCellRow {
  const float* x;     // 4 gates of `units`, gate_stride apart
  const float* y;     // 4 gates of `units`, gate_stride apart
  const float* bias;  // 4 gates of `units`, gate_stride apart
  const float* c;     // units
  float* h;           // units
  float* c_out;       // units
  int64_t units;
  // Distance between the gates in x, y and bias; 0: `units`. A slice of a
  // row's units (the fused loop's threads each take one) has the row's
  // full width here.
  int64_t gate_stride = 0;
};

using LstmCellRowFn = void (*)(const LstmCellRow&);

// The widest variant this CPU runs (AVX-512, AVX2 or generic).
LstmCellRowFn PickLstmCellRow();

}  // namespace tfhost::backends::simd
