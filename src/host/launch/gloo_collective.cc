#include "host/launch/gloo_collective.h"

#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/transport/tcp/device.h>

#include <exception>

#include "host/launch/socket_util.h"
#include "host/launch/tcp_kv_store.h"

namespace tfhost::host::launch {

namespace {

// Gloo's rendezvous asks a Store; this one forwards to the TCP store and
// turns its errors into the exceptions Gloo expects from a store.
class KvStoreAdapter : public gloo::rendezvous::Store {
 public:
  KvStoreAdapter(TcpKvStoreClient* client, std::chrono::milliseconds timeout) : client_(client), timeout_(timeout) {}

  void set(const std::string& key, const std::vector<char>& data) override {
    Status st = client_->Set(key, std::string(data.begin(), data.end()));
    if (!st.ok()) throw std::runtime_error(st.ToString());
  }
  std::vector<char> get(const std::string& key) override {
    auto value = client_->Get(key, timeout_);
    if (!value.ok()) throw std::runtime_error(value.status().ToString());
    return std::vector<char>(value->begin(), value->end());
  }
  void wait(const std::vector<std::string>& keys) override { wait(keys, timeout_); }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override {
    for (const auto& key : keys) {
      auto value = client_->Get(key, timeout);
      if (!value.ok()) throw std::runtime_error(value.status().ToString());
    }
  }

 private:
  TcpKvStoreClient* client_;
  std::chrono::milliseconds timeout_;
};

using ReduceFn = void (*)(void*, const void*, const void*, size_t);

class GlooCollective : public Collective {
 public:
  GlooCollective(std::shared_ptr<gloo::rendezvous::Context> context, std::unique_ptr<TcpKvStoreServer> server)
      : context_(std::move(context)), server_(std::move(server)) {}

  int rank() const override { return context_->rank; }
  int size() const override { return context_->size; }
  std::string name() const override { return "gloo"; }

  Status AllreduceSum(float* data, size_t count) override {
    if (count == 0) return OkStatus();
    try {
      gloo::AllreduceOptions opts(context_);
      opts.setOutput(data, count);
      opts.setReduceFunction(static_cast<ReduceFn>(&gloo::sum<float>));
      gloo::allreduce(opts);
    } catch (const std::exception& e) {
      return Unavailable(std::string("gloo allreduce of ") + std::to_string(count) + " floats failed: " + e.what());
    }
    return OkStatus();
  }

  Status Barrier() override {
    try {
      gloo::BarrierOptions opts(context_);
      gloo::barrier(opts);
    } catch (const std::exception& e) {
      return Unavailable(std::string("gloo barrier failed: ") + e.what());
    }
    return OkStatus();
  }

 private:
  std::shared_ptr<gloo::rendezvous::Context> context_;
  // Rank 0 keeps serving the store: a late rank may still be reading it.
  std::unique_ptr<TcpKvStoreServer> server_;
};

}  // namespace

StatusOr<std::unique_ptr<Collective>> ConnectGloo(const std::vector<std::string>& addresses, int rank,
                                                  double timeout_seconds) {
  int n = addresses.size();
  if (n < 1 || rank < 0 || rank >= n) {
    return InvalidArgument("gloo rank " + std::to_string(rank) + " of " + std::to_string(n));
  }
  auto timeout = std::chrono::milliseconds(static_cast<long>(timeout_seconds * 1000));
  TFHOST_ASSIGN_OR_RETURN(auto self, SplitAddress(addresses[rank]));
  TFHOST_ASSIGN_OR_RETURN(auto store_address, SplitAddress(addresses[0]));
  std::unique_ptr<TcpKvStoreServer> server;
  if (rank == 0) {
    auto started = TcpKvStoreServer::Start(store_address.second);
    if (!started.ok()) return started.status();
    server = std::move(*started);
  }
  TFHOST_ASSIGN_OR_RETURN(auto client, TcpKvStoreClient::Connect(store_address.first, store_address.second, timeout));
  try {
    gloo::transport::tcp::attr attr;
    attr.hostname = self.first;
    auto device = gloo::transport::tcp::CreateDevice(attr);
    auto context = std::make_shared<gloo::rendezvous::Context>(rank, n);
    context->setTimeout(timeout);
    KvStoreAdapter store(client.get(), timeout);
    context->connectFullMesh(store, device);
    // Every rank has read every address once all reach here; only then may
    // rank 0's store go away with its process.
    auto collective = std::make_unique<GlooCollective>(context, std::move(server));
    TFHOST_RETURN_IF_ERROR(collective->Barrier());
    return std::unique_ptr<Collective>(std::move(collective));
  } catch (const std::exception& e) {
    return Unavailable("gloo rendezvous of rank " + std::to_string(rank) + " of " + std::to_string(n) + " via " +
                       addresses[0] + " failed: " + e.what());
  }
}

}  // namespace tfhost::host::launch
