// `tfhost probe [--json]`: what this host is, for TensorFlow's purposes: CPU
// and ISA, NUMA, memory, disks and filesystems, network and RDMA, GPUs
// through NVML (loaded at run time), CUDA/cuDNN/NCCL libraries, the GPU/NIC
// topology, container and cloud hints. --root replays a sysfs/procfs snapshot
// (with its nvidia-smi/hwloc recordings) instead of this machine.
#include <cstdlib>

#include <rapidjson/document.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include "backends/backend_registry.h"
#include "backends/builtin/device_registry.h"
#include "cli/cli.h"
#include "cli/command_util.h"
#include "host/probe/probe.h"

namespace tfhost::cli {
namespace {

// The backends this binary can run nodes on: the built-in ones, and what
// loading the CUDA plugin gave (its backends, or why none).
struct BackendsFacts {
  std::vector<const backends::Backend*> builtin;
  backends::PluginReport cuda;
  std::vector<const backends::Backend*> gpus;
};

std::string BackendsText(const BackendsFacts& f) {
  std::string text = "\nBackends:\n";
  for (const backends::Backend* b : f.builtin) {
    text += "  " + b->name() + " (" + b->memory_space().ToString() + ", priority " + std::to_string(b->priority()) +
            ")\n";
  }
  text += "  cuda plugin: " + (f.cuda.path.empty() ? std::string("not found") : f.cuda.path) + ": " +
          f.cuda.detail + "\n";
  return text;
}

// `facts_json` with a "backends" member added.
std::string WithBackendsJson(const std::string& facts_json, const BackendsFacts& f) {
  rapidjson::Document doc;
  doc.Parse(facts_json.c_str(), facts_json.size());
  if (doc.HasParseError() || !doc.IsObject()) return facts_json;
  auto& a = doc.GetAllocator();
  rapidjson::Value list(rapidjson::kArrayType);
  auto add = [&](const backends::Backend* b) {
    rapidjson::Value o(rapidjson::kObjectType);
    o.AddMember("name", rapidjson::Value(b->name().c_str(), a), a);
    o.AddMember("memory_space", rapidjson::Value(b->memory_space().ToString().c_str(), a), a);
    o.AddMember("priority", b->priority(), a);
    list.PushBack(o, a);
  };
  for (const backends::Backend* b : f.builtin) add(b);
  for (const backends::Backend* b : f.gpus) add(b);
  rapidjson::Value cuda(rapidjson::kObjectType);
  cuda.AddMember("path", rapidjson::Value(f.cuda.path.c_str(), a), a);
  cuda.AddMember("loaded", f.cuda.loaded, a);
  cuda.AddMember("backends", f.cuda.backends, a);
  cuda.AddMember("detail", rapidjson::Value(f.cuda.detail.c_str(), a), a);
  rapidjson::Value backends_json(rapidjson::kObjectType);
  backends_json.AddMember("available", list, a);
  backends_json.AddMember("cuda_plugin", cuda, a);
  doc.AddMember("backends", backends_json, a);
  rapidjson::StringBuffer buffer;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> writer(buffer);
  doc.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

}  // namespace

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
  BackendsFacts backends_facts;
  backends_facts.builtin = backends::BackendRegistry::Global().backends();
  if (no_gpu) {
    backends_facts.cuda.detail = "not probed (--no-gpu)";
  } else {
    backends_facts.cuda = backends::CudaPluginReport();
    backends_facts.gpus = backends::GpuBackends();
  }
  if (json) {
    out << WithBackendsJson(host::FormatFactsJson(facts), backends_facts);
  } else {
    out << host::FormatFactsText(facts) << BackendsText(backends_facts);
  }
  return kExitOk;
}

}  // namespace tfhost::cli
