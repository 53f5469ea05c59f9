// A .onnx and a .tflite file, written by the loaders' own test builders,
// through every command that takes a model path: inspect --check, run,
// bench and predict find the format from the file and answer as for a
// SavedModel.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "base/test_temp_dir.h"
#include "cli/cli.h"
#include "cli/cli_test_util.h"
#include "loaders/onnx/onnx_test_model.h"
#include "loaders/tflite/tflite_test_model.h"

namespace tfhost::cli {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// One model file and what its commands must say.
struct FormatCase {
  std::string file;       // model.onnx / model.tflite
  std::string signature;  // the signature the file's model answers to
  std::string run_input;  // run's --input
  std::string run_output;  // in run's printout
  std::string jsonl;      // one predict record
  std::string predicted;  // predict's output line
};

void ExpectEveryCommandRuns(const FormatCase& c, const testing::TempDir& dir) {
  const std::string model = dir.Sub(c.file);
  CliResult check = Cli({"inspect", model, "--check"});
  ASSERT_EQ(check.code, kExitOk) << check.err;
  EXPECT_NE(check.out.find(c.signature + ": none"), std::string::npos) << check.out;

  CliResult run = Cli({"run", model, "--signature", c.signature, "--input", c.run_input});
  ASSERT_EQ(run.code, kExitOk) << run.err;
  EXPECT_NE(run.out.find(c.run_output), std::string::npos) << run.out;

  CliResult bench = Cli({"bench", model, "--signature", c.signature, "--batch", "1,2", "--runs", "2", "--warmup", "0"});
  ASSERT_EQ(bench.code, kExitOk) << bench.err;
  EXPECT_NE(bench.out.find("p99_ms"), std::string::npos) << bench.out;

  const std::string in = dir.Sub(c.file + ".jsonl"), prefix = dir.Sub(c.file + ".predicted");
  std::ofstream(in) << c.jsonl << "\n";
  CliResult predict = Cli({"predict", model, "--signature", c.signature, "--input", in, "--output", prefix, "--format",
                        "jsonl", "--threads", "1"});
  ASSERT_EQ(predict.code, kExitOk) << predict.err;
  EXPECT_EQ(ReadAll(prefix + "-00000-of-00001.jsonl"), c.predicted + "\n");
}

TEST(ModelFormatsCliTest, OnnxFileRunsThroughInspectRunBenchAndPredict) {
  testing::TempDir dir("cli_formats");
  // y = relu(x @ w + b): x = [1, 2] gives relu([1.5, 1, 1]).
  loaders::onnx::testing::WriteBytes(dir.Sub("model.onnx"),
                                     loaders::onnx::testing::Serialize(loaders::onnx::testing::BaseModel()));
  ExpectEveryCommandRuns({"model.onnx", "serving_default", "x=[[1.0,2.0]]", "y: float32[1,3] {1.5, 1, 1}",
                          "{\"x\": [1.0, 2.0]}", "{\"y\":[1.5,1.0,1.0]}"},
                         dir);
}

TEST(ModelFormatsCliTest, TfliteFileRunsThroughInspectRunBenchAndPredict) {
  testing::TempDir dir("cli_formats");
  // out = relu(in + {1, -2, 3}): in = [1, 1, 1] gives [2, 0, 4].
  std::ofstream(dir.Sub("model.tflite"), std::ios::binary) << loaders::tflite::BuildTestModel();
  ExpectEveryCommandRuns({"model.tflite", "predict", "in=[[1.0,1.0,1.0]]", "out: float32[1,3] {2, 0, 4}",
                          "{\"in\": [1.0, 1.0, 1.0]}", "{\"out\":[2.0,0.0,4.0]}"},
                         dir);
}

}  // namespace
}  // namespace tfhost::cli
