// `tfhost bench`: a sweep must not report batch-1 latencies under a larger
// batch label; --input/--fetch as for `run`, synthesized inputs only for what
// is not given; GFLOP/s from the graph's FLOP count, peak RSS, cold start,
// --kernels and --peak-gflops.
#include <gtest/gtest.h>

#include <rapidjson/document.h>

#include <filesystem>
#include <fstream>

#include "base/test_fixtures.h"
#include "cli/bench_profile.h"
#include "cli/cli.h"
#include "cli/cli_test_util.h"
#include "loaders/savedmodel/saved_model_writer.h"

namespace tfhost::cli {
namespace {

namespace fs = std::filesystem;

// A SavedModel computing y = Identity(x) with x's signature shape `dims`.
std::string WriteIdentityModel(const std::string& name, const std::vector<int64_t>& dims) {
  loaders::SavedModelSpec spec;
  auto* x = spec.graph_def.add_node();
  x->set_name("x");
  x->set_op("Placeholder");
  (*x->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  auto* y = spec.graph_def.add_node();
  y->set_name("y");
  y->set_op("Identity");
  y->add_input("x");
  (*y->mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
  runtime::TensorSpec in{"x", "x:0", DType::kFloat, {}}, out{"y", "y:0", DType::kFloat, {}};
  in.shape.unknown_rank = out.shape.unknown_rank = false;
  in.shape.dims = out.shape.dims = dims;
  spec.signatures = {runtime::Signature{"serving_default", "tensorflow/serving/predict", {in}, {out}, {}}};
  std::string path = (fs::temp_directory_path() / ("bench_test_" + std::to_string(::getpid()) + "_" + name)).string();
  fs::remove_all(path);
  EXPECT_TRUE(loaders::WriteSavedModel(path, spec).ok());
  return path;
}

TEST(BenchCommandTest, RefusesABatchSizeWhenNoInputHasABatchDim) {
  std::string path = WriteIdentityModel("fixed", {1, 3});
  CliResult one = Cli({"bench", path, "--runs", "1", "--warmup", "0", "--json"});
  EXPECT_EQ(one.code, kExitOk) << one.err;
  EXPECT_NE(one.out.find("\"batch\": 1"), std::string::npos) << one.out;
  CliResult eight = Cli({"bench", path, "--batch", "1,8", "--runs", "1", "--warmup", "0"});
  EXPECT_EQ(eight.code, kExitFailure);
  EXPECT_NE(eight.err.find("--batch 8"), std::string::npos) << eight.err;
  EXPECT_NE(eight.err.find("x [1,3]"), std::string::npos) << eight.err;
  EXPECT_NE(eight.err.find("only --batch 1"), std::string::npos) << eight.err;
  fs::remove_all(path);
}

TEST(BenchCommandTest, BatchDimTakesTheRequestedBatchSize) {
  std::string path = WriteIdentityModel("batched", {-1, 3});
  CliResult r = Cli({"bench", path, "--batch", "8", "--runs", "2", "--warmup", "0", "--json"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("\"batch\": 8"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"min_ms\""), std::string::npos) << r.out;
  fs::remove_all(path);
}

// blazeface's TF.js graph fixes its input at [1,256,256,3] (and reshapes to
// [1,...] inside), so only batch 1 is meaningful.
TEST(BenchCommandTest, TfjsModelWithFixedBatchRunsOnlyBatchOne) {
  std::string model = testing::FixturePath("models/tfjs/blazeface");
  TFHOST_REQUIRE_FIXTURE(model);
  CliResult one = Cli({"bench", model, "--runs", "1", "--warmup", "0"});
  EXPECT_EQ(one.code, kExitOk) << one.err;
  CliResult two = Cli({"bench", model, "--batch", "2", "--runs", "1", "--warmup", "0"});
  EXPECT_EQ(two.code, kExitFailure);
  EXPECT_NE(two.err.find("input:0 [1,256,256,3]"), std::string::npos) << two.err;
}

// A GraphDef computing product = MatMul(a [4,8], b [8,2]): 2*4*2*8 = 128 FLOPs.
std::string WriteMatMulGraph(const std::string& name) {
  std::string path =
      (fs::temp_directory_path() / ("bench_test_" + std::to_string(::getpid()) + "_" + name + ".pbtxt")).string();
  std::ofstream f(path);
  auto placeholder = [&f](const char* node, int rows, int cols) {
    f << "node { name: '" << node << "' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } "
      << "attr { key: 'shape' value { shape { dim { size: " << rows << " } dim { size: " << cols << " } } } } }\n";
  };
  placeholder("a", 4, 8);
  placeholder("b", 8, 2);
  f << "node { name: 'product' op: 'MatMul' input: 'a' input: 'b' attr { key: 'T' value { type: DT_FLOAT } } }\n"
    << "versions { producer: 27 }\n";
  return path;
}

rapidjson::Document ParseJson(const std::string& text) {
  rapidjson::Document doc;
  doc.Parse(text.c_str());
  EXPECT_FALSE(doc.HasParseError()) << text;
  return doc;
}

TEST(BenchCommandTest, ReportsGflopsFromTheGraphsFlopCountAndPeakRss) {
  std::string path = WriteMatMulGraph("flops");
  CliResult r = Cli({"bench", path, "--runs", "3", "--warmup", "1", "--json"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  auto doc = ParseJson(r.out);
  ASSERT_TRUE(doc.IsObject());
  const auto& result = doc["results"][0];
  EXPECT_DOUBLE_EQ(result["flops_per_run"].GetDouble(), 128.0);
  EXPECT_NEAR(result["gflops_per_s"].GetDouble(), 128.0 / (result["p50_ms"].GetDouble() * 1e6), 1e-9);
  EXPECT_GT(result["peak_rss_bytes"].GetInt64(), 0);
  EXPECT_GT(doc["process_peak_rss_bytes"].GetInt64(), 0);
  EXPECT_GE(result["cpu_cores_used"].GetDouble(), 0.0);
  EXPECT_EQ(doc["flops"][0]["counted_nodes"].GetInt64(), 1);
  EXPECT_EQ(doc["flops"][0]["uncounted_nodes"].Size(), 0u);
  EXPECT_STREQ(doc["kernels"].GetString(), "fast");
  EXPECT_FALSE(result.HasMember("fraction_of_peak"));
  // The table carries the same columns.
  CliResult table = Cli({"bench", path, "--runs", "1", "--warmup", "0"});
  ASSERT_EQ(table.code, kExitOk) << table.err;
  EXPECT_NE(table.out.find("GFLOP/s"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("peak_RSS_MiB"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("1.28e-07 GFLOP per run"), std::string::npos) << table.out;
  fs::remove(path);
}

TEST(BenchCommandTest, ProfileShowsEachOpsKernelTimeAndTheSlowestNodes) {
  std::string path = WriteMatMulGraph("profile");
  CliResult r = Cli({"bench", path, "--runs", "4", "--warmup", "0", "--profile", "--json"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  auto doc = ParseJson(r.out);
  const auto& profile = doc["results"][0]["profile"];
  EXPECT_EQ(profile["runs"].GetInt(), 4);
  ASSERT_EQ(profile["by_op"].Size(), 1u);  // the placeholders are fed, not run
  EXPECT_STREQ(profile["by_op"][0]["op"].GetString(), "MatMul");
  EXPECT_EQ(profile["by_op"][0]["nodes"].GetInt(), 1);
  EXPECT_GT(profile["by_op"][0]["ms_per_run"].GetDouble(), 0);
  EXPECT_DOUBLE_EQ(profile["kernel_ms_per_run"].GetDouble(), profile["by_op"][0]["ms_per_run"].GetDouble());
  ASSERT_EQ(profile["nodes"].Size(), 1u);
  EXPECT_STREQ(profile["nodes"][0]["name"].GetString(), "product");
  // Two placeholders and the MatMul, all in host memory: no copies.
  EXPECT_NE(std::string(profile["placement"].GetString()).find("; 0 copies"), std::string::npos)
      << profile["placement"].GetString();
  CliResult table = Cli({"bench", path, "--runs", "2", "--warmup", "0", "--profile"});
  ASSERT_EQ(table.code, kExitOk) << table.err;
  EXPECT_NE(table.out.find("profile, batch 1, threads 1, 2 runs: kernels "), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("product"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("  placement: "), std::string::npos) << table.out;
  // Without the flag, no profile.
  CliResult plain = Cli({"bench", path, "--runs", "1", "--warmup", "0", "--json"});
  EXPECT_FALSE(ParseJson(plain.out)["results"][0].HasMember("profile"));
  fs::remove(path);
}

TEST(BenchCommandTest, ProfileJsonListsEveryNodeWhereTheTableShowsTen) {
  std::string path =
      (fs::temp_directory_path() / ("bench_test_" + std::to_string(::getpid()) + "_chain.pbtxt")).string();
  {
    std::ofstream f(path);
    // Twelve products in a chain: no pass merges or fuses them.
    f << "node { name: 'x' op: 'Placeholder' attr { key: 'dtype' value { type: DT_FLOAT } } "
      << "attr { key: 'shape' value { shape { dim { size: 8 } dim { size: 8 } } } } }\n";
    std::string previous = "x";
    for (int i = 0; i < 12; ++i) {
      const std::string name = "product_" + std::to_string(i);
      f << "node { name: '" << name << "' op: 'MatMul' input: '" << previous
        << "' input: 'x' attr { key: 'T' value { type: DT_FLOAT } } }\n";
      previous = name;
    }
    f << "versions { producer: 27 }\n";
  }
  CliResult r = Cli({"bench", path, "--runs", "2", "--warmup", "0", "--profile", "--json"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  auto doc = ParseJson(r.out);
  const auto& nodes = doc["results"][0]["profile"]["nodes"];
  ASSERT_EQ(nodes.Size(), 12u);
  double sum = 0;
  for (rapidjson::SizeType i = 0; i < nodes.Size(); ++i) {
    sum += nodes[i]["ms_per_run"].GetDouble();
    if (i > 0) {
      EXPECT_LE(nodes[i]["ms_per_run"].GetDouble(), nodes[i - 1]["ms_per_run"].GetDouble());
    }
  }
  EXPECT_NEAR(sum, doc["results"][0]["profile"]["kernel_ms_per_run"].GetDouble(), 1e-9);
  CliResult table = Cli({"bench", path, "--runs", "2", "--warmup", "0", "--profile"});
  ASSERT_EQ(table.code, kExitOk) << table.err;
  int listed = 0;
  for (size_t at = table.out.find("product_"); at != std::string::npos; at = table.out.find("product_", at + 1)) {
    ++listed;
  }
  EXPECT_EQ(listed, cli::kSlowestNodes);
  fs::remove(path);
}

TEST(BenchCommandTest, PeakGflopsIsPerCoreTimesTheRowsThreads) {
  std::string path = WriteMatMulGraph("peak");
  CliResult r = Cli({"bench", path, "--runs", "2", "--warmup", "0", "--threads", "1", "--peak-gflops", "12.5", "--json"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  auto doc = ParseJson(r.out);
  const auto& result = doc["results"][0];
  EXPECT_DOUBLE_EQ(doc["peak_gflops_per_core"].GetDouble(), 12.5);
  EXPECT_DOUBLE_EQ(result["peak_gflops"].GetDouble(), 12.5);
  EXPECT_NEAR(result["fraction_of_peak"].GetDouble(), result["gflops_per_s"].GetDouble() / 12.5, 1e-12);
  CliResult table = Cli({"bench", path, "--runs", "1", "--warmup", "0", "--peak-gflops", "12.5"});
  EXPECT_NE(table.out.find("of_peak"), std::string::npos) << table.out;
  for (const char* bad : {"0", "-3", "abc", "1e400", "5x"}) {
    CliResult b = Cli({"bench", path, "--peak-gflops", bad});
    EXPECT_EQ(b.code, kExitUsage) << bad;
    EXPECT_NE(b.err.find("--peak-gflops"), std::string::npos) << b.err;
  }
  fs::remove(path);
}

TEST(BenchCommandTest, GivenInputsAreFedAndOnlyTheOthersSynthesized) {
  std::string path = WriteMatMulGraph("inputs");
  // 'a' comes from the flag (a wrong shape shows it is really fed), 'b' is synthesized.
  CliResult wrong = Cli({"bench", path, "--input", "a=[[1.0, 2.0]]", "--runs", "1", "--warmup", "0"});
  EXPECT_EQ(wrong.code, kExitFailure);
  EXPECT_NE(wrong.err.find("input 'a'"), std::string::npos) << wrong.err;
  std::string row = "[1,1,1,1,1,1,1,1]";
  std::string a = "a=[" + row + "," + row + "," + row + "," + row + "]";
  CliResult r = Cli({"bench", path, "--input", a, "--fetch", "product", "--runs", "2", "--warmup", "0", "--json"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  auto doc = ParseJson(r.out);
  EXPECT_DOUBLE_EQ(doc["results"][0]["flops_per_run"].GetDouble(), 128.0);
  // Feeding by tensor name runs the graph directly; the result is the same count.
  CliResult direct = Cli({"bench", path, "--input", "a:0=[" + row + "," + row + "," + row + "," + row + "]", "--fetch",
                       "product:0", "--runs", "1", "--warmup", "0", "--json"});
  ASSERT_EQ(direct.code, kExitOk) << direct.err;
  EXPECT_DOUBLE_EQ(ParseJson(direct.out)["results"][0]["flops_per_run"].GetDouble(), 128.0);
  CliResult unknown_fetch = Cli({"bench", path, "--fetch", "nope:0", "--runs", "1", "--warmup", "0"});
  EXPECT_EQ(unknown_fetch.code, kExitFailure);
  EXPECT_NE(unknown_fetch.err.find("nope"), std::string::npos) << unknown_fetch.err;
  CliResult twice = Cli({"bench", path, "--input", a, "--input", a});
  EXPECT_EQ(twice.code, kExitUsage);
  EXPECT_NE(twice.err.find("given twice"), std::string::npos) << twice.err;
  fs::remove(path);
}

TEST(BenchCommandTest, GivenInputsDoNotTakeALargerBatch) {
  std::string path = WriteIdentityModel("given_batch", {-1, 3});
  CliResult r = Cli({"bench", path, "--input", "x=[[1.0, 2.0, 3.0]]", "--batch", "1,4", "--runs", "1", "--warmup", "0"});
  EXPECT_EQ(r.code, kExitFailure);
  EXPECT_NE(r.err.find("--batch 4"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("x [1,3]"), std::string::npos) << r.err;
  fs::remove_all(path);
}

TEST(BenchCommandTest, KernelsFlagChoosesTheKernelSet) {
  std::string path = WriteMatMulGraph("kernels");
  CliResult ref = Cli({"bench", path, "--kernels", "reference", "--runs", "1", "--warmup", "0", "--json"});
  ASSERT_EQ(ref.code, kExitOk) << ref.err;
  EXPECT_STREQ(ParseJson(ref.out)["kernels"].GetString(), "reference");
  CliResult bad = Cli({"bench", path, "--kernels", "turbo"});
  EXPECT_EQ(bad.code, kExitUsage);
  EXPECT_NE(bad.err.find("fast, reference"), std::string::npos) << bad.err;
  fs::remove(path);
}

TEST(BenchCommandTest, ColdTimesLoadAndFirstRunApart) {
  std::string path = WriteMatMulGraph("cold");
  CliResult r = Cli({"bench", path, "--cold", "--runs", "1", "--warmup", "0", "--json"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  auto doc = ParseJson(r.out);
  ASSERT_TRUE(doc.HasMember("cold")) << r.out;
  const auto& cold = doc["cold"];
  EXPECT_GT(cold["load_ms"].GetDouble(), 0.0);
  EXPECT_GT(cold["first_run_ms"].GetDouble(), 0.0);
  EXPECT_DOUBLE_EQ(cold["total_ms"].GetDouble(), cold["load_ms"].GetDouble() + cold["first_run_ms"].GetDouble());
  CliResult without = Cli({"bench", path, "--runs", "1", "--warmup", "0", "--json"});
  EXPECT_FALSE(ParseJson(without.out).HasMember("cold"));
  CliResult table = Cli({"bench", path, "--cold", "--runs", "1", "--warmup", "0"});
  EXPECT_NE(table.out.find("cold start (threads 1, batch 1): load "), std::string::npos) << table.out;
  fs::remove(path);
}

// The real model the targets are about: every convolution and the MatMul
// have known shapes at batch 1, so nothing is left out of the count.
TEST(BenchCommandTest, NsfwFixtureFlopsAreFullyCountedWithWeightBytes) {
  std::string model = testing::FixturePath("models/tfjs/nsfw_mobilenet_v2");
  TFHOST_REQUIRE_FIXTURE(model);
  CliResult r = Cli({"bench", model, "--runs", "1", "--warmup", "0", "--json"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  auto doc = ParseJson(r.out);
  const auto& flops = doc["flops"][0];
  EXPECT_EQ(flops["uncounted_nodes"].Size(), 0u) << r.out;
  EXPECT_GT(flops["counted_nodes"].GetInt64(), 30);
  // MobileNetV2-class: hundreds of MFLOPs at 224x224, not GFLOPs.
  EXPECT_GT(flops["flops_per_run"].GetDouble(), 1e8);
  EXPECT_LT(flops["flops_per_run"].GetDouble(), 2e9);
  EXPECT_GT(doc["weight_bytes"].GetInt64(), 1 << 20);
}

}  // namespace
}  // namespace tfhost::cli
