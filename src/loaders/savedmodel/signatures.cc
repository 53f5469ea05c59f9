#include "loaders/savedmodel/signatures.h"

#include <algorithm>

#include "ir/tensor_proto.h"

namespace tfhost::loaders {

namespace {

StatusOr<runtime::TensorSpec> ConvertTensorInfo(const std::string& alias, const tensorflow::TensorInfo& info,
                                                const char* direction) {
  switch (info.encoding_case()) {
    case tensorflow::TensorInfo::kName:
      break;
    case tensorflow::TensorInfo::kCooSparse:
      return Unimplemented(std::string(direction) + " '" + alias +
                           "' is a sparse (COO) tensor; tfhost serves dense tensors only");
    case tensorflow::TensorInfo::kCompositeTensor:
      return Unimplemented(std::string(direction) + " '" + alias +
                           "' is a composite tensor (e.g. ragged); tfhost serves dense tensors only");
    default:
      return InvalidArgument(std::string(direction) + " '" + alias + "' names no tensor");
  }
  if (info.name().empty()) return InvalidArgument(std::string(direction) + " '" + alias + "' has an empty tensor name");
  runtime::TensorSpec spec;
  spec.key = alias;
  spec.tensor_name = info.name();
  spec.dtype = BaseType(info.dtype());
  spec.shape = info.has_tensor_shape() ? ir::PartialShape::FromProto(info.tensor_shape())
                                       : ir::PartialShape::Unknown();
  return spec;
}

}  // namespace

bool IsInternalSignatureKey(const std::string& key) {
  return key == "__saved_model_init_op" || key == "__saved_model_train_op";
}

StatusOr<runtime::Signature> ConvertSignature(const std::string& key, const tensorflow::SignatureDef& def) {
  runtime::Signature sig;
  sig.name = key;
  sig.method_name = def.method_name();
  for (const auto& [alias, info] : def.inputs()) {
    TFHOST_ASSIGN_OR_RETURN(auto spec, ConvertTensorInfo(alias, info, "input"));
    sig.inputs.push_back(std::move(spec));
  }
  for (const auto& [alias, info] : def.outputs()) {
    TFHOST_ASSIGN_OR_RETURN(auto spec, ConvertTensorInfo(alias, info, "output"));
    sig.outputs.push_back(std::move(spec));
  }
  auto by_key = [](const runtime::TensorSpec& a, const runtime::TensorSpec& b) { return a.key < b.key; };
  std::sort(sig.inputs.begin(), sig.inputs.end(), by_key);
  std::sort(sig.outputs.begin(), sig.outputs.end(), by_key);
  for (const auto& [alias, proto] : def.defaults()) {
    auto value = ir::TensorFromProto(proto);
    if (!value.ok()) return value.status().WithContext("default of input '" + alias + "'");
    sig.defaults[alias] = std::move(*value);
  }
  return sig;
}

}  // namespace tfhost::loaders
