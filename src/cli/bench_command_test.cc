// `tfhost bench` on signatures whose batch size cannot change: a sweep must
// not report batch-1 latencies under a larger batch label.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "base/test_fixtures.h"
#include "cli/cli.h"
#include "loaders/savedmodel/saved_model_writer.h"

namespace tfhost::cli {
namespace {

namespace fs = std::filesystem;

struct Result {
  int code;
  std::string out, err;
};

Result Cli(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  int code = RunCli(args, out, err);
  return {code, out.str(), err.str()};
}

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
  Result one = Cli({"bench", path, "--runs", "1", "--warmup", "0", "--json"});
  EXPECT_EQ(one.code, kExitOk) << one.err;
  EXPECT_NE(one.out.find("\"batch\": 1"), std::string::npos) << one.out;
  Result eight = Cli({"bench", path, "--batch", "1,8", "--runs", "1", "--warmup", "0"});
  EXPECT_EQ(eight.code, kExitFailure);
  EXPECT_NE(eight.err.find("--batch 8"), std::string::npos) << eight.err;
  EXPECT_NE(eight.err.find("x [1,3]"), std::string::npos) << eight.err;
  EXPECT_NE(eight.err.find("only --batch 1"), std::string::npos) << eight.err;
  fs::remove_all(path);
}

TEST(BenchCommandTest, BatchDimTakesTheRequestedBatchSize) {
  std::string path = WriteIdentityModel("batched", {-1, 3});
  Result r = Cli({"bench", path, "--batch", "8", "--runs", "2", "--warmup", "0", "--json"});
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
  Result one = Cli({"bench", model, "--runs", "1", "--warmup", "0"});
  EXPECT_EQ(one.code, kExitOk) << one.err;
  Result two = Cli({"bench", model, "--batch", "2", "--runs", "1", "--warmup", "0"});
  EXPECT_EQ(two.code, kExitFailure);
  EXPECT_NE(two.err.find("input:0 [1,256,256,3]"), std::string::npos) << two.err;
}

}  // namespace
}  // namespace tfhost::cli
