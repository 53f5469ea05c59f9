// How `tfhost serve` stops on SIGTERM/SIGINT: both front ends stop taking
// requests and drain in-flight ones, and the batcher, within ONE deadline.
//
// The batcher needs its own part in this. gRPC's synchronous handlers block
// until their batch has run, and grpc::Server::Shutdown waits for every
// handler to return even after its deadline has cancelled the call. So a
// request still queued for a batch (waiting for its batch to fill, or behind
// a long batch on a busy batch thread) would hold the whole shutdown. Here
// the batcher runs partial batches at once from the first moment of the
// drain, and at the deadline cancels whatever has not started, so every
// handler returns by then (a batch already running is let finish).
#pragma once

#include <chrono>
#include <vector>

namespace tfhost::serving {

class GrpcServer;
class HttpServer;
namespace batching {
class BatchingRunner;
}

struct GracefulStopTargets {
  GrpcServer* grpc = nullptr;                   // may be null (not served)
  HttpServer* http = nullptr;                   // may be null (not served)
  batching::BatchingRunner* batcher = nullptr;  // may be null (no batching)
  // Models' own batchers (--enable_per_model_batching_parameters), stopped
  // like `batcher`.
  std::vector<batching::BatchingRunner*> model_batchers;
};

// Stops everything in `targets` within `timeout`; returns true when every
// in-flight request finished (none was cut off or cancelled). Call once,
// from the thread that started the servers.
bool GracefulStop(const GracefulStopTargets& targets, std::chrono::milliseconds timeout);

}  // namespace tfhost::serving
