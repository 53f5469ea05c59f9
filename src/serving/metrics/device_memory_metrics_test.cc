// A server whose models run on a device backend: the fake GPU of
// src/backends/testing with a BfcAllocator, as the stand-in GPU plugin makes
// it. Its allocator's figures appear in the metrics, labelled by device, and
// running out of its memory fails the request, not the server.
#include "serving/metrics/device_memory_metrics.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <sstream>

#include "backends/testing/fake_device_backend.h"
#include "base/test_status.h"
#include "base/test_tfserving_models.h"
#include "serving/server_core.h"

namespace tfhost::serving {
namespace {

namespace ts = tensorflow::serving;

// A registry of the host backends and one fake GPU, "cuda:0", whose BFC may
// take `limit` bytes.
struct FakeGpu {
  explicit FakeGpu(int64_t limit) {
    backends::AddBuiltinBackends(registry);
    backends::BfcOptions bfc;
    bfc.memory_limit = limit;
    bfc.min_region_bytes = 4096;
    auto made = backends::testing::FakeDeviceBackend::WithBfc("cuda:0", bfc);
    EXPECT_TRUE(made.ok()) << made.status().ToString();
    device = made->get();
    EXPECT_TRUE(registry.Add(std::move(*made)).ok());
  }
  backends::BackendRegistry registry;
  const backends::testing::FakeDeviceBackend* device = nullptr;
};

std::unique_ptr<ServerCore> ServeHalfPlusTwo(const FakeGpu& gpu) {
  ServerCoreOptions o;
  o.model_server_config =
      SingleModelConfig("half_plus_two", tfhost::testing::TfServingModelPath("saved_model_half_plus_two_cpu"));
  o.manager.file_system_poll_wait_seconds = 0;
  o.manager.max_num_load_retries = 0;
  o.manager.log_sink = [](const std::string&) {};
  o.manager.load_options.session.backends = &gpu.registry;
  auto core = ServerCore::Create(std::move(o));
  EXPECT_TRUE(core.ok()) << core.status().ToString();
  return core.ok() ? std::move(*core) : nullptr;
}

ts::PredictRequest Predict(int rows) {
  ts::PredictRequest r;
  r.mutable_model_spec()->set_name("half_plus_two");
  tensorflow::TensorProto& t = (*r.mutable_inputs())["x"];
  t.set_dtype(tensorflow::DT_FLOAT);
  t.mutable_tensor_shape()->add_dim()->set_size(rows);
  t.mutable_tensor_shape()->add_dim()->set_size(1);
  for (int i = 0; i < rows; ++i) t.add_float_val(static_cast<float>(i));
  return r;
}

// The value of the sample `name{labels}` in `text`; -1 when there is none.
double Sample(const std::string& text, const std::string& series) {
  const std::string line_start = series + " ";
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    if (line.rfind(line_start, 0) == 0) return std::strtod(line.c_str() + line_start.size(), nullptr);
  }
  return -1;
}

const char kLabels[] = "{device=\"gpu:0\",backend=\"cuda:0\"}";

TEST(DeviceMemoryMetricsTest, AServerOnTheFakeGpuExportsItsAllocatorLabelledByDevice) {
  const std::string model = tfhost::testing::TfServingModelPath("saved_model_half_plus_two_cpu");
  TFHOST_REQUIRE_TFSERVING_MODEL(model);
  FakeGpu gpu(int64_t{64} << 20);
  auto core = ServeHalfPlusTwo(gpu);
  ASSERT_NE(core, nullptr);
  ts::PredictResponse response;
  ASSERT_TRUE(core->Predict(Predict(1000), &response).ok());
  EXPECT_FLOAT_EQ(response.outputs().at("y").float_val(999), 0.5f * 999 + 2);
  EXPECT_GT(gpu.device->kernel_calls.load(), 0);  // the Mul ran on the fake GPU

  const std::string text = core->MetricsText();
  const double in_use = Sample(text, std::string(":tfhost:serving:device_memory_in_use_bytes") + kLabels);
  const double peak = Sample(text, std::string(":tfhost:serving:device_memory_peak_bytes") + kLabels);
  const double limit = Sample(text, std::string(":tfhost:serving:device_memory_limit_bytes") + kLabels);
  const double reserved = Sample(text, std::string(":tfhost:serving:device_memory_reserved_bytes") + kLabels);
  const double failures = Sample(text, std::string(":tfhost:serving:device_memory_allocation_failures") + kLabels);
  EXPECT_NE(text.find("# TYPE :tfhost:serving:device_memory_in_use_bytes gauge\n"), std::string::npos) << text;
  EXPECT_NE(text.find("# TYPE :tfhost:serving:device_memory_allocation_failures counter\n"), std::string::npos);
  EXPECT_EQ(limit, 64 << 20) << text;
  EXPECT_GE(in_use, 0) << text;
  EXPECT_LE(in_use, reserved) << text;
  EXPECT_LE(reserved, limit) << text;
  EXPECT_GE(peak, in_use) << text;
  // The request's 1000 rows went in and came out through the device.
  EXPECT_GE(peak, 2 * 4000) << text;
  EXPECT_GT(reserved, 0) << text;
  EXPECT_EQ(failures, 0) << text;
}

TEST(DeviceMemoryMetricsTest, AServerOnTheCpuExportsNoDeviceMemory) {
  MetricsRegistry registry;
  DeviceMemoryMetrics metrics(&registry, backends::BackendRegistry::Global());
  EXPECT_EQ(metrics.size(), 0u);
  EXPECT_EQ(registry.ToPrometheusText().find("device_memory"), std::string::npos);
}

// Running out of device memory fails the request that asked, with
// RESOURCE_EXHAUSTED naming the model, and the server goes on serving.
TEST(DeviceMemoryMetricsTest, RunningOutOfDeviceMemoryFailsTheRequestNotTheServer) {
  const std::string model = tfhost::testing::TfServingModelPath("saved_model_half_plus_two_cpu");
  TFHOST_REQUIRE_TFSERVING_MODEL(model);
  FakeGpu gpu(4096);
  auto core = ServeHalfPlusTwo(gpu);
  ASSERT_NE(core, nullptr);
  ts::PredictResponse response;
  const Status refused = core->Predict(Predict(2000), &response);
  TFHOST_EXPECT_ERROR(refused, StatusCode::kResourceExhausted, "model \"half_plus_two\"");
  TFHOST_EXPECT_ERROR(refused, StatusCode::kResourceExhausted,
                      "bfc(fake_device:0): cannot allocate 8000 bytes in device:0");
  ASSERT_TRUE(core->Predict(Predict(3), &response).ok());
  EXPECT_FLOAT_EQ(response.outputs().at("y").float_val(2), 3.0f);
  const std::string text = core->MetricsText();
  EXPECT_GE(Sample(text, std::string(":tfhost:serving:device_memory_allocation_failures") + kLabels), 1) << text;
  EXPECT_EQ(Sample(text, std::string(":tfhost:serving:device_memory_limit_bytes") + kLabels), 4096) << text;
}

}  // namespace
}  // namespace tfhost::serving
