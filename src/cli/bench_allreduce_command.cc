// `tfhost bench allreduce [--backend tcp|gloo|mpi|nccl] [--sizes 8:64M] [--iters N] [--check]`:
// collective bandwidth of the cluster in the manner of nccl-tests, run as the
// task command of `tfhost launch` on any engine (each task finds its rank and
// peers in TF_CONFIG; without TF_CONFIG it is a single rank). Rank 0 prints
// the table and the link's nominal speed from the probe next to the best bus
// bandwidth. Every rank exits 1 when a reduced value is wrong. The mpi
// backend takes ranks from the MPI runtime instead (start it with mpirun).
// The nccl backend reduces GPU-resident buffers, one GPU per rank (NCCL and
// the CUDA runtime loaded at run time); without them it says what is missing
// and exits 1.
#include <cstdio>
#include <cstdlib>

#include "cli/cli.h"
#include "cli/command_util.h"
#include "host/launch/allreduce.h"
#include "host/launch/gloo_collective.h"
#include "host/launch/launch_env.h"
#include "host/launch/mpi_collective.h"
#include "host/launch/nccl_collective.h"
#include "host/launch/nccl_link.h"
#include "host/launch/net_facts.h"

namespace tfhost::cli {

namespace {

namespace hl = tfhost::host::launch;
constexpr char kName[] = "bench allreduce";

// "link eth0: 100000 Mb/s (12.50 GB/s)", or why not.
std::string LinkLine(double best_busbw) {
  hl::NetworkFacts facts = hl::ReadNetworkFacts("/");
  std::string ifname;
  if (const char* env = std::getenv("NCCL_SOCKET_IFNAME"); env != nullptr && *env != '\0' && *env != '^' && *env != '=') {
    ifname = env;
  } else {
    ifname = hl::ChooseNetwork(facts).socket_ifname;
  }
  for (const auto& n : facts.interfaces) {
    if (n.name != ifname) continue;
    if (n.speed_mbps <= 0) return "# link " + ifname + ": speed not reported by the driver";
    double gbs = n.speed_mbps / 8000.0;
    char buf[200];
    std::snprintf(buf, sizeof(buf), "# link %s: %lld Mb/s = %.2f GB/s nominal; best bus bandwidth %.2f GB/s (%.0f%%)",
                  ifname.c_str(), static_cast<long long>(n.speed_mbps), gbs, best_busbw, 100.0 * best_busbw / gbs);
    return buf;
  }
  return "# link: no interface to compare with (ranks on one host talk through loopback)";
}

}  // namespace

int BenchAllreduceCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::string backend = "tcp", sizes = "8:64M", timeout = "60";
  int iters = 20, warmup = 5;
  bool check = true;
  FlagParser flags("tfhost bench allreduce [flags]",
                   "Allreduce (sum, float32) bandwidth and latency per message size, with a check of the reduced "
                   "values. Run it under `tfhost launch` (any engine): each task takes its rank and peers from "
                   "TF_CONFIG, e.g. tfhost launch --workers 4 -- tfhost bench allreduce");
  flags.AddString("backend", &backend, "B",
                  "tcp (tfhost's ring over TCP sockets; default), gloo (libgloo over TCP), nccl (NCCL on GPU "
                  "buffers, one GPU per rank) -- these take ranks from TF_CONFIG -- or mpi (MPI_Allreduce; ranks "
                  "from mpirun/srun)");
  flags.AddString("sizes", &sizes, "MIN:MAX", "message sizes in bytes, doubling (K/M/G suffixes; default 8:64M)");
  flags.AddInt("iters", &iters, "N", "timed iterations per size (default 20)");
  flags.AddInt("warmup", &warmup, "N", "untimed iterations per size (default 5)");
  flags.AddBool("check", &check, "check the reduced values (default true; --check=false to skip)");
  flags.AddString("timeout", &timeout, "SECONDS", "how long to wait for the peers (default 60)");
  if (int code = ParseOrExit(flags, args, kName, out, err); code >= 0) return code;
  if (backend != "tcp" && backend != "gloo" && backend != "mpi" && backend != "nccl") {
    return ReportUsage(err, kName, "--backend " + backend + " is not known; use tcp, gloo, nccl or mpi");
  }
  if (iters < 1 || iters > 100000 || warmup < 0 || warmup > 100000) {
    return ReportUsage(err, kName, "--iters must be 1..100000 and --warmup 0..100000");
  }
  hl::AllreduceBenchOptions o;
  o.iters = iters;
  o.warmup = warmup;
  o.check = check;
  if (Status st = hl::ParseSizeRange(sizes, &o.min_bytes, &o.max_bytes); !st.ok()) return ReportUsage(err, kName, st.message());
  double timeout_s = std::atof(timeout.c_str());
  if (timeout_s <= 0) return ReportUsage(err, kName, "--timeout must be a positive number of seconds");

  hl::RingMembership ring;
  ring.addresses = {"127.0.0.1:1"};  // a lone rank never opens a socket
  if (const char* tf_config = std::getenv("TF_CONFIG"); tf_config != nullptr && *tf_config != '\0') {
    auto m = hl::RingFromTfConfig(tf_config);
    if (!m.ok()) return ReportFailure(err, kName, m.status());
    ring = *m;
  }
  StatusOr<std::unique_ptr<hl::Collective>> comm = Unimplemented("no backend");
  hl::NcclCollective* nccl = nullptr;
  if (backend == "nccl") {
    hl::NcclOptions nccl_options;
    nccl_options.timeout_seconds = timeout_s;
    auto connected = hl::ConnectNccl(ring.addresses, ring.rank, nccl_options);
    if (!connected.ok()) return ReportFailure(err, kName, connected.status());
    nccl = connected->get();
    comm = std::unique_ptr<hl::Collective>(std::move(*connected));
  } else if (backend == "mpi") {
    comm = hl::ConnectMpi();
  } else if (backend == "gloo") {
    comm = hl::ConnectGloo(ring.addresses, ring.rank, timeout_s);
  } else {
    comm = hl::ConnectTcpRing(ring.addresses, ring.rank, timeout_s);
  }
  if (!comm.ok()) return ReportFailure(err, kName, comm.status());
  auto rows = nccl != nullptr ? nccl->RunDeviceBench(o) : hl::RunAllreduceBench(**comm, o);
  if (!rows.ok()) return ReportFailure(err, kName, rows.status());
  size_t wrong = 0;
  double best = 0;
  for (const auto& r : *rows) {
    wrong += r.wrong;
    best = std::max(best, r.busbw_gbs);
  }
  if ((*comm)->rank() == 0) {
    out << hl::FormatAllreduceTable(*rows, **comm);
    if ((*comm)->size() > 1) {
      // Ranks on one host meet over the GPUs' own links (NVLink or PCIe);
      // across hosts the network is the bottleneck.
      bool one_host = true;
      for (const std::string& a : ring.addresses) {
        one_host = one_host && a.substr(0, a.rfind(':')) == ring.addresses[0].substr(0, ring.addresses[0].rfind(':'));
      }
      out << (nccl != nullptr && one_host ? hl::LiveGpuLinkLine(nccl->pci_bus_id(), best) : LinkLine(best)) << "\n";
    }
    out << (check ? (wrong == 0 ? "# check: every reduced value is correct\n" : "# check: WRONG VALUES\n") : "");
  }
  if (wrong > 0) {
    err << "tfhost bench allreduce: rank " << (*comm)->rank() << " saw " << wrong << " wrong reduced values\n";
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace tfhost::cli
