// The --input/--fetch resolution `run` and `bench` share, and the --kernels
// flag both take.
#include "cli/command_util.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "backends/backend_registry.h"
#include "cli/cli.h"
#include "base/test_status.h"

namespace tfhost::cli {
namespace {

namespace fs = std::filesystem;

// y = x * 2 with x float [-1, 2]: 'x' (signature key) is tensor "x:0".
std::string WriteDoubler(const std::string& name) {
  std::string path =
      (fs::temp_directory_path() / ("command_util_test_" + std::to_string(::getpid()) + "_" + name + ".pbtxt"))
          .string();
  std::ofstream f(path);
  f << "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } "
       "attr { key: 'shape' value { shape { dim { size: -1 } dim { size: 2 } } } } }\n"
       "node { name: 'two' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } } "
       "attr { key: 'value' value { tensor { dtype: DT_FLOAT tensor_shape { } float_val: 2 } } } }\n"
       "node { name: 'y' op: 'Mul' input: 'x' input: 'two' attr { key: 'T' value { type: DT_FLOAT } } }\n"
       "versions { producer: 27 }\n";
  return path;
}

std::unique_ptr<runtime::Model> Load(const std::string& path,
                                     backends::KernelChoice kernels = backends::KernelChoice::kFast) {
  CliLoad load;
  load.intra_op_threads = 1;
  load.kernels = kernels;
  auto model = LoadModelForCli(path, load);
  EXPECT_TRUE(model.ok()) << model.status().ToString();
  return model.ok() ? std::move(*model) : nullptr;
}

std::vector<InputFlag> Inputs(const std::vector<std::string>& flags) {
  auto parsed = ParseInputFlags(flags);
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  return parsed.ok() ? *parsed : std::vector<InputFlag>{};
}

TEST(CommandUtilTest, SignatureKeysRunThroughTheSignature) {
  std::string path = WriteDoubler("sig");
  auto model = Load(path);
  ASSERT_NE(model, nullptr);
  auto run = ResolveRun(*model, "serving_default", Inputs({"x=[[1.0, 2.0]]"}), {});
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_FALSE(run->direct);
  auto fed = run->FedTensors();
  ASSERT_EQ(fed.size(), 1u);
  EXPECT_EQ(fed[0].first, "x:0");
  auto out = run->Run(*model);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), 1u);
  EXPECT_EQ((*out)[0].first, "y");
  EXPECT_FLOAT_EQ((*out)[0].second.data<float>()[1], 4.f);
  fs::remove(path);
}

TEST(CommandUtilTest, TensorNamesRunTheGraphDirectly) {
  std::string path = WriteDoubler("direct");
  auto model = Load(path);
  ASSERT_NE(model, nullptr);
  auto run = ResolveRun(*model, "serving_default", Inputs({"x:0=[[3.0, 5.0]]"}), {"y:0"});
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  EXPECT_TRUE(run->direct);
  auto out = run->Run(*model);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].first, "y:0");
  EXPECT_FLOAT_EQ((*out)[0].second.data<float>()[0], 6.f);
  auto unknown = ResolveRun(*model, "serving_default", Inputs({"nope:0=[1.0]"}), {});
  TFHOST_ASSERT_ERROR(unknown, StatusCode::kInvalidArgument,
                      "input 'nope:0' is neither an input of signature 'serving_default' (x) nor a tensor of the graph: no");
  EXPECT_NE(unknown.status().message().find("neither an input of signature 'serving_default' (x)"),
            std::string::npos)
      << unknown.status().message();
  // The same tensor fed twice, once by key and once by name.
  auto twice = ResolveRun(*model, "serving_default", Inputs({"x=[[1.0, 1.0]]", "x:0=[[1.0, 1.0]]"}), {"y:0"});
  TFHOST_EXPECT_ERROR(twice, StatusCode::kInvalidArgument, "input 'x:0' feeds x:0, which another --input feeds too");
  fs::remove(path);
}

TEST(CommandUtilTest, FillerMakesOnlyTheInputsNotGiven) {
  std::string path = WriteDoubler("fill");
  auto model = Load(path);
  ASSERT_NE(model, nullptr);
  int calls = 0;
  InputFiller fill = [&calls](const runtime::TensorSpec& spec) -> StatusOr<Tensor> {
    ++calls;
    Tensor t(spec.dtype, Shape({3, 2}));
    for (int i = 0; i < 6; ++i) t.data<float>()[i] = 1.f;
    return t;
  };
  auto given = ResolveRun(*model, "serving_default", Inputs({"x=[[1.0, 2.0]]"}), {}, fill);
  ASSERT_TRUE(given.ok());
  EXPECT_EQ(calls, 0);
  EXPECT_TRUE(given->filled_keys.empty());
  auto filled = ResolveRun(*model, "serving_default", {}, {}, fill);
  ASSERT_TRUE(filled.ok()) << filled.status().ToString();
  EXPECT_EQ(calls, 1);
  ASSERT_EQ(filled->filled_keys.size(), 1u);
  EXPECT_EQ(filled->filled_keys[0], "x");
  // In direct mode a signature input fed by its tensor name is not filled.
  calls = 0;
  auto direct = ResolveRun(*model, "serving_default", Inputs({"x:0=[[1.0, 2.0]]"}), {"y:0"}, fill);
  ASSERT_TRUE(direct.ok());
  EXPECT_EQ(calls, 0);
  // A filler's error is the resolution's error.
  InputFiller refuse = [](const runtime::TensorSpec& spec) -> StatusOr<Tensor> {
    return InvalidArgument("cannot make " + spec.key);
  };
  auto refused = ResolveRun(*model, "serving_default", {}, {}, refuse);
  TFHOST_ASSERT_ERROR(refused, StatusCode::kInvalidArgument, "cannot make x");
  EXPECT_EQ(refused.status().message(), "cannot make x");
  fs::remove(path);
}

TEST(CommandUtilTest, Bf16OnACpuWithoutItSaysProductsRunInFloat32) {
  std::ostringstream fp32, bf16;
  NoteBf16Fallback(fp32, "bench", "fp32");
  NoteBf16Fallback(bf16, "bench", "bf16");
  EXPECT_EQ(fp32.str(), "");
  if (backends::BackendRegistry::Global().HostHasNativeBf16()) {
    EXPECT_EQ(bf16.str(), "") << "this CPU runs bf16 natively";
  } else {
    EXPECT_NE(bf16.str().find("tfhost bench: --precision bf16: this CPU has no native bf16"), std::string::npos)
        << bf16.str();
  }
}

TEST(CommandUtilTest, KernelsFlagParsesBothChoicesAndNamesThemOnError) {
  EXPECT_EQ(*ParseKernelsFlag("fast"), backends::KernelChoice::kFast);
  EXPECT_EQ(*ParseKernelsFlag("reference"), backends::KernelChoice::kReference);
  auto bad = ParseKernelsFlag("oneDNN");
  TFHOST_ASSERT_ERROR(bad, StatusCode::kInvalidArgument,
                      "--kernels: kernel choice 'oneDNN' is not one of: fast, reference");
  EXPECT_NE(bad.status().message().find("fast, reference"), std::string::npos);
}

TEST(CommandUtilTest, LoadedModelUsesTheChosenKernels) {
  std::string path = WriteDoubler("choice");
  auto reference = Load(path, backends::KernelChoice::kReference);
  ASSERT_NE(reference, nullptr);
  EXPECT_EQ(reference->session().options().kernels, backends::KernelChoice::kReference);
  auto fast = Load(path);
  ASSERT_NE(fast, nullptr);
  EXPECT_EQ(fast->session().options().kernels, backends::KernelChoice::kFast);
  fs::remove(path);
}

TEST(CommandUtilTest, RunTakesKernelsAndGivesTheSameOutputsEitherWay) {
  std::string path = WriteDoubler("run");
  for (const char* kernels : {"fast", "reference"}) {
    std::ostringstream out, err;
    int code = RunCli({"run", path, "--input", "x=[[1.5, -2.0]]", "--kernels", kernels}, out, err);
    EXPECT_EQ(code, kExitOk) << err.str();
    EXPECT_NE(out.str().find("y: float32[1,2]"), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("3, -4"), std::string::npos) << out.str();
  }
  std::ostringstream out, err;
  EXPECT_EQ(RunCli({"run", path, "--input", "x=[[1.0, 1.0]]", "--kernels", "slow"}, out, err), kExitUsage);
  EXPECT_NE(err.str().find("--kernels"), std::string::npos) << err.str();
  fs::remove(path);
}

TEST(ServeMallocArenaLimitTest, OnePerCpuUnlessTheUserChose) {
  EXPECT_EQ(ServeMallocArenaLimit(nullptr, nullptr, 2), 2);
  EXPECT_EQ(ServeMallocArenaLimit(nullptr, nullptr, 1), 2);
  EXPECT_EQ(ServeMallocArenaLimit(nullptr, nullptr, 64), 64);
  EXPECT_EQ(ServeMallocArenaLimit(nullptr, "glibc.malloc.mmap_threshold=131072", 8), 8);
  EXPECT_EQ(ServeMallocArenaLimit("16", nullptr, 8), std::nullopt);
  EXPECT_EQ(ServeMallocArenaLimit(nullptr, "glibc.malloc.tcache_count=0:glibc.malloc.arena_max=4", 8), std::nullopt);
}

TEST(ServeMallocMmapThresholdTest, FixedAt256KiBUnlessTheUserChose) {
  EXPECT_EQ(ServeMallocMmapThreshold(nullptr, nullptr), size_t{256} << 10);
  EXPECT_EQ(ServeMallocMmapThreshold(nullptr, "glibc.malloc.arena_max=4"), size_t{256} << 10);
  EXPECT_EQ(ServeMallocMmapThreshold("1048576", nullptr), std::nullopt);
  EXPECT_EQ(ServeMallocMmapThreshold(nullptr, "glibc.malloc.tcache_count=0:glibc.malloc.mmap_threshold=65536"),
            std::nullopt);
}

}  // namespace
}  // namespace tfhost::cli
