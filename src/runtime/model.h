// A loaded model: a Session plus the signatures that name its inputs and
// outputs. This is what front ends (CLI, servers, batch prediction) use; they
// never see loaders or graph details.
//
// Thread-safety: RunSignature may be called from many threads at once.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/attrs.h"
#include "runtime/session.h"

namespace tfhost::runtime {

// One input or output of a signature (tensorflow.TensorInfo, dense only).
struct TensorSpec {
  std::string key;          // signature alias, e.g. "x"
  std::string tensor_name;  // graph tensor, e.g. "x:0"
  DType dtype = DType::kInvalid;
  ir::PartialShape shape;
};

struct Signature {
  std::string name;         // "serving_default"
  std::string method_name;  // "tensorflow/serving/predict"
  std::vector<TensorSpec> inputs;   // sorted by key
  std::vector<TensorSpec> outputs;  // sorted by key
  std::map<std::string, Tensor> defaults;  // optional inputs (SignatureDef.defaults)
};

struct ModelInfo {
  std::string path;
  std::string format;  // "SavedModel (TF1)", "SavedModel (TF2)", "GraphDef", "TensorFlow.js"
  std::vector<std::vector<std::string>> tag_sets;
  std::map<std::string, std::string> metadata;  // producer, tensorflow_version, converter...
  int64_t variable_count = 0;
  int64_t variable_bytes = 0;
};

struct RunSignatureOptions {
  // `tfhost run` checks input shapes against the signature; TF Serving checks
  // only dtypes and lets the graph reject shapes it cannot take (signatures
  // often declare narrower shapes than the graph accepts), so serving turns
  // this off. Then a run the graph rejects (InvalidArgument) while an input
  // differs from its declared shape fails naming that input and both shapes.
  bool check_input_shapes = true;
};

class Model {
 public:
  Model(std::unique_ptr<Session> session, std::map<std::string, Signature> signatures, ModelInfo info)
      : session_(std::move(session)), signatures_(std::move(signatures)), info_(std::move(info)) {}

  const std::map<std::string, Signature>& signatures() const { return signatures_; }
  // Error lists the available signature names.
  StatusOr<const Signature*> FindSignature(const std::string& name) const;
  const ModelInfo& info() const { return info_; }
  Session& session() { return *session_; }

  // Runs a signature: every input key must belong to the signature and match
  // its dtype and (unless options say otherwise) shape; missing inputs take SignatureDef defaults, else it is
  // an error. `output_filter` (keys) selects outputs; empty = all. Returns
  // output key -> tensor.
  StatusOr<std::map<std::string, Tensor>> RunSignature(
      const std::string& signature_name, const std::map<std::string, Tensor>& inputs,
      const std::vector<std::string>& output_filter = {}, const RunSignatureOptions& options = {});

 private:
  std::unique_ptr<Session> session_;
  std::map<std::string, Signature> signatures_;
  ModelInfo info_;
};

}  // namespace tfhost::runtime
