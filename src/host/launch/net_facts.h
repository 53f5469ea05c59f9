// The network facts launch needs (interfaces with speed and IPv4 addresses,
// RDMA devices with port state, link layer and GID types), in the probe's own
// types (host/probe/host_facts.h). Kept behind one small function so launch
// does not depend on the whole probe: ReadNetworkFacts() reads sysfs under
// `root` ("/" live; a snapshot folder in tests) and, live, getifaddrs().
#pragma once

#include <string>
#include <vector>

#include "host/probe/host_facts.h"

namespace tfhost::host::launch {

struct NetworkFacts {
  std::vector<NetInterface> interfaces;
  std::vector<RdmaDevice> rdma;
};

// Never fails: what cannot be read is simply absent.
NetworkFacts ReadNetworkFacts(const std::string& root = "/");

}  // namespace tfhost::host::launch
