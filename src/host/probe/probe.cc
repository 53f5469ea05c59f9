// ProbeHost: runs every part of the probe against one root. A snapshot
// folder may carry recordings beside its sys/ and proc/ trees:
// nvidia-smi-q.xml (`nvidia-smi -q -x`), nvidia-smi-topo.txt
// (`nvidia-smi topo -m`) and hwloc.xml (`lstopo --of xml`).
#include <fstream>
#include <sstream>

#include "host/probe/probe.h"

namespace tfhost::host {

namespace {

StatusOr<std::string> ReadWholeFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot open " + path);
  std::ostringstream s;
  s << in.rdbuf();
  if (s.str().size() > (64u << 20)) return InvalidArgument(path + " is larger than 64 MiB");
  return s.str();
}

// NVIDIA display/3D controllers on PCI, for "a GPU is there but NVML is not".
int CountNvidiaPciGpus(const FsReader& fs) {
  StatusOr<std::vector<std::string>> devs = fs.ListDir("/sys/bus/pci/devices");
  if (!devs.ok()) return 0;
  int n = 0;
  for (const std::string& d : *devs) {
    std::string base = "/sys/bus/pci/devices/" + d;
    if (fs.ReadTrimmed(base + "/vendor") != "0x10de") continue;
    std::string cls = fs.ReadTrimmed(base + "/class");
    if (cls.rfind("0x0300", 0) == 0 || cls.rfind("0x0302", 0) == 0) ++n;
  }
  return n;
}

}  // namespace

NvidiaFacts ProbeGpus(const FsReader& fs, Nvml* nvml, Notes* notes) {
  NvidiaFacts facts;
  if (nvml == nullptr) {
    facts.nvml_error = "GPU probing disabled";
    return facts;
  }
  StatusOr<NvidiaFacts> q = nvml->Query();
  if (!q.ok()) {
    facts.nvml_error = q.status().message();
    int pci_gpus = CountNvidiaPciGpus(fs);
    std::string note = "GPU: NVML unavailable (" + facts.nvml_error + ")";
    if (pci_gpus > 0) {
      note += "; " + std::to_string(pci_gpus) + " NVIDIA GPU(s) are on the PCI bus, so the driver is missing or not loaded";
    } else {
      note += "; no NVIDIA GPU on the PCI bus: CPU-only host";
    }
    notes->push_back(note);
    return facts;
  }
  facts = std::move(*q);
  for (GpuFacts& g : facts.gpus) {
    if (g.numa_node >= 0 || g.pci_bus_id.empty()) continue;
    std::string id = g.pci_bus_id;
    for (char& c : id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (id.find(':') != std::string::npos && id.find(':') > 4) id = id.substr(id.find(':') - 4);
    g.numa_node = static_cast<int>(fs.ReadInt("/sys/bus/pci/devices/" + id + "/numa_node"));
  }
  if (facts.gpus.empty()) notes->push_back("GPU: NVML loaded but reports no GPUs");
  return facts;
}

HostFacts ProbeHost(const ProbeOptions& options) {
  HostFacts f;
  std::unique_ptr<FsReader> fs = NewRootedFsReader(options.root);
  const bool live = fs->live();
  const std::string snap = live ? "" : options.root + "/";
  f.cpu = ProbeCpu(*fs, &f.notes);
  std::string hwloc_xml = options.hwloc_xml;
  if (hwloc_xml.empty() && !live && fs->Exists("/hwloc.xml")) hwloc_xml = snap + "hwloc.xml";
  f.numa = ProbeNuma(*fs, hwloc_xml, &f.notes);
  if (!hwloc_xml.empty() || live) {
    StatusOr<std::vector<PcieNode>> pcie = PcieTreeFromHwloc(hwloc_xml);
    if (pcie.ok()) {
      f.pcie = std::move(*pcie);
    } else {
      f.notes.push_back("PCIe tree: " + pcie.status().message());
    }
  }
  f.memory = ProbeMemory(*fs, &f.notes);
  f.disks = ProbeDisks(*fs, &f.notes);
  f.mounts = ProbeMounts(*fs, &f.notes);
  for (const std::string& p : options.paths) {
    PathFacts pf;
    pf.path = p;
    StatusOr<MountFacts> m = MountForPath(*fs, p);
    if (m.ok()) pf.mount = *m;
    else pf.error = m.status().message();
    f.paths.push_back(std::move(pf));
  }
  f.net = ProbeNetInterfaces(*fs, &f.notes);
  f.rdma = ProbeRdma(*fs, &f.notes);

  std::unique_ptr<Nvml> nvml;
  if (options.use_nvml) {
    std::string xml_path = options.nvml_xml, topo_path = options.nvml_topo;
    if (xml_path.empty() && !live && fs->Exists("/nvidia-smi-q.xml")) {
      xml_path = snap + "nvidia-smi-q.xml";
      if (topo_path.empty() && fs->Exists("/nvidia-smi-topo.txt")) topo_path = snap + "nvidia-smi-topo.txt";
    }
    if (!xml_path.empty()) {
      StatusOr<std::string> xml = ReadWholeFile(xml_path);
      StatusOr<std::string> topo = topo_path.empty() ? StatusOr<std::string>(std::string()) : ReadWholeFile(topo_path);
      if (!xml.ok() || !topo.ok()) {
        f.notes.push_back("GPU: " + (xml.ok() ? topo.status() : xml.status()).message());
      } else {
        StatusOr<std::unique_ptr<Nvml>> rec = NvmlFromRecording(*xml, *topo, xml_path);
        if (rec.ok()) nvml = std::move(*rec);
        else f.notes.push_back("GPU: " + rec.status().message());
      }
    } else if (live) {
      nvml = LoadNvml();
    }
  }
  if (nvml == nullptr && options.use_nvml && !live && options.nvml_xml.empty()) {
    f.nvidia.nvml_error = "snapshot has no nvidia-smi-q.xml";
    f.notes.push_back("GPU: no NVIDIA recording in the snapshot: CPU-only host");
  } else {
    f.nvidia = ProbeGpus(*fs, nvml.get(), &f.notes);
  }
  f.libraries = ProbeLibraries(*fs, options.library_dirs, options.ld_library_path, &f.notes);
  f.topology = ProbeTopology(*fs, nvml.get(), f.nvidia, f.rdma, f.net, f.pcie);
  f.env = ProbeEnvironment(*fs, &f.notes);
  f.limits = ProbeLimits(*fs, &f.notes);
  return f;
}

}  // namespace tfhost::host
