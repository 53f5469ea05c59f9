// Under Slurm the launchers of one step start at once on their nodes, each
// knowing only its own network interfaces, yet NCCL_SOCKET_IFNAME must name
// an interface every node has. Before starting any task the launchers meet
// once through the rendezvous key-value store (tcp_kv_store.h) that the first
// launcher (SLURM_PROCID 0) serves on its node, at a port every launcher
// derives alike (just above the step's task ports):
//   1. the first launcher on each node publishes that node's candidates
//      ("name:speed_mbps", SocketInterfaceCandidates) under "if/node/<n>";
//   2. launcher 0 gathers all nodes' lists and publishes them as one value
//      under "if/all" (or, when a node never reported, the reason);
//   3. every launcher reads "if/all", confirms under "if/done/<i>", and
//      applies the same rule as the MPI rendezvous
//      (UseInterfaceCommonToHosts); launcher 0 keeps the store up until all
//      confirmed.
// Every wait is bounded by one deadline; a launcher that cannot complete the
// exchange gets an error, and the caller falls back to its node's own pick
// with a warning, so a slow or firewalled node costs at most the timeout.
//
// Values from the store are untrusted: a malformed one is an error, never a
// crash.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace tfhost::host::launch {

struct SlurmInterfaceExchange {
  std::string store_host;  // launcher 0's node, as the other launchers reach it
  int store_port = 0;
  int instance = 0;        // this launcher (SLURM_PROCID)
  int instances = 1;
  int node = 0;            // this launcher's node index in the step's node list
  int nodes = 1;
  bool publishes = false;  // the first launcher on its node
  std::vector<std::string> candidates;  // this node's, "name:speed_mbps"
  double timeout_seconds = 30;
};

// Returns one candidate list per node, in node order (identical on every
// launcher). DeadlineExceeded / Unavailable / DataLoss say what failed.
StatusOr<std::vector<std::vector<std::string>>> ExchangeSlurmInterfaces(const SlurmInterfaceExchange& x);

}  // namespace tfhost::host::launch
