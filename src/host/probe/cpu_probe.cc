// CPU, NUMA, memory and process limits: /proc/cpuinfo, /proc/meminfo,
// /proc/self/limits, /sys/devices/system/{cpu,node}, transparent huge pages,
// hwloc for NUMA where available, and cpuid for x86 extensions a kernel too
// old to name them would leave out of /proc/cpuinfo.
#include <hwloc.h>
#include <sched.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>

#include "host/probe/probe.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace tfhost::host {

namespace {

// Extensions TensorFlow's CPU kernels (oneDNN, Eigen) care about.
const char* const kInterestingIsa[] = {
    "sse4_2",      "avx",        "avx2",        "fma",         "f16c",        "avx512f",  "avx512dq",
    "avx512cd",    "avx512bw",   "avx512vl",    "avx512_vnni", "avx512_bf16", "avx512_fp16",
    "avx512ifma",  "avx512vbmi", "avx_vnni",    "amx_tile",    "amx_bf16",    "amx_int8", "amx_fp16",
    // Arm (Graviton, Grace): /proc/cpuinfo "Features".
    "asimd",       "asimdhp",    "sve",         "sve2",        "bf16",        "i8mm"};

bool IsInteresting(const std::string& flag) {
  for (const char* f : kInterestingIsa) if (flag == f) return true;
  return false;
}

#if defined(__x86_64__) || defined(__i386__)
// Extensions cpuid reports and the OS has enabled (XCR0), named as Linux names them.
std::vector<std::string> CpuidIsa() {
  std::vector<std::string> out;
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return out;
  const bool osxsave = (c >> 27) & 1;
  unsigned long long xcr0 = 0;
  if (osxsave) {
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    xcr0 = (static_cast<unsigned long long>(hi) << 32) | lo;
  }
  const bool os_avx = (xcr0 & 0x6) == 0x6;
  const bool os_avx512 = os_avx && (xcr0 & 0xe0) == 0xe0;
  const bool os_amx = (xcr0 & 0x60000) == 0x60000;
  if ((c >> 20) & 1) out.push_back("sse4_2");
  if (os_avx && ((c >> 28) & 1)) out.push_back("avx");
  if (os_avx && ((c >> 12) & 1)) out.push_back("fma");
  if (os_avx && ((c >> 29) & 1)) out.push_back("f16c");
  unsigned max_leaf = __get_cpuid_max(0, nullptr);
  if (max_leaf < 7) return out;
  __cpuid_count(7, 0, a, b, c, d);
  unsigned sub0_ebx = b, sub0_ecx = c, sub0_edx = d, max_sub = a;
  if (os_avx && ((sub0_ebx >> 5) & 1)) out.push_back("avx2");
  if (os_avx512) {
    if ((sub0_ebx >> 16) & 1) out.push_back("avx512f");
    if ((sub0_ebx >> 17) & 1) out.push_back("avx512dq");
    if ((sub0_ebx >> 21) & 1) out.push_back("avx512ifma");
    if ((sub0_ebx >> 28) & 1) out.push_back("avx512cd");
    if ((sub0_ebx >> 30) & 1) out.push_back("avx512bw");
    if ((sub0_ebx >> 31) & 1) out.push_back("avx512vl");
    if ((sub0_ecx >> 1) & 1) out.push_back("avx512vbmi");
    if ((sub0_ecx >> 11) & 1) out.push_back("avx512_vnni");
    if ((sub0_edx >> 23) & 1) out.push_back("avx512_fp16");
  }
  if (os_amx) {
    if ((sub0_edx >> 22) & 1) out.push_back("amx_bf16");
    if ((sub0_edx >> 24) & 1) out.push_back("amx_tile");
    if ((sub0_edx >> 25) & 1) out.push_back("amx_int8");
  }
  if (max_sub >= 1) {
    __cpuid_count(7, 1, a, b, c, d);
    if (os_avx && ((a >> 4) & 1)) out.push_back("avx_vnni");
    if (os_avx512 && ((a >> 5) & 1)) out.push_back("avx512_bf16");
    if (os_amx && ((a >> 21) & 1)) out.push_back("amx_fp16");
  }
  return out;
}
#endif

// "0-3,8-11" -> {0,1,2,3,8,9,10,11}; bounded so a corrupt file cannot blow up.
std::vector<int> ParseCpuList(const std::string& text) {
  std::vector<int> out;
  for (const std::string& part : SplitNonEmpty(Trim(text), ",")) {
    size_t dash = part.find('-');
    long lo = std::strtol(part.c_str(), nullptr, 10);
    long hi = dash == std::string::npos ? lo : std::strtol(part.c_str() + dash + 1, nullptr, 10);
    if (lo < 0 || hi < lo || hi > 1 << 20) continue;
    for (long i = lo; i <= hi && out.size() < (1u << 16); ++i) out.push_back(static_cast<int>(i));
  }
  return out;
}

uint64_t ParseLimit(const std::string& v) {
  if (v == "unlimited") return kUnlimited;
  return std::strtoull(v.c_str(), nullptr, 10);
}

// "always [madvise] never" -> "madvise".
std::string Bracketed(const std::string& text) {
  size_t b = text.find('['), e = text.find(']');
  if (b == std::string::npos || e == std::string::npos || e < b) return Trim(text);
  return text.substr(b + 1, e - b - 1);
}

}  // namespace

CpuFacts ProbeCpu(const FsReader& fs, Notes* notes) {
  CpuFacts cpu;
  std::set<std::string> isa;
  StatusOr<std::string> cpuinfo = fs.ReadFile("/proc/cpuinfo");
  std::set<std::pair<std::string, std::string>> cores;  // (physical id, core id)
  std::set<std::string> packages;
  int processors = 0;
  if (cpuinfo.ok()) {
    std::istringstream in(*cpuinfo);
    std::string line, phys;
    while (std::getline(in, line)) {
      size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string key = Trim(line.substr(0, colon)), value = Trim(line.substr(colon + 1));
      if (key == "processor") {
        ++processors;
        phys.clear();
      } else if (key == "vendor_id" && cpu.vendor.empty()) {
        cpu.vendor = value;
      } else if (key == "model name" && cpu.model_name.empty()) {
        cpu.model_name = value;
      } else if (key == "physical id") {
        phys = value;
        packages.insert(value);
      } else if (key == "core id") {
        cores.insert({phys, value});
      } else if ((key == "flags" || key == "Features")) {
        for (const std::string& f : SplitNonEmpty(value, " \t")) if (IsInteresting(f)) isa.insert(f);
        if (key == "Features" && cpu.vendor.empty()) cpu.vendor = "ARM";
      } else if (key == "cpu MHz" && cpu.max_mhz < 0) {
        cpu.max_mhz = std::strtod(value.c_str(), nullptr);
      }
    }
  } else {
    notes->push_back("CPU: " + cpuinfo.status().message());
  }
  // sysfs topology is authoritative where present (Arm cpuinfo lacks ids).
  std::set<int64_t> sys_packages;
  std::set<std::pair<int64_t, int64_t>> sys_cores;
  std::set<std::string> governors;
  int sys_cpus = 0;
  int64_t max_khz = -1;
  StatusOr<std::vector<std::string>> entries = fs.ListDir("/sys/devices/system/cpu");
  if (entries.ok()) {
    for (const std::string& e : *entries) {
      if (e.size() < 4 || e.compare(0, 3, "cpu") != 0 || !std::isdigit(static_cast<unsigned char>(e[3]))) continue;
      std::string base = "/sys/devices/system/cpu/" + e;
      ++sys_cpus;
      int64_t pkg = fs.ReadInt(base + "/topology/physical_package_id");
      int64_t core = fs.ReadInt(base + "/topology/core_id");
      if (pkg >= 0) sys_packages.insert(pkg);
      if (pkg >= 0 && core >= 0) sys_cores.insert({pkg, core});
      std::string gov = fs.ReadTrimmed(base + "/cpufreq/scaling_governor");
      if (!gov.empty()) governors.insert(gov);
      max_khz = std::max(max_khz, fs.ReadInt(base + "/cpufreq/cpuinfo_max_freq"));
    }
  }
  cpu.logical_cpus = processors > 0 ? processors : (sys_cpus > 0 ? sys_cpus : -1);
  std::string online = fs.ReadTrimmed("/sys/devices/system/cpu/online");
  if (!online.empty()) cpu.logical_cpus = static_cast<int>(ParseCpuList(online).size());
  if (!sys_packages.empty()) {
    cpu.sockets = static_cast<int>(sys_packages.size());
    cpu.physical_cores = static_cast<int>(sys_cores.size());
  } else if (!packages.empty()) {
    cpu.sockets = static_cast<int>(packages.size());
    cpu.physical_cores = static_cast<int>(cores.size());
  }
  if (max_khz > 0) cpu.max_mhz = static_cast<double>(max_khz) / 1000.0;
  cpu.governors.assign(governors.begin(), governors.end());
  if (fs.live()) {
#if defined(__x86_64__) || defined(__i386__)
    for (const std::string& f : CpuidIsa()) isa.insert(f);
#endif
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0) cpu.online_cpus = CPU_COUNT(&set);
  }
  for (const char* f : kInterestingIsa) if (isa.count(f)) cpu.isa.push_back(f);
  return cpu;
}

StatusOr<std::vector<NumaNode>> NumaFromHwloc(const std::string& xml_path) {
  hwloc_topology_t topo;
  if (hwloc_topology_init(&topo) != 0) return Internal("hwloc_topology_init failed");
  if (!xml_path.empty() && hwloc_topology_set_xml(topo, xml_path.c_str()) != 0) {
    hwloc_topology_destroy(topo);
    return InvalidArgument("hwloc cannot read XML topology " + xml_path);
  }
  if (hwloc_topology_load(topo) != 0) {
    hwloc_topology_destroy(topo);
    return Internal("hwloc_topology_load failed" + (xml_path.empty() ? "" : " for " + xml_path));
  }
  std::vector<NumaNode> nodes;
  int n = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);
  for (int i = 0; i < n; ++i) {
    hwloc_obj_t obj = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, i);
    NumaNode node;
    node.id = static_cast<int>(obj->os_index);
    node.memory_bytes = obj->attr ? obj->attr->numanode.local_memory : 0;
    if (obj->cpuset) {
      for (int b = hwloc_bitmap_first(obj->cpuset); b >= 0 && node.cpus.size() < (1u << 16);
           b = hwloc_bitmap_next(obj->cpuset, b)) {
        node.cpus.push_back(b);
      }
    }
    nodes.push_back(std::move(node));
  }
  hwloc_topology_destroy(topo);
  return nodes;
}

std::vector<NumaNode> ProbeNuma(const FsReader& fs, const std::string& hwloc_xml, Notes* notes) {
  if (!hwloc_xml.empty() || fs.live()) {
    StatusOr<std::vector<NumaNode>> nodes = NumaFromHwloc(hwloc_xml);
    if (nodes.ok() && !nodes->empty()) return *nodes;
    if (!nodes.ok()) notes->push_back("NUMA: " + nodes.status().message() + "; falling back to sysfs");
  }
  std::vector<NumaNode> nodes;
  StatusOr<std::vector<std::string>> entries = fs.ListDir("/sys/devices/system/node");
  if (!entries.ok()) {
    notes->push_back("NUMA: no /sys/devices/system/node");
    return nodes;
  }
  for (const std::string& e : *entries) {
    if (e.size() < 5 || e.compare(0, 4, "node") != 0 || !std::isdigit(static_cast<unsigned char>(e[4]))) continue;
    NumaNode node;
    node.id = std::atoi(e.c_str() + 4);
    std::string base = "/sys/devices/system/node/" + e;
    node.cpus = ParseCpuList(fs.ReadTrimmed(base + "/cpulist"));
    StatusOr<std::string> meminfo = fs.ReadFile(base + "/meminfo");
    if (meminfo.ok()) {
      size_t p = meminfo->find("MemTotal:");
      if (p != std::string::npos) node.memory_bytes = std::strtoull(meminfo->c_str() + p + 9, nullptr, 10) * 1024;
    }
    nodes.push_back(std::move(node));
  }
  std::sort(nodes.begin(), nodes.end(), [](const NumaNode& a, const NumaNode& b) { return a.id < b.id; });
  return nodes;
}

MemoryFacts ProbeMemory(const FsReader& fs, Notes* notes) {
  MemoryFacts m;
  StatusOr<std::string> meminfo = fs.ReadFile("/proc/meminfo");
  if (!meminfo.ok()) {
    notes->push_back("memory: " + meminfo.status().message());
  } else {
    std::istringstream in(*meminfo);
    std::string line;
    while (std::getline(in, line)) {
      size_t colon = line.find(':');
      if (colon == std::string::npos) continue;
      std::string key = line.substr(0, colon);
      uint64_t v = std::strtoull(line.c_str() + colon + 1, nullptr, 10);
      bool kb = line.find("kB") != std::string::npos;
      uint64_t bytes = kb ? v * 1024 : v;
      if (key == "MemTotal") m.total_bytes = bytes;
      else if (key == "MemAvailable") m.available_bytes = bytes;
      else if (key == "SwapTotal") m.swap_total_bytes = bytes;
      else if (key == "SwapFree") m.swap_free_bytes = bytes;
      else if (key == "HugePages_Total") m.hugepages_total = v;
      else if (key == "Hugepagesize") m.hugepage_size_bytes = bytes;
    }
  }
  m.swappiness = static_cast<int>(fs.ReadInt("/proc/sys/vm/swappiness"));
  m.thp_enabled = Bracketed(fs.ReadTrimmed("/sys/kernel/mm/transparent_hugepage/enabled"));
  m.thp_defrag = Bracketed(fs.ReadTrimmed("/sys/kernel/mm/transparent_hugepage/defrag"));
  return m;
}

ProcessLimits ProbeLimits(const FsReader& fs, Notes* notes) {
  ProcessLimits l;
  StatusOr<std::string> text = fs.ReadFile("/proc/self/limits");
  if (!text.ok()) {
    notes->push_back("limits: " + text.status().message());
    return l;
  }
  std::istringstream in(*text);
  std::string line;
  while (std::getline(in, line)) {
    // "Max locked memory         8388608              8388608              bytes"
    bool memlock = line.rfind("Max locked memory", 0) == 0;
    bool nofile = line.rfind("Max open files", 0) == 0;
    if (!memlock && !nofile) continue;
    std::vector<std::string> f = SplitNonEmpty(line.substr(memlock ? 17 : 14), " \t");
    if (f.size() < 2) continue;
    if (memlock) {
      l.memlock_soft = ParseLimit(f[0]);
      l.memlock_hard = ParseLimit(f[1]);
    } else {
      l.nofile_soft = ParseLimit(f[0]);
      l.nofile_hard = ParseLimit(f[1]);
    }
    l.known = true;
  }
  return l;
}

}  // namespace tfhost::host
