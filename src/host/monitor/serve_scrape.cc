#include "host/monitor/serve_scrape.h"

#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>

#include "host/launch/socket_util.h"

namespace tfhost::host {
namespace {

constexpr char kPrefix[] = ":tfhost:serving:device_memory_";
constexpr size_t kMaxBody = size_t{64} << 20;

// The value of label `name` in `{a="x",b="y"}`; "" when absent. The values
// tfhost writes here (device and backend names) hold no escapes.
std::string Label(const std::string& labels, const std::string& name) {
  const std::string key = name + "=\"";
  size_t at = labels.find(key);
  if (at == std::string::npos) return "";
  at += key.size();
  const size_t end = labels.find('"', at);
  return end == std::string::npos ? "" : labels.substr(at, end - at);
}

}  // namespace

StatusOr<ServeEndpoint> ParseServeEndpoint(const std::string& text) {
  ServeEndpoint e;
  std::string address = text;
  // The path starts at the first '/' after the port (an IPv6 host has none).
  const size_t close = text.rfind(']');
  const size_t slash = text.find('/', close == std::string::npos ? 0 : close);
  if (slash != std::string::npos) {
    address = text.substr(0, slash);
    e.path = text.substr(slash);
  }
  auto split = launch::SplitAddress(address);
  if (!split.ok() || split->first.empty() || split->second <= 0 || split->second > 65535) {
    return InvalidArgument("--serve '" + text + "' is not HOST:PORT or HOST:PORT/PATH (a tfhost serve's REST port)");
  }
  e.host = split->first;
  e.port = split->second;
  return e;
}

std::vector<ServeDeviceMemory> ParseServeDeviceMemory(const std::string& prometheus_text) {
  std::vector<ServeDeviceMemory> out;
  std::istringstream lines(prometheus_text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(kPrefix, 0) != 0) continue;
    const size_t open = line.find('{');
    const size_t close = line.find("} ", open == std::string::npos ? 0 : open);
    if (open == std::string::npos || close == std::string::npos) continue;
    const std::string field = line.substr(sizeof(kPrefix) - 1, open - (sizeof(kPrefix) - 1));
    const std::string labels = line.substr(open, close - open + 1);
    const double value = std::strtod(line.c_str() + close + 2, nullptr);
    const std::string device = Label(labels, "device");
    const std::string backend = Label(labels, "backend");
    ServeDeviceMemory* d = nullptr;
    for (ServeDeviceMemory& seen : out) {
      if (seen.device == device && seen.backend == backend) d = &seen;
    }
    if (d == nullptr) {
      out.push_back(ServeDeviceMemory{device, backend});
      d = &out.back();
    }
    if (field == "in_use_bytes") d->in_use_bytes = value;
    else if (field == "peak_bytes") d->peak_bytes = value;
    else if (field == "limit_bytes") d->limit_bytes = value;
    else if (field == "reserved_bytes") d->reserved_bytes = value;
    else if (field == "allocation_failures") d->allocation_failures = value;
  }
  return out;
}

StatusOr<std::string> FetchServeMetrics(const ServeEndpoint& endpoint, std::chrono::milliseconds timeout) {
  const std::string where = "tfhost serve at " + endpoint.ToString();
  auto fd = launch::ConnectWithRetry(endpoint.host, endpoint.port, launch::SteadyClock::now() + timeout,
                                     "tfhost serve");
  if (!fd.ok()) return Unavailable(where + ": " + fd.status().message());
  // A server that accepts and then says nothing must not hold the sample.
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(timeout.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>(timeout.count() % 1000 * 1000);
  ::setsockopt(*fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  ::setsockopt(*fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  const std::string request =
      "GET " + endpoint.path + " HTTP/1.1\r\nHost: " + endpoint.host + "\r\nConnection: close\r\n\r\n";
  Status sent = launch::WriteExact(*fd, request.data(), request.size(), "tfhost serve");
  std::string reply;
  char buffer[16384];
  while (sent.ok() && reply.size() <= kMaxBody) {
    const ssize_t n = ::recv(*fd, buffer, sizeof(buffer), 0);
    if (n <= 0) break;  // closed, or the timeout passed
    reply.append(buffer, static_cast<size_t>(n));
    // With Content-Length known the answer may end before the close.
    const size_t head_end = reply.find("\r\n\r\n");
    if (head_end == std::string::npos) continue;
    const size_t cl = reply.find("Content-Length: ");
    if (cl != std::string::npos && cl < head_end &&
        reply.size() - head_end - 4 >= std::strtoull(reply.c_str() + cl + 16, nullptr, 10)) {
      break;
    }
  }
  ::close(*fd);
  if (!sent.ok()) return Unavailable(where + ": " + sent.message());
  if (reply.size() > kMaxBody) return Unavailable(where + ": the answer is larger than 64 MiB");
  const size_t head_end = reply.find("\r\n\r\n");
  if (head_end == std::string::npos) return Unavailable(where + ": no HTTP answer within the timeout");
  const std::string status_line = reply.substr(0, reply.find("\r\n"));
  if (status_line.find(" 200 ") == std::string::npos) return Unavailable(where + " answered '" + status_line + "'");
  return reply.substr(head_end + 4);
}

}  // namespace tfhost::host
