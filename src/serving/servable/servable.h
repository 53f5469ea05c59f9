// A servable is one loaded version of one served model: the runtime::Model
// plus the SignatureDefs exactly as the SavedModel wrote them (GetModelMetadata
// returns those verbatim, as TF Serving does). Handles are refcounted: the
// model manager drops its reference on unload, and the model is destroyed only
// when the last in-flight request releases its handle.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "base/tensor.h"
#include "loaders/model_loader.h"
#include "runtime/model.h"
#include "serving/servable/run_cost.h"
#include "tensorflow_serving/apis/get_model_metadata.pb.h"

namespace tfhost::serving {

using TensorMap = std::map<std::string, Tensor>;

struct Servable {
  std::string name;     // model name from the config
  int64_t version = 0;  // numeric version directory
  std::string path;     // the version directory
  // Model::RunSignature is thread-safe; the pointer is shared so batching
  // schedulers can keep the model alive alongside their queued tasks.
  std::shared_ptr<runtime::Model> model;
  // Every SignatureDef of the served MetaGraph (including internal ones such as
  // __saved_model_init_op), as in TF Serving's metadata response. For formats
  // without SignatureDefs (GraphDef, TF.js) built from model->signatures().
  tensorflow::serving::SignatureDefMap signature_defs;
  // How fast this version's signatures have run (ServerCore decides from it
  // whether a request may run on the thread that received it).
  mutable SignatureRunCosts run_costs;
};

using ServableHandle = std::shared_ptr<const Servable>;

// Loads the version directory `path` with `options`; the default loader the
// model manager uses. Errors name the model, version and path.
StatusOr<std::shared_ptr<Servable>> LoadServable(const std::string& name, int64_t version,
                                                 const std::string& path, const loaders::LoadOptions& options);

// Where a request's graph execution goes. The default runs
// Model::RunSignature directly (serving input checks: dtype checked, shapes
// left to the graph, as TF Serving does); the batching engineer implements
// another that queues requests per (servable, signature), merges them along
// dimension 0 and splits the outputs back.
//
// Run is called concurrently from many request threads. `servable` stays
// alive while the caller holds it (for the whole call); a runner that keeps
// tasks beyond the call must copy the handle. Inputs are already validated
// against the signature (keys, dtypes); defaults are not yet filled in.
class SignatureRunner {
 public:
  using DoneCallback = std::function<void(StatusOr<TensorMap>)>;

  virtual ~SignatureRunner() = default;
  virtual StatusOr<TensorMap> Run(const ServableHandle& servable, const runtime::Signature& signature,
                                  TensorMap inputs, const std::vector<std::string>& output_filter) = 0;

  // Whether RunAsync would take this request without blocking the caller
  // (a batching runner queues it and answers from a batch thread). Front
  // ends that must not block their own threads (REST's I/O threads) use
  // RunAsync when this is true and run Run on a worker thread otherwise.
  virtual bool CanRunAsync(const runtime::Signature& /*signature*/, const TensorMap& /*inputs*/) const {
    return false;
  }
  // Calls `done` exactly once with the outputs, possibly later and on
  // another thread. The default runs Run on the caller's thread.
  virtual void RunAsync(const ServableHandle& servable, const runtime::Signature& signature, TensorMap inputs,
                        const std::vector<std::string>& output_filter, DoneCallback done) {
    done(Run(servable, signature, std::move(inputs), output_filter));
  }
};

// Calls servable->model->RunSignature(signature.name, inputs, output_filter)
// with input shape checks relaxed (TF Serving lets the graph reject shapes).
class DirectRunner : public SignatureRunner {
 public:
  StatusOr<TensorMap> Run(const ServableHandle& servable, const runtime::Signature& signature, TensorMap inputs,
                          const std::vector<std::string>& output_filter) override;
};

}  // namespace tfhost::serving
