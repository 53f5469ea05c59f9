// Which signatures a TFLite model serves, read before its graph is built:
//  1. the model's signature_defs table (converters since TF 2.5): one
//     signature per entry, named by signature_key, on its own subgraph;
//  2. else the "signature_defs_metadata" metadata entry older TF Serving
//     exports carry (a FlexBuffer map of serialized SignatureDefs), whose
//     TensorInfo names are subgraph 0 tensor names (":0" optional);
//  3. else TF Serving's convention: "serving_default" over subgraph 0's
//     inputs and outputs, keyed by their tensor names.
// Thread-safety: pure functions over an immutable TfliteFile.
#pragma once

#include <string>
#include <vector>

#include "loaders/tflite/tflite_file.h"

namespace tfhost::loaders::tflite {

struct SignatureTensor {
  std::string key;
  int tensor = -1;  // index into the subgraph's tensors
};

struct TfliteSignature {
  std::string name;
  std::string method_name;
  int subgraph = 0;
  std::vector<SignatureTensor> inputs, outputs;
  // Where it came from, for `tfhost inspect`: "signature_defs",
  // "signature_defs_metadata" or "tensor names (TF Serving's convention)".
  std::string source;
};

inline constexpr char kSignatureDefsMetadataName[] = "signature_defs_metadata";

// Errors name the file and the signature entry at fault.
StatusOr<std::vector<TfliteSignature>> ReadTfliteSignatures(const TfliteFile& file);

}  // namespace tfhost::loaders::tflite
