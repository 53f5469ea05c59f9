#include "serving/servable/inference.h"

#include <algorithm>
#include <cstring>
#include <set>

#include "ir/tensor_proto.h"

namespace tfhost::serving {

namespace ts = tensorflow::serving;

namespace {

// A TensorProto may declare a huge shape and one value that TensorFlow would
// repeat to fill it; refuse anything that would expand to more than this
// (or 16x the request's own bytes, whichever is larger).
constexpr uint64_t kMinExpansionBudget = uint64_t{64} << 20;

std::string Where(const Servable& s, const std::string& signature_name) {
  return "model \"" + s.name + "\" version " + std::to_string(s.version) +
         (signature_name.empty() ? "" : " signature \"" + signature_name + "\"");
}

std::string JoinSet(const std::vector<std::string>& items) {
  std::string out = "{";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + items[i];
  return out + "}";
}

std::string SignatureNames(const Servable& s) {
  std::string out;
  for (const auto& [k, v] : s.model->signatures()) out += (out.empty() ? "" : ", ") + k;
  return out.empty() ? "<none>" : out;
}

std::string TfTypeName(DType d) {
  // TensorFlow's DataTypeString spelling ("float", "string", "int32").
  switch (d) {
    case DType::kFloat: return "float";
    case DType::kDouble: return "double";
    case DType::kString: return "string";
    case DType::kHalf: return "half";
    case DType::kBFloat16: return "bfloat16";
    case DType::kBool: return "bool";
    default: {
      std::string s = DTypeName(d);  // DT_INT32
      if (s.rfind("DT_", 0) == 0) s = s.substr(3);
      std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
      return s;
    }
  }
}

StatusOr<Tensor> RequestTensorFromProto(const tensorflow::TensorProto& proto, const std::string& what,
                                        RequestBudget& budget) {
  // Validate the shape before anything allocates.
  uint64_t elements = 1;
  bool overflow = false;
  for (const auto& d : proto.tensor_shape().dim()) {
    if (d.size() < 0) {
      return InvalidArgument("tensor parsing error: " + what + ": dimension " + std::to_string(d.size()) +
                             " is negative; a request tensor needs a fully known shape");
    }
    if (d.size() != 0 && elements > UINT64_MAX / static_cast<uint64_t>(d.size())) overflow = true;
    elements *= static_cast<uint64_t>(d.size());
  }
  DType dtype = BaseType(proto.dtype());
  uint64_t elem_bytes = dtype == DType::kString ? sizeof(std::string) : std::max<size_t>(1, DTypeSize(dtype));
  uint64_t expansion = std::max<uint64_t>(kMinExpansionBudget, 16 * static_cast<uint64_t>(proto.ByteSizeLong()));
  if (overflow || (elements != 0 && elements > expansion / elem_bytes)) {
    return InvalidArgument("tensor parsing error: " + what + ": shape " + proto.tensor_shape().ShortDebugString() +
                           " is too large for the " + std::to_string(proto.ByteSizeLong()) +
                           " bytes of values sent");
  }
  TFHOST_RETURN_IF_ERROR(budget.AddTensorProto(what, proto));
  auto t = ir::TensorFromProto(proto);
  if (!t.ok()) return InvalidArgument("tensor parsing error: " + what + ": " + t.status().message());
  return t;
}

// TF Serving answers with the typed value fields (Tensor::AsProtoField), not
// tensor_content, so clients that read float_val keep working.
void TensorToProtoField(const Tensor& t, tensorflow::TensorProto* proto) {
  proto->set_dtype(static_cast<tensorflow::DataType>(t.dtype()));
  *proto->mutable_tensor_shape() = ir::ShapeToProto(t.shape());
  const int64_t n = t.NumElements();
  switch (t.dtype()) {
    case DType::kFloat: proto->mutable_float_val()->Add(t.data<float>(), t.data<float>() + n); return;
    case DType::kDouble: proto->mutable_double_val()->Add(t.data<double>(), t.data<double>() + n); return;
    case DType::kInt32: case DType::kQInt32:
      proto->mutable_int_val()->Add(t.data<int32_t>(), t.data<int32_t>() + n); return;
    case DType::kInt16: case DType::kQInt16:
      for (int64_t i = 0; i < n; ++i) proto->add_int_val(t.data<int16_t>()[i]);
      return;
    case DType::kUInt16: case DType::kQUInt16:
      for (int64_t i = 0; i < n; ++i) proto->add_int_val(t.data<uint16_t>()[i]);
      return;
    case DType::kInt8: case DType::kQInt8:
      for (int64_t i = 0; i < n; ++i) proto->add_int_val(t.data<int8_t>()[i]);
      return;
    case DType::kUInt8: case DType::kQUInt8:
      for (int64_t i = 0; i < n; ++i) proto->add_int_val(t.data<uint8_t>()[i]);
      return;
    case DType::kInt64: proto->mutable_int64_val()->Add(t.data<int64_t>(), t.data<int64_t>() + n); return;
    case DType::kUInt32: proto->mutable_uint32_val()->Add(t.data<uint32_t>(), t.data<uint32_t>() + n); return;
    case DType::kUInt64: proto->mutable_uint64_val()->Add(t.data<uint64_t>(), t.data<uint64_t>() + n); return;
    case DType::kBool:
      for (int64_t i = 0; i < n; ++i) proto->add_bool_val(t.data<bool>()[i]);
      return;
    case DType::kHalf: case DType::kBFloat16:
      for (int64_t i = 0; i < n; ++i) proto->add_half_val(t.data<uint16_t>()[i]);
      return;
    case DType::kString:
      for (int64_t i = 0; i < n; ++i) proto->add_string_val(t.strings()[i]);
      return;
    case DType::kComplex64:
      proto->mutable_scomplex_val()->Add(t.data<float>(), t.data<float>() + 2 * n); return;
    case DType::kComplex128:
      proto->mutable_dcomplex_val()->Add(t.data<double>(), t.data<double>() + 2 * n); return;
    default:
      ir::TensorToProto(t, proto);
      return;
  }
}

const runtime::TensorSpec* FindSpec(const std::vector<runtime::TensorSpec>& specs, const std::string& key) {
  for (const auto& s : specs) {
    if (s.key == key) return &s;
  }
  return nullptr;
}

// Classification/regression signature lookup (TF Serving's classifier.cc /
// regressor.cc wording).
StatusOr<const runtime::Signature*> FindExampleSignature(const Servable& servable, const std::string& name,
                                                         const char* method, const InferenceOptions& options) {
  auto it = servable.model->signatures().find(name);
  if (it == servable.model->signatures().end()) {
    return InvalidArgument("No signature was found with the name: " + name + " (" + Where(servable, "") +
                           " has: " + SignatureNames(servable) + ")");
  }
  const runtime::Signature& sig = it->second;
  if (options.enable_signature_method_name_check && sig.method_name != method) {
    return InvalidArgument("Expected " + std::string(method == std::string(kClassifyMethodName) ? "classification"
                                                                                                   : "regression") +
                           " signature method_name to be " + method + ". Was: " + sig.method_name + " (" +
                           Where(servable, name) + ")");
  }
  if (sig.inputs.size() != 1) {
    return InvalidArgument("Expected one input Tensor. (" + Where(servable, name) + " has " +
                           std::to_string(sig.inputs.size()) + ")");
  }
  if (sig.inputs[0].dtype != DType::kString && sig.inputs[0].dtype != DType::kInvalid) {
    return InvalidArgument(Where(servable, name) + ": input \"" + sig.inputs[0].key + "\" is " +
                           DTypeName(sig.inputs[0].dtype) +
                           "; classify and regress feed a DT_STRING tensor of serialized tf.Examples");
  }
  return &sig;
}

// Runs an example-based signature on the serialized examples.
StatusOr<TensorMap> RunOnExamples(const ServableHandle& servable, SignatureRunner& runner,
                                  const runtime::Signature& sig, const ts::Input& input,
                                  const std::vector<std::string>& outputs, const RequestLimits& limits,
                                  int64_t* num_examples) {
  TFHOST_ASSIGN_OR_RETURN(Tensor examples, SerializeExamples(input));
  RequestBudget budget(limits);
  TFHOST_RETURN_IF_ERROR(budget.AddDecoded(sig.inputs[0].key, examples));
  *num_examples = examples.dim(0);
  TensorMap inputs;
  inputs[sig.inputs[0].key] = std::move(examples);
  auto result = runner.Run(servable, sig, std::move(inputs), outputs);
  if (!result.ok()) {
    return Status(result.status().code(), result.status().message() + " (" + Where(*servable, sig.name) + ")");
  }
  return result;
}

Status ClassifyImpl(const ServableHandle& servable, SignatureRunner& runner, const InferenceOptions& options,
                    const std::string& signature_name, const ts::Input& input, ts::ClassificationResult* result) {
  TFHOST_ASSIGN_OR_RETURN(const runtime::Signature* sig,
                          FindExampleSignature(*servable, signature_name, kClassifyMethodName, options));
  const std::string where = Where(*servable, signature_name);
  if (sig->outputs.size() != 1 && sig->outputs.size() != 2) {
    return InvalidArgument("Expected one or two output Tensors, found " + std::to_string(sig->outputs.size()) +
                           " (" + where + ")");
  }
  const runtime::TensorSpec* classes_spec = FindSpec(sig->outputs, "classes");
  const runtime::TensorSpec* scores_spec = FindSpec(sig->outputs, "scores");
  if (!classes_spec && !scores_spec) {
    return InvalidArgument("Expected classification signature outputs to contain at least one of \"classes\" and "
                           "\"scores\" (" + where + ")");
  }
  std::vector<std::string> wanted;
  if (classes_spec) wanted.push_back("classes");
  if (scores_spec) wanted.push_back("scores");
  int64_t n = 0;
  TFHOST_ASSIGN_OR_RETURN(TensorMap out,
                          RunOnExamples(servable, runner, *sig, input, wanted, options.request_limits, &n));
  const Tensor* classes = classes_spec ? &out["classes"] : nullptr;
  const Tensor* scores = scores_spec ? &out["scores"] : nullptr;
  int64_t num_classes = -1;
  if (classes) {
    if (classes->dtype() != DType::kString) {
      return InvalidArgument("Expected classes Tensor of DT_STRING. Got: " + DTypeName(classes->dtype()) + " (" +
                             where + ")");
    }
    if (classes->rank() != 2 || classes->dim(0) != n) {
      return InvalidArgument("Expected Tensor shape: [batch_size num_classes] but got " +
                             classes->shape().ToString() + " for classes with batch_size " + std::to_string(n) +
                             " (" + where + ")");
    }
    num_classes = classes->dim(1);
  }
  if (scores) {
    if (scores->dtype() != DType::kFloat) {
      return InvalidArgument("Expected scores Tensor of DT_FLOAT. Got: " + DTypeName(scores->dtype()) + " (" +
                             where + ")");
    }
    if (scores->rank() != 2 || scores->dim(0) != n) {
      return InvalidArgument("Expected Tensor shape: [batch_size num_classes] but got " +
                             scores->shape().ToString() + " for scores with batch_size " + std::to_string(n) +
                             " (" + where + ")");
    }
    if (num_classes >= 0 && scores->dim(1) != num_classes) {
      return InvalidArgument("Tensors class and score should match in shape, but got " +
                             classes->shape().ToString() + " vs. " + scores->shape().ToString() + " (" + where + ")");
    }
    num_classes = scores->dim(1);
  }
  for (int64_t i = 0; i < n; ++i) {
    ts::Classifications* c = result->add_classifications();
    for (int64_t j = 0; j < num_classes; ++j) {
      ts::Class* cls = c->add_classes();
      if (classes) cls->set_label(classes->strings()[i * num_classes + j]);
      if (scores) cls->set_score(scores->data<float>()[i * num_classes + j]);
    }
  }
  return OkStatus();
}

Status RegressImpl(const ServableHandle& servable, SignatureRunner& runner, const InferenceOptions& options,
                   const std::string& signature_name, const ts::Input& input, ts::RegressionResult* result) {
  TFHOST_ASSIGN_OR_RETURN(const runtime::Signature* sig,
                          FindExampleSignature(*servable, signature_name, kRegressMethodName, options));
  const std::string where = Where(*servable, signature_name);
  if (sig->outputs.size() != 1) {
    return InvalidArgument("Expected one output Tensor. (" + where + " has " + std::to_string(sig->outputs.size()) +
                           ")");
  }
  if (!FindSpec(sig->outputs, "outputs")) {
    return InvalidArgument("No regression outputs found in SignatureDef: expected output \"outputs\", found \"" +
                           sig->outputs[0].key + "\" (" + where + ")");
  }
  int64_t n = 0;
  TFHOST_ASSIGN_OR_RETURN(TensorMap out,
                          RunOnExamples(servable, runner, *sig, input, {"outputs"}, options.request_limits, &n));
  const Tensor& values = out["outputs"];
  if (values.dtype() != DType::kFloat) {
    return InvalidArgument("Expected output Tensor of DT_FLOAT.  Got: " + DTypeName(values.dtype()) + " (" + where +
                           ")");
  }
  if (!(values.rank() == 1 || (values.rank() == 2 && values.dim(1) == 1))) {
    return InvalidArgument("Expected output Tensor shape to be either [batch_size] or [batch_size, 1] but got " +
                           values.shape().ToString() + " (" + where + ")");
  }
  if (values.dim(0) != n) {
    return InvalidArgument("Input batch size did not match output batch size: " + std::to_string(n) + " vs. " +
                           std::to_string(values.dim(0)) + " (" + where + ")");
  }
  for (int64_t i = 0; i < n; ++i) result->add_regressions()->set_value(values.data<float>()[i]);
  return OkStatus();
}

}  // namespace

std::string SignatureNameOrDefault(const std::string& name) { return name.empty() ? kDefaultSignatureName : name; }

StatusOr<const runtime::Signature*> FindServingSignature(const Servable& servable, const std::string& signature_name) {
  auto it = servable.model->signatures().find(signature_name);
  if (it == servable.model->signatures().end()) {
    return FailedPrecondition("Serving signature key \"" + signature_name + "\" not found. (" +
                              Where(servable, "") + " has: " + SignatureNames(servable) + ")");
  }
  return &it->second;
}

void FillModelSpec(const Servable& servable, const std::string& signature_name, ts::ModelSpec* spec) {
  spec->Clear();
  spec->set_name(servable.name);
  spec->mutable_version()->set_value(servable.version);
  spec->set_signature_name(signature_name);
}

Status CheckPredictTensors(const Servable& servable, const runtime::Signature& sig, const TensorMap& inputs,
                           const std::vector<std::string>& output_filter) {
  const std::string where = Where(servable, sig.name);
  std::vector<std::string> expected;
  for (const auto& s : sig.inputs) expected.push_back(s.key);
  if (sig.defaults.empty() && inputs.size() != sig.inputs.size()) {
    std::vector<std::string> sent, extra, missing;
    for (const auto& [k, v] : inputs) {
      sent.push_back(k);
      if (!FindSpec(sig.inputs, k)) extra.push_back(k);
    }
    for (const auto& s : sig.inputs) {
      if (!inputs.count(s.key)) missing.push_back(s.key);
    }
    return InvalidArgument("input size does not match signature: " + std::to_string(inputs.size()) +
                           "!=" + std::to_string(sig.inputs.size()) + " len(" + JoinSet(sent) + ") != len(" +
                           JoinSet(expected) + "). Sent extra: " + JoinSet(extra) +
                           ". Missing but required: " + JoinSet(missing) + ". (" + where + ")");
  }
  for (const auto& [alias, tensor] : inputs) {
    const runtime::TensorSpec* spec = FindSpec(sig.inputs, alias);
    if (!spec) {
      return InvalidArgument("input tensor alias not found in signature: " + alias +
                             ". Inputs expected to be in the set " + JoinSet(expected) + ". (" + where + ")");
    }
    if (spec->dtype != DType::kInvalid && tensor.dtype() != spec->dtype) {
      return InvalidArgument("Expects arg \"" + alias + "\" (" + spec->tensor_name + ") to be " +
                             TfTypeName(spec->dtype) + " but " + TfTypeName(tensor.dtype()) + " is provided (" +
                             where + ")");
    }
  }
  for (const auto& s : sig.inputs) {
    if (!inputs.count(s.key) && !sig.defaults.count(s.key)) {
      return InvalidArgument("missing input \"" + s.key + "\" (" + DTypeName(s.dtype) + " " + s.shape.ToString() +
                             "), which has no default (" + where + ")");
    }
  }
  std::set<std::string> seen;
  for (const auto& alias : output_filter) {
    if (!FindSpec(sig.outputs, alias)) {
      std::vector<std::string> outs;
      for (const auto& o : sig.outputs) outs.push_back(o.key);
      return InvalidArgument("output tensor alias not found in signature: " + alias +
                             " Outputs expected to be in the set " + JoinSet(outs) + ". (" + where + ")");
    }
    if (!seen.insert(alias).second) {
      return InvalidArgument("duplicate output tensor alias: " + alias + " (" + where + ")");
    }
  }
  return OkStatus();
}

Status WithRunContext(const Status& status, const Servable& servable, const runtime::Signature& signature) {
  if (status.ok()) return status;
  return Status(status.code(), status.message() + " (" + Where(servable, signature.name) + ")");
}

StatusOr<TensorMap> PredictTensors(const ServableHandle& servable, SignatureRunner& runner,
                                   const runtime::Signature& sig, TensorMap inputs,
                                   const std::vector<std::string>& output_filter) {
  TFHOST_RETURN_IF_ERROR(CheckPredictTensors(*servable, sig, inputs, output_filter));
  auto result = runner.Run(servable, sig, std::move(inputs), output_filter);
  if (!result.ok()) return WithRunContext(result.status(), *servable, sig);
  return result;
}

Status RunPredict(const ServableHandle& servable, SignatureRunner& runner, const InferenceOptions& options,
                  const ts::PredictRequest& request, ts::PredictResponse* response) {
  const std::string name = SignatureNameOrDefault(request.model_spec().signature_name());
  TFHOST_ASSIGN_OR_RETURN(const runtime::Signature* sig, FindServingSignature(*servable, name));
  if (options.enable_signature_method_name_check && sig->method_name != kPredictMethodName &&
      sig->method_name != kClassifyMethodName && sig->method_name != kRegressMethodName) {
    return InvalidArgument("Expected prediction signature method_name to be one of {" +
                           std::string(kPredictMethodName) + ", " + kClassifyMethodName + ", " + kRegressMethodName +
                           "}. Was: " + sig->method_name + " (" + Where(*servable, name) + ")");
  }
  TensorMap inputs;
  RequestBudget budget(options.request_limits);
  for (const auto& [alias, proto] : request.inputs()) {
    TFHOST_ASSIGN_OR_RETURN(Tensor t, RequestTensorFromProto(proto, alias, budget));
    inputs[alias] = std::move(t);
  }
  std::vector<std::string> filter(request.output_filter().begin(), request.output_filter().end());
  TFHOST_ASSIGN_OR_RETURN(TensorMap outputs, PredictTensors(servable, runner, *sig, std::move(inputs), filter));
  response->Clear();
  FillModelSpec(*servable, name, response->mutable_model_spec());
  for (const auto& [alias, tensor] : outputs) TensorToProtoField(tensor, &(*response->mutable_outputs())[alias]);
  return OkStatus();
}

Status RunClassify(const ServableHandle& servable, SignatureRunner& runner, const InferenceOptions& options,
                   const ts::ClassificationRequest& request, ts::ClassificationResponse* response) {
  const std::string name = SignatureNameOrDefault(request.model_spec().signature_name());
  response->Clear();
  TFHOST_RETURN_IF_ERROR(ClassifyImpl(servable, runner, options, name, request.input(), response->mutable_result()));
  FillModelSpec(*servable, name, response->mutable_model_spec());
  return OkStatus();
}

Status RunRegress(const ServableHandle& servable, SignatureRunner& runner, const InferenceOptions& options,
                  const ts::RegressionRequest& request, ts::RegressionResponse* response) {
  const std::string name = SignatureNameOrDefault(request.model_spec().signature_name());
  response->Clear();
  TFHOST_RETURN_IF_ERROR(RegressImpl(servable, runner, options, name, request.input(), response->mutable_result()));
  FillModelSpec(*servable, name, response->mutable_model_spec());
  return OkStatus();
}

Status RunMultiInference(const ServableHandle& servable, SignatureRunner& runner, const InferenceOptions& options,
                         const ts::MultiInferenceRequest& request, ts::MultiInferenceResponse* response) {
  response->Clear();
  if (request.tasks_size() == 0) return InvalidArgument("Tasks field is empty.");
  std::set<std::string> signatures;
  for (const auto& task : request.tasks()) {
    if (task.model_spec().name() != request.tasks(0).model_spec().name()) {
      return InvalidArgument("All ModelSpecs in a MultiInferenceRequest must access the same model name. (got \"" +
                             task.model_spec().name() + "\" and \"" + request.tasks(0).model_spec().name() + "\")");
    }
    const std::string name = SignatureNameOrDefault(task.model_spec().signature_name());
    if (!signatures.insert(name).second) {
      return InvalidArgument("Duplicate evaluation of signature: " + name + " (" + Where(*servable, "") + ")");
    }
    if (task.method_name() != kClassifyMethodName && task.method_name() != kRegressMethodName) {
      return InvalidArgument("Unsupported signature method_name: " + task.method_name() + " (" +
                             Where(*servable, name) + "; expected " + kClassifyMethodName + " or " +
                             kRegressMethodName + ")");
    }
  }
  // Every task reads the same serialized examples; check that up front so a
  // bad input fails before any graph runs.
  TFHOST_RETURN_IF_ERROR(SerializeExamples(request.input()).status());
  for (const auto& task : request.tasks()) {
    const std::string name = SignatureNameOrDefault(task.model_spec().signature_name());
    ts::InferenceResult* result = response->add_results();
    FillModelSpec(*servable, name, result->mutable_model_spec());
    if (task.method_name() == kClassifyMethodName) {
      TFHOST_RETURN_IF_ERROR(
          ClassifyImpl(servable, runner, options, name, request.input(), result->mutable_classification_result()));
    } else {
      TFHOST_RETURN_IF_ERROR(
          RegressImpl(servable, runner, options, name, request.input(), result->mutable_regression_result()));
    }
  }
  return OkStatus();
}

StatusOr<Tensor> SerializeExamples(const ts::Input& input) {
  std::vector<std::string> serialized;
  if (input.kind_case() == ts::Input::kExampleList) {
    for (const auto& ex : input.example_list().examples()) serialized.push_back(ex.SerializeAsString());
  } else if (input.kind_case() == ts::Input::kExampleListWithContext) {
    const std::string context = input.example_list_with_context().context().SerializeAsString();
    for (const auto& ex : input.example_list_with_context().examples()) {
      // Concatenated protobuf messages parse as their merge: the example's
      // features are added to (and override) the context's.
      serialized.push_back(context + ex.SerializeAsString());
    }
  }
  if (serialized.empty()) return InvalidArgument("Input is empty.");
  Tensor t(DType::kString, Shape({static_cast<int64_t>(serialized.size())}));
  for (size_t i = 0; i < serialized.size(); ++i) t.strings()[i] = std::move(serialized[i]);
  return t;
}

}  // namespace tfhost::serving
