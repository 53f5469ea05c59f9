// Loads any model format tfhost understands into a runtime::Model:
// SavedModel directories (TF1 and TF2; a TF Serving base path with numeric
// version folders picks the highest version), frozen GraphDefs (.pb/.pbtxt),
// TensorFlow.js graph models (model.json), TensorFlow Lite models
// (.tflite, or a version folder's model.tflite) and ONNX models (.onnx, or a
// version folder's model.onnx when it has no SavedModel). Legacy formats (SessionBundle,
// bare export.meta) are refused with an error that says what they are.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "runtime/model.h"

namespace tfhost::loaders {

// The inliner's own bound, and far above any served model (the largest
// tfhost's zoo holds has tens of thousands of nodes).
inline constexpr int64_t kDefaultMaxGraphNodes = 2'000'000;

struct LoadOptions {
  // MetaGraph selection for SavedModels: the tag set must equal this set.
  std::vector<std::string> tags = {"serve"};
  runtime::SessionOptions session;
  // Run the graph passes (src/passes: identity elimination, constant
  // folding) at load time. false loads the graph exactly as written, for
  // comparing outputs and debugging a pass.
  bool optimize_graph = true;
  // Replace the reads of variables nothing served writes by constants after
  // restoring them (loaders/savedmodel/variable_freezing.h), so the passes
  // fold weights (batch norms into convolutions). SavedModels only.
  bool freeze_variables = true;
  // "fp32" or "bf16": bf16 marks float32 convolutions and matrix products so
  // fast kernels compute them in bf16 with float32 accumulation (where the
  // CPU has native bf16; passes/precision.cc, docs/backends.md). Runs even
  // when optimize_graph is false. Anything else fails the load.
  std::string precision = "fp32";
  // Tensor or node names ("Mul:0", "Mul") a caller will feed or fetch
  // directly, beyond the signatures (`tfhost run --fetch Mul:0`): the graph
  // passes keep them under their own names instead of fusing them away.
  std::vector<std::string> keep;
  // Most nodes a model's graph may have, as read and as function inlining
  // grows it (--max_graph_nodes; docs/cli.md "Limits"): a small file of
  // nested calls can otherwise demand any amount of work and memory. The
  // nesting of calls is session.max_function_depth.
  int64_t max_graph_nodes = kDefaultMaxGraphNodes;
  // TF Serving's --prefer_tflite_model: a SavedModel directory that also
  // holds model.tflite is loaded from model.tflite.
  bool prefer_tflite_model = false;
};

enum class ModelFormat { kSavedModel, kGraphDef, kTfjs, kTflite, kOnnx };
const char* ModelFormatName(ModelFormat format);

// Decides the format from the path (directory contents, file name, magic);
// errors explain what was found and what is expected.
StatusOr<ModelFormat> DetectModelFormat(const std::string& path);

StatusOr<std::unique_ptr<runtime::Model>> LoadModel(const std::string& path,
                                                    const LoadOptions& options = LoadOptions());

}  // namespace tfhost::loaders
