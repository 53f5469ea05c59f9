// The recorded Nvml: `nvidia-smi -q -x` XML plus optional `nvidia-smi topo -m`
// text from a real machine. nvidia-smi's XML has no NVLink peers and (before
// recent drivers) no compute capability, so peers come from the topology's
// NV<n> cells and the capability from the product name.
#include <cctype>
#include <sstream>

#include "host/probe/mini_xml.h"
#include "host/probe/nvml.h"
#include "host/probe/probe.h"

namespace tfhost::host {

namespace {

// "81920 MiB" -> bytes.
uint64_t ParseMemory(const std::string& text) {
  double v = std::strtod(text.c_str(), nullptr);
  if (v <= 0) return 0;
  double unit = 1;
  if (text.find("GiB") != std::string::npos) unit = 1024.0 * 1024 * 1024;
  else if (text.find("MiB") != std::string::npos) unit = 1024.0 * 1024;
  else if (text.find("KiB") != std::string::npos) unit = 1024.0;
  return static_cast<uint64_t>(v * unit);
}

int ParseIntOr(const std::string& text, int fallback) {
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return fallback;
  return std::atoi(text.c_str());
}

std::string FirstNonEmpty(std::initializer_list<std::string> v) {
  for (const std::string& s : v) if (!s.empty() && s != "N/A") return s;
  return "";
}

// "35 %", "1410 MHz", "65.43 W", "34 C" -> the number; -1 for "N/A".
double Number(const std::string& text) {
  if (text.empty() || !(std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '-')) return -1;
  return std::strtod(text.c_str(), nullptr);
}

// The metrics part of one <gpu> element.
GpuSample SampleFromXml(const XmlElement& g, const GpuFacts& facts) {
  GpuSample s;
  s.index = facts.index;
  s.uuid = facts.uuid;
  s.name = facts.name;
  s.pci_bus_id = facts.pci_bus_id;
  s.util_pct = static_cast<int>(Number(g.Text("utilization/gpu_util")));
  s.mem_util_pct = static_cast<int>(Number(g.Text("utilization/memory_util")));
  s.mem_total_bytes = facts.memory_total_bytes;
  s.mem_used_bytes = ParseMemory(g.Text("fb_memory_usage/used"));
  s.power_w = Number(FirstNonEmpty({g.Text("power_readings/power_draw"), g.Text("gpu_power_readings/power_draw"),
                                    g.Text("gpu_power_readings/instant_power_draw")}));
  s.power_limit_w = facts.power_limit_watts;
  s.temp_c = static_cast<int>(Number(g.Text("temperature/gpu_temp")));
  s.sm_clock_mhz = static_cast<int>(Number(g.Text("clocks/sm_clock")));
  s.mem_clock_mhz = static_cast<int>(Number(g.Text("clocks/mem_clock")));
  double tx = Number(g.Text("pci/tx_util")), rx = Number(g.Text("pci/rx_util"));  // KB/s
  s.pcie_tx_mbps = tx < 0 ? -1 : tx / 1000.0;
  s.pcie_rx_mbps = rx < 0 ? -1 : rx / 1000.0;
  // Older drivers say clocks_throttle_reasons, newer clocks_event_reasons.
  const XmlElement* reasons = g.Child("clocks_throttle_reasons");
  if (reasons == nullptr) reasons = g.Child("clocks_event_reasons");
  if (reasons != nullptr) {
    for (const auto& r : reasons->children) {
      if (r->text != "Active") continue;
      std::string name = r->name;
      for (const char* prefix : {"clocks_throttle_reason_", "clocks_event_reason_"}) {
        if (name.rfind(prefix, 0) == 0) name = name.substr(std::string(prefix).size());
      }
      if (name != "gpu_idle") s.throttle_reasons.push_back(name);
    }
  }
  std::string dbe = FirstNonEmpty({g.Text("ecc_errors/volatile/dram_uncorrectable"),
                                   g.Text("ecc_errors/volatile/double_bit/total")});
  if (!dbe.empty()) s.ecc_dbe_volatile = static_cast<int64_t>(Number(dbe));
  std::string pending = g.Text("remapped_rows/remapped_row_pending");
  if (!pending.empty() && pending != "N/A") s.remapped_rows_pending = pending == "Yes" ? 1 : 0;
  if (const XmlElement* procs = g.Child("processes")) {
    for (const XmlElement* p : procs->Children("process_info")) {
      GpuProcess proc;
      proc.pid = static_cast<uint32_t>(std::strtoul(p->Text("pid").c_str(), nullptr, 10));
      proc.used_bytes = ParseMemory(p->Text("used_memory"));
      s.processes.push_back(proc);
    }
  }
  return s;
}

class RecordedNvml : public Nvml {
 public:
  RecordedNvml(NvidiaFacts facts, TopologyMatrix topo, std::vector<GpuSample> samples)
      : facts_(std::move(facts)), topo_(std::move(topo)), samples_(std::move(samples)) {}
  StatusOr<NvidiaFacts> Query() override { return facts_; }
  TopologyMatrix RecordedTopology() const override { return topo_; }
  StatusOr<std::vector<GpuSample>> Sample() override { return samples_; }

 private:
  NvidiaFacts facts_;
  TopologyMatrix topo_;
  std::vector<GpuSample> samples_;
};

}  // namespace

int ParseCudaVersion(const std::string& text) {
  std::vector<std::string> parts = SplitNonEmpty(Trim(text), ".");
  if (parts.empty() || !std::isdigit(static_cast<unsigned char>(parts[0][0]))) return -1;
  int major = std::atoi(parts[0].c_str());
  int minor = parts.size() > 1 ? std::atoi(parts[1].c_str()) : 0;
  if (major < 0 || major > 1000 || minor < 0 || minor > 99) return -1;
  return major * 1000 + minor * 10;
}

// Compute capability by product name, from NVIDIA's CUDA GPUs table
// (developer.nvidia.com/cuda-gpus). Longest/most specific patterns first.
void ComputeCapabilityFromName(const std::string& name, int* major, int* minor) {
  struct Row {
    const char* pattern;
    int major, minor;
  };
  static const Row kRows[] = {
      {"GB200", 10, 0}, {"B200", 10, 0}, {"B100", 10, 0}, {"GH200", 9, 0}, {"H200", 9, 0}, {"H100", 9, 0},
      {"H800", 9, 0},   {"L40", 8, 9},   {"L4", 8, 9},    {"RTX 40", 8, 9}, {"Ada", 8, 9},  {"A100", 8, 0},
      {"A800", 8, 0},   {"A30", 8, 0},   {"A40", 8, 6},   {"A10", 8, 6},    {"A16", 8, 6},  {"A2", 8, 6},
      {"RTX A", 8, 6},  {"RTX 30", 8, 6}, {"T4", 7, 5},   {"RTX 20", 7, 5}, {"Quadro RTX", 7, 5},
      {"V100", 7, 0},   {"TITAN V", 7, 0}, {"P100", 6, 0}, {"P40", 6, 1},   {"P4", 6, 1},   {"K80", 3, 7}};
  for (const Row& r : kRows) {
    if (name.find(r.pattern) != std::string::npos) {
      *major = r.major;
      *minor = r.minor;
      return;
    }
  }
}

StatusOr<TopologyMatrix> ParseTopoMatrix(const std::string& text) {
  TopologyMatrix m;
  std::istringstream in(text);
  std::string line;
  std::vector<std::vector<std::string>> rows;
  bool in_nic_legend = false;
  std::vector<std::pair<std::string, std::string>> nic_names;
  while (std::getline(in, line)) {
    std::string t = Trim(line);
    if (t.rfind("NIC Legend", 0) == 0) {
      in_nic_legend = true;
      continue;
    }
    if (in_nic_legend) {
      size_t colon = t.find(':');
      if (t.rfind("NIC", 0) == 0 && colon != std::string::npos) {
        nic_names.push_back({Trim(t.substr(0, colon)), Trim(t.substr(colon + 1))});
      }
      continue;
    }
    if (t.rfind("Legend", 0) == 0) {
      if (m.labels.empty()) return InvalidArgument("topo -m: legend before any matrix header");
      // Skip the legend body, but a NIC legend may follow.
      continue;
    }
    if (t.empty()) continue;
    std::vector<std::string> tok = SplitNonEmpty(t, " \t");
    if (m.labels.empty()) {
      for (const std::string& s : tok) {
        if (s == "CPU" || s == "NUMA") break;
        m.labels.push_back(s);
      }
      if (m.labels.empty() || m.labels.size() > 1024) return InvalidArgument("topo -m: no device labels in header");
      continue;
    }
    if (tok.size() < m.labels.size() + 1) continue;  // legend prose: "X    = Self"
    bool is_row = false;
    for (const std::string& l : m.labels) is_row |= tok[0] == l;
    if (!is_row) continue;
    if (rows.size() < m.labels.size()) rows.push_back(tok);
  }
  if (m.labels.empty()) return InvalidArgument("topo -m: no matrix found");
  if (rows.size() != m.labels.size()) {
    return InvalidArgument("topo -m: header names " + std::to_string(m.labels.size()) + " devices but " +
                           std::to_string(rows.size()) + " rows follow");
  }
  const size_t n = m.labels.size();
  for (size_t i = 0; i < n; ++i) {
    const std::vector<std::string>& r = rows[i];
    if (r[0] != m.labels[i]) return InvalidArgument("topo -m: row " + std::to_string(i) + " is " + r[0]);
    m.cells.emplace_back(r.begin() + 1, r.begin() + 1 + static_cast<long>(n));
    m.cpu_affinity.push_back(r.size() > n + 1 ? r[n + 1] : "");
    m.numa_affinity.push_back(r.size() > n + 2 ? r[n + 2] : "");
  }
  for (auto& [nic, name] : nic_names) {
    for (std::string& l : m.labels) if (l == nic) l = name;
  }
  return m;
}

StatusOr<std::unique_ptr<Nvml>> NvmlFromRecording(const std::string& smi_xml, const std::string& topo_text,
                                                  const std::string& source_name) {
  TFHOST_ASSIGN_OR_RETURN(std::unique_ptr<XmlElement> root, ParseXml(smi_xml));
  if (root->name != "nvidia_smi_log") {
    return InvalidArgument(source_name + ": root element is <" + root->name + ">, expected <nvidia_smi_log>");
  }
  NvidiaFacts facts;
  facts.nvml_loaded = true;
  facts.source = source_name;
  facts.driver_version = root->Text("driver_version");
  facts.cuda_driver_version = ParseCudaVersion(root->Text("cuda_version"));
  int index = 0;
  std::vector<const XmlElement*> gpu_elements = root->Children("gpu");
  for (const XmlElement* g : gpu_elements) {
    GpuFacts gpu;
    gpu.index = index++;
    gpu.name = g->Text("product_name");
    gpu.uuid = g->Text("uuid");
    gpu.pci_bus_id = FirstNonEmpty({g->Text("pci/pci_bus_id"), g->attributes.count("id") ? g->attributes.at("id") : ""});
    gpu.memory_total_bytes = ParseMemory(g->Text("fb_memory_usage/total"));
    const std::string link = "pci/pci_gpu_link_info/";
    gpu.pcie_gen_max = ParseIntOr(FirstNonEmpty({g->Text(link + "pcie_gen/max_link_gen"),
                                                 g->Text(link + "pcie_gen/max_device_link_gen")}), -1);
    gpu.pcie_gen_current = ParseIntOr(FirstNonEmpty({g->Text(link + "pcie_gen/current_link_gen"),
                                                     g->Text(link + "pcie_gen/device_current_link_gen")}), -1);
    gpu.pcie_width_max = ParseIntOr(g->Text(link + "link_widths/max_link_width"), -1);
    gpu.pcie_width_current = ParseIntOr(g->Text(link + "link_widths/current_link_width"), -1);
    gpu.mig_mode = FirstNonEmpty({g->Text("mig_mode/current_mig")});
    if (gpu.mig_mode.empty()) gpu.mig_mode = "N/A";
    gpu.persistence_mode = g->Text("persistence_mode");
    std::string power = FirstNonEmpty({g->Text("power_readings/power_limit"),
                                       g->Text("gpu_power_readings/current_power_limit")});
    if (!power.empty()) gpu.power_limit_watts = static_cast<int>(std::strtod(power.c_str(), nullptr));
    std::string cc = g->Text("compute_cap");
    if (!cc.empty() && cc.find('.') != std::string::npos) {
      gpu.cc_major = std::atoi(cc.c_str());
      gpu.cc_minor = std::atoi(cc.c_str() + cc.find('.') + 1);
    } else {
      ComputeCapabilityFromName(gpu.name, &gpu.cc_major, &gpu.cc_minor);
    }
    facts.gpus.push_back(std::move(gpu));
  }
  TopologyMatrix topo;
  if (!topo_text.empty()) {
    StatusOr<TopologyMatrix> parsed = ParseTopoMatrix(topo_text);
    if (!parsed.ok()) return parsed.status().WithContext(source_name);
    topo = std::move(*parsed);
    // GPU rows give NUMA nodes and NVLink peers.
    for (size_t i = 0; i < topo.labels.size(); ++i) {
      const std::string& li = topo.labels[i];
      if (li.rfind("GPU", 0) != 0) continue;
      int gi = std::atoi(li.c_str() + 3);
      if (gi < 0 || gi >= static_cast<int>(facts.gpus.size())) continue;
      GpuFacts& g = facts.gpus[static_cast<size_t>(gi)];
      if (!topo.numa_affinity[i].empty() && std::isdigit(static_cast<unsigned char>(topo.numa_affinity[i][0]))) {
        g.numa_node = std::atoi(topo.numa_affinity[i].c_str());
      }
      // NVSwitch systems (DGX/HGX) show the same NV<n> to every other GPU:
      // n links into the switch fabric, not n links per peer.
      std::vector<std::string> gpu_cells;
      for (size_t j = 0; j < topo.labels.size(); ++j) {
        if (j != i && topo.labels[j].rfind("GPU", 0) == 0) gpu_cells.push_back(topo.cells[i][j]);
      }
      bool switched = gpu_cells.size() >= 2 && gpu_cells[0].rfind("NV", 0) == 0;
      for (const std::string& c : gpu_cells) switched &= c == gpu_cells[0];
      if (switched) {
        int count = std::atoi(gpu_cells[0].c_str() + 2);
        for (int k = 0; k < count && k < 64; ++k) {
          NvLinkFacts l;
          l.link = k;
          l.active = true;
          g.nvlinks.push_back(l);  // remote_gpu -1: an NVSwitch
        }
        continue;
      }
      int link_no = 0;
      for (size_t j = 0; j < topo.labels.size(); ++j) {
        const std::string& cell = topo.cells[i][j];
        if (cell.size() < 3 || cell.compare(0, 2, "NV") != 0) continue;
        int count = std::atoi(cell.c_str() + 2);
        int gj = std::atoi(topo.labels[j].c_str() + 3);
        if (count <= 0 || count > 64 || gj < 0 || gj >= static_cast<int>(facts.gpus.size())) continue;
        for (int k = 0; k < count; ++k) {
          NvLinkFacts l;
          l.link = link_no++;
          l.active = true;
          l.remote_gpu = gj;
          l.remote_pci_bus_id = facts.gpus[static_cast<size_t>(gj)].pci_bus_id;
          g.nvlinks.push_back(l);
        }
      }
    }
  }
  std::vector<GpuSample> samples;
  for (size_t i = 0; i < gpu_elements.size(); ++i) samples.push_back(SampleFromXml(*gpu_elements[i], facts.gpus[i]));
  return std::unique_ptr<Nvml>(new RecordedNvml(std::move(facts), std::move(topo), std::move(samples)));
}

}  // namespace tfhost::host
