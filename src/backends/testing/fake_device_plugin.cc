// A backend plugin for the tests: adds the fake device backend
// (fake_device_backend.h), as libtfhost_cuda.so adds one per GPU. Built
// twice: as libtfhost_fake.so (backend "fake_device", plugin_loader_test)
// and as a stand-in libtfhost_cuda.so (backend "cuda:0"), with which the
// CLI tests run `--device gpu` end to end on a machine without a GPU.
#ifndef TFHOST_FAKE_BACKEND_NAME
#define TFHOST_FAKE_BACKEND_NAME "fake_device"
#endif
#include <cstdio>

#include "backends/plugin_loader.h"
#include "backends/testing/fake_device_backend.h"

extern "C" int tfhost_backend_plugin_abi() { return tfhost::backends::kBackendPluginAbi; }

extern "C" int tfhost_backend_plugin_register(tfhost::backends::BackendRegistry* registry, char* detail,
                                              size_t detail_size) {
  if (!registry->Add(std::make_unique<tfhost::backends::testing::FakeDeviceBackend>(0, TFHOST_FAKE_BACKEND_NAME))
           .ok()) {
    std::snprintf(detail, detail_size, "%s was already registered", TFHOST_FAKE_BACKEND_NAME);
    return 0;
  }
  std::snprintf(detail, detail_size, "added %s", TFHOST_FAKE_BACKEND_NAME);
  return 1;
}
