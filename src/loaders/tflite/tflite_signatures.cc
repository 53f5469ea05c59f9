#include "loaders/tflite/tflite_signatures.h"

#include <flatbuffers/flexbuffers.h>

#include <map>
#include <set>

#include "loaders/graphdef/graph_signature.h"
#include "tensorflow/core/protobuf/meta_graph.pb.h"

namespace tfhost::loaders::tflite {

namespace {

std::string TensorNameOrIndex(const fb::Tensor& t, int index) {
  return t.name() != nullptr && t.name()->size() > 0 ? t.name()->str() : "tensor_" + std::to_string(index);
}

StatusOr<std::vector<TfliteSignature>> FromSignatureDefs(const TfliteFile& file) {
  std::vector<TfliteSignature> out;
  const auto* defs = file.model->signature_defs();
  const int subgraphs = static_cast<int>(file.model->subgraphs()->size());
  std::set<std::string> names;
  for (flatbuffers::uoffset_t s = 0; s < defs->size(); ++s) {
    const auto* def = defs->Get(s);
    TfliteSignature sig;
    sig.method_name = kPredictMethodName;
    sig.source = "signature_defs";
    sig.name = def->signature_key() != nullptr ? def->signature_key()->str() : "";
    if (sig.name.empty()) sig.name = defs->size() == 1 ? kDefaultSignatureName : "signature_" + std::to_string(s);
    const std::string where = file.path + ": signature_defs[" + std::to_string(s) + "] ('" + sig.name + "')";
    if (!names.insert(sig.name).second) return InvalidArgument(where + " repeats the signature_key");
    if (def->subgraph_index() >= static_cast<uint32_t>(subgraphs)) {
      return InvalidArgument(where + " names subgraph " + std::to_string(def->subgraph_index()) +
                             "; the model has " + std::to_string(subgraphs));
    }
    sig.subgraph = static_cast<int>(def->subgraph_index());
    for (auto [maps, specs] : {std::pair{def->inputs(), &sig.inputs}, std::pair{def->outputs(), &sig.outputs}}) {
      if (maps == nullptr) continue;
      for (const auto* m : *maps) {
        SignatureTensor spec;
        spec.key = m->name() != nullptr ? m->name()->str() : "";
        spec.tensor = static_cast<int>(m->tensor_index());
        if (spec.key.empty()) return InvalidArgument(where + " has a TensorMap without a name");
        specs->push_back(std::move(spec));
      }
    }
    if (sig.outputs.empty()) return InvalidArgument(where + " has no outputs");
    out.push_back(std::move(sig));
  }
  return out;
}

// The FlexBuffer map {signature key: serialized SignatureDef}, or none.
StatusOr<std::vector<TfliteSignature>> FromMetadata(const TfliteFile& file, std::string_view data) {
  const std::string where = file.path + ": metadata '" + kSignatureDefsMetadataName + "'";
  const auto* bytes = reinterpret_cast<const uint8_t*>(data.data());
  if (!flexbuffers::VerifyBuffer(bytes, data.size())) return InvalidArgument(where + " is not a valid FlexBuffer");
  const flexbuffers::Reference root = flexbuffers::GetRoot(bytes, data.size());
  if (!root.IsMap()) return InvalidArgument(where + " must be a FlexBuffer map of signature keys to SignatureDefs");
  const flexbuffers::Map map = root.AsMap();
  const flexbuffers::TypedVector keys = map.Keys();
  const flexbuffers::Vector values = map.Values();
  // Tensor names of subgraph 0, for the TensorInfo names.
  const fb::SubGraph* main = file.model->subgraphs()->Get(0);
  std::map<std::string, int> by_name;
  const int tensors = main->tensors() == nullptr ? 0 : static_cast<int>(main->tensors()->size());
  for (int i = 0; i < tensors; ++i) {
    const fb::Tensor* t = main->tensors()->Get(i);
    if (t != nullptr && t->name() != nullptr) by_name.emplace(t->name()->str(), i);
  }
  std::vector<TfliteSignature> out;
  for (size_t i = 0; i < keys.size(); ++i) {
    TfliteSignature sig;
    sig.name = keys[i].AsKey();
    sig.source = kSignatureDefsMetadataName;
    const std::string at = where + " signature '" + sig.name + "'";
    // TFLite's writer stores the serialized proto as a FlexBuffer string;
    // a blob holds the same bytes.
    std::string_view payload;
    if (values[i].IsString()) {
      const flexbuffers::String str = values[i].AsString();
      payload = std::string_view(str.c_str(), str.length());
    } else if (values[i].IsBlob()) {
      const flexbuffers::Blob blob = values[i].AsBlob();
      payload = std::string_view(reinterpret_cast<const char*>(blob.data()), blob.size());
    } else {
      return InvalidArgument(at + " must be a serialized SignatureDef (a FlexBuffer string or blob)");
    }
    tensorflow::SignatureDef def;
    if (!def.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) {
      return InvalidArgument(at + " is not a valid serialized SignatureDef");
    }
    sig.method_name = def.method_name().empty() ? kPredictMethodName : def.method_name();
    for (auto [infos, specs] : {std::pair{&def.inputs(), &sig.inputs}, std::pair{&def.outputs(), &sig.outputs}}) {
      for (const auto& [key, info] : *infos) {
        // TensorFlow writes "name:0"; TFLite tensors are "name".
        auto it = by_name.find(info.name());
        const size_t colon = info.name().rfind(":0");
        if (it == by_name.end() && colon != std::string::npos && colon + 2 == info.name().size()) {
          it = by_name.find(info.name().substr(0, colon));
        }
        if (it == by_name.end()) {
          return InvalidArgument(at + " key '" + key + "' names tensor '" + info.name() +
                                 "', which subgraph 0 does not have");
        }
        specs->push_back(SignatureTensor{key, it->second});
      }
    }
    if (sig.outputs.empty()) return InvalidArgument(at + " has no outputs");
    out.push_back(std::move(sig));
  }
  return out;
}

StatusOr<std::vector<TfliteSignature>> FromTensorNames(const TfliteFile& file) {
  const auto* main = file.model->subgraphs()->Get(0);
  TfliteSignature sig;
  sig.name = kDefaultSignatureName;
  sig.method_name = kPredictMethodName;
  sig.source = "tensor names (TF Serving's convention)";
  const int tensors = main->tensors() == nullptr ? 0 : static_cast<int>(main->tensors()->size());
  for (auto [list, specs] : {std::pair{main->inputs(), &sig.inputs}, std::pair{main->outputs(), &sig.outputs}}) {
    if (list == nullptr) continue;
    for (int32_t index : *list) {
      if (index < 0 || index >= tensors || main->tensors()->Get(index) == nullptr) {
        return InvalidArgument(file.path + ": subgraph 0 lists tensor " + std::to_string(index) +
                               " as an input or output; it has " + std::to_string(tensors) + " tensors");
      }
      specs->push_back(SignatureTensor{TensorNameOrIndex(*main->tensors()->Get(index), index), index});
    }
  }
  if (sig.outputs.empty()) return InvalidArgument(file.path + ": subgraph 0 has no outputs");
  return std::vector<TfliteSignature>{std::move(sig)};
}

}  // namespace

StatusOr<std::vector<TfliteSignature>> ReadTfliteSignatures(const TfliteFile& file) {
  if (file.model->signature_defs() != nullptr && file.model->signature_defs()->size() > 0) {
    return FromSignatureDefs(file);
  }
  if (const auto* metadata = file.model->metadata()) {
    for (const auto* m : *metadata) {
      if (m == nullptr || m->name() == nullptr || m->name()->str() != kSignatureDefsMetadataName) continue;
      TFHOST_ASSIGN_OR_RETURN(std::string_view data, BufferData(file, m->buffer()));
      TFHOST_ASSIGN_OR_RETURN(auto sigs, FromMetadata(file, data));
      if (!sigs.empty()) return sigs;
    }
  }
  return FromTensorNames(file);
}

}  // namespace tfhost::loaders::tflite
