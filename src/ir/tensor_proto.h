// Conversion between tensorflow.TensorProto and Tensor, following TF's
// Tensor::FromProto rules (docs/formats.md §1.2): tensor_content wins, else the
// typed field, with the last value repeated to fill the shape.
#pragma once

#include "base/tensor.h"
#include "tensorflow/core/framework/tensor.pb.h"

namespace tfhost::ir {

// Errors say which field is malformed and what size was expected.
StatusOr<Tensor> TensorFromProto(const tensorflow::TensorProto& proto);

// Writes dtype, shape and values. Numeric tensors with more than one element
// go to tensor_content (compact); scalars and strings use the typed fields,
// as TensorFlow's own writers do.
void TensorToProto(const Tensor& tensor, tensorflow::TensorProto* proto);

tensorflow::TensorShapeProto ShapeToProto(const Shape& shape);

}  // namespace tfhost::ir
