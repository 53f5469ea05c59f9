#include "serving/servable/servable.h"

#include <google/protobuf/text_format.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "loaders/savedmodel/saved_model_writer.h"
#include "tensorflow/core/protobuf/saved_model.pb.h"

namespace tfhost::serving {

namespace fs = std::filesystem;

namespace {

bool ReadFile(const fs::path& path, std::string* out) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream buf;
  buf << in.rdbuf();
  *out = buf.str();
  return true;
}

// The SignatureDefs of the MetaGraph the loader picked (same tag-set rule).
// Returns false when the directory holds no readable SavedModel; the caller
// then falls back to the runtime signatures.
bool ReadSignatureDefs(const std::string& dir, const std::vector<std::string>& tags,
                       tensorflow::serving::SignatureDefMap* out) {
  tensorflow::SavedModel saved_model;
  std::string bytes;
  if (ReadFile(fs::path(dir) / "saved_model.pb", &bytes)) {
    if (!saved_model.ParseFromString(bytes)) return false;
  } else if (ReadFile(fs::path(dir) / "saved_model.pbtxt", &bytes)) {
    google::protobuf::TextFormat::Parser parser;
    parser.RecordErrorsTo(nullptr);
    if (!parser.ParseFromString(bytes, &saved_model)) return false;
  } else {
    return false;
  }
  std::set<std::string> wanted(tags.begin(), tags.end());
  for (const auto& mg : saved_model.meta_graphs()) {
    std::set<std::string> have(mg.meta_info_def().tags().begin(), mg.meta_info_def().tags().end());
    if (have != wanted) continue;
    for (const auto& [key, def] : mg.signature_def()) (*out->mutable_signature_def())[key] = def;
    return true;
  }
  return false;
}

}  // namespace

StatusOr<std::shared_ptr<Servable>> LoadServable(const std::string& name, int64_t version, const std::string& path,
                                                 const loaders::LoadOptions& options) {
  auto model = loaders::LoadModel(path, options);
  if (!model.ok()) {
    return Status(model.status().code(), "loading model \"" + name + "\" version " + std::to_string(version) +
                                             " from " + path + ": " + model.status().message());
  }
  auto servable = std::make_shared<Servable>();
  servable->name = name;
  servable->version = version;
  servable->path = path;
  servable->model = std::shared_ptr<runtime::Model>(std::move(*model));
  // A version served from its model.tflite (--prefer_tflite_model) has the
  // TFLite model's signatures, not the SavedModel's beside it.
  const bool from_tflite = servable->model->info().format == "TFLite";
  if (from_tflite || !ReadSignatureDefs(path, options.tags, &servable->signature_defs)) {
    for (const auto& [key, sig] : servable->model->signatures()) {
      loaders::SignatureToProto(sig, &(*servable->signature_defs.mutable_signature_def())[key]);
    }
  }
  return servable;
}

StatusOr<TensorMap> DirectRunner::Run(const ServableHandle& servable, const runtime::Signature& signature,
                                      TensorMap inputs, const std::vector<std::string>& output_filter) {
  runtime::RunSignatureOptions options;
  options.check_input_shapes = false;
  return servable->model->RunSignature(signature.name, inputs, output_filter, options);
}

}  // namespace tfhost::serving
