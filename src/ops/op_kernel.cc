#include "ops/op_kernel.h"

namespace tfhost::ops {

Status KernelContext::CheckRank(int i, int min_rank, int max_rank) const {
  int r = inputs_[i].rank();
  if (r < min_rank || r > max_rank) {
    std::string expected = min_rank == max_rank ? std::to_string(min_rank)
                                                : std::to_string(min_rank) + ".." + std::to_string(max_rank);
    return Error("input " + std::to_string(i) + " must have rank " + expected + ", got shape " +
                 inputs_[i].shape().ToString());
  }
  return OkStatus();
}

Status KernelContext::CheckDType(int i, DType dtype) const {
  if (inputs_[i].dtype() != dtype) {
    return Error("input " + std::to_string(i) + " must be " + DTypeShortName(dtype) + ", got " +
                 DTypeShortName(inputs_[i].dtype()));
  }
  return OkStatus();
}

}  // namespace tfhost::ops
