// Pieces the loaders of other formats (TFLite, ONNX) share when they write
// a TensorFlow-op graph: attr values for the nodes they emit, and constants
// laid out the way TensorFlow's kernels take them.
//
// Thread-safety: plain functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/tensor.h"
#include "tensorflow/core/framework/attr_value.pb.h"

namespace tfhost::loaders {

tensorflow::AttrValue IntAttr(int64_t v);
tensorflow::AttrValue FloatAttr(float v);
tensorflow::AttrValue BoolAttr(bool v);
tensorflow::AttrValue StringAttr(const std::string& v);
tensorflow::AttrValue TypeAttr(DType v);
// List attrs, also when `v` is empty.
tensorflow::AttrValue IntListAttr(const std::vector<int64_t>& v);
tensorflow::AttrValue FloatListAttr(const std::vector<float>& v);
tensorflow::AttrValue TypeListAttr(const std::vector<DType>& v);

// A constant's elements in the layout `perm` gives (output dim i is input
// dim perm[i]), done once at load so that the kernels see TensorFlow's
// weight layouts (HWIO filters, [in, out] weights).
Tensor TransposeConstant(const Tensor& in, const std::vector<int>& perm);

}  // namespace tfhost::loaders
