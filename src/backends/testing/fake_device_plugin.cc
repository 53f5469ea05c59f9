// A backend plugin for plugin_loader_test: adds the fake device backend
// (fake_device_backend.h), as libtfhost_cuda.so adds one per GPU.
#include <cstdio>

#include "backends/plugin_loader.h"
#include "backends/testing/fake_device_backend.h"

extern "C" int tfhost_backend_plugin_abi() { return tfhost::backends::kBackendPluginAbi; }

extern "C" int tfhost_backend_plugin_register(tfhost::backends::BackendRegistry* registry, char* detail,
                                              size_t detail_size) {
  if (!registry->Add(std::make_unique<tfhost::backends::testing::FakeDeviceBackend>()).ok()) {
    std::snprintf(detail, detail_size, "fake_device was already registered");
    return 0;
  }
  std::snprintf(detail, detail_size, "added fake_device");
  return 1;
}
