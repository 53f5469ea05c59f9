#include "serving/v2/v2_rest_handler.h"

#include <charconv>
#include <memory>

#include "serving/rest/json_tensor_codec.h"
#include "serving/v2/v2_json.h"

namespace tfhost::serving::v2 {

namespace {

bool IEquals(std::string_view a, std::string_view b) { return AsciiEqualsIgnoreCase(a, b); }

// Consumes "/<segment>" from the front of `s`; the segment, or "" when `s`
// does not start with '/' or the segment is empty.
std::string_view NextSegment(std::string_view* s) {
  if (s->empty() || s->front() != '/') return {};
  size_t end = s->find('/', 1);
  std::string_view seg = s->substr(1, end == std::string_view::npos ? std::string_view::npos : end - 1);
  s->remove_prefix(1 + seg.size());
  return seg;
}

RestResponse Json(int status, std::string body) { return JsonResponse(status, std::move(body)); }
RestResponse Error(const Status& status) { return ErrorResponse(status); }

RestResponse NotFoundRoute(std::string_view method, std::string_view path) {
  return Json(404, MakeJsonError("Not found: " + std::string(method) + " " + std::string(path) +
                                 " (the Open Inference Protocol's routes: GET /v2, /v2/health/live, "
                                 "/v2/health/ready, /v2/models/{name}[/versions/{v}][/ready|/config]; POST "
                                 "/v2/models/{name}[/versions/{v}]/infer, /v2/repository/index, "
                                 "/v2/repository/models/{name}/load|unload)"));
}

RestResponse InferAnswer(StatusOr<InferResponse> result) {
  if (!result.ok()) return Error(result.status());
  EncodedResponse encoded = WriteInferResponse(*result);
  RestResponse r = Json(200, std::move(encoded.body));
  if (encoded.json_length) {
    r.content_type = "application/octet-stream";
    r.headers.emplace_back(kInferenceHeaderContentLength, std::to_string(*encoded.json_length));
  }
  return r;
}

// What a /v2/models/... path names.
struct ModelRoute {
  std::string name;
  std::string version;
  std::string verb;  // "", "ready", "config", "infer"
};

std::optional<ModelRoute> ParseModelRoute(std::string_view rest) {
  ModelRoute route;
  route.name = std::string(NextSegment(&rest));
  if (route.name.empty()) return std::nullopt;
  if (rest.size() > 10 && IEquals(rest.substr(0, 10), "/versions/")) {
    rest.remove_prefix(9);
    route.version = std::string(NextSegment(&rest));
    if (route.version.empty()) return std::nullopt;
  }
  if (rest.empty()) return route;
  std::string_view verb = NextSegment(&rest);
  if (!rest.empty()) return std::nullopt;
  if (IEquals(verb, "ready")) route.verb = "ready";
  else if (IEquals(verb, "config")) route.verb = "config";
  else if (IEquals(verb, "infer")) route.verb = "infer";
  else return std::nullopt;
  return route;
}

}  // namespace

StatusOr<std::optional<size_t>> InferenceHeaderLength(const RestHeaders& headers) {
  for (const auto& [name, value] : headers) {
    if (!IEquals(name, kInferenceHeaderContentLength)) continue;
    size_t n = 0;
    const char* end = value.data() + value.size();
    auto [ptr, ec] = std::from_chars(value.data(), end, n);
    if (ec != std::errc() || ptr != end || value.empty()) {
      return InvalidArgument(std::string(kInferenceHeaderContentLength) + " must be the JSON header's length in bytes, got '" +
                             value.substr(0, 64) + "'");
    }
    return std::optional<size_t>(n);
  }
  return std::optional<size_t>();
}

V2RestHandler::V2RestHandler(ServerCore* core, std::string server_version)
    : core_(core), service_(core, std::move(server_version)), repository_(core) {}

bool V2RestHandler::Owns(std::string_view path) {
  return IEquals(path, "/v2") || (path.size() > 3 && IEquals(path.substr(0, 4), "/v2/"));
}

RestResponse V2RestHandler::HandleMetadataRoutes(std::string_view method, std::string_view path) const {
  std::string_view rest = path.substr(3);  // after "/v2"
  if (method != "GET") return NotFoundRoute(method, path);
  if (rest.empty() || rest == "/") return Json(200, WriteServerMetadata(service_.GetServerMetadata()));
  if (IEquals(rest, "/health/live")) return Json(200, "{\"live\": true}");
  if (IEquals(rest, "/health/ready")) {
    // The protocol answers "not ready" with a 4xx status.
    return service_.ServerReady() ? Json(200, "{\"ready\": true}") : Json(400, "{\"ready\": false}");
  }
  if (rest.size() > 8 && IEquals(rest.substr(0, 8), "/models/")) {
    rest.remove_prefix(7);
    std::optional<ModelRoute> route = ParseModelRoute(rest);
    if (!route || route->verb == "infer") return NotFoundRoute(method, path);
    if (route->verb == "ready") {
      auto ready = service_.ModelReady(route->name, route->version);
      if (!ready.ok()) return Error(ready.status());
      std::string body = "{\"name\": ";
      AppendJsonString(route->name, &body);
      body += std::string(", \"ready\": ") + (*ready ? "true" : "false") + "}";
      return Json(*ready ? 200 : 400, std::move(body));
    }
    auto metadata = service_.GetModelMetadata(route->name, route->version);
    if (!metadata.ok()) return Error(metadata.status());
    return Json(200, route->verb == "config" ? WriteModelConfig(*metadata) : WriteModelMetadata(*metadata));
  }
  return NotFoundRoute(method, path);
}

void V2RestHandler::Handle(std::string_view method, std::string_view path, const RestHeaders& headers,
                           std::string body, RestApiHandler::Respond respond) const {
  if (!Owns(path)) return respond(NotFoundRoute(method, path));
  if (method != "POST") return respond(HandleMetadataRoutes(method, path));
  std::string_view rest = path.substr(3);
  if (rest.size() > 8 && IEquals(rest.substr(0, 8), "/models/")) {
    std::optional<ModelRoute> route = ParseModelRoute(rest.substr(7));
    if (!route || route->verb != "infer") return respond(NotFoundRoute(method, path));
    auto json_length = InferenceHeaderLength(headers);
    if (!json_length.ok()) return respond(Error(json_length.status()));
    auto request = ParseInferRequest(body, *json_length, route->name, route->version);
    if (!request.ok()) {
      return respond(Error(request.status().WithContext("model '" + route->name + "'" +
                                                       (route->version.empty() ? "" : " version " + route->version))));
    }
    service_.InferAsync(std::move(*request), Entrypoint::kRest,
                        [respond](StatusOr<InferResponse> result) { respond(InferAnswer(std::move(result))); });
    return;
  }
  // Repository calls wait for loads, so they go to the worker pool.
  std::function<RestResponse()> work;
  if (IEquals(rest, "/repository/index")) {
    work = [this, body = std::move(body)] {
      auto ready = ParseRepositoryIndexReady(body);
      if (!ready.ok()) return Error(ready.status());
      std::string out = "[";
      bool first = true;
      for (const RepositoryModel& m : repository_.Index(*ready)) {
        out += first ? "{\"name\": " : ", {\"name\": ";
        first = false;
        AppendJsonString(m.name, &out);
        if (!m.version.empty()) {
          out += ", \"version\": ";
          AppendJsonString(m.version, &out);
        }
        out += ", \"state\": ";
        AppendJsonString(m.state, &out);
        if (!m.reason.empty()) {
          out += ", \"reason\": ";
          AppendJsonString(m.reason, &out);
        }
        out += "}";
      }
      return Json(200, out + "]");
    };
  } else if (rest.size() > 19 && IEquals(rest.substr(0, 19), "/repository/models/")) {
    std::string_view tail = rest.substr(18);
    std::string name(NextSegment(&tail));
    std::string_view verb = NextSegment(&tail);
    bool load = IEquals(verb, "load");
    if (name.empty() || !tail.empty() || (!load && !IEquals(verb, "unload"))) {
      return respond(NotFoundRoute(method, path));
    }
    work = [this, name, load, body = std::move(body)] {
      auto params = ParseRepositoryParameters(body);
      if (!params.ok()) return Error(params.status());
      Status st = load ? repository_.Load(name, *params) : repository_.Unload(name, *params);
      return st.ok() ? Json(200, "{}") : Error(st);
    };
  } else {
    return respond(NotFoundRoute(method, path));
  }
  auto shared = std::make_shared<RestApiHandler::Respond>(std::move(respond));
  if (!core_->ScheduleBlocking([work, shared] { (*shared)(work()); })) {
    (*shared)(Error(Unavailable("the server is overloaded: the queue of requests waiting for a worker thread is full; "
                                "retry later")));
  }
}

}  // namespace tfhost::serving::v2
