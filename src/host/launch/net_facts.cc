#include "host/launch/net_facts.h"

#include "host/probe/fs_reader.h"
#include "host/probe/probe.h"

namespace tfhost::host::launch {

NetworkFacts ReadNetworkFacts(const std::string& root) {
  NetworkFacts facts;
  std::unique_ptr<FsReader> fs = NewRootedFsReader(root);
  facts.interfaces = ProbeNetInterfaces(*fs, &facts.notes);
  facts.rdma = ProbeRdma(*fs, &facts.notes);
  return facts;
}

}  // namespace tfhost::host::launch
