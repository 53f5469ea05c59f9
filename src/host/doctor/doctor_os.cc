// Operating-system rules: swap, CPU frequency governor, transparent huge page
// defragmentation, and the memlock/nofile limits of this process.
#include "host/doctor/doctor.h"

namespace tfhost::host {

namespace {

std::string LimitText(uint64_t v) { return v == kUnlimited ? "unlimited" : std::to_string(v); }

// Below this many descriptors, nofile_limit_low fires; kNofileTarget is what
// the fix aims for (Linux's default fs.nr_open, the most a process may get).
constexpr uint64_t kNofileWanted = 65536;
constexpr uint64_t kNofileTarget = 1048576;

// The nofile fix for the measured limits. An unprivileged process can raise
// its soft limit only up to the hard one, so advice to `ulimit -n` past the
// hard limit fails with "Operation not permitted"; then the hard limit has to
// be raised first, by root.
std::string NofileFix(uint64_t soft, uint64_t hard) {
  const std::string target = std::to_string(kNofileTarget);
  const std::string persist = "persist it with '* soft nofile " + target + "' in /etc/security/limits.conf, LimitNOFILE=" +
                              target + " for a systemd service, --ulimit nofile=" + target + " for docker run";
  if (hard == kUnlimited || hard >= kNofileTarget) {
    return "ulimit -n " + target + " in the shell or job script that starts TensorFlow (the hard limit, " +
           LimitText(hard) + ", allows it); " + persist + ".";
  }
  if (hard >= kNofileWanted) {
    return "ulimit -n " + std::to_string(hard) + " in the shell or job script that starts TensorFlow: that is the hard "
           "limit, the most this user can set; persist it with '* soft nofile " + std::to_string(hard) +
           "' in /etc/security/limits.conf, LimitNOFILE=" + std::to_string(hard) +
           " for a systemd service. To go higher, root must raise the hard limit first ('* hard nofile " + target +
           "').";
  }
  std::string fix = "The hard limit (" + std::to_string(hard) + ") is below " + std::to_string(kNofileWanted) +
                    ", so ulimit -n cannot get there. First raise the hard limit, as root: '* hard nofile " + target +
                    "' in /etc/security/limits.conf (takes effect at the next login), LimitNOFILE=" + target +
                    " for a systemd service, or --ulimit nofile=" + target + ":" + target +
                    " for docker run; then raise the soft limit up to it: ulimit -n " + target + ".";
  if (soft < hard) {
    fix += " Until then, ulimit -n " + std::to_string(hard) + " raises the soft limit to the current hard limit.";
  }
  return fix;
}

// The memlock fix for the measured hard limit (same reason as NofileFix).
std::string MemlockFix(uint64_t hard) {
  const std::string persist = "'* - memlock unlimited' in /etc/security/limits.conf, LimitMEMLOCK=infinity for "
                              "systemd services, --ulimit memlock=-1 for docker run";
  if (hard == kUnlimited) {
    return "ulimit -l unlimited in the shell or job script that starts TensorFlow (the hard limit is unlimited); "
           "persist it with " + persist + ".";
  }
  return "The hard limit (" + std::to_string(hard) + " bytes) keeps ulimit -l from lifting it: root must raise "
         "both limits to unlimited first: " + persist + ".";
}

}  // namespace

void CheckOsSettings(const DoctorInput& in, std::vector<Finding>* out) {
  const HostFacts& f = in.facts;
  const MemoryFacts& m = f.memory;
  if (m.swap_total_bytes > 0 && m.swappiness > 10) {
    out->push_back({"swap_enabled", Severity::kWarning, "swap is on with a high swappiness",
                    GiB(m.swap_total_bytes) + " of swap, vm.swappiness=" + std::to_string(m.swappiness),
                    "When tf.data buffers, the page cache and pinned memory compete, the kernel swaps out pages of the "
                    "training or serving process; a step (or request) that touches them stalls on disk I/O, which "
                    "shows up as periodic throughput drops and latency spikes.",
                    "sysctl -w vm.swappiness=1 (persist in /etc/sysctl.d/), or swapoff -a on dedicated GPU hosts."});
  }
  std::vector<std::string> slow;
  for (const std::string& g : f.cpu.governors) {
    if (g != "performance") slow.push_back(g);
  }
  if (!slow.empty()) {
    std::string list;
    for (const std::string& g : f.cpu.governors) list += (list.empty() ? "" : ", ") + g;
    out->push_back({"cpu_governor_not_performance", Severity::kWarning, "CPU frequency governor is not 'performance'",
                    "scaling_governor: " + list,
                    "Power-saving governors lower clocks between bursts; the input pipeline and kernel launches, "
                    "which are bursty, then run slower and GPU utilisation drops.",
                    "cpupower frequency-set -g performance (or echo performance | tee "
                    "/sys/devices/system/cpu/cpu*/cpufreq/scaling_governor); set it in the BIOS power profile too."});
  }
  if (m.thp_enabled == "always" && m.thp_defrag == "always") {
    out->push_back({"thp_defrag_always", Severity::kWarning,
                    "transparent huge pages defragment synchronously on every fault",
                    "transparent_hugepage/enabled=always, defrag=always",
                    "With defrag=always a page fault may stall in direct compaction for milliseconds; large "
                    "allocations by tf.data and the allocator then cause latency spikes and uneven step times.",
                    "echo madvise > /sys/kernel/mm/transparent_hugepage/defrag (keep enabled=always or madvise)."});
  }
  if (f.limits.known) {
    if (!f.rdma.empty() && f.limits.memlock_soft != kUnlimited) {
      out->push_back({"memlock_limited_with_rdma", Severity::kError, "locked-memory limit is too low for RDMA",
                      "ulimit -l (memlock) is " + LimitText(f.limits.memlock_soft) + " bytes (hard " +
                          LimitText(f.limits.memlock_hard) + ") with " + std::to_string(f.rdma.size()) +
                          " RDMA device(s) present",
                      "NCCL's InfiniBand/RoCE transport registers (pins) its buffers with the NIC; under a memlock "
                      "limit ibv_reg_mr fails and NCCL errors out or falls back to slow sockets.",
                      MemlockFix(f.limits.memlock_hard)});
    }
    if (f.limits.nofile_soft != kUnlimited && f.limits.nofile_soft < kNofileWanted) {
      out->push_back({"nofile_limit_low", Severity::kWarning, "open-file limit is low",
                      "ulimit -n (nofile) is " + LimitText(f.limits.nofile_soft) + " (hard " +
                          LimitText(f.limits.nofile_hard) + ")",
                      "Reading thousands of TFRecord shards in parallel, gRPC connections between workers, and "
                      "serving many clients each hold descriptors; hitting the limit fails with 'Too many open files'.",
                      NofileFix(f.limits.nofile_soft, f.limits.nofile_hard)});
    }
  }
}

}  // namespace tfhost::host
