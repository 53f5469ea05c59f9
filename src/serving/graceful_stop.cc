#include "serving/graceful_stop.h"

#include <algorithm>
#include <future>
#include <thread>

#include "serving/batching/batching_runner.h"
#include "serving/grpc/grpc_server.h"
#include "serving/http/http_server.h"

namespace tfhost::serving {

bool GracefulStop(const GracefulStopTargets& targets, std::chrono::milliseconds timeout) {
  using std::chrono::milliseconds;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::vector<batching::BatchingRunner*> batchers = targets.model_batchers;
  if (targets.batcher != nullptr) batchers.push_back(targets.batcher);
  for (batching::BatchingRunner* b : batchers) b->BeginDrain();

  // The batcher stops when both front ends have stopped or at the deadline,
  // whichever comes first: at the deadline its cancellations are what let
  // blocked gRPC handlers return, so grpc's Shutdown can finish.
  std::promise<void> front_ends_stopped;
  std::future<void> front_ends_stopped_future = front_ends_stopped.get_future();
  bool batches_drained = true;
  std::thread batcher_stop;
  if (!batchers.empty()) {
    batcher_stop = std::thread([&] {
      front_ends_stopped_future.wait_until(deadline);
      for (batching::BatchingRunner* b : batchers) {
        const auto left = std::chrono::duration_cast<milliseconds>(deadline - std::chrono::steady_clock::now());
        batches_drained = b->Shutdown(std::max(milliseconds(0), left)) == 0 && batches_drained;
      }
    });
  }
  // gRPC and REST drain at the same time, each within the same deadline.
  bool grpc_drained = true;
  std::thread grpc_stop([&] {
    if (targets.grpc != nullptr) grpc_drained = targets.grpc->Shutdown(timeout);
  });
  const bool http_drained = targets.http != nullptr ? targets.http->Stop(timeout) : true;
  grpc_stop.join();
  front_ends_stopped.set_value();
  if (batcher_stop.joinable()) batcher_stop.join();
  return grpc_drained && http_drained && batches_drained;
}

}  // namespace tfhost::serving
