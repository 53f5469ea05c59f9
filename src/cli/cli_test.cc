// Subcommands run in-process through RunCli, on the demo models (written
// fresh into a temp dir) and the TF Serving fixtures.
#include "cli/cli.h"
#include "cli/cli_test_util.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "base/test_fixtures.h"
#include "cli/npy_io.h"
#include "loaders/savedmodel/demo_models.h"
#include "loaders/savedmodel/saved_model_writer.h"

namespace tfhost::cli {
namespace {

namespace fs = std::filesystem;

class CliTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() / ("cli_test_" + std::to_string(::getpid())));
    fs::remove_all(*dir_);
    CliResult r = Cli({"demo-models", (*dir_ / "models").string()});
    ASSERT_EQ(r.code, kExitOk) << r.err;
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
  }
  static std::string Model(const std::string& name) { return (*dir_ / "models" / name).string(); }
  static inline fs::path* dir_ = nullptr;
};

TEST_F(CliTest, HelpVersionAndUnknownCommandExitCodes) {
  CliResult help = Cli({"help"});
  EXPECT_EQ(help.code, kExitOk);
  for (const char* cmd : {"inspect", "run", "bench", "demo-models", "version"}) {
    EXPECT_NE(help.out.find(cmd), std::string::npos) << cmd;
    CliResult sub = Cli({cmd, "--help"});
    EXPECT_EQ(sub.code, kExitOk) << cmd;
    EXPECT_NE(sub.out.find("Usage: tfhost " + std::string(cmd)), std::string::npos) << sub.out;
  }
  EXPECT_EQ(Cli({"version"}).out.rfind("tfhost ", 0), 0u);
  CliResult unknown = Cli({"inspekt", "x"});
  EXPECT_EQ(unknown.code, kExitUsage);
  EXPECT_NE(unknown.err.find("did you mean 'inspect'"), std::string::npos) << unknown.err;
  EXPECT_EQ(Cli({}).code, kExitUsage);
}

TEST_F(CliTest, UnknownFlagIsAUsageErrorWithSuggestion) {
  CliResult r = Cli({"run", Model("half_plus_two"), "--inptu", "x=[[1.0]]"});
  EXPECT_EQ(r.code, kExitUsage);
  EXPECT_NE(r.err.find("did you mean '--input'"), std::string::npos) << r.err;
  CliResult missing = Cli({"inspect"});
  EXPECT_EQ(missing.code, kExitUsage);
  EXPECT_NE(missing.err.find("missing argument PATH"), std::string::npos) << missing.err;
}

TEST_F(CliTest, MissingModelIsARuntimeFailure) {
  CliResult r = Cli({"inspect", (*dir_ / "no_such_model").string()});
  EXPECT_EQ(r.code, kExitFailure);
  EXPECT_NE(r.err.find("does not exist"), std::string::npos) << r.err;
}

TEST_F(CliTest, InspectShowsSignaturesOpsAndVariables) {
  CliResult r = Cli({"inspect", Model("half_plus_two")});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  for (const char* s : {"signature_def['serving_default']", "signature_def['classify_x_to_y']",
                        "method name: tensorflow/serving/regress", "'x' tensor: x:0  dtype: float32",
                        "Variables: 2 (8 B)", "VariableV2", "ParseExample"}) {
    EXPECT_NE(r.out.find(s), std::string::npos) << s << "\n" << r.out;
  }
  CliResult json = Cli({"inspect", Model("mlp"), "--json"});
  ASSERT_EQ(json.code, kExitOk) << json.err;
  for (const char* s : {"\"variable_count\": 4", "\"MatMul\": 2", "\"key\": \"probabilities\"", "\"shape\": ["}) {
    EXPECT_NE(json.out.find(s), std::string::npos) << s << "\n" << json.out;
  }
}

TEST_F(CliTest, InspectReadsTfServingFixture) {
  std::string path = testing::FixturePath("models/tfserving/saved_model_half_plus_two_cpu");
  TFHOST_REQUIRE_FIXTURE(path);
  CliResult r = Cli({"inspect", path});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("signature_def['regress_x_to_y2']"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("'y' tensor: y:0"), std::string::npos) << r.out;
}

TEST_F(CliTest, RunPrintsOutputsForJsonInput) {
  CliResult r = Cli({"run", Model("half_plus_two"), "--input", "x=[[1.0],[2.0],[5.0]]"});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  EXPECT_NE(r.out.find("y: float32[3,1] {2.5, 3, 4.5}"), std::string::npos) << r.out;
}

TEST_F(CliTest, RunWritesNpyOutputsToOutputDir) {
  fs::path in = *dir_ / "x.npy";
  ASSERT_TRUE(WriteNpyFile(in.string(), Tensor::FromVector<float>({2, 4}, Shape({2, 1}))).ok());
  fs::path out_dir = *dir_ / "out";
  CliResult r = Cli({"run", Model("half_plus_two"), "--input=x=" + in.string(), "--output-dir", out_dir.string()});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  auto y = ReadNpyFile((out_dir / "y.npy").string());
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_TRUE(TensorsEqual(*y, Tensor::FromVector<float>({3, 4}, Shape({2, 1}))));
}

TEST_F(CliTest, RunFeedsAndFetchesTensorNamesDirectly) {
  fs::path out_dir = *dir_ / "direct";
  CliResult r = Cli({"run", Model("half_plus_two"), "--input", "x:0=[[10.0]]", "--fetch", "Mul:0", "--fetch", "y:0",
                  "--output-dir", out_dir.string()});
  ASSERT_EQ(r.code, kExitOk) << r.err;
  auto mul = ReadNpyFile((out_dir / "Mul_0.npy").string());
  ASSERT_TRUE(mul.ok()) << mul.status().ToString();
  EXPECT_TRUE(TensorsEqual(*mul, Tensor::FromVector<float>({5}, Shape({1, 1}))));
  auto y = ReadNpyFile((out_dir / "y_0.npy").string());
  ASSERT_TRUE(y.ok());
  EXPECT_TRUE(TensorsEqual(*y, Tensor::FromVector<float>({7}, Shape({1, 1}))));
}

TEST_F(CliTest, RunWithWrongDtypeFailsWithMessage) {
  fs::path in = *dir_ / "ints.npy";
  ASSERT_TRUE(WriteNpyFile(in.string(), Tensor::FromVector<int64_t>({1, 2}, Shape({2, 1}))).ok());
  CliResult r = Cli({"run", Model("half_plus_two"), "--input", "x=" + in.string()});
  EXPECT_EQ(r.code, kExitFailure);
  EXPECT_NE(r.err.find("input 'x' must be float32, got int64"), std::string::npos) << r.err;
  CliResult json = Cli({"run", Model("half_plus_two"), "--input", "x=[[\"a\"]]"});
  EXPECT_EQ(json.code, kExitFailure);
  EXPECT_NE(json.err.find("must be a number"), std::string::npos) << json.err;
  CliResult shape = Cli({"run", Model("half_plus_two"), "--input", "x=[1.0, 2.0]"});
  EXPECT_EQ(shape.code, kExitFailure);
  EXPECT_NE(shape.err.find("must have shape [?,1]"), std::string::npos) << shape.err;
}

TEST_F(CliTest, RunWithUnknownKeyFailsListingExpectedInputs) {
  CliResult r = Cli({"run", Model("half_plus_two"), "--input", "z=[[1.0]]"});
  EXPECT_EQ(r.code, kExitFailure);
  EXPECT_NE(r.err.find("input 'z' is neither an input of signature 'serving_default' (x)"), std::string::npos)
      << r.err;
  CliResult sig = Cli({"run", Model("half_plus_two"), "--signature", "nope", "--input", "x=[[1.0]]"});
  EXPECT_EQ(sig.code, kExitFailure);
  CliResult missing = Cli({"run", Model("mlp")});
  EXPECT_EQ(missing.code, kExitFailure);
  EXPECT_NE(missing.err.find("missing input 'x'"), std::string::npos) << missing.err;
}

TEST_F(CliTest, BenchReportsEverySettingAsTableAndJson) {
  CliResult table = Cli({"bench", Model("mlp"), "--batch", "1,4", "--threads=1,2", "--runs", "3", "--warmup", "1"});
  ASSERT_EQ(table.code, kExitOk) << table.err;
  EXPECT_NE(table.out.find("p99_ms"), std::string::npos) << table.out;
  int rows = 0;
  std::istringstream lines(table.out);
  for (std::string line; std::getline(lines, line);) rows += line.find("     3 ") != std::string::npos;
  EXPECT_EQ(rows, 4) << table.out;
  CliResult json = Cli({"bench", Model("cnn"), "--batch", "2", "--runs", "2", "--warmup", "0", "--json"});
  ASSERT_EQ(json.code, kExitOk) << json.err;
  EXPECT_NE(json.out.find("\"items_per_s\""), std::string::npos) << json.out;
  EXPECT_NE(json.out.find("\"batch\": 2"), std::string::npos) << json.out;
}

TEST_F(CliTest, BenchAsksForShapeWhenADimIsUnknown) {
  // x: float [-1,-1] -> Identity: the second dim cannot be guessed.
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
  in.shape.dims = out.shape.dims = {-1, -1};
  spec.signatures = {runtime::Signature{"serving_default", "tensorflow/serving/predict", {in}, {out}, {}}};
  std::string path = (*dir_ / "ragged_dims").string();
  ASSERT_TRUE(loaders::WriteSavedModel(path, spec).ok());
  CliResult r = Cli({"bench", path, "--runs", "1"});
  EXPECT_EQ(r.code, kExitFailure);
  EXPECT_NE(r.err.find("--shape x=d1,d2"), std::string::npos) << r.err;
  CliResult ok = Cli({"bench", path, "--runs", "1", "--shape", "x=-1,5", "--batch", "3"});
  EXPECT_EQ(ok.code, kExitOk) << ok.err;
  CliResult bad = Cli({"bench", path, "--shape", "q=1"});
  EXPECT_EQ(bad.code, kExitUsage);
}

}  // namespace
}  // namespace tfhost::cli
