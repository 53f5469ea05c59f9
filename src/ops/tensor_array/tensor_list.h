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

// A variant scalar holding `list`.
Tensor ListTensor(std::shared_ptr<TensorList> list);

// The list of variant input `i` (already checked by ReadList, whose result
// the caller has released), to modify and output: the list itself when this
// node holds the only reference to it, as a loop body that owns its loop
// variables does (TensorFlow forwards it the same way), else a copy, so that
// whoever else holds it keeps its value. Copying it on every iteration would
// make a loop of n steps cost n^2.
struct WritableList {
  Tensor holder;                     // input i, taken
  std::shared_ptr<TensorList> list;  // what to modify
  // The output tensor holding `list`.
  Tensor Output() &&;
};
WritableList TakeWritableList(KernelContext& ctx, int i);

// Whether `item` may be stored in `list`: its dtype, and a shape that fits
// the list's element shape; the error names the node.
Status CheckListItem(const KernelContext& ctx, const TensorList& list, const Tensor& item);

}  // namespace tfhost::ops::tensor_array
