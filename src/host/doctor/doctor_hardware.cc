// Hardware-balance rules: host RAM vs GPU memory, CPU cores per GPU, NVLink
// for multi-GPU training, RDMA for multi-node training, and where the
// training data lives.
#include <algorithm>
#include <cstdio>
#include <set>

#include "host/doctor/doctor.h"
#include "host/doctor/tf_config.h"

namespace tfhost::host {

namespace {

std::string Ratio(double r) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f", r);
  return buf;
}

// Hosts named in TF_CONFIG (evaluator excluded: it does not join collectives).
std::set<std::string> ClusterHosts(const DoctorInput& in) {
  std::set<std::string> hosts;
  const std::string* tf_config = EnvValue(in, "TF_CONFIG");
  if (tf_config == nullptr) return hosts;
  StatusOr<TfConfig> c = ParseTfConfig(*tf_config);
  if (!c.ok()) return hosts;
  for (const auto& [job, list] : c->cluster) {
    if (job == "evaluator") continue;
    for (const std::string& a : list) {
      std::string h = AddressHost(a);
      if (h == "127.0.0.1" || h == "::1") h = "localhost";
      if (!h.empty()) hosts.insert(h);
    }
  }
  return hosts;
}

bool HasActiveRdma(const HostFacts& f) {
  for (const RdmaDevice& d : f.rdma) {
    for (const RdmaPort& p : d.ports) if (p.state == "ACTIVE") return true;
  }
  return false;
}

// Whether GPUs a and b share NVLink, from link peers or the topology matrix.
bool NvLinked(const HostFacts& f, int a, int b) {
  const TopologyMatrix& t = f.topology;
  auto idx = [&](int g) {
    for (size_t i = 0; i < t.labels.size(); ++i) if (t.labels[i] == "GPU" + std::to_string(g)) return static_cast<int>(i);
    return -1;
  };
  int ia = idx(a), ib = idx(b);
  if (ia >= 0 && ib >= 0) return t.cells[ia][ib].rfind("NV", 0) == 0;
  const GpuFacts& ga = f.nvidia.gpus[static_cast<size_t>(a)];
  const GpuFacts& gb = f.nvidia.gpus[static_cast<size_t>(b)];
  bool switch_a = false, switch_b = false;
  for (const NvLinkFacts& l : ga.nvlinks) {
    if (l.remote_gpu == gb.index) return true;
    switch_a |= l.remote_gpu < 0;
  }
  for (const NvLinkFacts& l : gb.nvlinks) switch_b |= l.remote_gpu < 0;
  return switch_a && switch_b;
}

}  // namespace

void CheckHardware(const DoctorInput& in, std::vector<Finding>* out) {
  const HostFacts& f = in.facts;
  const size_t gpus = f.nvidia.gpus.size();
  if (gpus > 0) {
    // Host RAM: the smaller of physical memory and a container's limit.
    uint64_t ram = f.memory.total_bytes;
    std::string ram_what = "host RAM " + GiB(ram);
    if (f.env.cgroup_memory_limit > 0 && f.env.cgroup_memory_limit < ram) {
      ram = f.env.cgroup_memory_limit;
      ram_what = "container memory limit " + GiB(ram) + " (host has " + GiB(f.memory.total_bytes) + ")";
    }
    uint64_t gpu_mem = f.nvidia.TotalMemoryBytes();
    double ratio = gpu_mem ? static_cast<double>(ram) / static_cast<double>(gpu_mem) : 99;
    if (gpu_mem > 0 && ratio < 1.5) {
      out->push_back(
          {"host_ram_vs_gpu_memory", ratio < 1.0 ? Severity::kError : Severity::kWarning,
           "host memory is less than 1.5x the GPUs' total memory",
           ram_what + "; " + std::to_string(gpus) + " GPU(s) with " + GiB(gpu_mem) + " in total; ratio " + Ratio(ratio) +
               " (want >= 1.5)",
           "Each GPU step is fed from host memory: tf.data prefetch and shuffle buffers, pinned staging buffers for "
           "host-to-device copies, checkpoint serialization and the model's own host copy. With less host RAM than "
           "about 1.5x GPU memory the pipeline gets squeezed, the page cache cannot hold the hot data, and jobs swap "
           "or are OOM-killed.",
           "Give the host (or container) at least " + GiB(static_cast<uint64_t>(static_cast<double>(gpu_mem) * 1.5)) +
               " of RAM, or run this job on fewer GPUs per host; meanwhile shrink tf.data shuffle/prefetch buffers."});
    }
    // CPU cores per GPU: decoding and augmentation run on the CPU.
    double cores = f.cpu.physical_cores > 0 ? f.cpu.physical_cores : f.cpu.logical_cpus;
    std::string cores_what = std::to_string(static_cast<int>(cores)) + " physical cores";
    if (f.env.cgroup_cpu_limit > 0 && f.env.cgroup_cpu_limit < cores) {
      cores = f.env.cgroup_cpu_limit;
      cores_what = "a container CPU limit of " + Ratio(cores) + " CPUs";
    }
    const double want = in.purpose == Purpose::kTrain ? 4 : 2;
    double per_gpu = cores / static_cast<double>(gpus);
    if (cores > 0 && per_gpu < want) {
      out->push_back(
          {"cpu_cores_per_gpu", Severity::kWarning, "too few CPU cores per GPU to feed it",
           cores_what + " for " + std::to_string(gpus) + " GPU(s): " + Ratio(per_gpu) + " per GPU (want >= " +
               Ratio(want) + (in.purpose == Purpose::kTrain ? " for training" : " for serving") + ")",
           "tf.data decoding, augmentation and batching run on CPU threads; with too few cores per GPU the GPUs wait "
           "for input (utilisation well below 80%) no matter how fast they are.",
           "Use a host with more cores per GPU, or move work off the CPU: preprocess once into TFRecord, decode on "
           "the GPU, cache decoded data (dataset.cache()), and use num_parallel_calls=tf.data.AUTOTUNE."});
    }
  }
  if (gpus >= 2 && in.purpose == Purpose::kTrain) {
    std::vector<std::string> unlinked;
    for (size_t a = 0; a < gpus; ++a) {
      for (size_t b = a + 1; b < gpus; ++b) {
        if (!NvLinked(f, static_cast<int>(a), static_cast<int>(b))) {
          unlinked.push_back("GPU" + std::to_string(a) + "-GPU" + std::to_string(b));
        }
      }
    }
    if (!unlinked.empty()) {
      std::string list;
      for (size_t i = 0; i < unlinked.size() && i < 8; ++i) list += (i ? ", " : "") + unlinked[i];
      if (unlinked.size() > 8) list += ", ... (" + std::to_string(unlinked.size()) + " pairs)";
      out->push_back(
          {"multi_gpu_without_nvlink", Severity::kWarning, "multi-GPU training without NVLink between all GPUs",
           "no NVLink between " + list,
           "MirroredStrategy/MultiWorkerMirroredStrategy all-reduce the gradients every step. Over PCIe (and across "
           "the CPU socket interconnect) that is several times slower than NVLink, so large models spend much of "
           "each step communicating.",
           "Train on NVLink/NVSwitch GPUs (SXM servers or NVLink bridges) for multi-GPU jobs; otherwise keep a job on "
           "GPUs under one PCIe switch (see the PIX cells of `tfhost probe`, select them with CUDA_VISIBLE_DEVICES) and "
           "use larger per-GPU batches so all-reduce runs less often."});
    }
  }
  std::set<std::string> hosts = ClusterHosts(in);
  if (hosts.size() > 1 && !HasActiveRdma(f)) {
    out->push_back(
        {"multi_node_without_rdma", Severity::kWarning, "multi-node training without an active RDMA device",
         "TF_CONFIG spans " + std::to_string(hosts.size()) + " hosts; " +
             (f.rdma.empty() ? std::string("no RDMA device in /sys/class/infiniband")
                             : std::string("RDMA devices present but no port is ACTIVE")),
         "Across nodes NCCL falls back to TCP sockets, which cost CPU time and deliver a fraction of InfiniBand/RoCE "
         "bandwidth; gradient all-reduce then dominates the step time.",
         "Use hosts with InfiniBand or RoCE NICs (ConnectX, EFA on AWS, GPUDirect-TCPX on GCP) and bring their ports "
         "up (`ibstat` shows State: Active); for TCP, at least point NCCL_SOCKET_IFNAME at the fastest interface."});
  }
  // Training data location (--data PATH).
  if (!in.data_path.empty()) {
    for (const PathFacts& p : f.paths) {
      if (p.path != in.data_path) continue;
      if (!p.error.empty()) {
        out->push_back({"data_path_missing", Severity::kError, "the dataset path cannot be read",
                        in.data_path + ": " + p.error, "The input pipeline will fail at its first read.",
                        "Check the path (and that the volume is mounted inside the container)."});
      } else if (p.mount.network) {
        std::string local;
        for (const MountFacts& m : f.mounts) {
          if (!m.network && m.free_bytes > 0 && m.fs_type != "tmpfs" && (local.empty() || m.mount_point != "/")) {
            local = m.mount_point + " (" + m.fs_type + ", " + GiB(m.free_bytes) + " free)";
          }
        }
        out->push_back(
            {"data_on_network_filesystem", Severity::kWarning, "training data is read from a network filesystem",
             in.data_path + " is on " + p.mount.mount_point + " (" + p.mount.fs_type + " from " + p.mount.device + ")",
             "Every epoch re-reads the data over the network; per-file latency and shared bandwidth starve the GPUs, "
             "especially with many small files or several jobs on the same server.",
             "Copy the data to local NVMe" + (local.empty() ? std::string() : " such as " + local) +
                 " before training, or cache it there: dataset = dataset.cache('/local/nvme/cache'); also read "
                 "TFRecord shards in parallel with interleave(num_parallel_calls=tf.data.AUTOTUNE)."});
      }
    }
  }
}

}  // namespace tfhost::host
