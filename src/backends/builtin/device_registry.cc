#include "backends/builtin/device_registry.h"

#include <map>
#include <mutex>

namespace tfhost::backends {
namespace {

std::mutex& Mutex() {
  static std::mutex mu;
  return mu;
}

// The plugin's backends, owned here for the life of the process.
BackendRegistry& PluginRegistry() {
  static BackendRegistry* registry = new BackendRegistry;
  return *registry;
}

// Under Mutex().
BackendPluginOptions& CudaOptions() {
  static BackendPluginOptions* options = new BackendPluginOptions;
  return *options;
}

// Under Mutex(); null until the plugin is loaded.
const PluginReport*& CudaReport() {
  static const PluginReport* report = nullptr;
  return report;
}

// Under Mutex().
const PluginReport& LoadedCuda() {
  const PluginReport*& report = CudaReport();
  if (report == nullptr) report = new PluginReport(LoadBackendPlugin("cuda", PluginRegistry(), CudaOptions()));
  return *report;
}

}  // namespace

StatusOr<DeviceChoice> ParseDevice(const std::string& text) {
  DeviceChoice c;
  if (text == "cpu") return c;
  if (text == "auto") {
    c.kind = DeviceChoice::Kind::kAuto;
    return c;
  }
  if (text == "gpu") {
    c.kind = DeviceChoice::Kind::kGpu;
    return c;
  }
  if (text.rfind("gpu:", 0) == 0 && text.size() > 4 && text.size() <= 7 &&
      text.find_first_not_of("0123456789", 4) == std::string::npos) {
    c.kind = DeviceChoice::Kind::kGpu;
    c.gpu = std::stoi(text.substr(4));
    return c;
  }
  return InvalidArgument("--device '" + text + "' is not one of: cpu, gpu, gpu:N, auto");
}

Status SetGpuPluginOptions(const BackendPluginOptions& options) {
  std::lock_guard<std::mutex> lock(Mutex());
  if (CudaReport() != nullptr && !(options == CudaOptions())) {
    auto shown = [](const BackendPluginOptions& o) { return o.empty() ? std::string("none") : o.ToString(); };
    return FailedPrecondition("the CUDA plugin is already loaded with options " + shown(CudaOptions()) +
                              "; it cannot take " + shown(options) + " in the same process");
  }
  CudaOptions() = options;
  return OkStatus();
}

const PluginReport& CudaPluginReport() {
  std::lock_guard<std::mutex> lock(Mutex());
  return LoadedCuda();
}

std::vector<const Backend*> GpuBackends() {
  std::lock_guard<std::mutex> lock(Mutex());
  LoadedCuda();
  return PluginRegistry().backends();
}

StatusOr<DeviceRegistry> ForDevice(const DeviceChoice& choice) {
  if (choice.kind == DeviceChoice::Kind::kCpu) return DeviceRegistry{&BackendRegistry::Global(), "cpu", ""};
  std::lock_guard<std::mutex> lock(Mutex());
  const PluginReport& cuda = LoadedCuda();
  const std::string name = "cuda:" + std::to_string(choice.gpu);
  const Backend* gpu = PluginRegistry().Find(name);
  if (gpu == nullptr) {
    std::string why;
    if (cuda.backends > 0) {
      std::string usable;
      for (const Backend* b : PluginRegistry().backends()) usable += (usable.empty() ? "" : ", ") + b->name();
      why = "no " + name + " among the usable GPUs (" + usable + ")";
    } else {
      why = cuda.path.empty() ? "no CUDA plugin: " + cuda.detail : cuda.detail;
    }
    if (choice.kind == DeviceChoice::Kind::kAuto) {
      return DeviceRegistry{&BackendRegistry::Global(), "cpu", "no usable GPU (" + why + "); running on the CPU"};
    }
    return FailedPrecondition("--device gpu:" + std::to_string(choice.gpu) + ": " + why);
  }
  static std::map<std::string, BackendRegistry*>* registries = new std::map<std::string, BackendRegistry*>;
  BackendRegistry*& registry = (*registries)[name];
  if (registry == nullptr) {
    registry = new BackendRegistry;
    AddBuiltinBackends(*registry);
    TFHOST_RETURN_IF_ERROR(registry->AddBorrowed(gpu));
  }
  return DeviceRegistry{registry, name, ""};
}

}  // namespace tfhost::backends
