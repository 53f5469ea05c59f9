// TensorList: the value inside a DT_VARIANT scalar that TF2 code (Keras
// RNNs, tf.while_loop accumulators, TensorArray in tf.function) passes
// around. A list is immutable once in a tensor; every op that changes it
// returns a new list (elements are Tensors, so copies share buffers).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/tensor.h"
#include "ir/partial_shape.h"
#include "ops/op_kernel.h"

namespace tfhost::ops::tensor_array {

struct TensorList : VariantValue {
  DType element_dtype = DType::kInvalid;
  ir::PartialShape element_shape;  // what every element must fit
  std::vector<Tensor> items;       // an invalid Tensor = not set yet (reads as zeros)
  int64_t max_num_elements = -1;   // -1 = unbounded

  std::string TypeName() const override { return "tensorflow::TensorList"; }
  std::string DebugString() const override;
};

// The list held by variant input `i` (a scalar); error names the node.
StatusOr<std::shared_ptr<const TensorList>> ReadList(const KernelContext& ctx, int i);

}  // namespace tfhost::ops::tensor_array
