#include "serving/v2/v2_grpc_service.h"

#include "serving/v2/v2_grpc_codec.h"

namespace tfhost::serving::v2 {

namespace {

// Repository parameters as V2Repository reads them (it looks at keys only).
Parameters RepositoryParameters(
    const google::protobuf::Map<std::string, inference::ModelRepositoryParameter>& in) {
  Parameters out;
  for (const auto& [key, value] : in) {
    switch (value.parameter_choice_case()) {
      case inference::ModelRepositoryParameter::kBoolParam: out[key] = value.bool_param(); break;
      case inference::ModelRepositoryParameter::kInt64Param: out[key] = value.int64_param(); break;
      case inference::ModelRepositoryParameter::kStringParam: out[key] = value.string_param(); break;
      default: out[key] = value.bytes_param(); break;
    }
  }
  return out;
}

Status CheckRepositoryName(const std::string& repository) {
  if (repository.empty()) return OkStatus();
  return NotFound("unknown model repository '" + repository + "': tfhost serves one, named \"\"");
}

}  // namespace

V2GrpcService::V2GrpcService(ServerCore* core, std::string server_version, GrpcCallRunner run)
    : service_(core, std::move(server_version)), repository_(core), run_(std::move(run)) {}

grpc::Status V2GrpcService::ServerLive(grpc::ServerContext* context, const inference::ServerLiveRequest*,
                                       inference::ServerLiveResponse* response) {
  return run_(context, [&] {
    response->set_live(service_.ServerLive());
    return OkStatus();
  });
}

grpc::Status V2GrpcService::ServerReady(grpc::ServerContext* context, const inference::ServerReadyRequest*,
                                        inference::ServerReadyResponse* response) {
  return run_(context, [&] {
    response->set_ready(service_.ServerReady());
    return OkStatus();
  });
}

grpc::Status V2GrpcService::ModelReady(grpc::ServerContext* context, const inference::ModelReadyRequest* request,
                                       inference::ModelReadyResponse* response) {
  return run_(context, [&]() -> Status {
    TFHOST_ASSIGN_OR_RETURN(bool ready, service_.ModelReady(request->name(), request->version()));
    response->set_ready(ready);
    return OkStatus();
  });
}

grpc::Status V2GrpcService::ServerMetadata(grpc::ServerContext* context, const inference::ServerMetadataRequest*,
                                           inference::ServerMetadataResponse* response) {
  return run_(context, [&] {
    v2::ServerMetadata m = service_.GetServerMetadata();
    response->set_name(m.name);
    response->set_version(m.version);
    for (const auto& e : m.extensions) response->add_extensions(e);
    return OkStatus();
  });
}

grpc::Status V2GrpcService::ModelMetadata(grpc::ServerContext* context, const inference::ModelMetadataRequest* request,
                                          inference::ModelMetadataResponse* response) {
  return run_(context, [&]() -> Status {
    TFHOST_ASSIGN_OR_RETURN(v2::ModelMetadata m, service_.GetModelMetadata(request->name(), request->version()));
    ModelMetadataToProto(m, response);
    return OkStatus();
  });
}

grpc::Status V2GrpcService::ModelInfer(grpc::ServerContext* context, const inference::ModelInferRequest* request,
                                       inference::ModelInferResponse* response) {
  return run_(context, [&]() -> Status {
    auto parsed = InferRequestFromProto(*request);
    if (!parsed.ok()) {
      return parsed.status().WithContext("model '" + request->model_name() + "'" +
                                         (request->model_version().empty() ? "" : " version " + request->model_version()));
    }
    TFHOST_ASSIGN_OR_RETURN(InferResponse result, service_.Infer(std::move(*parsed), Entrypoint::kGrpc));
    InferResponseToProto(result, response);
    return OkStatus();
  });
}

grpc::Status V2GrpcService::RepositoryIndex(grpc::ServerContext* context,
                                            const inference::RepositoryIndexRequest* request,
                                            inference::RepositoryIndexResponse* response) {
  return run_(context, [&]() -> Status {
    TFHOST_RETURN_IF_ERROR(CheckRepositoryName(request->repository_name()));
    for (const RepositoryModel& m : repository_.Index(request->ready())) {
      auto* out = response->add_models();
      out->set_name(m.name);
      out->set_version(m.version);
      out->set_state(m.state);
      out->set_reason(m.reason);
    }
    return OkStatus();
  });
}

grpc::Status V2GrpcService::RepositoryModelLoad(grpc::ServerContext* context,
                                                const inference::RepositoryModelLoadRequest* request,
                                                inference::RepositoryModelLoadResponse*) {
  return run_(context, [&]() -> Status {
    TFHOST_RETURN_IF_ERROR(CheckRepositoryName(request->repository_name()));
    return repository_.Load(request->model_name(), RepositoryParameters(request->parameters()));
  });
}

grpc::Status V2GrpcService::RepositoryModelUnload(grpc::ServerContext* context,
                                                  const inference::RepositoryModelUnloadRequest* request,
                                                  inference::RepositoryModelUnloadResponse*) {
  return run_(context, [&]() -> Status {
    TFHOST_RETURN_IF_ERROR(CheckRepositoryName(request->repository_name()));
    return repository_.Unload(request->model_name(), RepositoryParameters(request->parameters()));
  });
}

}  // namespace tfhost::serving::v2
