// Loads a TensorFlow Lite model (.tflite flatbuffer, docs/formats.md
// "TensorFlow Lite") into a runtime::Model. The file is verified against
// tfhost's own schema (tflite_schema.fbs) before it is read; each builtin
// operator becomes TensorFlow ops the runtime runs (tflite_ops.h), and
// constant buffers become Const nodes. Subgraphs that IF and WHILE call
// become library functions (tflite_functions.h); CALL_ONCE's init
// subgraphs run once, before the model is returned. Float32 models only
// for now: an operator without a mapping, a custom operator or a quantized
// tensor fails the load naming the operator index, builtin and subgraph.
//
// Signatures: one per entry of the model's signature_defs, named by its
// signature_key, with the TensorMap names as keys. A model without any gets
// TF Serving's convention for TFLite models: "serving_default" whose input
// and output keys are the tensor names of subgraph 0's inputs and outputs.
#pragma once

#include <memory>
#include <string>

#include "loaders/model_loader.h"

namespace tfhost::loaders {

// The file name TF Serving looks for in a SavedModel version directory
// when --prefer_tflite_model is set.
inline constexpr char kTfliteModelFileName[] = "model.tflite";

StatusOr<std::unique_ptr<runtime::Model>> LoadTfliteModel(const std::string& path, const LoadOptions& options);

// Whether `path` is a file whose bytes 4..7 are "TFL3".
bool IsTfliteModelFile(const std::string& path);

}  // namespace tfhost::loaders
