// The SignatureRunner wrappers ServerCore puts around a model's runner for
// one request: TimedRunner records runtime latency, DeadlineRunner gives up
// waiting for a queued (batched) run at the client's deadline.
//
// Thread-safety: each wrapper lives on one request's stack and is used by
// that request only; the wrapped runner must be thread-safe.
#pragma once

#include <chrono>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "serving/metrics/metrics_registry.h"
#include "serving/servable/servable.h"

namespace tfhost::serving::core_internal {

// Times graph execution for :tensorflow:serving:runtime_latency.
class TimedRunner : public SignatureRunner {
 public:
  TimedRunner(SignatureRunner& inner, HistogramCell* cell) : inner_(inner), cell_(cell) {}
  StatusOr<TensorMap> Run(const ServableHandle& servable, const runtime::Signature& signature, TensorMap inputs,
                          const std::vector<std::string>& output_filter) override {
    const auto start = std::chrono::steady_clock::now();
    auto result = inner_.Run(servable, signature, std::move(inputs), output_filter);
    if (cell_) {
      cell_->Observe(static_cast<double>(
          std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start).count()));
    }
    return result;
  }

 private:
  SignatureRunner& inner_;
  HistogramCell* cell_;
};

// Waits for a run that the runner queues (a batch) only until the client's
// deadline; its late result is then dropped. Runs that happen in the caller's
// thread are not cut short: a started model run cannot be stopped midway.
class DeadlineRunner : public SignatureRunner {
 public:
  DeadlineRunner(SignatureRunner& inner, std::chrono::system_clock::time_point deadline)
      : inner_(inner), deadline_(deadline) {}
  StatusOr<TensorMap> Run(const ServableHandle& servable, const runtime::Signature& signature, TensorMap inputs,
                          const std::vector<std::string>& output_filter) override {
    if (std::chrono::system_clock::now() >= deadline_) {
      return Status(StatusCode::kDeadlineExceeded, "the request's deadline passed before it could run");
    }
    if (!inner_.CanRunAsync(signature, inputs)) return inner_.Run(servable, signature, std::move(inputs), output_filter);
    auto result = std::make_shared<std::promise<StatusOr<TensorMap>>>();
    std::future<StatusOr<TensorMap>> outputs = result->get_future();
    inner_.RunAsync(servable, signature, std::move(inputs), output_filter,
                    [result](StatusOr<TensorMap> r) { result->set_value(std::move(r)); });
    if (outputs.wait_until(deadline_) == std::future_status::timeout) {
      return Status(StatusCode::kDeadlineExceeded,
                    "the request's deadline passed while it waited for its batch of model '" + servable->name +
                        "' to run");
    }
    return outputs.get();
  }

 private:
  SignatureRunner& inner_;
  std::chrono::system_clock::time_point deadline_;
};

}  // namespace tfhost::serving::core_internal
