// SignatureDef -> runtime::Signature conversion for the SavedModel loader.
#pragma once

#include <map>
#include <string>

#include "runtime/model.h"
#include "tensorflow/core/protobuf/meta_graph.pb.h"

namespace tfhost::loaders {

// Signature keys that are not served: the TF2 init and train ops.
bool IsInternalSignatureKey(const std::string& key);

// Converts one SignatureDef. Inputs/outputs are sorted by key, dtypes lose
// their _REF, shapes become ir::PartialShape (absent = unknown rank),
// SignatureDef.defaults are decoded. Returns Unimplemented, with the reason,
// when an input or output is sparse or composite (tfhost serves
// dense tensors only); the caller skips such signatures.
StatusOr<runtime::Signature> ConvertSignature(const std::string& key, const tensorflow::SignatureDef& def);

}  // namespace tfhost::loaders
