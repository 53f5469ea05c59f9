// The network facts launch needs (interfaces with speed and IPv4 addresses,
// RDMA devices with port state, link layer and GID types), in the probe's own
// types (host/probe/host_facts.h) and read by the probe's own functions, so
// that launch picks exactly the interfaces `tfhost probe` shows and
// `tfhost doctor` checks. `root` is "/" for this machine or a snapshot folder
// (the probe's recordings in src/host/testdata) in tests.
#pragma once

#include <string>
#include <vector>

#include "host/probe/host_facts.h"

namespace tfhost::host::launch {

struct NetworkFacts {
  std::vector<NetInterface> interfaces;
  std::vector<RdmaDevice> rdma;
  std::vector<std::string> notes;  // what could not be read
};

// Never fails: what cannot be read is simply absent (and noted).
NetworkFacts ReadNetworkFacts(const std::string& root = "/");

}  // namespace tfhost::host::launch
