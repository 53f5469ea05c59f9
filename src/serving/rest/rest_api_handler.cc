#include "serving/rest/rest_api_handler.h"

#include <google/protobuf/util/json_util.h>

#include <cctype>
#include <future>
#include <optional>
#include <vector>

#include "ir/tensor_proto.h"
#include "serving/rest/json_tensor_codec.h"
#include "serving/rest/trace_endpoint.h"
#include "serving/server_core.h"
#include "serving/v2/v2_rest_handler.h"

namespace tfhost::serving {

namespace {

using tensorflow::serving::ModelSpec;

bool IEquals(std::string_view a, std::string_view b) { return AsciiEqualsIgnoreCase(a, b); }

// Consumes `prefix` (case-insensitively) from the front of `s`.
bool ConsumePrefix(std::string_view* s, std::string_view prefix) {
  if (s->size() < prefix.size() || !IEquals(s->substr(0, prefix.size()), prefix)) return false;
  s->remove_prefix(prefix.size());
  return true;
}

// Up to the next '/' or ':' (TF Serving's [^/:]+).
std::string_view ConsumeSegment(std::string_view* s) {
  size_t end = s->find_first_of("/:");
  std::string_view seg = s->substr(0, end);
  s->remove_prefix(seg.size());
  return seg;
}

RestResponse Json(int status, std::string body) { return JsonResponse(status, std::move(body)); }
RestResponse Error(const Status& status) { return ErrorResponse(status); }

RestResponse Malformed(std::string_view method, std::string_view path) {
  return Error(InvalidArgument("Malformed request: " + std::string(method) + " " + std::string(path)));
}

StatusOr<std::string> ProtoToJson(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  std::string out;
  auto st = google::protobuf::util::MessageToJsonString(message, &out, options);
  if (!st.ok()) return Internal("cannot write " + message.GetTypeName() + " as JSON: " + std::string(st.message()));
  return out;
}

// What the path after /v1/models/ names.
struct ModelRoute {
  ModelSpec spec;
  std::string verb;  // "predict" / "classify" / "regress" / "metadata" / "" (status)
};

std::optional<ModelRoute> ParseModelRoute(std::string_view rest) {
  ModelRoute route;
  std::string_view name = ConsumeSegment(&rest);
  if (name.empty()) return std::nullopt;
  route.spec.set_name(std::string(name));
  if (ConsumePrefix(&rest, "/versions/")) {
    std::string_view digits = ConsumeSegment(&rest);
    if (digits.empty() || digits.size() > 18) return std::nullopt;  // 18 digits always fit int64
    int64_t v = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') return std::nullopt;
      v = v * 10 + (c - '0');
    }
    route.spec.mutable_version()->set_value(v);
  } else if (ConsumePrefix(&rest, "/labels/")) {
    std::string_view label = ConsumeSegment(&rest);
    if (label.empty()) return std::nullopt;
    route.spec.set_version_label(std::string(label));
  }
  if (rest.empty()) return route;
  if (rest.front() == ':') {
    rest.remove_prefix(1);
    for (const char* verb : {"predict", "classify", "regress"}) {
      if (IEquals(rest, verb)) {
        route.verb = verb;
        return route;
      }
    }
    return std::nullopt;
  }
  if (IEquals(rest, "/metadata")) {
    route.verb = "metadata";
    return route;
  }
  return std::nullopt;
}

// `"model_version_status": [...]` as GetModelStatusResponse prints it (the
// version as a string, enum names): the one writer behind both
// GET /v1/models/{name} and each model of GET /v1/models, so the two answers
// cannot drift apart in layout or spacing.
void AppendModelVersionStatus(const std::vector<VersionStatus>& versions, std::string* out) {
  *out += "\"model_version_status\": [";
  for (size_t i = 0; i < versions.size(); ++i) {
    const VersionStatus& v = versions[i];
    if (i > 0) *out += ", ";
    *out += "{\"version\": \"" + std::to_string(v.version) + "\", \"state\": \"" + VersionStateName(v.state) +
            "\", \"status\": {\"error_code\": \"" + StatusCodeName(v.status.code()) + "\", \"error_message\": ";
    AppendJsonString(v.status.message(), out);
    *out += "}}";
  }
  *out += "]";
}

RestResponse HandleStatus(ServerCore& core, const ModelSpec& spec) {
  tensorflow::serving::GetModelStatusRequest request;
  *request.mutable_model_spec() = spec;
  tensorflow::serving::GetModelStatusResponse response;
  RequestContext context{Entrypoint::kRest};
  if (Status st = core.GetModelStatus(request, &response, context); !st.ok()) return Error(st);
  // Back to the manager's VersionStatus so that this answer and /v1/models
  // go through the same writer; the casts undo ServerCore's, whose enums
  // share their numbers with the protos'.
  std::vector<VersionStatus> versions;
  for (const auto& s : response.model_version_status()) {
    versions.push_back(VersionStatus{s.version(), static_cast<VersionState>(s.state()),
                                     Status(static_cast<StatusCode>(s.status().error_code()),
                                            s.status().error_message())});
  }
  std::string body = "{";
  AppendModelVersionStatus(versions, &body);
  body += "}";
  return Json(200, std::move(body));
}

RestResponse HandleMetadata(ServerCore& core, const ModelSpec& spec) {
  tensorflow::serving::GetModelMetadataRequest request;
  *request.mutable_model_spec() = spec;
  request.add_metadata_field("signature_def");
  tensorflow::serving::GetModelMetadataResponse response;
  RequestContext context{Entrypoint::kRest};
  if (Status st = core.GetModelMetadata(request, &response, context); !st.ok()) return Error(st);
  // TF Serving writes the SignatureDefMap itself under metadata.signature_def
  // (no "@type" wrapper, which protobuf's Any printing would add).
  auto spec_json = ProtoToJson(response.model_spec());
  if (!spec_json.ok()) return Error(spec_json.status());
  std::string body = "{\"model_spec\": " + *spec_json + ", \"metadata\": {";
  bool first = true;
  for (const auto& [key, any] : response.metadata()) {
    tensorflow::serving::SignatureDefMap defs;
    if (!any.UnpackTo(&defs)) return Error(Internal("metadata '" + key + "' is not a SignatureDefMap"));
    auto defs_json = ProtoToJson(defs);
    if (!defs_json.ok()) return Error(defs_json.status());
    if (!first) body += ", ";
    first = false;
    AppendJsonString(key, &body);
    body += ": " + *defs_json;
  }
  body += "}}";
  return Json(200, std::move(body));
}

// A predict body turned into tensors for the signature it names.
struct ParsedPredict {
  ResolvedSignature resolved;
  TensorMap inputs;
  JsonPredictFormat format = JsonPredictFormat::kRow;
};

StatusOr<ParsedPredict> ParsePredict(ServerCore& core, const ModelSpec& path_spec, std::string_view body) {
  tensorflow::serving::PredictRequest request;
  JsonPredictFormat format = JsonPredictFormat::kRow;
  // The codec asks for the signature's input dtypes once it has read the
  // signature name from the body; the version resolved then is the one
  // that runs.
  std::optional<ResolvedSignature> resolved;
  auto get_inputs = [&](const std::string& signature_name, SignatureInputTypes* types) -> Status {
    ModelSpec spec = path_spec;
    spec.set_signature_name(signature_name);
    TFHOST_ASSIGN_OR_RETURN(ResolvedSignature r, core.ResolveSignature(spec));
    if (r.signature == nullptr) return Internal("signature '" + signature_name + "' resolved to nothing");
    for (const auto& input : r.signature->inputs) (*types)[input.key] = input.dtype;
    resolved = std::move(r);
    return OkStatus();
  };
  TFHOST_RETURN_IF_ERROR(FillPredictRequestFromJson(body, get_inputs, &request, &format));
  if (!resolved) return Internal("predict request parsed without resolving its signature");
  ParsedPredict parsed;
  parsed.format = format;
  parsed.resolved = std::move(*resolved);
  RequestBudget budget(core.request_limits());
  for (const auto& [alias, proto] : request.inputs()) {
    TFHOST_RETURN_IF_ERROR(budget.AddTensorProto(alias, proto));
    auto t = ir::TensorFromProto(proto);
    if (!t.ok()) return t.status().WithContext("input '" + alias + "'");
    parsed.inputs.emplace(alias, std::move(*t));
  }
  return parsed;
}

RestResponse PredictAnswer(const StatusOr<PredictResult>& result, JsonPredictFormat format) {
  if (!result.ok()) return Error(result.status());
  auto json = MakeJsonFromTensorMap(result->outputs, format);
  if (!json.ok()) return Error(json.status());
  return Json(200, std::move(*json));
}

RestResponse HandlePredict(ServerCore& core, const ModelSpec& path_spec, std::string_view body) {
  auto parsed = ParsePredict(core, path_spec, body);
  if (!parsed.ok()) return Error(parsed.status());
  auto result =
      core.PredictTensors(parsed->resolved, std::move(parsed->inputs), {}, RequestContext{Entrypoint::kRest});
  return PredictAnswer(result, parsed->format);
}

RestResponse HandleClassify(ServerCore& core, const ModelSpec& path_spec, std::string_view body) {
  tensorflow::serving::ClassificationRequest request;
  if (Status st = FillClassificationRequestFromJson(body, &request); !st.ok()) return Error(st);
  std::string signature = request.model_spec().signature_name();
  *request.mutable_model_spec() = path_spec;
  request.mutable_model_spec()->set_signature_name(signature);
  tensorflow::serving::ClassificationResponse response;
  if (Status st = core.Classify(request, &response, RequestContext{Entrypoint::kRest}); !st.ok()) return Error(st);
  return Json(200, MakeJsonFromClassificationResult(response.result()));
}

RestResponse HandleRegress(ServerCore& core, const ModelSpec& path_spec, std::string_view body) {
  tensorflow::serving::RegressionRequest request;
  if (Status st = FillRegressionRequestFromJson(body, &request); !st.ok()) return Error(st);
  std::string signature = request.model_spec().signature_name();
  *request.mutable_model_spec() = path_spec;
  request.mutable_model_spec()->set_signature_name(signature);
  tensorflow::serving::RegressionResponse response;
  if (Status st = core.Regress(request, &response, RequestContext{Entrypoint::kRest}); !st.ok()) return Error(st);
  return Json(200, MakeJsonFromRegressionResult(response.result()));
}

RestResponse HandleListModels(ServerCore& core) {
  std::string body = "{\"models\": [";
  bool first_model = true;
  for (const ModelSummary& m : core.ListModels()) {
    if (!first_model) body += ", ";
    first_model = false;
    body += "{\"name\": ";
    AppendJsonString(m.name, &body);
    body += ", ";
    AppendModelVersionStatus(m.versions, &body);
    body += ", \"version_labels\": {";
    bool first_label = true;
    for (const auto& [label, version] : m.labels) {
      if (!first_label) body += ", ";
      first_label = false;
      AppendJsonString(label, &body);
      body += ": \"" + std::to_string(version) + "\"";
    }
    body += "}}";
  }
  body += "]}";
  return Json(200, std::move(body));
}

RestResponse HandleReady(ServerCore& core, bool draining) {
  if (draining) return Json(503, "{\"ready\": false, \"reason\": \"the server is shutting down\"}");
  if (core.AllModelsAvailable()) return Json(200, "{\"ready\": true}");
  std::string body = "{\"ready\": false, \"models_not_available\": [";
  bool first = true;
  for (const ModelSummary& m : core.ListModels()) {
    bool available = false;
    for (const VersionStatus& v : m.versions) available |= v.state == VersionState::kAvailable;
    if (available) continue;
    if (!first) body += ", ";
    first = false;
    AppendJsonString(m.name, &body);
  }
  body += "]}";
  return Json(503, std::move(body));
}

}  // namespace

RestResponse JsonResponse(int status, std::string body) {
  RestResponse r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

RestResponse ErrorResponse(const Status& status) {
  return JsonResponse(HttpStatusForCode(status.code()), MakeJsonError(status.message()));
}

bool AsciiEqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  }
  return true;
}

int HttpStatusForCode(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return 200;
    case StatusCode::kCancelled: return 499;
    case StatusCode::kUnknown: return 500;
    case StatusCode::kInvalidArgument: return 400;
    case StatusCode::kDeadlineExceeded: return 504;
    case StatusCode::kNotFound: return 404;
    case StatusCode::kAlreadyExists: return 409;
    case StatusCode::kPermissionDenied: return 403;
    case StatusCode::kResourceExhausted: return 429;
    case StatusCode::kFailedPrecondition: return 400;
    case StatusCode::kAborted: return 409;
    case StatusCode::kOutOfRange: return 400;
    case StatusCode::kUnimplemented: return 501;
    case StatusCode::kInternal: return 500;
    case StatusCode::kUnavailable: return 503;
    case StatusCode::kDataLoss: return 500;
    case StatusCode::kUnauthenticated: return 401;
  }
  return 500;
}

RestApiHandler::RestApiHandler(ServerCore* core, RestApiOptions options)
    : core_(core),
      options_(std::move(options)),
      v2_(std::make_unique<v2::V2RestHandler>(core, options_.server_version)),
      trace_(std::make_unique<TraceEndpoint>(options_.trace_max_seconds)) {}

RestApiHandler::~RestApiHandler() = default;

void RestApiHandler::SetDraining(bool draining) {
  draining_.store(draining, std::memory_order_relaxed);
  v2_->SetDraining(draining);
  // A trace window must not hold the drain until it ends.
  if (draining) trace_->Stop();
}

RestResponse RestApiHandler::Handle(std::string_view method, std::string_view target, std::string_view body) const {
  std::string_view path = target.substr(0, target.find('?'));
  if (method == "GET") {
    if (IEquals(path, "/healthz")) return Json(200, "{\"status\": \"ok\"}");
    if (IEquals(path, "/readyz")) return HandleReady(*core_, draining_.load(std::memory_order_relaxed));
    if (!options_.metrics_path.empty() && path == options_.metrics_path) {
      RestResponse r = Json(200, core_->MetricsText());
      r.content_type = "text/plain; version=0.0.4; charset=utf-8";
      return r;
    }
    if (IEquals(path, "/v1/models") || IEquals(path, "/v1/models/")) return HandleListModels(*core_);
  }
  if (method == "GET" && IEquals(path, "/v1/trace")) {
    std::promise<RestResponse> answer;
    std::future<RestResponse> future = answer.get_future();
    trace_->Handle(target, [&answer](RestResponse r) { answer.set_value(std::move(r)); });
    return future.get();
  }
  std::string_view rest = path;
  if (ConsumePrefix(&rest, "/v1/")) return HandleModelsApi(method, path, body);
  if (v2::V2RestHandler::Owns(path)) {
    // The v2 API answers asynchronously; here its answer is waited for.
    std::promise<RestResponse> answer;
    std::future<RestResponse> future = answer.get_future();
    v2_->Handle(method, path, {}, std::string(body), [&answer](RestResponse r) { answer.set_value(std::move(r)); });
    return future.get();
  }
  return Json(404, MakeJsonError("Not found: " + std::string(method) + " " + std::string(path) +
                                 " (the REST API lives under /v1/models, the Open Inference Protocol under /v2)"));
}

void RestApiHandler::HandleAsync(std::string_view method, std::string_view target, std::string body,
                                 Respond respond) const {
  HandleAsync(method, target, {}, std::move(body), std::move(respond));
}

void RestApiHandler::HandleAsync(std::string_view method, std::string_view target, const RestHeaders& headers,
                                 std::string body, Respond respond) const {
  std::string_view path = target.substr(0, target.find('?'));
  if (v2::V2RestHandler::Owns(path)) return v2_->Handle(method, path, headers, std::move(body), std::move(respond));
  if (method == "GET" && IEquals(path, "/v1/trace")) return trace_->Handle(target, std::move(respond));
  std::string_view rest = path;
  std::optional<ModelRoute> route;
  if (method == "POST" && ConsumePrefix(&rest, "/v1/models/")) route = ParseModelRoute(rest);
  if (!route || (route->verb != "predict" && route->verb != "classify" && route->verb != "regress")) {
    respond(Handle(method, target, body));
    return;
  }
  ServerCore& core = *core_;
  if (route->verb == "predict") {
    // JSON parsing stays on this thread (it is bounded by the body size);
    // only the model run leaves it.
    auto parsed = ParsePredict(core, route->spec, body);
    if (!parsed.ok()) return respond(Error(parsed.status()));
    JsonPredictFormat format = parsed->format;
    core.PredictTensorsAsync(std::move(parsed->resolved), std::move(parsed->inputs), {},
                             RequestContext{Entrypoint::kRest},
                             [format, respond](StatusOr<PredictResult> result) { respond(PredictAnswer(result, format)); });
    return;
  }
  // Classify and regress block on their run (they go through the runner's
  // blocking Run), so they move to the worker pool whole.
  auto shared_body = std::make_shared<std::string>(std::move(body));
  auto shared_respond = std::make_shared<Respond>(std::move(respond));
  ModelSpec spec = route->spec;
  bool classify = route->verb == "classify";
  bool queued = core.ScheduleBlocking([&core, spec, classify, shared_body, shared_respond] {
    (*shared_respond)(classify ? HandleClassify(core, spec, *shared_body) : HandleRegress(core, spec, *shared_body));
  });
  if (!queued) {
    (*shared_respond)(Error(Unavailable("the server is overloaded: the queue of requests waiting for a worker thread "
                                        "is full; retry later")));
  }
}

RestResponse RestApiHandler::HandleModelsApi(std::string_view method, std::string_view path,
                                             std::string_view body) const {
  std::string_view rest = path;
  if (!ConsumePrefix(&rest, "/v1/models/")) return Malformed(method, path);
  std::optional<ModelRoute> route = ParseModelRoute(rest);
  if (!route) return Malformed(method, path);
  const std::string& verb = route->verb;
  if (method == "POST") {
    if (verb == "predict") return HandlePredict(*core_, route->spec, body);
    if (verb == "classify") return HandleClassify(*core_, route->spec, body);
    if (verb == "regress") return HandleRegress(*core_, route->spec, body);
  } else if (method == "GET") {
    if (verb.empty()) return HandleStatus(*core_, route->spec);
    if (verb == "metadata") return HandleMetadata(*core_, route->spec);
  }
  return Malformed(method, path);
}

}  // namespace tfhost::serving
