// The live Nvml: libnvidia-ml.so.1 loaded with dlopen, entry points resolved
// with dlsym. No NVIDIA header is needed: the declarations below follow the
// NVML API reference (docs.nvidia.com/deploy/nvml-api), and only calls that
// have been stable since R450 are used. A missing optional symbol just leaves
// its fact unknown. Every constant, signature and struct layout below was
// checked against nvml.h of Debian 12's libnvidia-ml-dev 11.8.86 (sizes and
// offsets of nvmlFieldValue_t, nvmlPciInfo_t and nvmlProcessInfo_v1_t, field
// ids 138/139, scopeId UINT_MAX, throttle bits, clock/ECC/PCIe enums).
#include <dlfcn.h>

#include <cstring>

#include "host/probe/nvml.h"

namespace tfhost::host {

namespace {

// From the NVML API reference.
using nvmlReturn_t = int;
using nvmlDevice_t = struct NvmlDeviceOpaque*;
constexpr nvmlReturn_t kNvmlSuccess = 0;
constexpr unsigned kNvmlMaxLinks = 18;  // NVML_NVLINK_MAX_LINKS (18 since Hopper)

struct nvmlMemory_t {
  unsigned long long total, free, used;
};

struct nvmlUtilization_t {
  unsigned int gpu, memory;
};

struct nvmlFieldValue_t {  // nvmlFieldValue_st
  unsigned int fieldId;
  unsigned int scopeId;
  long long timestamp;
  long long latencyUsec;
  int valueType;
  nvmlReturn_t nvmlReturn;
  unsigned long long value;  // nvmlValue_t union; the throughput fields are unsigned long long
};
constexpr unsigned kFieldNvLinkDataTx = 138;  // NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX (KiB)
constexpr unsigned kFieldNvLinkDataRx = 139;  // NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX (KiB)
constexpr unsigned kAllLinks = 0xffffffffu;   // scopeId UINT_MAX: summed over all links

struct nvmlProcessInfo_v1_t {  // the layout behind the unversioned nvmlDeviceGetComputeRunningProcesses
  unsigned int pid;
  unsigned long long usedGpuMemory;
};

// nvmlClocksThrottleReasons bits (nvmlDeviceGetCurrentClocksThrottleReasons).
struct ThrottleBit {
  unsigned long long bit;
  const char* name;
};
constexpr ThrottleBit kThrottleBits[] = {{0x2, "applications_clocks_setting"}, {0x4, "sw_power_cap"},
                                         {0x8, "hw_slowdown"},                 {0x10, "sync_boost"},
                                         {0x20, "sw_thermal_slowdown"},        {0x40, "hw_thermal_slowdown"},
                                         {0x80, "hw_power_brake_slowdown"},    {0x100, "display_clock_setting"}};

struct nvmlPciInfo_t {  // nvmlPciInfo_st, v3 layout
  char busIdLegacy[16];
  unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
  char busId[32];
};

class DlNvml : public Nvml {
 public:
  DlNvml() {
    handle_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (handle_ == nullptr) {
      const char* e = dlerror();
      load_error_ = std::string("libnvidia-ml.so.1 not loadable (no NVIDIA driver?): ") + (e ? e : "unknown");
    }
  }
  ~DlNvml() override {
    if (initialized_) Call<nvmlReturn_t (*)()>("nvmlShutdown");
    if (handle_ != nullptr) dlclose(handle_);
  }

  StatusOr<NvidiaFacts> Query() override {
    if (handle_ == nullptr) return Unavailable(load_error_);
    auto init = Sym<nvmlReturn_t (*)()>("nvmlInit_v2");
    if (init == nullptr) return Unavailable("libnvidia-ml.so.1 has no nvmlInit_v2");
    if (!initialized_) {
      nvmlReturn_t r = init();
      if (r != kNvmlSuccess) return Unavailable("nvmlInit_v2 failed: " + ErrorString(r));
      initialized_ = true;
    }
    NvidiaFacts f;
    f.nvml_loaded = true;
    f.source = "nvml";
    char buf[256] = {0};
    if (auto fn = Sym<nvmlReturn_t (*)(char*, unsigned)>("nvmlSystemGetDriverVersion");
        fn && fn(buf, sizeof(buf)) == kNvmlSuccess) {
      f.driver_version = buf;
    }
    int cuda = 0;
    if (auto fn = Sym<nvmlReturn_t (*)(int*)>("nvmlSystemGetCudaDriverVersion");
        fn && fn(&cuda) == kNvmlSuccess) {
      f.cuda_driver_version = cuda;
    }
    unsigned count = 0;
    auto get_count = Sym<nvmlReturn_t (*)(unsigned*)>("nvmlDeviceGetCount_v2");
    auto get_handle = Sym<nvmlReturn_t (*)(unsigned, nvmlDevice_t*)>("nvmlDeviceGetHandleByIndex_v2");
    if (get_count == nullptr || get_handle == nullptr) return Unavailable("libnvidia-ml lacks device enumeration");
    if (nvmlReturn_t r = get_count(&count); r != kNvmlSuccess) {
      return Unavailable("nvmlDeviceGetCount_v2 failed: " + ErrorString(r));
    }
    std::vector<nvmlDevice_t> handles;
    for (unsigned i = 0; i < count && i < 256; ++i) {
      nvmlDevice_t d = nullptr;
      if (get_handle(i, &d) != kNvmlSuccess) continue;
      handles.push_back(d);
      f.gpus.push_back(Device(d, static_cast<int>(i)));
    }
    handles_ = handles;
    // Peers: a link's remote PCI id matched against the GPUs' own ids.
    for (GpuFacts& g : f.gpus) {
      for (NvLinkFacts& l : g.nvlinks) {
        for (const GpuFacts& other : f.gpus) {
          if (SameBusId(other.pci_bus_id, l.remote_pci_bus_id)) l.remote_gpu = other.index;
        }
      }
    }
    facts_ = f;
    return f;
  }

 private:
  template <typename Fn>
  Fn Sym(const char* name) const {
    return handle_ ? reinterpret_cast<Fn>(dlsym(handle_, name)) : nullptr;
  }
  template <typename Fn>
  void Call(const char* name) const {
    if (Fn fn = Sym<Fn>(name)) fn();
  }
  std::string ErrorString(nvmlReturn_t r) const {
    auto fn = Sym<const char* (*)(nvmlReturn_t)>("nvmlErrorString");
    const char* s = fn ? fn(r) : nullptr;
    return (s ? std::string(s) : "error") + " (" + std::to_string(r) + ")";
  }
  static bool SameBusId(const std::string& a, const std::string& b) {
    // NVML pads the domain to 8 digits in busId and to 4 in busIdLegacy.
    auto tail = [](const std::string& s) { return s.size() >= 7 ? s.substr(s.size() - 7) : s; };
    return !a.empty() && !b.empty() && strcasecmp(tail(a).c_str(), tail(b).c_str()) == 0;
  }

  GpuFacts Device(nvmlDevice_t d, int index) const {
    GpuFacts g;
    g.index = index;
    char buf[256] = {0};
    if (auto fn = Sym<nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned)>("nvmlDeviceGetName");
        fn && fn(d, buf, sizeof(buf)) == kNvmlSuccess) {
      g.name = buf;
    }
    buf[0] = 0;
    if (auto fn = Sym<nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned)>("nvmlDeviceGetUUID");
        fn && fn(d, buf, sizeof(buf)) == kNvmlSuccess) {
      g.uuid = buf;
    }
    nvmlPciInfo_t pci;
    std::memset(&pci, 0, sizeof(pci));
    if (auto fn = Sym<nvmlReturn_t (*)(nvmlDevice_t, nvmlPciInfo_t*)>("nvmlDeviceGetPciInfo_v3");
        fn && fn(d, &pci) == kNvmlSuccess) {
      pci.busId[sizeof(pci.busId) - 1] = 0;
      g.pci_bus_id = pci.busId;
    }
    nvmlMemory_t mem{};
    if (auto fn = Sym<nvmlReturn_t (*)(nvmlDevice_t, nvmlMemory_t*)>("nvmlDeviceGetMemoryInfo");
        fn && fn(d, &mem) == kNvmlSuccess) {
      g.memory_total_bytes = mem.total;
    }
    int major = -1, minor = -1;
    if (auto fn = Sym<nvmlReturn_t (*)(nvmlDevice_t, int*, int*)>("nvmlDeviceGetCudaComputeCapability");
        fn && fn(d, &major, &minor) == kNvmlSuccess) {
      g.cc_major = major;
      g.cc_minor = minor;
    }
    auto uint_query = [&](const char* name) -> int {
      unsigned v = 0;
      auto fn = Sym<nvmlReturn_t (*)(nvmlDevice_t, unsigned*)>(name);
      return fn && fn(d, &v) == kNvmlSuccess ? static_cast<int>(v) : -1;
    };
    g.pcie_gen_max = uint_query("nvmlDeviceGetMaxPcieLinkGeneration");
    g.pcie_gen_current = uint_query("nvmlDeviceGetCurrPcieLinkGeneration");
    g.pcie_width_max = uint_query("nvmlDeviceGetMaxPcieLinkWidth");
    g.pcie_width_current = uint_query("nvmlDeviceGetCurrPcieLinkWidth");
    int limit_mw = uint_query("nvmlDeviceGetPowerManagementLimit");
    if (limit_mw > 0) g.power_limit_watts = limit_mw / 1000;
    int persistence = uint_query("nvmlDeviceGetPersistenceMode");  // nvmlEnableState_t is an int enum
    g.persistence_mode = persistence == 1 ? "Enabled" : persistence == 0 ? "Disabled" : "";
    unsigned current = 0, pending = 0;
    if (auto fn = Sym<nvmlReturn_t (*)(nvmlDevice_t, unsigned*, unsigned*)>("nvmlDeviceGetMigMode");
        fn && fn(d, &current, &pending) == kNvmlSuccess) {
      g.mig_mode = current == 1 ? "Enabled" : "Disabled";
    } else {
      g.mig_mode = "N/A";
    }
    auto link_state = Sym<nvmlReturn_t (*)(nvmlDevice_t, unsigned, int*)>("nvmlDeviceGetNvLinkState");
    auto link_version = Sym<nvmlReturn_t (*)(nvmlDevice_t, unsigned, unsigned*)>("nvmlDeviceGetNvLinkVersion");
    auto link_remote = Sym<nvmlReturn_t (*)(nvmlDevice_t, unsigned, nvmlPciInfo_t*)>(
        "nvmlDeviceGetNvLinkRemotePciInfo_v2");
    for (unsigned link = 0; link_state != nullptr && link < kNvmlMaxLinks; ++link) {
      int active = 0;
      if (link_state(d, link, &active) != kNvmlSuccess || active != 1) continue;
      NvLinkFacts l;
      l.link = static_cast<int>(link);
      l.active = true;
      unsigned version = 0;
      if (link_version && link_version(d, link, &version) == kNvmlSuccess) l.version = static_cast<int>(version);
      nvmlPciInfo_t remote;
      std::memset(&remote, 0, sizeof(remote));
      if (link_remote && link_remote(d, link, &remote) == kNvmlSuccess) {
        remote.busId[sizeof(remote.busId) - 1] = 0;
        l.remote_pci_bus_id = remote.busId;
      }
      g.nvlinks.push_back(l);
    }
    return g;
  }

  GpuSample SampleDevice(nvmlDevice_t d, const GpuFacts& facts) const {
    GpuSample s;
    s.index = facts.index;
    s.uuid = facts.uuid;
    s.name = facts.name;
    s.pci_bus_id = facts.pci_bus_id;
    s.mem_total_bytes = facts.memory_total_bytes;
    nvmlUtilization_t u{};
    if (auto fn = Sym<nvmlReturn_t (*)(nvmlDevice_t, nvmlUtilization_t*)>("nvmlDeviceGetUtilizationRates");
        fn && fn(d, &u) == kNvmlSuccess) {
      s.util_pct = static_cast<int>(u.gpu);
      s.mem_util_pct = static_cast<int>(u.memory);
    }
    nvmlMemory_t mem{};
    if (auto fn = Sym<nvmlReturn_t (*)(nvmlDevice_t, nvmlMemory_t*)>("nvmlDeviceGetMemoryInfo");
        fn && fn(d, &mem) == kNvmlSuccess) {
      s.mem_used_bytes = mem.used;
      s.mem_total_bytes = mem.total;
    }
    auto uint_query = [&](const char* name) -> int64_t {
      unsigned v = 0;
      auto fn = Sym<nvmlReturn_t (*)(nvmlDevice_t, unsigned*)>(name);
      return fn && fn(d, &v) == kNvmlSuccess ? static_cast<int64_t>(v) : -1;
    };
    int64_t mw = uint_query("nvmlDeviceGetPowerUsage");
    if (mw >= 0) s.power_w = static_cast<double>(mw) / 1000.0;
    int64_t limit = uint_query("nvmlDeviceGetEnforcedPowerLimit");
    if (limit > 0) s.power_limit_w = static_cast<double>(limit) / 1000.0;
    auto two_arg = [&](const char* name, int which) -> int64_t {
      unsigned v = 0;
      auto fn = Sym<nvmlReturn_t (*)(nvmlDevice_t, int, unsigned*)>(name);
      return fn && fn(d, which, &v) == kNvmlSuccess ? static_cast<int64_t>(v) : -1;
    };
    s.temp_c = static_cast<int>(two_arg("nvmlDeviceGetTemperature", 0));       // NVML_TEMPERATURE_GPU
    s.sm_clock_mhz = static_cast<int>(two_arg("nvmlDeviceGetClockInfo", 1));   // NVML_CLOCK_SM
    s.mem_clock_mhz = static_cast<int>(two_arg("nvmlDeviceGetClockInfo", 2));  // NVML_CLOCK_MEM
    int64_t tx = two_arg("nvmlDeviceGetPcieThroughput", 0), rx = two_arg("nvmlDeviceGetPcieThroughput", 1);  // KB/s
    if (tx >= 0) s.pcie_tx_mbps = static_cast<double>(tx) / 1000.0;
    if (rx >= 0) s.pcie_rx_mbps = static_cast<double>(rx) / 1000.0;
    unsigned long long reasons = 0;
    if (auto fn = Sym<nvmlReturn_t (*)(nvmlDevice_t, unsigned long long*)>("nvmlDeviceGetCurrentClocksThrottleReasons");
        fn && fn(d, &reasons) == kNvmlSuccess) {
      for (const ThrottleBit& b : kThrottleBits) if (reasons & b.bit) s.throttle_reasons.push_back(b.name);
    }
    unsigned long long dbe = 0;
    // NVML_MEMORY_ERROR_TYPE_UNCORRECTED = 1, NVML_VOLATILE_ECC = 0.
    if (auto fn = Sym<nvmlReturn_t (*)(nvmlDevice_t, int, int, unsigned long long*)>("nvmlDeviceGetTotalEccErrors");
        fn && fn(d, 1, 0, &dbe) == kNvmlSuccess) {
      s.ecc_dbe_volatile = static_cast<int64_t>(dbe);
    }
    if (!facts.nvlinks.empty()) {
      if (auto fn = Sym<nvmlReturn_t (*)(nvmlDevice_t, int, nvmlFieldValue_t*)>("nvmlDeviceGetFieldValues")) {
        nvmlFieldValue_t v[2];
        std::memset(v, 0, sizeof(v));
        v[0].fieldId = kFieldNvLinkDataTx;
        v[1].fieldId = kFieldNvLinkDataRx;
        v[0].scopeId = v[1].scopeId = kAllLinks;
        if (fn(d, 2, v) == kNvmlSuccess && v[0].nvmlReturn == kNvmlSuccess && v[1].nvmlReturn == kNvmlSuccess) {
          s.nvlink_tx_kib_total = static_cast<int64_t>(v[0].value);
          s.nvlink_rx_kib_total = static_cast<int64_t>(v[1].value);
        }
      }
    }
    unsigned corr = 0, unc = 0, pending = 0, failed = 0;
    if (auto fn = Sym<nvmlReturn_t (*)(nvmlDevice_t, unsigned*, unsigned*, unsigned*, unsigned*)>(
            "nvmlDeviceGetRemappedRows");
        fn && fn(d, &corr, &unc, &pending, &failed) == kNvmlSuccess) {
      s.remapped_rows_pending = pending;
    }
    if (auto fn = Sym<nvmlReturn_t (*)(nvmlDevice_t, unsigned*, nvmlProcessInfo_v1_t*)>(
            "nvmlDeviceGetComputeRunningProcesses")) {
      nvmlProcessInfo_v1_t procs[64];
      unsigned n = 64;
      if (fn(d, &n, procs) == kNvmlSuccess) {
        for (unsigned i = 0; i < n && i < 64; ++i) s.processes.push_back({procs[i].pid, procs[i].usedGpuMemory});
      }
    }
    return s;
  }

 public:
  StatusOr<std::vector<GpuSample>> Sample() override {
    if (!initialized_ || handles_.empty()) {
      StatusOr<NvidiaFacts> f = Query();
      if (!f.ok()) return f.status();
    }
    std::vector<GpuSample> out;
    for (size_t i = 0; i < handles_.size() && i < facts_.gpus.size(); ++i) out.push_back(SampleDevice(handles_[i], facts_.gpus[i]));
    return out;
  }

 private:
  std::vector<nvmlDevice_t> handles_;
  NvidiaFacts facts_;
  void* handle_ = nullptr;
  std::string load_error_;
  bool initialized_ = false;
};

}  // namespace

std::unique_ptr<Nvml> LoadNvml() { return std::make_unique<DlNvml>(); }

}  // namespace tfhost::host
