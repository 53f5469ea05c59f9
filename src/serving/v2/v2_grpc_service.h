// inference.GRPCInferenceService, the Open Inference Protocol's gRPC
// service, over V2Service and V2Repository; GrpcServer registers it beside
// TF Serving's services on the same port. Status codes: the V2Service's
// (NOT_FOUND, INVALID_ARGUMENT, UNAVAILABLE, ...) with their messages.
// ModelInfer runs on the calling grpc thread (blocking while the model runs
// or its batch fills), as TF Serving's Predict does here.
//
// grpc++ types appear here, so only grpc_server.cc and tests include this.
//
// Thread-safety: grpc calls the methods concurrently; V2Service and
// V2Repository are thread-safe.
#pragma once

#include <grpcpp/grpcpp.h>

#include <functional>
#include <string>

#include "inference/grpc_service.grpc.pb.h"
#include "serving/v2/v2_repository.h"
#include "serving/v2/v2_service.h"

namespace tfhost::serving::v2 {

// Runs one call's body and turns its Status into the call's (GrpcServer's
// in-flight accounting, cancellation check and message limit).
using GrpcCallRunner = std::function<grpc::Status(grpc::ServerContext*, const std::function<Status()>&)>;

class V2GrpcService final : public inference::GRPCInferenceService::Service {
 public:
  // `core` must outlive the service.
  V2GrpcService(ServerCore* core, std::string server_version, GrpcCallRunner run);

  grpc::Status ServerLive(grpc::ServerContext* context, const inference::ServerLiveRequest* request,
                          inference::ServerLiveResponse* response) override;
  grpc::Status ServerReady(grpc::ServerContext* context, const inference::ServerReadyRequest* request,
                           inference::ServerReadyResponse* response) override;
  grpc::Status ModelReady(grpc::ServerContext* context, const inference::ModelReadyRequest* request,
                          inference::ModelReadyResponse* response) override;
  grpc::Status ServerMetadata(grpc::ServerContext* context, const inference::ServerMetadataRequest* request,
                              inference::ServerMetadataResponse* response) override;
  grpc::Status ModelMetadata(grpc::ServerContext* context, const inference::ModelMetadataRequest* request,
                             inference::ModelMetadataResponse* response) override;
  grpc::Status ModelInfer(grpc::ServerContext* context, const inference::ModelInferRequest* request,
                          inference::ModelInferResponse* response) override;
  grpc::Status RepositoryIndex(grpc::ServerContext* context, const inference::RepositoryIndexRequest* request,
                               inference::RepositoryIndexResponse* response) override;
  grpc::Status RepositoryModelLoad(grpc::ServerContext* context, const inference::RepositoryModelLoadRequest* request,
                                   inference::RepositoryModelLoadResponse* response) override;
  grpc::Status RepositoryModelUnload(grpc::ServerContext* context,
                                     const inference::RepositoryModelUnloadRequest* request,
                                     inference::RepositoryModelUnloadResponse* response) override;

  V2Service& service() { return service_; }

 private:
  V2Service service_;
  V2Repository repository_;
  GrpcCallRunner run_;
};

}  // namespace tfhost::serving::v2
