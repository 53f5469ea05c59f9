// ONNX tensors and types as tfhost values (docs/formats.md "ONNX models"):
// element types to DTypes, and TensorProtos (initializers, Constant nodes'
// values, tensor attributes) to Tensors, from raw_data, the typed repeated
// fields, or an external data file beside the model. Model files are
// untrusted: every size, count and path is checked, and errors name the
// tensor ("model.onnx: initializer 'conv1.weight'") and what was expected.
//
// Thread-safety: pure functions; they read files but keep no state.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"
#include "base/tensor.h"
#include "onnx/onnx.pb.h"

namespace tfhost::loaders::onnx {

// The DType of an ONNX TensorProto.DataType value, or kInvalid for the
// types tfhost has none for (strings are kString; float8/int4 are invalid).
DType DTypeFromOnnx(int32_t elem_type);
// "FLOAT", "INT64", ..., or "type <n>" for values past the table.
std::string OnnxTypeName(int32_t elem_type);

// Decodes `proto`. `where` names it for errors; `model_dir` is the folder
// external data locations are relative to (the model file's folder), and
// no location may leave it.
StatusOr<Tensor> DecodeTensor(const ::onnx::TensorProto& proto, const std::string& model_dir,
                              const std::string& where);

// Whether `location` (an external data path from the model) names a file
// inside `dir` once both are resolved: not absolute, no ".." that climbs out,
// no symlink that leads out. Returns the resolved path.
StatusOr<std::string> ResolveExternalPath(const std::string& dir, const std::string& location,
                                          const std::string& where);

}  // namespace tfhost::loaders::onnx
