#include "loaders/model_loader.h"

#include <algorithm>
#include <filesystem>

#include "loaders/graphdef/graphdef_loader.h"
#include "loaders/onnx/onnx_loader.h"
#include "loaders/savedmodel/saved_model_loader.h"
#include "loaders/tfjs/tfjs_loader.h"
#include "loaders/tflite/tflite_loader.h"

namespace tfhost::loaders {

namespace fs = std::filesystem;

const char* ModelFormatName(ModelFormat format) {
  switch (format) {
    case ModelFormat::kSavedModel: return "SavedModel";
    case ModelFormat::kGraphDef: return "GraphDef";
    case ModelFormat::kTfjs: return "TensorFlow.js graph model";
    case ModelFormat::kTflite: return "TensorFlow Lite model";
    case ModelFormat::kOnnx: return "ONNX model";
  }
  return "unknown";
}

namespace {

bool IsSavedModelDir(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "saved_model.pb", ec) || fs::is_regular_file(dir / "saved_model.pbtxt", ec);
}

// A version folder may hold model.tflite beside (or instead of) a SavedModel.
bool HasTfliteModel(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / kTfliteModelFileName, ec);
}

// A version folder may hold model.onnx instead of a SavedModel.
bool HasOnnxModel(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / kOnnxModelFileName, ec);
}

Status LegacyFormatError(const fs::path& where) {
  return FailedPrecondition(
      where.string() + " holds a legacy TensorFlow export (export.meta + V1 checkpoint, the SessionBundle "
      "format of TF 0.x/1.x), not a SavedModel. tfhost, like current TensorFlow Serving, loads SavedModels "
      "only: re-export the model with tf.saved_model.save (TF2) or "
      "tf.compat.v1.saved_model.Builder (TF1).");
}

// A TF Serving base path holds numeric version folders; the highest version
// that is a SavedModel is loaded.
StatusOr<fs::path> LatestVersionDir(const fs::path& base) {
  std::error_code ec;
  int64_t best = -1;
  fs::path best_path;
  bool saw_legacy = false;
  for (const auto& entry : fs::directory_iterator(base, ec)) {
    if (!entry.is_directory()) continue;
    std::string name = entry.path().filename().string();
    if (name.empty() || name.size() > 18 || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    if (IsSavedModelDir(entry.path()) || HasTfliteModel(entry.path()) || HasOnnxModel(entry.path())) {
      int64_t v = std::stoll(name);
      if (v > best) {
        best = v;
        best_path = entry.path();
      }
    } else if (fs::exists(entry.path() / "export.meta")) {
      saw_legacy = true;
    }
  }
  if (best >= 0) return best_path;
  if (saw_legacy) return LegacyFormatError(base);
  return NotFound(base.string() + " contains neither saved_model.pb, saved_model.pbtxt, model.json, "
                  "model.tflite, model.onnx nor numeric version folders with a SavedModel, model.tflite or "
                  "model.onnx");
}

}  // namespace

StatusOr<ModelFormat> DetectModelFormat(const std::string& path_string) {
  fs::path path(path_string);
  std::error_code ec;
  if (!fs::exists(path, ec)) return NotFound("model path " + path_string + " does not exist");
  if (fs::is_directory(path, ec)) {
    if (IsSavedModelDir(path)) return ModelFormat::kSavedModel;
    if (fs::is_regular_file(path / "model.json", ec)) return ModelFormat::kTfjs;
    if (HasTfliteModel(path)) return ModelFormat::kTflite;
    if (HasOnnxModel(path)) return ModelFormat::kOnnx;
    if (fs::exists(path / "export.meta", ec)) return LegacyFormatError(path);
    TFHOST_ASSIGN_OR_RETURN(fs::path version, LatestVersionDir(path));
    if (IsSavedModelDir(version)) return ModelFormat::kSavedModel;
    return HasTfliteModel(version) ? ModelFormat::kTflite : ModelFormat::kOnnx;
  }
  std::string name = path.filename().string();
  if (name == "saved_model.pb" || name == "saved_model.pbtxt") return ModelFormat::kSavedModel;
  if (name == "export.meta" || path.extension() == ".meta") return LegacyFormatError(path);
  if (path.extension() == ".json") return ModelFormat::kTfjs;
  if (path.extension() == ".onnx") return ModelFormat::kOnnx;
  // By the flatbuffer's identifier, so a renamed file is recognized too.
  if (path.extension() == ".tflite" || IsTfliteModelFile(path_string)) return ModelFormat::kTflite;
  if (path.extension() == ".pb" || path.extension() == ".pbtxt" || path.extension() == ".graphdef") {
    return ModelFormat::kGraphDef;
  }
  return InvalidArgument("cannot tell the model format of " + path_string +
                         ": expected a SavedModel directory, a TF Serving base path, a model.json "
                         "(TensorFlow.js), a .tflite (TensorFlow Lite), a .onnx (ONNX) or a .pb/.pbtxt GraphDef");
}

StatusOr<std::unique_ptr<runtime::Model>> LoadModel(const std::string& path_string,
                                                    const LoadOptions& options) {
  TFHOST_ASSIGN_OR_RETURN(ModelFormat format, DetectModelFormat(path_string));
  fs::path path(path_string);
  std::error_code ec;
  switch (format) {
    case ModelFormat::kSavedModel: {
      fs::path dir = fs::is_directory(path, ec) ? path : path.parent_path();
      if (!IsSavedModelDir(dir)) {
        TFHOST_ASSIGN_OR_RETURN(dir, LatestVersionDir(dir));
      }
      // TF Serving's --prefer_tflite_model: the version's model.tflite wins.
      if (options.prefer_tflite_model && HasTfliteModel(dir)) {
        return LoadTfliteModel((dir / kTfliteModelFileName).string(), options);
      }
      return LoadSavedModel(dir.string(), options);
    }
    case ModelFormat::kTflite: {
      if (!fs::is_directory(path, ec)) return LoadTfliteModel(path.string(), options);
      fs::path dir = path;
      if (!HasTfliteModel(dir)) {
        TFHOST_ASSIGN_OR_RETURN(dir, LatestVersionDir(dir));
      }
      return LoadTfliteModel((dir / kTfliteModelFileName).string(), options);
    }
    case ModelFormat::kOnnx: {
      if (!fs::is_directory(path, ec)) return LoadOnnxModel(path.string(), options);
      fs::path dir = path;
      if (!HasOnnxModel(dir)) {
        TFHOST_ASSIGN_OR_RETURN(dir, LatestVersionDir(dir));
      }
      return LoadOnnxModel((dir / kOnnxModelFileName).string(), options);
    }
    case ModelFormat::kTfjs: {
      fs::path json = fs::is_directory(path, ec) ? path / "model.json" : path;
      return LoadTfjsModel(json.string(), options);
    }
    case ModelFormat::kGraphDef:
      return LoadGraphDefModel(path.string(), options);
  }
  return Internal("unhandled model format");
}

}  // namespace tfhost::loaders
