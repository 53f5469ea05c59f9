// Test models for the Open Inference Protocol: one "echo" SavedModel per
// dtype, written by tfhost's own SavedModel writer (no TensorFlow needed).
// Used by the v2 unit tests and, through tests/serving_v2's model writer, by
// the end-to-end client tests.
//
//   signature serving_default: x (dtype, [-1,2]) -> y = Identity(x)
//   signature second:          a (dtype, [-1])   -> b = Identity(a)
//
// Thread-safety: reentrant; do not write one directory from two threads.
#pragma once

#include <stdlib.h>

#include <cctype>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "loaders/savedmodel/saved_model_writer.h"
#include "serving/server_core.h"
#include "serving/v2/v2_datatype.h"

namespace tfhost::serving::v2::testing {

inline runtime::TensorSpec EchoSpec(const std::string& key, const std::string& tensor, DType dtype,
                                    std::vector<int64_t> dims) {
  runtime::TensorSpec s;
  s.key = key;
  s.tensor_name = tensor;
  s.dtype = dtype;
  s.shape = ir::PartialShape::Known(std::move(dims));
  return s;
}

inline tensorflow::NodeDef* EchoNode(tensorflow::GraphDef* g, const std::string& name, const std::string& op,
                                     const std::string& input, DType dtype) {
  tensorflow::NodeDef* n = g->add_node();
  n->set_name(name);
  n->set_op(op);
  if (!input.empty()) n->add_input(input);
  (*n->mutable_attr())[op == "Placeholder" ? "dtype" : "T"].set_type(static_cast<tensorflow::DataType>(dtype));
  return n;
}

inline void EchoPlaceholder(tensorflow::GraphDef* g, const std::string& name, DType dtype,
                            const std::vector<int64_t>& dims) {
  tensorflow::NodeDef* n = EchoNode(g, name, "Placeholder", "", dtype);
  auto* shape = (*n->mutable_attr())["shape"].mutable_shape();
  for (int64_t d : dims) shape->add_dim()->set_size(d);
}

// Writes the echo model for `dtype` as `version_dir` (replacing it).
inline Status WriteEchoModel(const std::string& version_dir, DType dtype) {
  loaders::SavedModelSpec spec;
  tensorflow::GraphDef& g = spec.graph_def;
  g.mutable_versions()->set_producer(27);
  EchoPlaceholder(&g, "x", dtype, {-1, 2});
  EchoNode(&g, "y", "Identity", "x", dtype);
  EchoPlaceholder(&g, "a", dtype, {-1});
  EchoNode(&g, "b", "Identity", "a", dtype);
  runtime::Signature main;
  main.name = "serving_default";
  main.method_name = "tensorflow/serving/predict";
  main.inputs = {EchoSpec("x", "x:0", dtype, {-1, 2})};
  main.outputs = {EchoSpec("y", "y:0", dtype, {-1, 2})};
  runtime::Signature second;
  second.name = "second";
  second.method_name = "tensorflow/serving/predict";
  second.inputs = {EchoSpec("a", "a:0", dtype, {-1})};
  second.outputs = {EchoSpec("b", "b:0", dtype, {-1})};
  spec.signatures = {main, second};
  loaders::SavedModelWriteOptions options;
  options.overwrite = true;
  return loaders::WriteSavedModel(version_dir, spec, options);
}

// Every dtype with a v2 datatype.
inline std::vector<DType> EchoDTypes() {
  return {DType::kBool,  DType::kUInt8, DType::kUInt16, DType::kUInt32, DType::kUInt64,
          DType::kInt8,  DType::kInt16, DType::kInt32,  DType::kInt64,  DType::kHalf,
          DType::kBFloat16, DType::kFloat, DType::kDouble, DType::kString};
}

// "echo_fp32", ...: the model name for a dtype's echo model.
inline std::string EchoModelName(DType dtype) {
  std::string name = "echo_";
  for (char c : std::string(*DatatypeName(dtype))) name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return name;
}

// Writes every dtype's echo model under `base` (<base>/<name>/1), and
// echo_fp32 at versions 1 and 2 too; returns a config serving them all with
// every version (echo_fp32 with label "stable" -> 1).
inline StatusOr<ModelServerConfig> WriteEchoModels(const std::string& base) {
  ModelServerConfig config;
  for (DType dtype : EchoDTypes()) {
    const std::string name = EchoModelName(dtype);
    TFHOST_RETURN_IF_ERROR(WriteEchoModel(base + "/" + name + "/1", dtype));
    ModelConfig* m = config.mutable_model_config_list()->add_config();
    m->set_name(name);
    m->set_base_path(base + "/" + name);
    m->set_model_platform("tensorflow");
    m->mutable_model_version_policy()->mutable_all();
    if (dtype == DType::kFloat) {
      TFHOST_RETURN_IF_ERROR(WriteEchoModel(base + "/" + name + "/2", dtype));
      (*m->mutable_version_labels())["stable"] = 1;
    }
  }
  return config;
}

// A temporary folder, removed with everything in it at destruction.
class EchoTempDir {
 public:
  EchoTempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "tfhost_v2_XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~EchoTempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A ServerCore serving WriteEchoModels' models (no file-system polling, no
// load retries, logs dropped), with `limits` on each request's inputs.
struct EchoServer {
  EchoTempDir dir;
  std::unique_ptr<ServerCore> core;
  Status status;

  explicit EchoServer(const RequestLimits& limits = {}) {
    auto config = WriteEchoModels(dir.path());
    if (!config.ok()) {
      status = config.status();
      return;
    }
    ServerCoreOptions o;
    o.model_server_config = std::move(*config);
    o.manager.file_system_poll_wait_seconds = 0;
    o.manager.max_num_load_retries = 0;
    o.manager.log_sink = [](const std::string&) {};
    o.inference.request_limits = limits;
    auto created = ServerCore::Create(std::move(o));
    if (!created.ok()) {
      status = created.status();
      return;
    }
    core = std::move(*created);
  }
};

}  // namespace tfhost::serving::v2::testing
