#include "host/launch/slurm_interfaces.h"

#include <algorithm>
#include <chrono>
#include <sstream>

#include "host/launch/tcp_kv_store.h"

namespace tfhost::host::launch {

namespace {

using Clock = std::chrono::steady_clock;

constexpr char kAll[] = "if/all";
constexpr char kFailed = '!';  // first byte of "if/all" when launcher 0 gave up

std::chrono::milliseconds Left(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return std::max(left, std::chrono::milliseconds(1));
}

// Interface names hold no whitespace (the kernel refuses it), so one node is
// one line of space-separated candidates.
std::string JoinCandidates(const std::vector<std::string>& c) {
  std::string s;
  for (const std::string& x : c) {
    if (x.empty() || x.find_first_of(" \n") != std::string::npos) continue;
    s += (s.empty() ? "" : " ") + x;
  }
  return s;
}

StatusOr<std::vector<std::vector<std::string>>> ParseAll(const std::string& text, int nodes) {
  std::vector<std::vector<std::string>> out;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> node;
    std::istringstream words(line);
    for (std::string w; words >> w;) node.push_back(w);
    out.push_back(std::move(node));
  }
  if (static_cast<int>(out.size()) != nodes) {
    return DataLoss("slurm interface exchange: launcher 0 published " + std::to_string(out.size()) +
                    " node lists, expected " + std::to_string(nodes) + " (do all launchers run the same command?)");
  }
  return out;
}

}  // namespace

StatusOr<std::vector<std::vector<std::string>>> ExchangeSlurmInterfaces(const SlurmInterfaceExchange& x) {
  if (x.nodes < 1 || x.node < 0 || x.node >= x.nodes || x.instance < 0 || x.instance >= x.instances) {
    return InvalidArgument("slurm interface exchange: node " + std::to_string(x.node) + " of " +
                           std::to_string(x.nodes) + ", launcher " + std::to_string(x.instance) + " of " +
                           std::to_string(x.instances));
  }
  auto deadline = Clock::now() + std::chrono::milliseconds(static_cast<long>(x.timeout_seconds * 1000));
  std::unique_ptr<TcpKvStoreServer> server;
  if (x.instance == 0) {
    auto started = TcpKvStoreServer::Start(x.store_port);
    if (!started.ok()) {
      return Unavailable("slurm interface exchange: cannot serve the store on port " + std::to_string(x.store_port) +
                         ": " + started.status().message());
    }
    server = std::move(*started);
  }
  std::string where = x.store_host + ":" + std::to_string(x.store_port);
  auto client = TcpKvStoreClient::Connect(x.store_host, x.store_port, Left(deadline));
  if (!client.ok()) {
    return Status(client.status().code(),
                  "slurm interface exchange: launcher 0's store at " + where + ": " + client.status().message());
  }
  auto& store = **client;
  if (x.publishes) {
    TFHOST_RETURN_IF_ERROR(store.Set("if/node/" + std::to_string(x.node), JoinCandidates(x.candidates)));
  }
  if (x.instance == 0) {
    std::string all;
    Status gathered = OkStatus();
    for (int n = 0; n < x.nodes && gathered.ok(); ++n) {
      auto v = store.Get("if/node/" + std::to_string(n), Left(deadline));
      if (!v.ok()) {
        gathered = Status(v.status().code(), "node " + std::to_string(n) + " never reported its interfaces: " +
                                                 v.status().message());
        break;
      }
      std::string line = *v;
      for (char& c : line) c = c == '\n' ? ' ' : c;  // one node, one line, whatever it sent
      all += line + "\n";
    }
    // Tell the others either way, so they stop waiting at once.
    TFHOST_RETURN_IF_ERROR(store.Set(kAll, gathered.ok() ? all : kFailed + gathered.message()));
    if (!gathered.ok()) return Status(gathered.code(), "slurm interface exchange: " + gathered.message());
    // Keep the store up until every launcher has read the lists (bounded).
    for (int i = 1; i < x.instances; ++i) {
      if (!store.Get("if/done/" + std::to_string(i), Left(deadline)).ok()) break;
    }
    return ParseAll(all, x.nodes);
  }
  auto all = store.Get(kAll, Left(deadline));
  if (!all.ok()) {
    return Status(all.status().code(), "slurm interface exchange: no node lists from launcher 0 at " + where + ": " +
                                           all.status().message());
  }
  if (!all->empty() && (*all)[0] == kFailed) {
    return Unavailable("slurm interface exchange: launcher 0 gave up: " + all->substr(1, 400));
  }
  Status done = store.Set("if/done/" + std::to_string(x.instance), "1");
  (void)done;  // launcher 0 waits for it only to know when to close; the lists are ours already
  return ParseAll(*all, x.nodes);
}

}  // namespace tfhost::host::launch
