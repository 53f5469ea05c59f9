// Loads a TensorFlow.js graph model (model.json + weight shards, docs/formats.md
// §5) into a runtime::Model: the topology is a GraphDef in protobuf JSON, and
// Const values come from the weights manifest (uint8/uint16 quantized and
// float16 weights are dequantized to float32).
#pragma once

#include <memory>
#include <string>

#include "loaders/model_loader.h"

namespace tfhost::loaders {

StatusOr<std::unique_ptr<runtime::Model>> LoadTfjsModel(const std::string& model_json_path,
                                                        const LoadOptions& options);

}  // namespace tfhost::loaders
