// Quantized TFLite models: every stored integer is the one TFLite's
// arithmetic gives (real = scale * (q - zero_point), rounding half away from
// zero), worked out by hand for small models written with the test writer.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <fstream>

#include "base/test_status.h"
#include "base/test_temp_dir.h"
#include "loaders/tflite/tflite_loader.h"
#include "loaders/tflite/tflite_test_model.h"

namespace tfhost::loaders {
namespace {

namespace fs = std::filesystem;
using tflite::TestBytes;
using tflite::TestModelWriter;
using tflite::TestTensor;
using TT = tflite::fb::TensorType;
using Options = tflite::fb::BuiltinOptions;

constexpr int32_t kDequantize = 6, kFullyConnected = 9, kCast = 53, kQuantize = 114, kIf = 118;

TestTensor Quantized(TestTensor t, std::vector<float> scale, std::vector<int64_t> zero_point, int32_t dim = 0) {
  t.scale = std::move(scale);
  t.zero_point = std::move(zero_point);
  t.quantized_dimension = dim;
  return t;
}

std::string WriteModel(const testing::TempDir& dir, const std::string& bytes) {
  const std::string path = dir.Sub("model.tflite");
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

// input (float) -QUANTIZE-> x (int8, 0.5, -1) -FULLY_CONNECTED+RELU-> y
// (int8, 0.25, 3) -DEQUANTIZE-> out. The weights are int8 per output row
// (scales 0.1, 0.2), the bias int32 with scales input x weight.
std::string FullyConnectedModel(TT x_type = TT::INT8, std::vector<float> x_scale = {0.5f}) {
  TestModelWriter w;
  auto relu = tflite::fb::CreateFullyConnectedOptions(w.b(), tflite::fb::ActivationFunctionType::RELU).Union();
  w.AddSubgraph({{{"input", TT::FLOAT32, {2, 4}},
                  Quantized({"x", x_type, {2, 4}}, x_scale, std::vector<int64_t>(x_scale.size(), -1)),
                  // real rows {1, -1, 0.5, 0} and {1, 1, 1, -1}
                  Quantized({"w", TT::INT8, {2, 4}, TestBytes<int8_t>({10, -10, 5, 0, 5, 5, 5, -5})}, {0.1f, 0.2f},
                            {0, 0}, 0),
                  // real {2, -1}
                  Quantized({"b", TT::INT32, {2}, TestBytes<int32_t>({40, -10})}, {0.05f, 0.1f}, {0, 0}, 0),
                  Quantized({"y", TT::INT8, {2, 2}}, {0.25f}, {3}),
                  {"out", TT::FLOAT32, {2, 2}}},
                 {0},
                 {4, 5},
                 {{kQuantize, {0}, {1}},
                  {kFullyConnected, {1, 2, 3}, {4}, Options::FullyConnectedOptions, relu},
                  {kDequantize, {4}, {5}}}});
  return w.Finish({{"input", 0}}, {{"y", 4}, {"out", 5}});
}

TEST(TfliteQuantizedTest, FullyConnectedStoresTheIntegersTfliteArithmeticGives) {
  testing::TempDir dir("tflite_quantized");
  auto model = LoadTfliteModel(WriteModel(dir, FullyConnectedModel()), LoadOptions());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  // Row 0 quantizes to x = {1, 3, -1, 5} (real {1, 2, 0, 3}); row 1's 1.25
  // is 2.5 steps and rounds away from zero, so x = {2, 2, 2, 2} (real 1.5).
  auto out = (*model)->RunSignature(
      "predict", {{"input", Tensor::FromVector<float>({1, 2, 0, 3, 1.5f, 1.5f, 1.5f, 1.25f}, {2, 4})}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // Row 0: {1 - 2 + 0 + 0 + 2, relu(1 + 2 + 0 - 3 - 1)} = {1, 0}; row 1:
  // {1.5 * 0.5 + 2, 1.5 * 2 - 1} = {2.75, 2}. Stored: real / 0.25 + 3.
  const Tensor& y = out->at("y");
  ASSERT_EQ(y.dtype(), DType::kInt8);
  EXPECT_EQ(std::vector<int8_t>(y.data<int8_t>(), y.data<int8_t>() + 4), (std::vector<int8_t>{7, 3, 14, 11}));
  const Tensor& real = out->at("out");
  ASSERT_EQ(real.dtype(), DType::kFloat);
  EXPECT_EQ(real.ToDoubleVector(), (std::vector<double>{1.0, 0.0, 2.75, 2.0}));
}

TEST(TfliteQuantizedTest, CastConvertsTheStoredIntegersNotTheRealValues) {
  TestModelWriter w;
  w.AddSubgraph({{Quantized({"x", TT::INT8, {3}}, {0.5f}, {-1}), {"i", TT::INT32, {3}}}, {0}, {1},
                 {{kCast, {0}, {1}}}});
  testing::TempDir dir("tflite_quantized");
  auto model = LoadTfliteModel(WriteModel(dir, w.Finish({{"x", 0}}, {{"i", 1}})), LoadOptions());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  auto out = (*model)->RunSignature("predict", {{"x", Tensor::FromVector<int8_t>({-128, 0, 7})}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->at("i").ToDoubleVector(), (std::vector<double>{-128, 0, 7}));
}

TEST(TfliteQuantizedTest, ScalesThatDoNotFitTheQuantizedDimensionAreRefusedNamingTheTensor) {
  testing::TempDir dir("tflite_quantized");
  const std::string path = WriteModel(dir, FullyConnectedModel(TT::INT8, {0.5f, 0.25f, 1.0f}));
  TFHOST_EXPECT_ERROR(LoadTfliteModel(path, LoadOptions()), StatusCode::kInvalidArgument,
                      path + ": subgraph 0 tensor 1 'x' has 3 quantization scales that do not match dimension 0 "
                      "of its shape [2,4]");
}

TEST(TfliteQuantizedTest, QuantizeIntoATensorWithoutAScaleIsRefusedNamingIt) {
  TestModelWriter w;
  w.AddSubgraph({{{"input", TT::FLOAT32, {2}}, {"x", TT::INT8, {2}}}, {0}, {1}, {{kQuantize, {0}, {1}}}});
  testing::TempDir dir("tflite_quantized");
  const std::string path = WriteModel(dir, w.Finish({{"input", 0}}, {{"x", 1}}));
  TFHOST_EXPECT_ERROR(LoadTfliteModel(path, LoadOptions()), StatusCode::kInvalidArgument,
                      "operator 0 (QUANTIZE): writes " + path +
                          ": subgraph 0 tensor 1 'x', which has no quantization scale");
}

TEST(TfliteQuantizedTest, AQuantizedTensorPassedToACalledSubgraphIsRefusedNamingIt) {
  TestModelWriter w;
  auto options = tflite::fb::CreateIfOptions(w.b(), 1, 1).Union();
  w.AddSubgraph({{{"c", TT::BOOL, {}}, Quantized({"x", TT::INT8, {1}}, {0.5f}, {0}), {"y", TT::INT8, {1}}},
                 {0, 1}, {2}, {{kIf, {0, 1}, {2}, Options::IfOptions, options}}});
  w.AddSubgraph({{{"x", TT::INT8, {1}}}, {0}, {0}, {}});
  testing::TempDir dir("tflite_quantized");
  TFHOST_EXPECT_ERROR(LoadTfliteModel(WriteModel(dir, w.Finish({{"c", 0}, {"x", 1}}, {{"y", 2}})), LoadOptions()),
                      StatusCode::kUnimplemented,
                      "tensor 1 'x' to or from a called subgraph, which tfhost does not map");
}

// x (int8, scale 0.05, zp 0) -> HARD_SWISH -> y (int8, scale 0.05, zp -10).
// hard_swish(0) = 0 and hard_swish(x) = x for x >= 3; TFLite's int16 fixed
// point lands on those to within a step (tests/tflite holds the whole table
// to LiteRT's reference kernel).
TEST(TfliteQuantizedTest, HardSwishUsesTfliteIntegerArithmeticThroughATable) {
  constexpr int32_t kHardSwish = 117;
  TestModelWriter w;
  w.AddSubgraph({{Quantized({"x", TT::INT8, {4}}, {0.05f}, {0}), Quantized({"y", TT::INT8, {4}}, {0.05f}, {-10})},
                 {0}, {1}, {{kHardSwish, {0}, {1}}}});
  testing::TempDir dir("tflite_quantized");
  LoadOptions options;
  auto model = LoadTfliteModel(WriteModel(dir, w.Finish({{"x", 0}}, {{"y", 1}})), options);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  auto out = (*model)->RunSignature("predict", {{"x", Tensor::FromVector<int8_t>({0, 100, 127, -128})}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const std::vector<double> y = out->at("y").ToDoubleVector();
  EXPECT_EQ(y[0], -10);             // 0 -> the zero point
  EXPECT_NEAR(y[1], 100 - 10, 1);   // 5.0 -> 5.0
  EXPECT_NEAR(y[2], 127 - 10, 1);   // 6.35 -> 6.35
  EXPECT_EQ(y[3], -10);             // -6.4 -> 0
  const ir::Graph& graph = (*model)->session().graph();
  bool table = false;
  for (int i = 0; i < graph.num_nodes(); ++i) table |= graph.node(i).op == "GatherV2";
  EXPECT_TRUE(table) << "HARD_SWISH was not mapped to its table";
}

// One operator on int8 tensors `in` -> y, run on `values` for input 0 (the
// other inputs constants of the list), answering y's stored integers; and
// whether the graph holds `op`, the node the integer mapping makes.
struct OneOpResult {
  std::vector<int8_t> y;
  bool uses_op = false;
};

StatusOr<OneOpResult> RunOneInt8Op(std::vector<TestTensor> tensors, std::vector<int32_t> inputs, int32_t code,
                                   std::vector<int8_t> values, const std::string& op,
                                   Options options_type = Options::NONE,
                                   std::function<flatbuffers::Offset<void>(flatbuffers::FlatBufferBuilder&)> options = {}) {
  TestModelWriter w;
  const int32_t y = static_cast<int32_t>(tensors.size()) - 1;
  const std::vector<int64_t> dims(tensors[0].shape.begin(), tensors[0].shape.end());
  flatbuffers::Offset<void> made = options ? options(w.b()) : flatbuffers::Offset<void>();
  w.AddSubgraph({std::move(tensors), {0}, {y}, {{code, std::move(inputs), {y}, options_type, made}}});
  testing::TempDir dir("tflite_quantized");
  TFHOST_ASSIGN_OR_RETURN(auto model, LoadTfliteModel(WriteModel(dir, w.Finish({{"x", 0}}, {{"y", y}})), LoadOptions()));
  TFHOST_ASSIGN_OR_RETURN(auto out, model->RunSignature("predict", {{"x", Tensor::FromVector<int8_t>(values, Shape(dims))}}));
  OneOpResult r;
  const Tensor& t = out.at("y");
  r.y.assign(t.data<int8_t>(), t.data<int8_t>() + t.NumElements());
  const ir::Graph& graph = model->session().graph();
  for (int i = 0; i < graph.num_nodes(); ++i) r.uses_op |= graph.node(i).op == op;
  return r;
}

TEST(TfliteQuantizedTest, SubAndSquaredDifferenceRescaleInTfliteIntegerSteps) {
  constexpr int32_t kSub = 41, kSquaredDifference = 99;
  // x (0.5, 0) minus or squared-distance to the constant 1.0 (2 at 0.5).
  auto tensors = [] {
    return std::vector<TestTensor>{Quantized({"x", TT::INT8, {3}}, {0.5f}, {0}),
                                   Quantized({"c", TT::INT8, {3}, TestBytes<int8_t>({2, 2, 2})}, {0.5f}, {0}),
                                   Quantized({"y", TT::INT8, {3}}, {0.25f}, {0})};
  };
  auto sub = RunOneInt8Op(tensors(), {0, 1}, kSub, {6, 2, -4}, "Sub");
  ASSERT_TRUE(sub.ok()) << sub.status().ToString();
  EXPECT_EQ(sub->y, (std::vector<int8_t>{8, 0, -12}));  // 2.0, 0, -3.0 at 0.25
  EXPECT_TRUE(sub->uses_op);
  auto square = RunOneInt8Op(tensors(), {0, 1}, kSquaredDifference, {6, 5, -4}, "Sub");
  ASSERT_TRUE(square.ok()) << square.status().ToString();
  EXPECT_EQ(square->y, (std::vector<int8_t>{16, 9, 36}));  // 4.0, 2.25, 9.0 at 0.25
  EXPECT_TRUE(square->uses_op) << "SQUARED_DIFFERENCE did not take the integer path";
}

TEST(TfliteQuantizedTest, RsqrtAndGeluBecomeTablesOfTfliteIntegerResults) {
  constexpr int32_t kRsqrt = 76, kGelu = 150;
  // rsqrt of 4.0 (64 at 1/16) and 0.25 (4) at 1/128: 0.5 and 2.0; 0 maps
  // to the largest value, as TFLite's kernel answers.
  auto rsqrt = RunOneInt8Op({Quantized({"x", TT::INT8, {3}}, {0.0625f}, {0}),
                             Quantized({"y", TT::INT8, {3}}, {1.0f / 128}, {-128})},
                            {0}, kRsqrt, {64, 4, 0}, "GatherV2");
  ASSERT_TRUE(rsqrt.ok()) << rsqrt.status().ToString();
  EXPECT_NEAR(rsqrt->y[0], 64 - 128, 1);
  EXPECT_NEAR(rsqrt->y[1], 127, 1);  // 2.0 is 256 steps: saturates
  EXPECT_EQ(rsqrt->y[2], 127);
  EXPECT_TRUE(rsqrt->uses_op);
  // GELU of 0, 1.0 and -1.0 (at 0.05): 0, 0.8413 and -0.1587 at 0.01.
  auto gelu = RunOneInt8Op({Quantized({"x", TT::INT8, {3}}, {0.05f}, {0}),
                            Quantized({"y", TT::INT8, {3}}, {0.01f}, {0})},
                           {0}, kGelu, {0, 20, -20}, "GatherV2");
  ASSERT_TRUE(gelu.ok()) << gelu.status().ToString();
  EXPECT_EQ(gelu->y, (std::vector<int8_t>{0, 84, -16}));
  EXPECT_TRUE(gelu->uses_op);
}

TEST(TfliteQuantizedTest, TransposeConvAccumulatesIntegersAndRescalesPerChannel) {
  constexpr int32_t kTransposeConv = 67;
  // One input pixel of 1.0 spread by a 2x2 stride-2 kernel {0.5, 1, 1.5, 2}.
  auto r = RunOneInt8Op(
      {Quantized({"x", TT::INT8, {1, 1, 1, 1}}, {0.5f}, {0}),
       {"shape", TT::INT32, {4}, TestBytes<int32_t>({1, 2, 2, 1})},
       Quantized({"w", TT::INT8, {1, 2, 2, 1}, TestBytes<int8_t>({1, 2, 3, 4})}, {0.5f}, {0}, 0),
       Quantized({"y", TT::INT8, {1, 2, 2, 1}}, {0.25f}, {0})},
      {1, 2, 0}, kTransposeConv, {2}, "_TfhostRequantize", Options::TransposeConvOptions,
      [](flatbuffers::FlatBufferBuilder& b) {
        return tflite::fb::CreateTransposeConvOptions(b, tflite::fb::Padding::VALID, 2, 2).Union();
      });
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->y, (std::vector<int8_t>{2, 4, 6, 8}));
  EXPECT_TRUE(r->uses_op) << "TRANSPOSE_CONV did not take the integer path";
}

}  // namespace
}  // namespace tfhost::loaders
