// The limit flags: their defaults are the libraries' own, they reach the
// load and session options, their ranges are checked, and a crossed limit
// fails a command naming the flag (through RunCli, on the demo models and a
// gzip TFRecord written here).
#include "cli/limit_flags.h"

#include <gtest/gtest.h>


#include "base/test_status.h"
#include "base/test_temp_dir.h"
#include "cli/cli.h"
#include "cli/cli_test_util.h"
#include "data/example.h"
#include "data/tfrecord_writer.h"
#include "loaders/savedmodel/demo_models.h"

namespace tfhost::cli {
namespace {

TEST(LimitFlagsTest, DefaultsAreTheLibrariesOwnAndApplySetsEveryOption) {
  loaders::LoadOptions defaults;
  ModelLimitFlags flags;
  loaders::LoadOptions applied;
  ApplyModelLimitFlags(flags, &applied);
  EXPECT_EQ(applied.max_graph_nodes, defaults.max_graph_nodes);
  EXPECT_EQ(applied.session.max_loop_iterations, defaults.session.max_loop_iterations);
  EXPECT_EQ(applied.session.max_function_depth, defaults.session.max_function_depth);
  EXPECT_EQ(applied.session.max_decoded_image_bytes, defaults.session.max_decoded_image_bytes);
  EXPECT_EQ(applied.session.max_op_string_bytes, defaults.session.max_op_string_bytes);
  EXPECT_EQ(DecompressedLimitBytes(kDefaultMaxDecompressedMb), data::TFRecordReaderOptions{}.max_decompressed_bytes);

  flags.max_loop_iterations = 7;
  flags.max_function_depth = 3;
  flags.max_graph_nodes = 100;
  flags.max_decoded_image_mb = 2;
  flags.max_op_string_mb = 5;
  ApplyModelLimitFlags(flags, &applied);
  EXPECT_EQ(applied.session.max_loop_iterations, 7);
  EXPECT_EQ(applied.session.max_function_depth, 3);
  EXPECT_EQ(applied.max_graph_nodes, 100);
  EXPECT_EQ(applied.session.max_decoded_image_bytes, 2 << 20);
  EXPECT_EQ(applied.session.max_op_string_bytes, 5 << 20);
}

TEST(LimitFlagsTest, OutOfRangeValuesNameTheFlagAndTheRange) {
  ModelLimitFlags flags;
  EXPECT_TRUE(CheckModelLimitFlags(flags).ok());
  flags.max_loop_iterations = 0;  // no limit
  EXPECT_TRUE(CheckModelLimitFlags(flags).ok());
  flags.max_loop_iterations = -1;
  TFHOST_EXPECT_ERROR(CheckModelLimitFlags(flags), StatusCode::kInvalidArgument,
                      "--max_loop_iterations must be between 0 and 2147483647, got -1");
  flags = {};
  flags.max_function_depth = 0;
  TFHOST_EXPECT_ERROR(CheckModelLimitFlags(flags), StatusCode::kInvalidArgument,
                      "--max_function_depth must be between 1 and 100000, got 0");
  flags = {};
  flags.max_decoded_image_mb = 0;
  TFHOST_EXPECT_ERROR(CheckModelLimitFlags(flags), StatusCode::kInvalidArgument,
                      "--max_decoded_image_mb must be between 1 and 1048576, got 0");
  flags = {};
  flags.max_op_string_mb = 1048577;
  TFHOST_EXPECT_ERROR(CheckModelLimitFlags(flags), StatusCode::kInvalidArgument,
                      "--max_op_string_mb must be between 1 and 1048576, got 1048577");
  TFHOST_EXPECT_ERROR(CheckDecompressedLimitFlag(-1), StatusCode::kInvalidArgument,
                      "--max_decompressed_mb must be between 0 and 2147483647, got -1");
}

class LimitFlagsCliTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(loaders::WriteDemoModels(dir_.path()).ok()); }
  testing::TempDir dir_{"tfhost_limit_flags"};
};

TEST_F(LimitFlagsCliTest, RunRefusesAModelPastMaxGraphNodesNamingTheFlag) {
  const std::string model = dir_.Sub("half_plus_two");
  CliResult ok = Cli({"run", model, "--input", "x=[[1.0]]"});
  ASSERT_EQ(ok.code, kExitOk) << ok.err;
  CliResult small = Cli({"run", model, "--input", "x=[[1.0]]", "--max_graph_nodes=3"});
  EXPECT_EQ(small.code, kExitFailure);
  EXPECT_NE(small.err.find("nodes, more than the 3 a model may have (--max_graph_nodes)"), std::string::npos)
      << small.err;
  CliResult bad = Cli({"bench", model, "--max_loop_iterations=-1"});
  EXPECT_EQ(bad.code, kExitUsage);
  EXPECT_NE(bad.err.find("--max_loop_iterations must be between 0 and 2147483647, got -1"), std::string::npos)
      << bad.err;
}

TEST_F(LimitFlagsCliTest, DataInspectStopsAGzipFilePastMaxDecompressedMb) {
  // One Example holding 2 MiB of zeros: about 2 KiB compressed.
  data::Example e;
  e.features["blob"] = data::Feature::Bytes({std::string(2 << 20, '\0')});
  data::TFRecordWriterOptions gzip;
  gzip.compression = data::Compression::kGzip;
  const std::string path = dir_.Sub("zeros.tfrecord.gz");
  ASSERT_TRUE(data::WriteTFRecordFile(path, {data::EncodeExample(e)}, gzip).ok());
  CliResult over = Cli({"data", "inspect", path, "--max_decompressed_mb=1", "--quiet"});
  EXPECT_EQ(over.code, kExitFailure);
  EXPECT_NE(over.err.find("decompresses to more than 1048576 bytes, the most one compressed file may "
                          "(--max_decompressed_mb=1)"),
            std::string::npos)
      << over.err;
  CliResult at = Cli({"data", "inspect", path, "--max_decompressed_mb=3", "--quiet"});
  EXPECT_EQ(at.code, kExitOk) << at.err;
}

}  // namespace
}  // namespace tfhost::cli
