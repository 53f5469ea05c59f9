// The Gloo backend of `tfhost bench allreduce`: Debian's libgloo (the CPU
// collectives library PyTorch and Horovod use) over its TCP transport, with
// rendezvous through a key-value store that rank 0 serves on its own
// TF_CONFIG port (tcp_kv_store.h), so it runs under `tfhost launch` on any
// engine exactly like the built-in TCP ring.
//
// Gloo reports failures with C++ exceptions; they are caught here and become
// Status values, so none crosses this module's boundary.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "host/launch/allreduce.h"

namespace tfhost::host::launch {

// Rank `rank` of `addresses` ("host:port", the same list on every rank):
// rank 0 serves the store on its port; every rank binds Gloo's transport to
// the host of its own address.
StatusOr<std::unique_ptr<Collective>> ConnectGloo(const std::vector<std::string>& addresses, int rank,
                                                  double timeout_seconds);

}  // namespace tfhost::host::launch
