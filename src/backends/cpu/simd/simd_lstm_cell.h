// One row of the vectorized LSTM cell (simd_lstm_cell.cc), for the kernels
// that run cells: _TfhostLstmCell's and the fused loop's
// (simd_lstm_loop.cc). Stateless; rows may run on any thread.
#pragma once

#include <cstdint>

namespace tfhost::backends::simd {

struct LstmCellRow {
  const float* x;     // 4 * units
  const float* y;     // 4 * units
  const float* bias;  // 4 * units
  const float* c;     // units
  float* h;           // units
  float* c_out;       // units
  int64_t units;
};

using LstmCellRowFn = void (*)(const LstmCellRow&);

// The widest variant this CPU runs (AVX-512, AVX2 or generic).
LstmCellRowFn PickLstmCellRow();

}  // namespace tfhost::backends::simd
