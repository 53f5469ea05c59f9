// The Open Inference Protocol (KServe v2) over ServerCore, independent of
// the wire: the REST handler (v2_rest_handler) and the gRPC service
// (v2_grpc_service) decode their requests into the structs below, call
// V2Service, and encode what it returns.
//
// Models are TF Serving's: a v2 model is a configured model, its version
// string is "" (the latest available version), a number (that version) or
// any other text (a version label of the model config). Its inputs and
// outputs are those of one signature: serving_default, or the one the
// request parameter "signature_name" names. Requests run through
// ServerCore::PredictTensors / PredictTensorsAsync, so the model's runner
// (the batcher, when batching is on) runs them and the request metrics count
// them as predict requests of their entry point (REST or gRPC), as v1's are.
//
// Errors: unknown model, version or label -> NOT_FOUND (the v2 protocol's
// answer for a model it cannot find; the text still says which, e.g.
// "Servable not found for request: Specific(m, 7)"); a request that does not
// fit the signature -> INVALID_ARGUMENT naming the input or output, the
// expected and the given datatype or shape, the model, version and
// signature. A draining server still answers what reaches it (the front
// ends stop taking new requests); only its readiness turns false.
//
// Thread-safety: every method may be called from many threads at once.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "base/status.h"
#include "base/tensor.h"
#include "serving/server_core.h"

namespace tfhost::serving::v2 {

// A request parameter as either wire carries it.
using Parameter = std::variant<bool, int64_t, uint64_t, double, std::string>;
using Parameters = std::map<std::string, Parameter>;

// The request parameter that picks a signature other than serving_default.
inline constexpr char kSignatureNameParameter[] = "signature_name";

struct InferInput {
  std::string name;
  // Decoded with the datatype and shape the client sent; Infer checks both
  // against the signature.
  Tensor tensor;
};

struct RequestedOutput {
  std::string name;
  bool binary = false;  // REST: return it in binary form
};

struct InferRequest {
  std::string model_name;
  std::string model_version;  // "", "7" or a label
  std::string id;             // echoed in the response
  Parameters parameters;
  std::vector<InferInput> inputs;
  // Empty: every output of the signature, in its (sorted) order, binary when
  // binary_outputs is set.
  std::vector<RequestedOutput> outputs;
  bool binary_outputs = false;
};

struct InferOutput {
  std::string name;
  Tensor tensor;  // a dtype with a v2 datatype (Infer checks)
  bool binary = false;
};

struct InferResponse {
  std::string model_name;
  std::string model_version;  // the version that ran, as a decimal string
  std::string id;
  std::vector<InferOutput> outputs;
};

struct TensorMetadata {
  std::string name;
  std::string datatype;
  // -1 for a dimension of any size; an input of unknown rank is [-1]: the
  // protocol has no spelling for "any rank".
  std::vector<int64_t> shape;
};

struct ModelMetadata {
  std::string name;
  std::vector<std::string> versions;  // AVAILABLE versions, ascending
  std::string platform;               // "tensorflow_savedmodel"
  std::vector<TensorMetadata> inputs;
  std::vector<TensorMetadata> outputs;
};

struct ServerMetadata {
  std::string name;
  std::string version;
  std::vector<std::string> extensions;
};

class V2Service {
 public:
  // `core` must outlive the service. `server_version` is what server
  // metadata reports (tfhost's release).
  explicit V2Service(ServerCore* core, std::string server_version = "");

  // The process serves requests (true while it runs).
  bool ServerLive() const { return true; }
  // Every configured model has an AVAILABLE version and the server is not
  // draining.
  bool ServerReady() const;
  // Whether the model (version) is AVAILABLE. NOT_FOUND for a model the
  // config does not name, or a version or label it does not know.
  StatusOr<bool> ModelReady(const std::string& name, const std::string& version) const;
  ServerMetadata GetServerMetadata() const;
  // serving_default's inputs and outputs, or those of `signature_name`.
  StatusOr<ModelMetadata> GetModelMetadata(const std::string& name, const std::string& version,
                                           const std::string& signature_name = "") const;

  // Runs on the calling thread (blocking while the model runs or its batch
  // fills).
  StatusOr<InferResponse> Infer(InferRequest request, Entrypoint entrypoint);
  // Checks on the calling thread; `done` gets the answer exactly once, here
  // for a request refused before running, else on a batch or worker thread
  // (ServerCore::PredictTensorsAsync).
  using InferDone = std::function<void(StatusOr<InferResponse>)>;
  void InferAsync(InferRequest request, Entrypoint entrypoint, InferDone done);

  // While draining, ServerReady is false. Inference still runs: a request
  // that reached the server before its front ends stopped (a large body
  // still arriving at SIGTERM, say) is answered, as v1's are.
  void SetDraining(bool draining) { draining_.store(draining, std::memory_order_relaxed); }

  ServerCore& core() const { return *core_; }

 private:
  // A request checked against its signature, ready to run.
  struct Prepared {
    ResolvedSignature resolved;
    TensorMap inputs;
    std::vector<std::string> output_filter;
    InferResponse response;  // name, version, id, and the outputs to fill
  };
  StatusOr<Prepared> Prepare(InferRequest request) const;
  static StatusOr<InferResponse> Finish(Prepared& prepared, StatusOr<PredictResult> result);

  ServerCore* core_;
  std::string server_version_;
  std::atomic<bool> draining_{false};
};

// The model spec a v2 (name, version, signature) names: no version for "",
// a number for digits, else a version label.
tensorflow::serving::ModelSpec ModelSpecFor(const std::string& name, const std::string& version,
                                            const std::string& signature_name);

// The signature name a request's parameters pick (INVALID_ARGUMENT when
// "signature_name" is not a string); "" for the default.
StatusOr<std::string> SignatureNameParameter(const Parameters& parameters);

}  // namespace tfhost::serving::v2
