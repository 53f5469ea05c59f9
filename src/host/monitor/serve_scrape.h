// `tfhost monitor --serve HOST:PORT[/PATH]`: the device memory a running
// `tfhost serve` reports, read from its Prometheus metrics (the
// :tfhost:serving:device_memory_* families, docs/serving.md) each sample, so
// the dashboard shows what the server's GPU allocators hold beside what the
// driver says the GPUs hold. The figures live inside the serving process;
// its metrics are the one place another process can read them.
//
// Thread-safety: plain functions; FetchServeMetrics blocks for at most its
// timeout.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "base/status.h"

namespace tfhost::host {

// One device backend's allocator, as the server reports it.
struct ServeDeviceMemory {
  std::string device;   // "gpu:0"
  std::string backend;  // "cuda:0"
  double in_use_bytes = 0, peak_bytes = 0, limit_bytes = 0, reserved_bytes = 0, allocation_failures = 0;
};

struct ServeEndpoint {
  std::string host;
  int port = 0;
  std::string path = "/monitoring/prometheus/metrics";  // tfhost serve's default
  std::string ToString() const { return host + ":" + std::to_string(port) + path; }
};

// "HOST:PORT" or "HOST:PORT/PATH" ("[v6]:PORT" too); InvalidArgument naming
// the text and the expected form.
StatusOr<ServeEndpoint> ParseServeEndpoint(const std::string& text);

// The device memory series of Prometheus text, one entry per (device,
// backend) in the order they first appear; other lines are ignored.
std::vector<ServeDeviceMemory> ParseServeDeviceMemory(const std::string& prometheus_text);

// GET the endpoint's metrics over HTTP/1.1 (Connection: close); the body of
// a 200 answer, else Unavailable naming the endpoint and what went wrong
// (no server, another status, timeout). Bodies past 64 MiB are refused.
StatusOr<std::string> FetchServeMetrics(const ServeEndpoint& endpoint, std::chrono::milliseconds timeout);

}  // namespace tfhost::host
