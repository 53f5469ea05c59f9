// A backend plugin for the tests: adds the fake device backend
// (fake_device_backend.h), as libtfhost_cuda.so adds one per GPU. Built
// twice: as libtfhost_fake.so (backend "fake_device", plugin_loader_test)
// and as a stand-in libtfhost_cuda.so (backend "cuda:0"), with which the
// CLI tests run `--device gpu` end to end on a machine without a GPU.
//
// It takes the device plugins' options (backends/plugin_options.h) as the
// CUDA plugin does: its one device has kFakeDeviceMemoryBytes, of which its
// BfcAllocator may take memory_fraction (default 0.9, the CUDA backend's),
// as needed or at once (allow_growth), so that the memory flags, the
// allocator's metrics and running out of device memory can be tested on a
// machine without a GPU. It checks algorithm_cache and algorithm_search as
// the CUDA plugin does, so the GPU flags are refused with the same words,
// and has no library algorithms to choose, so they do nothing more.
#ifndef TFHOST_FAKE_BACKEND_NAME
#define TFHOST_FAKE_BACKEND_NAME "fake_device"
#endif
#include <cstdio>

#include "backends/plugin_loader.h"
#include "backends/testing/fake_device_backend.h"

namespace {

// What the fake device pretends to have: enough for the zoo's models on the
// fake GPU, and host memory is only taken as the BFC grows.
constexpr int64_t kFakeDeviceMemoryBytes = int64_t{4} << 30;

}  // namespace

extern "C" int tfhost_backend_plugin_abi() { return tfhost::backends::kBackendPluginAbi; }

extern "C" int tfhost_backend_plugin_register(tfhost::backends::BackendRegistry* registry,
                                              const tfhost::backends::BackendPluginOptions* options, char* detail,
                                              size_t detail_size) {
  auto memory = tfhost::backends::ReadDeviceMemoryOptions(*options, TFHOST_FAKE_BACKEND_NAME, 0.9, true);
  if (!memory.ok()) {
    std::snprintf(detail, detail_size, "%s", memory.status().message().c_str());
    return 0;
  }
  auto algorithms = tfhost::backends::ReadDeviceAlgorithmOptions(*options, TFHOST_FAKE_BACKEND_NAME);
  if (!algorithms.ok()) {
    std::snprintf(detail, detail_size, "%s", algorithms.status().message().c_str());
    return 0;
  }
  tfhost::backends::BfcOptions bfc;
  bfc.memory_limit = static_cast<int64_t>(static_cast<double>(kFakeDeviceMemoryBytes) * memory->memory_fraction);
  bfc.allow_growth = memory->allow_growth;
  bfc.min_region_bytes = size_t{1} << 20;
  auto backend = tfhost::backends::testing::FakeDeviceBackend::WithBfc(TFHOST_FAKE_BACKEND_NAME, bfc);
  if (!backend.ok()) {
    std::snprintf(detail, detail_size, "%s", backend.status().message().c_str());
    return 0;
  }
  if (!registry->Add(std::move(*backend)).ok()) {
    std::snprintf(detail, detail_size, "%s was already registered", TFHOST_FAKE_BACKEND_NAME);
    return 0;
  }
  std::snprintf(detail, detail_size, "added %s", TFHOST_FAKE_BACKEND_NAME);
  return 1;
}
