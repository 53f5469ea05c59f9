// How launch instances that each know only themselves (ranks under mpirun)
// learn every other instance's address: a directory rendezvous. Each
// instance writes one small file "<dir>/instance-<i>" ("HOST\nPORT PORT ...")
// atomically (write to a temporary name, then rename), then waits until all
// `count` files exist and reads them. The directory must be visible to every
// instance: node-local /tmp works when all ranks share one node; across nodes
// pass a shared filesystem path (NFS, Lustre, GPFS: every cluster that runs
// MPI has one). Instance 0 removes the directory once every instance has
// confirmed it read the others (CleanupRendezvous, called when its tasks have
// ended, so no instance ever waits for it), so a finished job leaves nothing
// behind.
//
// Files are untrusted (a stale directory from another job could hold
// anything): a malformed file is an error naming it, never a crash.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace tfhost::host::launch {

struct InstanceAddress {
  std::string host;
  std::vector<int> ports;  // one per task this instance runs
  // Network interfaces NCCL could use on this host ("name:speed_mbps"), so
  // that every instance can pick one that all hosts have. Optional in the
  // file (a third line); empty when absent.
  std::vector<std::string> interfaces;
};

// Publishes `self` as instance `index` of `count` and returns all `count`
// addresses in index order. DeadlineExceeded after `timeout_seconds` names the
// instances that never appeared.
StatusOr<std::vector<InstanceAddress>> DirectoryRendezvous(const std::string& dir, int index, int count,
                                                           const InstanceAddress& self, double timeout_seconds);

// Instance 0's cleanup: waits (at most `timeout_seconds`) until all `count`
// instances confirmed, then removes `dir`.
void CleanupRendezvous(const std::string& dir, int count, double timeout_seconds);

}  // namespace tfhost::host::launch
