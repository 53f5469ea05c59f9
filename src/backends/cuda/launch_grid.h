// How many blocks the CUDA backend's grid-stride kernels launch: enough
// for one thread per element (or one block per row), capped so that a huge
// tensor's blocks loop instead of exceeding what one launch may name; at
// least one, so a launch is never empty.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>

namespace tfhost::backends::cuda {

// One thread per element, `threads` to a block.
inline unsigned ElementBlocks(int64_t n, int threads) {
  const int64_t blocks = (n + threads - 1) / threads;
  return static_cast<unsigned>(blocks < 65535 * 8 ? (blocks > 0 ? blocks : 1) : 65535 * 8);
}

// One block per row.
inline unsigned RowBlocks(int64_t rows) {
  return static_cast<unsigned>(rows < 65535 * 16 ? (rows > 0 ? rows : 1) : 65535 * 16);
}

}  // namespace tfhost::backends::cuda
