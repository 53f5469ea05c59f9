// Cold start of a real model (issue 4's targets): load + first inference of
// nsfw_mobilenet_v2 and the process's peak RSS (VmHWM) with the session
// loaded. This file holds one test so that the peak it reads belongs to this
// load alone (ctest runs each *_test executable as its own process).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>

#include "base/test_fixtures.h"
#include "loaders/model_loader.h"

namespace tfhost {
namespace {

// A field of /proc/self/status in bytes ("VmHWM", "VmRSS"), or -1.
int64_t ProcStatusBytes(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0) {
      long long kb = -1;
      if (std::sscanf(line.c_str() + field.size() + 1, "%lld", &kb) == 1) return kb * 1024;
    }
  }
  return -1;
}

TEST(ColdStartTest, NsfwLoadAndFirstInferenceStayUnderTwiceTheWeightsPlus64MiB) {
  const std::string path = testing::FixturePath("models/tfjs/nsfw_mobilenet_v2/model.json");
  TFHOST_REQUIRE_FIXTURE(path);
  const int64_t rss_before = ProcStatusBytes("VmRSS");
  const auto start = std::chrono::steady_clock::now();
  loaders::LoadOptions options;
  options.session.intra_op_threads = 1;
  auto model = loaders::LoadModel(path, options);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const auto loaded = std::chrono::steady_clock::now();
  const int64_t hwm_loaded = ProcStatusBytes("VmHWM");
  Tensor input(DType::kFloat, Shape({1, 224, 224, 3}));
  for (int64_t i = 0; i < input.NumElements(); ++i) input.data<float>()[i] = static_cast<float>(i % 251) / 251.0f;
  auto out = (*model)->RunSignature("serving_default", {{(*model)->signatures().at("serving_default").inputs[0].key, input}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const auto done = std::chrono::steady_clock::now();
  const int64_t hwm = ProcStatusBytes("VmHWM");
  const int64_t weights = (*model)->info().variable_bytes;
  auto ms = [](auto d) { return std::chrono::duration<double, std::milli>(d).count(); };
  std::printf("nsfw_mobilenet_v2: load %.1f ms, first inference %.1f ms, total %.1f ms; weights %.1f MiB, "
              "RSS before load %.1f MiB, VmHWM after load %.1f MiB, after first inference %.1f MiB (budget %.1f MiB)\n",
              ms(loaded - start), ms(done - loaded), ms(done - start), weights / 1048576.0,
              rss_before / 1048576.0, hwm_loaded / 1048576.0, hwm / 1048576.0, (2 * weights + (64 << 20)) / 1048576.0);
  ASSERT_GT(weights, 0);
  ASSERT_GT(hwm, 0) << "no VmHWM in /proc/self/status";
  EXPECT_LT(hwm, 2 * weights + (int64_t{64} << 20));
}

}  // namespace
}  // namespace tfhost
