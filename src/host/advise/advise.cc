// The advise rules. They look at means over the recording (per GPU and for
// the host) so a short spike does not decide; throttling and disk saturation
// look at the share of samples in which they happened.
#include "host/advise/advise.h"

#include <rapidjson/document.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <sstream>

namespace tfhost::host {

namespace {

std::string Pct(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.0f%%", v);
  return buf;
}

std::string Num(double v, int decimals = 0) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  return buf;
}

double Get(const rapidjson::Value& o, const char* k, double fallback = -1) {
  return o.IsObject() && o.HasMember(k) && o[k].IsNumber() ? o[k].GetDouble() : fallback;
}

struct Summary {
  size_t samples = 0;
  double seconds = 0;
  size_t cpu_samples = 0;  // samples that carry cpu_busy_pct
  double cpu_busy = -1;    // mean; -1 unknown
  size_t gpu_samples = 0;  // GPU entries in samples with rates
  std::vector<double> gpu_util, gpu_mem_pct, gpu_pcie, gpu_nvlink;  // per GPU means (-1 unknown)
  std::vector<std::map<std::string, int>> throttle;      // per GPU: reason -> samples
  std::map<std::string, int> disk_busy_samples;          // disk -> samples at >= kDiskBusyPct
  std::map<std::string, double> disk_mbps;               // disk -> mean read+write MB/s
  // Mean over the GPUs whose utilisation was measured; -1 when none was.
  double MeanGpuUtil() const {
    double s = 0;
    int n = 0;
    for (double u : gpu_util) {
      if (u >= 0) s += u, ++n;
    }
    return n ? s / n : -1;
  }
  static bool AnyKnown(const std::vector<double>& v) {
    return std::any_of(v.begin(), v.end(), [](double x) { return x >= 0; });
  }
  std::string PerGpu(const std::vector<double>& v, bool pct = true) const {
    std::string s;
    for (size_t i = 0; i < v.size() && i < 8; ++i) {
      s += (i ? ", " : "") + std::string("GPU") + std::to_string(i) + " " +
           (v[i] < 0 ? std::string("not measured") : pct ? Pct(v[i]) : Num(v[i]) + " MB/s");
    }
    if (v.size() > 8) s += ", ...";
    return s;
  }
};

Summary Summarize(const std::vector<MonitorSample>& all) {
  Summary s;
  size_t gpus = 0;
  for (const MonitorSample& m : all) gpus = std::max(gpus, m.gpus.size());
  std::vector<double> util(gpus), mem(gpus), pcie(gpus), nvlink(gpus);
  std::vector<int> util_n(gpus), mem_n(gpus), pcie_n(gpus), nvlink_n(gpus);
  s.throttle.resize(gpus);
  double cpu_sum = 0;
  for (const MonitorSample& m : all) {
    if (m.host.interval_s <= 0) continue;  // the priming sample has no rates
    ++s.samples;
    s.seconds += m.host.interval_s;
    if (m.host.cpu_busy_pct >= 0) cpu_sum += m.host.cpu_busy_pct, ++s.cpu_samples;
    for (const auto& [name, d] : m.host.disks) {
      if (d.busy_pct >= kDiskBusyPct) ++s.disk_busy_samples[name];
      s.disk_mbps[name] += d.read_mbps + d.write_mbps;
    }
    s.gpu_samples += m.gpus.size();
    for (size_t i = 0; i < m.gpus.size(); ++i) {
      const GpuSample& g = m.gpus[i];
      if (g.util_pct >= 0) util[i] += g.util_pct, ++util_n[i];
      if (g.mem_total_bytes > 0) {
        mem[i] += 100.0 * static_cast<double>(g.mem_used_bytes) / static_cast<double>(g.mem_total_bytes);
        ++mem_n[i];
      }
      if (g.pcie_tx_mbps >= 0 && g.pcie_rx_mbps >= 0) pcie[i] += g.pcie_tx_mbps + g.pcie_rx_mbps, ++pcie_n[i];
      if (g.nvlink_tx_mbps >= 0 && g.nvlink_rx_mbps >= 0) nvlink[i] += g.nvlink_tx_mbps + g.nvlink_rx_mbps, ++nvlink_n[i];
      for (const std::string& r : g.throttle_reasons) ++s.throttle[i][r];
    }
  }
  if (s.samples > 0) {
    for (auto& [name, v] : s.disk_mbps) v /= static_cast<double>(s.samples);
  }
  if (s.cpu_samples > 0) s.cpu_busy = cpu_sum / static_cast<double>(s.cpu_samples);
  for (size_t i = 0; i < gpus; ++i) {
    s.gpu_util.push_back(util_n[i] ? util[i] / util_n[i] : -1);
    s.gpu_mem_pct.push_back(mem_n[i] ? mem[i] / mem_n[i] : -1);
    s.gpu_pcie.push_back(pcie_n[i] ? pcie[i] / pcie_n[i] : -1);
    s.gpu_nvlink.push_back(nvlink_n[i] ? nvlink[i] / nvlink_n[i] : -1);
  }
  return s;
}

// Why each rule cannot be judged on this recording, or "" when it can. A
// rule whose metric is absent must not be reported as if it had been
// checked and found clear.
std::map<std::string, std::string> UnjudgedReasons(const Summary& s) {
  std::map<std::string, std::string> why;
  if (s.samples == 0) {
    for (const std::string& id : AdviseRuleIds()) {
      why[id] = "no samples with rates in the recording (it is empty or holds only a first, priming sample)";
    }
    return why;
  }
  const std::string no_gpu = "no GPU samples in the recording";
  const std::string no_util = "the GPU samples carry no utilisation (util_pct)";
  const std::string no_cpu = "the samples carry no CPU busy figure (cpu_busy_pct)";
  const bool gpu = s.gpu_samples > 0, util = Summary::AnyKnown(s.gpu_util), cpu = s.cpu_samples > 0;
  const std::string gpu_util_gap = !gpu ? no_gpu : !util ? no_util : "";
  for (const char* id : {"input_bound", "launch_bound"}) {
    why[id] = !gpu_util_gap.empty() ? gpu_util_gap : !cpu ? no_cpu : "";
  }
  why["memory_bound"] = !gpu_util_gap.empty()                 ? gpu_util_gap
                        : !Summary::AnyKnown(s.gpu_mem_pct) ? "the GPU samples carry no memory total (mem_total_bytes)"
                                                            : "";
  why["host_device_copies"] = !gpu ? no_gpu
                              : !Summary::AnyKnown(s.gpu_pcie)
                                  ? "the GPU samples carry no PCIe throughput (pcie_tx_mbps, pcie_rx_mbps)"
                                  : "";
  // Throttle reasons come with every GPU sample (an empty list: none active).
  why["gpu_throttled"] = !gpu ? no_gpu : "";
  why["storage_bound"] = s.disk_mbps.empty() ? "no disk counters in the recording" : "";
  size_t linked = 0;
  for (double v : s.gpu_nvlink) linked += v >= 0;
  why["nvlink_idle"] = !gpu                    ? no_gpu
                       : s.gpu_util.size() < 2 ? "it needs 2 or more GPUs; the recording has " +
                                                     std::to_string(s.gpu_util.size())
                       : linked < 2            ? "fewer than 2 GPUs carry NVLink counters (nvlink_tx_mbps, "
                                                 "nvlink_rx_mbps): no NVLink, or the driver does not report it"
                       : !util                 ? no_util
                                               : "";
  return why;
}

std::string Over(const Summary& s) {
  return " over " + std::to_string(s.samples) + " samples (" + Num(s.seconds) + " s)";
}

}  // namespace

const std::vector<std::string>& AdviseRuleIds() {
  static const std::vector<std::string> ids = {"input_bound",   "memory_bound",  "launch_bound",
                                               "host_device_copies", "gpu_throttled", "storage_bound",
                                               "nvlink_idle"};
  return ids;
}

StatusOr<MonitorSample> ParseSampleJsonLine(const std::string& line) {
  rapidjson::Document d;
  d.Parse(line.c_str(), line.size());
  if (d.HasParseError() || !d.IsObject()) return InvalidArgument("not a JSON object");
  MonitorSample s;
  s.time_s = Get(d, "time", 0);
  if (d.HasMember("host") && d["host"].IsString()) s.hostname = d["host"].GetString();
  s.host.interval_s = Get(d, "interval_s", 0);
  s.host.cpu_busy_pct = Get(d, "cpu_busy_pct", -1);
  if (d.HasMember("core_busy_pct") && d["core_busy_pct"].IsArray()) {
    for (const auto& v : d["core_busy_pct"].GetArray()) if (v.IsNumber()) s.host.core_busy_pct.push_back(v.GetDouble());
  }
  s.host.mem_used_bytes = static_cast<uint64_t>(std::max(0.0, Get(d, "mem_used_bytes", 0)));
  s.host.mem_total_bytes = static_cast<uint64_t>(std::max(0.0, Get(d, "mem_total_bytes", 0)));
  if (d.HasMember("disks") && d["disks"].IsObject()) {
    for (auto it = d["disks"].MemberBegin(); it != d["disks"].MemberEnd(); ++it) {
      DiskRate r;
      r.read_iops = Get(it->value, "read_iops", 0);
      r.write_iops = Get(it->value, "write_iops", 0);
      r.read_mbps = Get(it->value, "read_mbps", 0);
      r.write_mbps = Get(it->value, "write_mbps", 0);
      r.busy_pct = Get(it->value, "busy_pct", 0);
      s.host.disks[it->name.GetString()] = r;
    }
  }
  for (auto [key, map] : {std::pair{"net", &s.host.net}, {"rdma", &s.host.rdma}}) {
    if (!d.HasMember(key) || !d[key].IsObject()) continue;
    for (auto it = d[key].MemberBegin(); it != d[key].MemberEnd(); ++it) {
      (*map)[it->name.GetString()] = {Get(it->value, "rx_mbps", 0), Get(it->value, "tx_mbps", 0)};
    }
  }
  if (d.HasMember("gpus") && d["gpus"].IsArray()) {
    for (const auto& g : d["gpus"].GetArray()) {
      if (!g.IsObject()) return InvalidArgument("gpus[] entries must be objects");
      GpuSample x;
      x.index = static_cast<int>(Get(g, "index", static_cast<double>(s.gpus.size())));
      if (g.HasMember("uuid") && g["uuid"].IsString()) x.uuid = g["uuid"].GetString();
      x.util_pct = static_cast<int>(Get(g, "util_pct"));
      x.mem_util_pct = static_cast<int>(Get(g, "mem_util_pct"));
      x.mem_used_bytes = static_cast<uint64_t>(std::max(0.0, Get(g, "mem_used_bytes", 0)));
      x.mem_total_bytes = static_cast<uint64_t>(std::max(0.0, Get(g, "mem_total_bytes", 0)));
      x.power_w = Get(g, "power_w");
      x.power_limit_w = Get(g, "power_limit_w");
      x.temp_c = static_cast<int>(Get(g, "temp_c"));
      x.sm_clock_mhz = static_cast<int>(Get(g, "sm_clock_mhz"));
      x.mem_clock_mhz = static_cast<int>(Get(g, "mem_clock_mhz"));
      x.pcie_tx_mbps = Get(g, "pcie_tx_mbps");
      x.pcie_rx_mbps = Get(g, "pcie_rx_mbps");
      x.nvlink_tx_mbps = Get(g, "nvlink_tx_mbps");
      x.nvlink_rx_mbps = Get(g, "nvlink_rx_mbps");
      if (g.HasMember("throttle_reasons") && g["throttle_reasons"].IsArray()) {
        for (const auto& r : g["throttle_reasons"].GetArray()) if (r.IsString()) x.throttle_reasons.push_back(r.GetString());
      }
      s.gpus.push_back(std::move(x));
    }
  }
  return s;
}

StatusOr<std::vector<MonitorSample>> ParseRecording(const std::string& text) {
  std::vector<MonitorSample> out;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    StatusOr<MonitorSample> s = ParseSampleJsonLine(line);
    if (!s.ok()) return s.status().WithContext("recording line " + std::to_string(n));
    out.push_back(std::move(*s));
    if (out.size() > 10000000) return InvalidArgument("recording has more than 10 million samples");
  }
  return out;
}

AdviseReport RunAdvise(const std::vector<MonitorSample>& samples) {
  AdviseReport report;
  const Summary s = Summarize(samples);
  report.samples = s.samples;
  report.seconds = s.seconds;
  report.gpus = s.gpu_util.size();
  const std::map<std::string, std::string> unjudged = UnjudgedReasons(s);
  for (const std::string& id : AdviseRuleIds()) {
    if (!unjudged.at(id).empty()) report.not_judged.push_back({id, unjudged.at(id)});
  }
  if (s.samples == 0) return report;
  std::vector<Finding>& out = report.findings;
  const double gpu = s.MeanGpuUtil();
  const bool have_gpu = gpu >= 0;
  const bool have_cpu = s.cpu_busy >= 0;
  const std::string gpu_ev = have_gpu ? "GPU utilisation mean " + Pct(gpu) + " (" + s.PerGpu(s.gpu_util) + ")" : "";
  const std::string cpu_ev = "CPU busy mean " + Pct(s.cpu_busy);
  double mem = -1;
  for (double m : s.gpu_mem_pct) mem = std::max(mem, m);
  const bool memory_bound = have_gpu && gpu < kMemoryBoundGpuPct && mem >= kMemoryFullPct;
  if (have_gpu && have_cpu && gpu < kBusyGpuPct && s.cpu_busy >= kCpuSaturatedPct) {
    out.push_back({"input_bound", Severity::kWarning, "the GPUs wait for input: the CPUs are saturated",
                   gpu_ev + "; " + cpu_ev + Over(s),
                   "With the CPUs busy and the GPUs below 80%, the tf.data pipeline (reading, decoding, augmenting, "
                   "batching) cannot produce batches as fast as the GPUs consume them.",
                   "Parallelise and overlap the pipeline: interleave(num_parallel_calls=tf.data.AUTOTUNE) over "
                   "TFRecord shards, map(..., num_parallel_calls=tf.data.AUTOTUNE), .prefetch(tf.data.AUTOTUNE); cache "
                   "decoded data locally (dataset.cache()); move augmentation to the GPU; preprocess offline."});
  }
  if (memory_bound) {
    out.push_back({"memory_bound", Severity::kWarning, "GPU memory is nearly full while utilisation is low",
                   gpu_ev + "; GPU memory used up to " + Pct(mem) + " (" + s.PerGpu(s.gpu_mem_pct) + ")" + Over(s),
                   "A model that barely fits forces small batches (low utilisation per kernel) and leaves no room "
                   "for the allocator, which then fragments and synchronises.",
                   "Use mixed precision (tf.keras.mixed_precision.set_global_policy('mixed_float16')), a smaller batch "
                   "with gradient accumulation, or a GPU with more memory."});
  }
  if (have_gpu && have_cpu && gpu < kBusyGpuPct && s.cpu_busy < kCpuIdlePct && !memory_bound) {
    out.push_back({"launch_bound", Severity::kWarning, "the GPUs are underused and the CPUs are idle",
                   gpu_ev + "; " + cpu_ev + Over(s) +
                       (mem < 0 ? "; GPU memory was not recorded, so memory_bound could not be ruled out" : ""),
                   "Neither the GPU nor the input pipeline is the limit: the step is dominated by many small kernel "
                   "launches, Python overhead or synchronisation, so the GPU idles between kernels.",
                   "Give each step more work: a larger batch, XLA (jit_compile=True or TF_XLA_FLAGS=--tf_xla_auto_jit=2) "
                   "to fuse small ops, mixed precision, and tf.function around the training step."});
  }
  for (size_t i = 0; i < s.gpu_pcie.size(); ++i) {
    if (s.gpu_pcie[i] < kPcieHeavyMBps) continue;
    out.push_back({"host_device_copies", Severity::kWarning, "heavy PCIe traffic between host and GPU",
                   "GPU" + std::to_string(i) + " PCIe tx+rx mean " + Num(s.gpu_pcie[i]) + " MB/s" + Over(s) +
                       (have_gpu ? "; " + gpu_ev : ""),
                   "Data crossing PCIe every step (uncached inputs, tensors bounced to the CPU by ops without GPU "
                   "kernels, soft device placement) takes time the GPU spends waiting.",
                   "Keep tensors on the GPU: find ops placed on the CPU with tf.debugging.set_log_device_placement(True), "
                   "prefetch to the GPU (tf.data.experimental.prefetch_to_device), and keep the input in a compact "
                   "dtype (uint8 images) until it is on the GPU."});
    break;  // one finding names the first GPU; the evidence shows the rest
  }
  // Idle NVLink while several GPUs work: they are not all-reducing over it.
  size_t linked = 0, idle = 0;
  std::string nv_ev;
  for (size_t i = 0; i < s.gpu_nvlink.size(); ++i) {
    if (s.gpu_nvlink[i] < 0) continue;
    ++linked;
    idle += s.gpu_nvlink[i] < kNvLinkIdleMBps;
    nv_ev += (nv_ev.empty() ? "" : ", ") + std::string("GPU") + std::to_string(i) + " " + Num(s.gpu_nvlink[i], 1) + " MB/s";
  }
  if (linked >= 2 && idle == linked && have_gpu && gpu >= kNvLinkBusyGpuPct) {
    out.push_back({"nvlink_idle", Severity::kWarning, "NVLink is idle while the GPUs work",
                   "NVLink tx+rx mean " + nv_ev + "; " + gpu_ev + Over(s),
                   "Multi-GPU data-parallel training all-reduces gradients every step, which on NVLink machines shows "
                   "as steady NVLink traffic. None means the GPUs train independently (a single-GPU or misconfigured "
                   "strategy) or NCCL routes around NVLink (NCCL_P2P_DISABLE=1, P2P blocked by a container or IOMMU).",
                   "Use tf.distribute.MirroredStrategy (one host) or MultiWorkerMirroredStrategy with NCCL "
                   "(CommunicationImplementation.NCCL); unset NCCL_P2P_DISABLE; check with NCCL_DEBUG=INFO that "
                   "channels use P2P/NVLink ('via P2P/IPC' or 'NVLS')."});
  }
  // Throttling: one finding naming every GPU throttled in >= 10% of samples.
  std::string throttled;
  bool thermal = false;
  for (size_t i = 0; i < s.throttle.size(); ++i) {
    for (const auto& [r, n] : s.throttle[i]) {
      // Clock settings chosen by the admin or sync boost are not slowdowns.
      if (r == "applications_clocks_setting" || r == "display_clock_setting" || r == "sync_boost") continue;
      if (static_cast<double>(n) < kThrottledShare * static_cast<double>(s.samples)) continue;
      throttled += (throttled.empty() ? "" : "; ") + std::string("GPU") + std::to_string(i) + " " + r + " in " +
                   std::to_string(n) + " of " + std::to_string(s.samples) + " samples (" +
                   Pct(100.0 * n / static_cast<double>(s.samples)) + ")";
      thermal |= r.find("thermal") != std::string::npos;
    }
  }
  if (!throttled.empty()) {
    out.push_back({"gpu_throttled", Severity::kWarning, "GPU clocks were throttled", throttled,
                   "Throttled clocks cut throughput directly; sustained power capping or thermal slowdown means the "
                   "GPU cannot run at the speed the job was sized for.",
                   thermal ? "Check cooling and airflow (nvidia-smi -q -d TEMPERATURE,PERFORMANCE), fan and inlet "
                             "temperatures, and that the GPU is not in a hot slot."
                           : "Check the power limit (nvidia-smi -q -d POWER; raise it with nvidia-smi -pl up to the "
                             "default/max), the PSU and the power cabling."});
  }
  for (const auto& [disk, n] : s.disk_busy_samples) {
    if (static_cast<double>(n) < 0.5 * static_cast<double>(s.samples) || (have_gpu && gpu >= kBusyGpuPct)) continue;
    out.push_back({"storage_bound", Severity::kWarning, "a disk is at its ceiling",
                   "disk " + disk + " busy >= " + Pct(kDiskBusyPct) + " in " + std::to_string(n) + " of " +
                       std::to_string(s.samples) + " samples, " + Num(s.disk_mbps.at(disk), 1) + " MB/s mean" +
                       (have_gpu ? "; " + gpu_ev
                                 : "; the recording has no GPU utilisation, so whether GPUs waited on the disk is "
                                   "not known"),
                   "Reading training data from a saturated disk stalls the input pipeline no matter how many CPU "
                   "threads it has.",
                   "Read fewer, larger files (TFRecord shards of 100-200 MB), cache the dataset in RAM or on a faster "
                   "NVMe (dataset.cache()), or spread the data across disks."});
  }
  return report;
}

std::vector<Finding> Advise(const std::vector<MonitorSample>& samples) { return RunAdvise(samples).findings; }

std::string NoFindingVerdict(const AdviseReport& report) {
  const size_t all = AdviseRuleIds().size(), unjudged = report.not_judged.size();
  if (unjudged == all) return "No rule could be judged on this recording.";
  if (unjudged == 0) return "No bottleneck found: none of the " + std::to_string(all) + " rules fired.";
  std::string judged;
  for (const std::string& id : AdviseRuleIds()) {
    bool skipped = std::any_of(report.not_judged.begin(), report.not_judged.end(),
                               [&](const UnjudgedRule& u) { return u.id == id; });
    if (!skipped) judged += (judged.empty() ? "" : ", ") + id;
  }
  return "No bottleneck found by the " + std::to_string(all - unjudged) + " of " + std::to_string(all) +
         " rules that could be judged (" + judged + ").";
}

std::string FormatAdviseText(const AdviseReport& report) {
  std::string out = report.findings.empty() ? NoFindingVerdict(report) + "\n" : FormatFindingsText(report.findings);
  if (!report.not_judged.empty()) {
    out += "\nNot judged (" + std::to_string(report.not_judged.size()) + " of " +
           std::to_string(AdviseRuleIds().size()) + " rules):\n";
    for (const UnjudgedRule& u : report.not_judged) out += "  " + u.id + ": " + u.reason + "\n";
  }
  return out;
}

std::string FormatAdviseJson(const AdviseReport& report) {
  rapidjson::StringBuffer buf;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buf);
  auto str = [&w](const std::string& v) { w.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size())); };
  w.StartObject();
  w.Key("status");
  w.Int(DoctorExitStatus(report.findings));
  w.Key("samples");
  w.Uint64(report.samples);
  w.Key("gpus");
  w.Uint64(report.gpus);
  w.Key("findings");
  w.StartArray();
  for (const Finding& f : report.findings) {
    w.StartObject();
    for (auto [k, v] : {std::pair{"id", &f.id}, {"title", &f.title}, {"evidence", &f.evidence}, {"why", &f.why},
                        {"fix", &f.fix}}) {
      w.Key(k);
      str(*v);
    }
    w.Key("severity");
    w.String(SeverityName(f.severity));
    w.EndObject();
  }
  w.EndArray();
  w.Key("not_judged");
  w.StartArray();
  for (const UnjudgedRule& u : report.not_judged) {
    w.StartObject();
    w.Key("id");
    str(u.id);
    w.Key("reason");
    str(u.reason);
    w.EndObject();
  }
  w.EndArray();
  if (report.findings.empty()) {
    w.Key("verdict");
    str(NoFindingVerdict(report));
  }
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize()) + "\n";
}

}  // namespace tfhost::host
