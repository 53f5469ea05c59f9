#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/cli.h"

namespace tfhost::cli {
namespace {

namespace fs = std::filesystem;

class InspectCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "tfhost_inspect_XXXXXX").string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& text) {
    fs::path p = dir_ / name;
    std::ofstream(p) << text;
    return p.string();
  }

  int Inspect(std::vector<std::string> args) {
    out_.str("");
    err_.str("");
    return InspectCommand(args, out_, err_);
  }

  fs::path dir_;
  std::ostringstream out_, err_;
};

constexpr char kSupported[] = R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "y" op: "Identity" input: "x" attr { key: "T" value { type: DT_FLOAT } } }
)";

// FrobnicateV7 in the graph and GhostOp inside a function the graph calls.
constexpr char kUnsupported[] = R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "m" op: "FrobnicateV7" input: "x" }
node { name: "c" op: "StatefulPartitionedCall" input: "x"
       attr { key: "f" value { func { name: "fn" } } }
       attr { key: "Tin" value { list { type: DT_FLOAT } } }
       attr { key: "Tout" value { list { type: DT_FLOAT } } } }
library { function {
  signature { name: "fn" input_arg { name: "a" type: DT_FLOAT } output_arg { name: "b" type: DT_FLOAT } }
  node_def { name: "g" op: "GhostOp" input: "a" }
  ret { key: "b" value: "g:0" } } }
)";

TEST_F(InspectCommandTest, SupportedModelListsNoMissingOpsAndCheckPasses) {
  std::string path = Write("ok.pbtxt", kSupported);
  EXPECT_EQ(Inspect({path, "--check"}), kExitOk) << err_.str();
  EXPECT_NE(out_.str().find("Ops without a tfhost kernel, per signature:"), std::string::npos) << out_.str();
  EXPECT_NE(out_.str().find(": none"), std::string::npos) << out_.str();
  EXPECT_EQ(Inspect({path, "--json"}), kExitOk);
  EXPECT_NE(out_.str().find("\"unsupported_ops\""), std::string::npos) << out_.str();
}

TEST_F(InspectCommandTest, UnsupportedOpsAreAllNamedIncludingInsideFunctionsAndExitNonZero) {
  std::string path = Write("bad.pbtxt", kUnsupported);
  EXPECT_EQ(Inspect({path, "--check"}), kExitFailure);
  EXPECT_NE(out_.str().find("FrobnicateV7"), std::string::npos) << out_.str();
  EXPECT_NE(out_.str().find("GhostOp"), std::string::npos) << out_.str();
  EXPECT_EQ(out_.str().find("StatefulPartitionedCall"), std::string::npos) << out_.str();
  EXPECT_EQ(Inspect({path, "--json"}), kExitFailure);
  EXPECT_NE(out_.str().find("\"GhostOp\""), std::string::npos) << out_.str();
}

TEST_F(InspectCommandTest, TfjsModelWithUnknownOpsListsThem) {
  std::string path = Write("model.json", R"({"format": "graph-model", "modelTopology": {
      "node": [{"name": "x", "op": "Placeholder", "attr": {"dtype": {"type": "DT_FLOAT"}}},
               {"name": "y", "op": "WarpDriveV2", "input": ["x"]}],
      "library": {"function": [{"signature": {"name": "f"}, "nodeDef": [{"name": "z", "op": "GhostOp"}]}]}},
    "weightsManifest": []})");
  EXPECT_EQ(Inspect({path, "--check"}), kExitFailure);
  EXPECT_NE(out_.str().find("GhostOp, WarpDriveV2"), std::string::npos) << out_.str() << err_.str();
}

// x -> Conv2D(const filter) -> BiasAdd -> Relu: the passes fuse the three.
constexpr char kConvBiasRelu[] = R"(
node { name: "x" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "shape" value { shape { dim { size: 1 } dim { size: 2 } dim { size: 2 } dim { size: 1 } } } } }
node { name: "w" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 1 } dim { size: 1 }
              dim { size: 1 } dim { size: 1 } } float_val: 2 } } } }
node { name: "conv" op: "Conv2D" input: "x" input: "w" attr { key: "T" value { type: DT_FLOAT } }
       attr { key: "strides" value { list { i: 1 i: 1 i: 1 i: 1 } } } attr { key: "padding" value { s: "SAME" } } }
node { name: "b" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
       attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape { dim { size: 1 } } float_val: -1 } } } }
node { name: "bias" op: "BiasAdd" input: "conv" input: "b" attr { key: "T" value { type: DT_FLOAT } } }
node { name: "y" op: "Relu" input: "bias" attr { key: "T" value { type: DT_FLOAT } } }
)";

TEST_F(InspectCommandTest, OptimizedShowsPerPassCountsHistogramAndFusedOps) {
  std::string path = Write("conv.pbtxt", kConvBiasRelu);
  EXPECT_EQ(Inspect({path, "--optimized"}), kExitOk) << err_.str();
  const std::string text = out_.str();
  EXPECT_NE(text.find("conv_bias_activation_fusion: 6 -> 4"), std::string::npos) << text;
  EXPECT_NE(text.find("Optimized op histogram (4 nodes):"), std::string::npos) << text;
  EXPECT_NE(text.find("  _FusedConv2D: 1"), std::string::npos) << text;
  EXPECT_NE(text.find("_FusedConv2D [BiasAdd, Relu]: 1"), std::string::npos) << text;
  // Where the nodes run: the weights and the input on the reference backend,
  // all in host memory.
  EXPECT_NE(text.find("; 0 copies):\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  reference (host, priority 0): Const 2 Placeholder 1\n"), std::string::npos) << text;
  // Without the flag none of it is printed.
  EXPECT_EQ(Inspect({path}), kExitOk) << err_.str();
  EXPECT_EQ(out_.str().find("Graph passes"), std::string::npos) << out_.str();
}

TEST_F(InspectCommandTest, OptimizedBf16ShowsThePrecisionPassesAndWhatTheyMarked) {
  std::string path = Write("conv.pbtxt", kConvBiasRelu);
  EXPECT_EQ(Inspect({path, "--optimized", "--precision", "bf16"}), kExitOk) << err_.str();
  const std::string text = out_.str();
  EXPECT_NE(text.find("precision: 4 -> 4"), std::string::npos) << text;
  // One output channel: too narrow for bf16 (passes/precision.cc).
  EXPECT_NE(text.find("bf16: 0 nodes compute in bf16, 0 store their output in bf16"), std::string::npos) << text;
  EXPECT_EQ(Inspect({path, "--optimized", "--precision", "fp16"}), kExitUsage);
  EXPECT_NE(err_.str().find("--precision must be fp32, fp32-strict or bf16, not 'fp16'"), std::string::npos) << err_.str();
}

TEST_F(InspectCommandTest, OptimizedFp32StrictMarksEveryFloatProductEvenANarrowOne) {
  std::string path = Write("conv.pbtxt", kConvBiasRelu);
  EXPECT_EQ(Inspect({path, "--optimized", "--precision", "fp32-strict"}), kExitOk) << err_.str();
  const std::string text = out_.str();
  EXPECT_NE(text.find("precision: 4 -> 4"), std::string::npos) << text;
  // The one fused convolution, although it has one output channel.
  EXPECT_NE(text.find("fp32-strict: 1 float32 products keep full float32 operands (no TF32 on a GPU)"),
            std::string::npos)
      << text;
}

}  // namespace
}  // namespace tfhost::cli
