// TF Serving's request semantics on one resolved servable: Predict, Classify,
// Regress and MultiInference (tf.Example inputs through classification /
// regression signatures), and the metadata/status protos. Resolution of the
// model spec to a servable is ServerCore's job; these functions get the
// servable and a SignatureRunner and do the rest.
//
// Error codes and texts follow TF Serving so REST and gRPC clients see the
// same answers; each message also names the model, version and signature.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "serving/servable/request_limits.h"
#include "serving/servable/servable.h"
#include "tensorflow_serving/apis/classification.pb.h"
#include "tensorflow_serving/apis/inference.pb.h"
#include "tensorflow_serving/apis/model.pb.h"
#include "tensorflow_serving/apis/predict.pb.h"
#include "tensorflow_serving/apis/regression.pb.h"

namespace tfhost::serving {

inline constexpr char kDefaultSignatureName[] = "serving_default";
inline constexpr char kPredictMethodName[] = "tensorflow/serving/predict";
inline constexpr char kClassifyMethodName[] = "tensorflow/serving/classify";
inline constexpr char kRegressMethodName[] = "tensorflow/serving/regress";

struct InferenceOptions {
  // TF Serving's --enable_signature_method_name_check (off by default).
  bool enable_signature_method_name_check = false;
  // Bounds on each request's input tensors (request_limits.h); the REST
  // and v2 front ends read them through ServerCore::request_limits().
  RequestLimits request_limits;
};

// "serving_default" when empty.
std::string SignatureNameOrDefault(const std::string& name);

// The signature `signature_name` of `servable`. FAILED_PRECONDITION
// 'Serving signature key "k" not found.' plus where and what exists.
StatusOr<const runtime::Signature*> FindServingSignature(const Servable& servable, const std::string& signature_name);

// Fills name, version and signature_name (as given, may be empty).
void FillModelSpec(const Servable& servable, const std::string& signature_name,
                   tensorflow::serving::ModelSpec* spec);

// Predict on tensors: input keys checked against the signature (unknown alias
// and missing inputs are INVALID_ARGUMENT unless the signature has
// defaults), dtypes checked (INVALID_ARGUMENT "Expects arg ... to be float but
// string is provided"), shapes left to the graph; output_filter aliases
// checked (unknown or duplicate = INVALID_ARGUMENT). Returns outputs by alias.
StatusOr<TensorMap> PredictTensors(const ServableHandle& servable, SignatureRunner& runner,
                                   const runtime::Signature& signature, TensorMap inputs,
                                   const std::vector<std::string>& output_filter);

// PredictTensors' checks alone (for callers that run the request themselves,
// e.g. asynchronously), and the context it adds to a run's error.
Status CheckPredictTensors(const Servable& servable, const runtime::Signature& signature, const TensorMap& inputs,
                           const std::vector<std::string>& output_filter);
Status WithRunContext(const Status& status, const Servable& servable, const runtime::Signature& signature);

Status RunPredict(const ServableHandle& servable, SignatureRunner& runner, const InferenceOptions& options,
                  const tensorflow::serving::PredictRequest& request, tensorflow::serving::PredictResponse* response);
Status RunClassify(const ServableHandle& servable, SignatureRunner& runner, const InferenceOptions& options,
                   const tensorflow::serving::ClassificationRequest& request,
                   tensorflow::serving::ClassificationResponse* response);
Status RunRegress(const ServableHandle& servable, SignatureRunner& runner, const InferenceOptions& options,
                  const tensorflow::serving::RegressionRequest& request,
                  tensorflow::serving::RegressionResponse* response);
// All tasks must name one model (INVALID_ARGUMENT otherwise); `servable` is
// what the first task's model_spec resolved to (ServerCore does that).
Status RunMultiInference(const ServableHandle& servable, SignatureRunner& runner, const InferenceOptions& options,
                         const tensorflow::serving::MultiInferenceRequest& request,
                         tensorflow::serving::MultiInferenceResponse* response);

// Input (example_list or example_list_with_context) -> 1-D DT_STRING tensor of
// serialized Examples (context bytes ++ example bytes, i.e. merged).
// INVALID_ARGUMENT "Input is empty." when there are no examples.
StatusOr<Tensor> SerializeExamples(const tensorflow::serving::Input& input);

}  // namespace tfhost::serving
