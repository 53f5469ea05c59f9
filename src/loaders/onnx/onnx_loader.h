// Loads an ONNX model (.onnx, a serialized ModelProto; docs/formats.md
// "ONNX models") into a runtime::Model. The file is parsed with tfhost's own
// wire-compatible schema (src/proto/onnx/onnx.proto); its default-domain
// opset must be within kMinOpset..kMaxOpset (onnx_ops.h). Each node becomes
// TensorFlow ops the runtime runs (onnx_ops.h), initializers become Const
// nodes (raw, typed or external data beside the model file), and a node the
// loader cannot map fails the load naming its index, name, op type and opset.
//
// Signature: one, "serving_default" (method tensorflow/serving/predict),
// whose input keys are the graph inputs that are not initializers and whose
// output keys are the graph outputs, both by their ONNX names; dimensions an
// ONNX file leaves symbolic (dim_param) or out are unknown (-1).
//
// Thread-safety: LoadOnnxModel may run on several threads at once (each call
// has its own state).
#pragma once

#include <memory>
#include <string>

#include "loaders/model_loader.h"

namespace tfhost::loaders {

// The file name a model version folder holds an ONNX model under.
inline constexpr char kOnnxModelFileName[] = "model.onnx";

StatusOr<std::unique_ptr<runtime::Model>> LoadOnnxModel(const std::string& path, const LoadOptions& options);

}  // namespace tfhost::loaders
