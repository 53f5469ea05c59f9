#include "serving/v2/v2_service.h"

#include <set>

#include "serving/v2/v2_datatype.h"

namespace tfhost::serving::v2 {

namespace {

namespace ts = tensorflow::serving;

bool IsDecimal(const std::string& s) {
  if (s.empty() || s.size() > 18) return false;  // 18 digits always fit int64
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

// The v2 protocol answers NOT_FOUND for every model or version it cannot
// find; TF Serving calls an unknown label INVALID_ARGUMENT.
Status AsNotFound(const Status& status, const std::string& name, const std::string& version) {
  if (status.code() == StatusCode::kInvalidArgument &&
      status.message().find("Unrecognized servable version label") != std::string::npos) {
    return NotFound(status.message() + " (model '" + name + "', version '" + version + "')");
  }
  return status;
}

std::string Where(const ResolvedSignature& r) {
  return "model '" + r.servable->name + "' version " + std::to_string(r.servable->version) + " signature '" +
         r.signature_name + "'";
}

std::string Names(const std::vector<runtime::TensorSpec>& specs) {
  std::string s;
  for (const auto& spec : specs) s += (s.empty() ? "" : ", ") + spec.key;
  return s.empty() ? "none" : s;
}

const runtime::TensorSpec* FindSpec(const std::vector<runtime::TensorSpec>& specs, const std::string& name) {
  for (const auto& spec : specs) {
    if (spec.key == name) return &spec;
  }
  return nullptr;
}

TensorMetadata MetadataOf(const runtime::TensorSpec& spec) {
  TensorMetadata m;
  m.name = spec.key;
  m.datatype = DatatypeForMessage(spec.dtype);
  if (spec.shape.rank_known()) {
    for (int i = 0; i < spec.shape.rank(); ++i) m.shape.push_back(spec.shape.dim(i));
  } else {
    m.shape = {-1};
  }
  return m;
}

RequestContext ContextFor(Entrypoint entrypoint) {
  RequestContext context;
  context.entrypoint = entrypoint;
  return context;
}

}  // namespace

ts::ModelSpec ModelSpecFor(const std::string& name, const std::string& version, const std::string& signature_name) {
  ts::ModelSpec spec;
  spec.set_name(name);
  if (IsDecimal(version)) {
    spec.mutable_version()->set_value(std::stoll(version));
  } else if (!version.empty()) {
    spec.set_version_label(version);
  }
  spec.set_signature_name(signature_name);
  return spec;
}

StatusOr<std::string> SignatureNameParameter(const Parameters& parameters) {
  auto it = parameters.find(kSignatureNameParameter);
  if (it == parameters.end()) return std::string();
  if (const auto* s = std::get_if<std::string>(&it->second)) return *s;
  return InvalidArgument(std::string("request parameter '") + kSignatureNameParameter +
                         "' must be a string (a signature name such as \"serving_default\")");
}

V2Service::V2Service(ServerCore* core, std::string server_version)
    : core_(core), server_version_(std::move(server_version)) {}

bool V2Service::ServerReady() const {
  return !draining_.load(std::memory_order_relaxed) && core_->AllModelsAvailable();
}

StatusOr<bool> V2Service::ModelReady(const std::string& name, const std::string& version) const {
  std::optional<int64_t> number;
  ts::ModelSpec spec = ModelSpecFor(name, version, "");
  if (spec.version_choice_case() == ts::ModelSpec::kVersion) number = spec.version().value();
  if (spec.version_choice_case() == ts::ModelSpec::kVersionLabel) {
    auto resolved = core_->manager().ResolveLabel(name, version);
    if (!resolved.ok()) return AsNotFound(resolved.status(), name, version);
    number = *resolved;
  }
  TFHOST_ASSIGN_OR_RETURN(std::vector<VersionStatus> statuses, core_->manager().GetModelStatus(name, number));
  for (const VersionStatus& s : statuses) {
    if (s.state == VersionState::kAvailable) return true;
  }
  return false;
}

ServerMetadata V2Service::GetServerMetadata() const {
  ServerMetadata m;
  m.name = "tfhost";
  m.version = server_version_;
  m.extensions = {"binary_tensor_data", "model_repository"};
  return m;
}

StatusOr<ModelMetadata> V2Service::GetModelMetadata(const std::string& name, const std::string& version,
                                                    const std::string& signature_name) const {
  auto resolved = core_->ResolveSignature(ModelSpecFor(name, version, signature_name));
  if (!resolved.ok()) return AsNotFound(resolved.status(), name, version);
  ModelMetadata m;
  m.name = resolved->servable->name;
  m.platform = "tensorflow_savedmodel";
  if (version.empty()) {
    auto statuses = core_->manager().GetModelStatus(name, std::nullopt);
    if (statuses.ok()) {
      for (const VersionStatus& s : *statuses) {
        if (s.state == VersionState::kAvailable) m.versions.push_back(std::to_string(s.version));
      }
    }
  } else {
    m.versions.push_back(std::to_string(resolved->servable->version));
  }
  for (const auto& spec : resolved->signature->inputs) m.inputs.push_back(MetadataOf(spec));
  for (const auto& spec : resolved->signature->outputs) m.outputs.push_back(MetadataOf(spec));
  return m;
}

StatusOr<V2Service::Prepared> V2Service::Prepare(InferRequest request) const {
  if (request.model_name.empty()) return InvalidArgument("the request names no model");
  TFHOST_ASSIGN_OR_RETURN(std::string signature_name, SignatureNameParameter(request.parameters));
  auto resolved = core_->ResolveSignature(ModelSpecFor(request.model_name, request.model_version, signature_name));
  if (!resolved.ok()) return AsNotFound(resolved.status(), request.model_name, request.model_version);
  Prepared p;
  const runtime::Signature& sig = *resolved->signature;
  const std::string where = Where(*resolved);
  RequestBudget budget(core_->request_limits());
  for (InferInput& input : request.inputs) {
    TFHOST_RETURN_IF_ERROR(budget.AddDecoded(input.name, input.tensor));
    const runtime::TensorSpec* spec = FindSpec(sig.inputs, input.name);
    if (spec == nullptr) {
      return InvalidArgument("unexpected input '" + input.name + "': " + where + " has inputs: " + Names(sig.inputs));
    }
    const Tensor& t = input.tensor;
    if (t.dtype() != spec->dtype) {
      return InvalidArgument("input '" + input.name + "': expected datatype " + DatatypeForMessage(spec->dtype) +
                             " but got " + DatatypeForMessage(t.dtype()) + " (" + where + ")");
    }
    if (!spec->shape.IsCompatibleWith(t.shape())) {
      return InvalidArgument("input '" + input.name + "': expected shape " + spec->shape.ToString() + " but got " +
                             ShapeText(t.shape().dims()) + " (" + where + "; ? is any size)");
    }
    if (!p.inputs.emplace(input.name, std::move(input.tensor)).second) {
      return InvalidArgument("input '" + input.name + "' appears more than once in the request (" + where + ")");
    }
  }
  for (const auto& spec : sig.inputs) {
    if (!p.inputs.count(spec.key) && !sig.defaults.count(spec.key)) {
      return InvalidArgument("missing input '" + spec.key + "' (datatype " + DatatypeForMessage(spec.dtype) +
                             ", shape " + spec.shape.ToString() + "): " + where + " needs inputs: " +
                             Names(sig.inputs));
    }
  }
  std::set<std::string> seen;
  if (request.outputs.empty()) {
    for (const auto& spec : sig.outputs) request.outputs.push_back({spec.key, request.binary_outputs});
  } else {
    for (const RequestedOutput& out : request.outputs) {
      if (FindSpec(sig.outputs, out.name) == nullptr) {
        return InvalidArgument("unknown output '" + out.name + "': " + where + " has outputs: " + Names(sig.outputs));
      }
      if (!seen.insert(out.name).second) {
        return InvalidArgument("output '" + out.name + "' is requested more than once (" + where + ")");
      }
      p.output_filter.push_back(out.name);
    }
  }
  for (RequestedOutput& out : request.outputs) {
    const runtime::TensorSpec* spec = FindSpec(sig.outputs, out.name);
    if (!DatatypeName(spec->dtype)) {
      return InvalidArgument("output '" + out.name + "' has dtype " + DTypeName(spec->dtype) +
                             ", which the Open Inference Protocol cannot carry (" + where + ")");
    }
    p.response.outputs.push_back({out.name, Tensor(), out.binary});
  }
  p.response.model_name = resolved->servable->name;
  p.response.model_version = std::to_string(resolved->servable->version);
  p.response.id = std::move(request.id);
  p.resolved = std::move(*resolved);
  return p;
}

StatusOr<InferResponse> V2Service::Finish(Prepared& p, StatusOr<PredictResult> result) {
  if (!result.ok()) return result.status();
  for (InferOutput& out : p.response.outputs) {
    auto it = result->outputs.find(out.name);
    if (it == result->outputs.end()) {
      return Internal("the run of " + Where(p.resolved) + " returned no output '" + out.name + "'");
    }
    if (!DatatypeName(it->second.dtype())) {
      return InvalidArgument("output '" + out.name + "' has dtype " + DTypeName(it->second.dtype()) +
                             ", which the Open Inference Protocol cannot carry (" + Where(p.resolved) + ")");
    }
    out.tensor = std::move(it->second);
  }
  return std::move(p.response);
}

StatusOr<InferResponse> V2Service::Infer(InferRequest request, Entrypoint entrypoint) {
  TFHOST_ASSIGN_OR_RETURN(Prepared p, Prepare(std::move(request)));
  auto result = core_->PredictTensors(p.resolved, std::move(p.inputs), p.output_filter, ContextFor(entrypoint));
  return Finish(p, std::move(result));
}

void V2Service::InferAsync(InferRequest request, Entrypoint entrypoint, InferDone done) {
  auto prepared = Prepare(std::move(request));
  if (!prepared.ok()) return done(prepared.status());
  auto p = std::make_shared<Prepared>(std::move(*prepared));
  ResolvedSignature resolved = p->resolved;
  TensorMap inputs = std::move(p->inputs);
  std::vector<std::string> filter = p->output_filter;
  core_->PredictTensorsAsync(std::move(resolved), std::move(inputs), std::move(filter), ContextFor(entrypoint),
                             [p, done = std::move(done)](StatusOr<PredictResult> result) {
                               done(Finish(*p, std::move(result)));
                             });
}

}  // namespace tfhost::serving::v2
