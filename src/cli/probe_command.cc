// `tfhost probe [--json]`: what this host is, for TensorFlow's purposes: CPU
// and ISA, NUMA, memory, disks and filesystems, network and RDMA, GPUs
// through NVML (loaded at run time), CUDA/cuDNN/NCCL libraries, the GPU/NIC
// topology, container and cloud hints. --root replays a sysfs/procfs snapshot
// (with its nvidia-smi/hwloc recordings) instead of this machine.
#include <cstdlib>

#include "cli/cli.h"
#include "cli/command_util.h"
#include "host/probe/probe.h"

namespace tfhost::cli {

int ProbeCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  bool json = false, no_gpu = false;
  host::ProbeOptions options;
  std::vector<std::string> lib_dirs;
  FlagParser flags("tfhost probe [flags]",
                   "Describes this host for TensorFlow: CPU/ISA, NUMA, memory, disks, network, RDMA, GPUs (NVML), "
                   "CUDA libraries and the GPU/NIC topology. Missing GPUs or NVML are reported, not fatal.");
  flags.AddBool("json", &json, "print JSON instead of text");
  flags.AddRepeated("path", &options.paths, "PATH", "also report the filesystem PATH lives on (network or local)");
  flags.AddString("root", &options.root, "DIR", "probe a snapshot folder (sys/, proc/, recordings) instead of /");
  flags.AddString("nvml-xml", &options.nvml_xml, "FILE", "use an `nvidia-smi -q -x` recording instead of NVML");
  flags.AddString("nvml-topo", &options.nvml_topo, "FILE", "with --nvml-xml: an `nvidia-smi topo -m` recording");
  flags.AddString("hwloc-xml", &options.hwloc_xml, "FILE", "use an hwloc XML export for NUMA and the PCIe tree");
  flags.AddRepeated("lib-dir", &lib_dirs, "DIR", "search DIR for CUDA libraries instead of the usual places");
  flags.AddBool("no-gpu", &no_gpu, "skip GPU probing");
  if (int code = ParseOrExit(flags, args, "probe", out, err); code >= 0) return code;
  options.use_nvml = !no_gpu;
  options.library_dirs = lib_dirs;
  if (const char* ld = std::getenv("LD_LIBRARY_PATH"); ld != nullptr && options.root == "/") options.ld_library_path = ld;
  host::HostFacts facts = host::ProbeHost(options);
  out << (json ? host::FormatFactsJson(facts) : host::FormatFactsText(facts));
  return kExitOk;
}

}  // namespace tfhost::cli
