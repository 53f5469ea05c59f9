// Blocking TCP helpers shared by the collectives' own wire protocols (the
// TCP ring and the rendezvous key-value store): address parsing, connect with
// retry until a deadline, a dual-stack listener, exact reads and writes.
#pragma once

#include <chrono>
#include <string>
#include <utility>

#include "base/status.h"

namespace tfhost::host::launch {

using SteadyClock = std::chrono::steady_clock;

// "host:port" or "[v6]:port" -> (host, port); an error names the address.
StatusOr<std::pair<std::string, int>> SplitAddress(const std::string& address);

// TCP_NODELAY and 4 MiB socket buffers (collectives move large messages).
void TuneSocket(int fd);

// Reads/writes exactly n bytes, riding out EINTR/EAGAIN; Unavailable when the
// peer closes. `what` names the peer in the error ("ring peer").
Status ReadExact(int fd, void* data, size_t n, const char* what = "peer");
Status WriteExact(int fd, const void* data, size_t n, const char* what = "peer");

// Connects to host:port, retrying every 50 ms until `deadline` (peers start
// in any order).
StatusOr<int> ConnectWithRetry(const std::string& host, int port, SteadyClock::time_point deadline,
                               const char* what = "peer");

// A socket listening on `port` on every address (IPv6 dual-stack when the
// host has IPv6, else IPv4).
StatusOr<int> ListenOnPort(int port, int backlog);

}  // namespace tfhost::host::launch
