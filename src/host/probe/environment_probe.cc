// Container and cloud hints: container marker files and cgroups (which also
// cap the CPUs and memory a job really gets), DMI strings that name the cloud
// or hypervisor, hostname and kernel release.
#include <sstream>

#include "host/probe/probe.h"

namespace tfhost::host {

namespace {

bool Contains(const std::string& s, const std::string& p) { return s.find(p) != std::string::npos; }

}  // namespace

EnvironmentHints ProbeEnvironment(const FsReader& fs, Notes* notes) {
  (void)notes;
  EnvironmentHints h;
  std::string cgroup = fs.ReadFile("/proc/1/cgroup").ok() ? *fs.ReadFile("/proc/1/cgroup") : "";
  std::string self_cgroup = fs.ReadFile("/proc/self/cgroup").ok() ? *fs.ReadFile("/proc/self/cgroup") : "";
  std::string all = cgroup + self_cgroup;
  if (Contains(all, "kubepods")) h.container_runtime = "kubernetes";
  else if (fs.Exists("/.dockerenv") || Contains(all, "/docker")) h.container_runtime = "docker";
  else if (fs.Exists("/run/.containerenv")) h.container_runtime = "podman";
  else if (Contains(all, "/lxc")) h.container_runtime = "lxc";
  else if (Contains(all, "containerd")) h.container_runtime = "containerd";
  h.in_container = !h.container_runtime.empty();

  h.cgroup_version = fs.Exists("/sys/fs/cgroup/cgroup.controllers") ? "v2"
                     : fs.Exists("/sys/fs/cgroup/memory") ? "v1" : "";
  if (h.cgroup_version == "v2") {
    std::string mem = fs.ReadTrimmed("/sys/fs/cgroup/memory.max");
    if (!mem.empty() && mem != "max") h.cgroup_memory_limit = std::strtoull(mem.c_str(), nullptr, 10);
    std::vector<std::string> cpu = SplitNonEmpty(fs.ReadTrimmed("/sys/fs/cgroup/cpu.max"), " ");
    if (cpu.size() == 2 && cpu[0] != "max") {
      double quota = std::strtod(cpu[0].c_str(), nullptr), period = std::strtod(cpu[1].c_str(), nullptr);
      if (quota > 0 && period > 0) h.cgroup_cpu_limit = quota / period;
    }
  } else if (h.cgroup_version == "v1") {
    int64_t mem = fs.ReadInt("/sys/fs/cgroup/memory/memory.limit_in_bytes");
    // v1 reports "no limit" as a page-rounded INT64_MAX.
    if (mem > 0 && mem < (int64_t{1} << 60)) h.cgroup_memory_limit = static_cast<uint64_t>(mem);
    int64_t quota = fs.ReadInt("/sys/fs/cgroup/cpu/cpu.cfs_quota_us");
    int64_t period = fs.ReadInt("/sys/fs/cgroup/cpu/cpu.cfs_period_us");
    if (quota > 0 && period > 0) h.cgroup_cpu_limit = static_cast<double>(quota) / static_cast<double>(period);
  }

  h.dmi_sys_vendor = fs.ReadTrimmed("/sys/class/dmi/id/sys_vendor");
  h.dmi_product_name = fs.ReadTrimmed("/sys/class/dmi/id/product_name");
  h.dmi_bios_vendor = fs.ReadTrimmed("/sys/class/dmi/id/bios_vendor");
  std::string asset = fs.ReadTrimmed("/sys/class/dmi/id/chassis_asset_tag");
  std::string board = fs.ReadTrimmed("/sys/class/dmi/id/board_vendor");
  const std::string dmi = h.dmi_sys_vendor + "|" + h.dmi_product_name + "|" + h.dmi_bios_vendor + "|" + board;
  // Strings the providers document for identifying their VMs.
  if (Contains(dmi, "Amazon EC2") || Contains(h.dmi_bios_vendor, "Amazon")) h.cloud = "aws";
  else if (Contains(dmi, "Google")) h.cloud = "gcp";
  else if (asset == "7783-7084-3265-9085-8269-3286-77" ||
           (Contains(h.dmi_sys_vendor, "Microsoft") && Contains(h.dmi_product_name, "Virtual Machine"))) h.cloud = "azure";
  else if (asset == "OracleCloud.com") h.cloud = "oci";
  else if (Contains(dmi, "Alibaba")) h.cloud = "alibaba";
  else if (Contains(dmi, "OpenStack")) h.cloud = "openstack";

  std::string cpuinfo = fs.ReadFile("/proc/cpuinfo").ok() ? *fs.ReadFile("/proc/cpuinfo") : "";
  if (Contains(dmi, "VMware")) h.virtualization = "vmware";
  else if (Contains(dmi, "Xen") || Contains(h.dmi_bios_vendor, "Xen")) h.virtualization = "xen";
  else if (Contains(h.dmi_sys_vendor, "Microsoft")) h.virtualization = "hyperv";
  else if (Contains(dmi, "QEMU") || Contains(dmi, "KVM")) h.virtualization = "kvm";
  else if (Contains(cpuinfo, " hypervisor")) h.virtualization = "unknown hypervisor";

  h.hostname = fs.ReadTrimmed("/proc/sys/kernel/hostname");
  h.kernel_release = fs.ReadTrimmed("/proc/sys/kernel/osrelease");
  return h;
}

}  // namespace tfhost::host
