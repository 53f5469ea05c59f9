#include "ops/op_kernel.h"

namespace tfhost::ops {

const Tensor& KernelContext::OutOfRangeInput(int i) const {
  static const Tensor* const kNone = new Tensor();
  int none = -1;
  out_of_range_input_.compare_exchange_strong(none, i, std::memory_order_relaxed);
  return *kNone;
}

Status KernelContext::CheckRank(int i, int min_rank, int max_rank) const {
  int r = input(i).rank();
  if (r < min_rank || r > max_rank) {
    std::string expected = min_rank == max_rank ? std::to_string(min_rank)
                                                : std::to_string(min_rank) + ".." + std::to_string(max_rank);
    return Error("input " + std::to_string(i) + " must have rank " + expected + ", got shape " +
                 input(i).shape().ToString());
  }
  return OkStatus();
}

Status KernelContext::CheckDType(int i, DType dtype) const {
  if (input(i).dtype() != dtype) {
    return Error("input " + std::to_string(i) + " must be " + DTypeShortName(dtype) + ", got " +
                 DTypeShortName(input(i).dtype()));
  }
  return OkStatus();
}

}  // namespace tfhost::ops
