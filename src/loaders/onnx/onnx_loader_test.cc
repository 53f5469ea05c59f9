#include "loaders/onnx/onnx_loader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "base/test_status.h"
#include "ir/attrs.h"
#include "base/test_temp_dir.h"
#include "loaders/onnx/onnx_test_model.h"

namespace tfhost::loaders {
namespace {

namespace fs = std::filesystem;
using namespace onnx::testing;  // NOLINT: test model builders

std::string Write(const tfhost::testing::TempDir& dir, const std::string& name, const ::onnx::ModelProto& m) {
  const std::string path = dir.Sub(name);
  fs::create_directories(fs::path(path).parent_path());
  WriteBytes(path, Serialize(m));
  return path;
}

TEST(OnnxLoaderTest, RunsMatMulBiasReluOnAnyBatch) {
  tfhost::testing::TempDir dir("onnx_loader");
  auto model = LoadOnnxModel(Write(dir, "m.onnx", BaseModel()), LoadOptions());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_EQ((*model)->info().format, "ONNX");
  EXPECT_EQ((*model)->info().metadata.at("opset"), "17");
  EXPECT_EQ((*model)->info().metadata.at("producer"), "tfhost-test");
  EXPECT_EQ((*model)->info().variable_count, 2);
  EXPECT_EQ((*model)->info().variable_bytes, 9 * 4);
  auto out = (*model)->RunSignature("serving_default", {{"x", Tensor::FromVector<float>({1, 2, -1, 0}, {2, 2})}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const Tensor& y = out->at("y");
  ASSERT_EQ(y.shape(), Shape({2, 3}));
  const std::vector<float> want = {1.5f, 1, 1, 0, 0, 1};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(y.data<float>()[i], want[i]) << "element " << i;
}

TEST(OnnxLoaderTest, GlobalAveragePoolOfUnknownRankAveragesEveryAxisAfterTheSecondWhenItRuns) {
  tfhost::testing::TempDir dir("onnx_loader");
  ::onnx::ModelProto m = EmptyModel();
  auto* g = m.mutable_graph();
  ::onnx::ValueInfoProto x;  // no shape: the rank is unknown at load
  x.set_name("x");
  x.mutable_type()->mutable_tensor_type()->set_elem_type(::onnx::TensorProto::FLOAT);
  *g->add_input() = x;
  ::onnx::ValueInfoProto y = x;
  y.set_name("y");
  *g->add_output() = y;
  *g->add_node() = Node("GlobalAveragePool", {"x"}, {"y"});
  auto model = LoadOnnxModel(Write(dir, "m.onnx", m), LoadOptions());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  // [2, 2, 3]: the mean over the last axis, kept as size 1.
  auto out = (*model)->RunSignature("serving_default",
                                    {{"x", Tensor::FromVector<float>({1, 2, 3, 4, 5, 6, 0, 0, 3, -1, 1, 9}, {2, 2, 3})}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const Tensor& got = out->at("y");
  ASSERT_EQ(got.shape(), Shape({2, 2, 1}));
  const std::vector<float> want = {2, 5, 1, 3};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(got.data<float>()[i], want[i]) << "element " << i;
}

// A tf2onnx LSTM conversion concatenates values whose rank is unknown at
// load; the loader built a shape of rank -1 from them (a length_error
// escaped as an exception).
TEST(OnnxLoaderTest, ConcatOfValuesOfUnknownRankLoadsAndConcatenatesWhenItRuns) {
  tfhost::testing::TempDir dir("onnx_loader");
  ::onnx::ModelProto m = EmptyModel();
  auto* g = m.mutable_graph();
  for (const char* name : {"a", "b"}) {
    ::onnx::ValueInfoProto v;  // no shape
    v.set_name(name);
    v.mutable_type()->mutable_tensor_type()->set_elem_type(::onnx::TensorProto::FLOAT);
    *g->add_input() = v;
  }
  ::onnx::ValueInfoProto y = g->input(0);
  y.set_name("y");
  *g->add_output() = y;
  ::onnx::NodeProto concat = Node("Concat", {"a", "b"}, {"y"});
  auto* axis = concat.add_attribute();
  axis->set_name("axis");
  axis->set_type(::onnx::AttributeProto::INT);
  axis->set_i(-1);
  *g->add_node() = concat;
  auto model = LoadOnnxModel(Write(dir, "m.onnx", m), LoadOptions());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  auto out = (*model)->RunSignature("serving_default", {{"a", Tensor::FromVector<float>({1, 2}, {2, 1})},
                                                        {"b", Tensor::FromVector<float>({3, 4}, {2, 1})}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->at("y").shape(), Shape({2, 2}));
  EXPECT_EQ(out->at("y").ToDoubleVector(), (std::vector<double>{1, 3, 2, 4}));
}

// tf2onnx's masked LSTM splits its gates on a value whose rank the load
// does not know: an even split then runs as TensorFlow's Split.
TEST(OnnxLoaderTest, EvenSplitOfAValueOfUnknownRankSplitsWhenItRuns) {
  tfhost::testing::TempDir dir("onnx_loader");
  ::onnx::ModelProto m = EmptyModel();
  auto* g = m.mutable_graph();
  ::onnx::ValueInfoProto x;  // no shape
  x.set_name("x");
  x.mutable_type()->mutable_tensor_type()->set_elem_type(::onnx::TensorProto::FLOAT);
  *g->add_input() = x;
  for (const char* name : {"a", "b"}) {
    ::onnx::ValueInfoProto v = x;
    v.set_name(name);
    *g->add_output() = v;
  }
  ::onnx::NodeProto split = Node("Split", {"x"}, {"a", "b"});
  auto* axis = split.add_attribute();
  axis->set_name("axis");
  axis->set_type(::onnx::AttributeProto::INT);
  axis->set_i(-1);
  *g->add_node() = split;
  auto model = LoadOnnxModel(Write(dir, "m.onnx", m), LoadOptions());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  auto out = (*model)->RunSignature("serving_default", {{"x", Tensor::FromVector<float>({1, 2, 3, 4}, {2, 2})}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->at("a").ToDoubleVector(), (std::vector<double>{1, 3}));
  EXPECT_EQ(out->at("b").ToDoubleVector(), (std::vector<double>{2, 4}));
}

// x [1, 2, 3, 3] (NCHW) -> Conv 1x1 (2 -> 2 channels, bias) -> Relu ->
// depthwise Conv 1x1 (group 2) -> Add of the Relu output -> y.
::onnx::ModelProto ConvChainModel() {
  ::onnx::ModelProto m = EmptyModel();
  auto* g = m.mutable_graph();
  *g->add_input() = TensorInfo("x", ::onnx::TensorProto::FLOAT, {1, 2, 3, 3});
  *g->add_output() = TensorInfo("y", ::onnx::TensorProto::FLOAT, {1, 2, 3, 3});
  *g->add_initializer() = FloatTensor("w1", {2, 2, 1, 1}, {1, -1, 0.5f, 2});
  *g->add_initializer() = FloatTensor("b1", {2}, {0.25f, -3});
  *g->add_initializer() = FloatTensor("w2", {2, 1, 1, 1}, {3, -2});
  *g->add_node() = Node("Conv", {"x", "w1", "b1"}, {"c1"});
  *g->add_node() = Node("Relu", {"c1"}, {"r1"});
  ::onnx::NodeProto dw = Node("Conv", {"r1", "w2"}, {"c2"});
  auto* group = dw.add_attribute();
  group->set_name("group");
  group->set_type(::onnx::AttributeProto::INT);
  group->set_i(2);
  *g->add_node() = dw;
  *g->add_node() = Node("Add", {"c2", "r1"}, {"y"});
  return m;
}

TEST(OnnxLoaderTest, ConvolutionChainsRunNhwcWithOneTransposeAtEachEnd) {
  tfhost::testing::TempDir dir("onnx_loader");
  LoadOptions options;
  options.optimize_graph = false;  // the graph as the loader wrote it
  auto model = LoadOnnxModel(Write(dir, "m.onnx", ConvChainModel()), options);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const ir::Graph& graph = (*model)->session().graph();
  int transposes = 0;
  for (int i = 0; i < graph.num_nodes(); ++i) {
    const ir::Node& n = graph.node(i);
    transposes += n.op == "Transpose";
    if (n.op == "Conv2D" || n.op == "DepthwiseConv2dNative" || n.op == "BiasAdd") {
      EXPECT_EQ(ir::GetAttrOr<std::string>(n, "data_format", "NHWC").value(), "NHWC") << n.name;
    }
  }
  EXPECT_EQ(transposes, 2);
  // x[c][i] = c * 9 + i. c1 = w1 x + b1, r1 = relu(c1), y = w2 * r1 + r1 per channel.
  std::vector<float> x(18);
  for (int i = 0; i < 18; ++i) x[i] = static_cast<float>(i) - 4;
  auto out = (*model)->RunSignature("serving_default", {{"x", Tensor::FromVector<float>(x, {1, 2, 3, 3})}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const Tensor& y = out->at("y");
  ASSERT_EQ(y.shape(), Shape({1, 2, 3, 3}));
  for (int i = 0; i < 9; ++i) {
    const float r0 = std::max(0.0f, x[i] - x[9 + i] + 0.25f);
    const float r1 = std::max(0.0f, 0.5f * x[i] + 2 * x[9 + i] - 3);
    EXPECT_FLOAT_EQ(y.data<float>()[i], 3 * r0 + r0) << "channel 0, pixel " << i;
    EXPECT_FLOAT_EQ(y.data<float>()[9 + i], -2 * r1 + r1) << "channel 1, pixel " << i;
  }
}

TEST(OnnxLoaderTest, ServingDefaultIsKeyedByOnnxNamesWithSymbolicDimsUnknown) {
  tfhost::testing::TempDir dir("onnx_loader");
  ::onnx::ModelProto m = BaseModel();
  // IR < 4 files list initializers among the inputs too; they are not fed.
  *m.mutable_graph()->add_input() = TensorInfo("w", ::onnx::TensorProto::FLOAT, {2, 3});
  m.mutable_graph()->mutable_input(0)->set_name("x:0");
  m.mutable_graph()->mutable_node(0)->set_input(0, "x:0");
  auto model = LoadOnnxModel(Write(dir, "m.onnx", m), LoadOptions());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  const runtime::Signature& sig = (*model)->signatures().at("serving_default");
  EXPECT_EQ(sig.method_name, "tensorflow/serving/predict");
  ASSERT_EQ(sig.inputs.size(), 1u);
  EXPECT_EQ(sig.inputs[0].key, "x:0");
  EXPECT_EQ(sig.inputs[0].dtype, DType::kFloat);
  EXPECT_EQ(sig.inputs[0].shape.ToString(), ir::PartialShape::Known({-1, 2}).ToString());
  ASSERT_EQ(sig.outputs.size(), 1u);
  EXPECT_EQ(sig.outputs[0].key, "y");
  EXPECT_EQ(sig.outputs[0].shape.ToString(), ir::PartialShape::Known({-1, 3}).ToString());
}

TEST(OnnxLoaderTest, UnsupportedOpFailsNamingNodeIndexNameOpAndOpset) {
  tfhost::testing::TempDir dir("onnx_loader");
  ::onnx::ModelProto m = BaseModel();
  *m.mutable_graph()->add_node() = Node("GRU", {"y"}, {"z"}, "gru_3");
  TFHOST_EXPECT_ERROR(LoadOnnxModel(Write(dir, "m.onnx", m), LoadOptions()), StatusCode::kUnimplemented,
                      "ONNX node 3 ('gru_3', op GRU, opset 17) is not supported");
}

TEST(OnnxLoaderTest, UnnamedUnsupportedNodeIsNamedByIndex) {
  tfhost::testing::TempDir dir("onnx_loader");
  ::onnx::ModelProto m = BaseModel(13);
  *m.mutable_graph()->add_node() = Node("Einsum", {"y"}, {"z"});
  TFHOST_EXPECT_ERROR(LoadOnnxModel(Write(dir, "m.onnx", m), LoadOptions()), StatusCode::kUnimplemented,
                      "ONNX node 3 (op Einsum, opset 13) is not supported");
}

TEST(OnnxLoaderTest, NodeOfAnotherDomainIsRefusedNamingTheDomain) {
  tfhost::testing::TempDir dir("onnx_loader");
  ::onnx::ModelProto m = BaseModel();
  ::onnx::NodeProto n = Node("FusedConv", {"y"}, {"z"}, "fused");
  n.set_domain("com.microsoft");
  *m.mutable_graph()->add_node() = n;
  TFHOST_EXPECT_ERROR(LoadOnnxModel(Write(dir, "m.onnx", m), LoadOptions()), StatusCode::kUnimplemented,
                      "('fused', op com.microsoft.FusedConv, opset 17) is not supported (only the default");
}

TEST(OnnxLoaderTest, OpsetsOutsideTheSupportedRangeAreRefused) {
  tfhost::testing::TempDir dir("onnx_loader");
  TFHOST_EXPECT_ERROR(LoadOnnxModel(Write(dir, "old.onnx", BaseModel(11)), LoadOptions()), StatusCode::kUnimplemented,
                      "uses ai.onnx opset 11; tfhost loads opsets 13 to 26");
  TFHOST_EXPECT_ERROR(LoadOnnxModel(Write(dir, "new.onnx", BaseModel(27)), LoadOptions()),
                      StatusCode::kUnimplemented, "opset 27");
  ::onnx::ModelProto none = BaseModel();
  none.clear_opset_import();
  TFHOST_EXPECT_ERROR(LoadOnnxModel(Write(dir, "none.onnx", none), LoadOptions()), StatusCode::kInvalidArgument,
                      "opset_import names no version of the default (ai.onnx) domain");
}

TEST(OnnxLoaderTest, TruncatedFileIsDataLossNamingTheFile) {
  tfhost::testing::TempDir dir("onnx_loader");
  const std::string bytes = Serialize(BaseModel());
  const std::string path = dir.Sub("cut.onnx");
  WriteBytes(path, bytes.substr(0, bytes.size() / 2));
  TFHOST_EXPECT_ERROR(LoadOnnxModel(path, LoadOptions()), StatusCode::kDataLoss, path + " is not a valid ONNX model");
  WriteBytes(path, "");
  TFHOST_EXPECT_ERROR(LoadOnnxModel(path, LoadOptions()), StatusCode::kDataLoss, "is empty");
}

TEST(OnnxLoaderTest, RawDataOfTheWrongSizeNamesTheInitializer) {
  tfhost::testing::TempDir dir("onnx_loader");
  ::onnx::ModelProto m = BaseModel();
  m.mutable_graph()->mutable_initializer(0)->mutable_raw_data()->resize(20);
  TFHOST_EXPECT_ERROR(LoadOnnxModel(Write(dir, "m.onnx", m), LoadOptions()), StatusCode::kInvalidArgument,
                      "initializer 0 'w' has 20 bytes of raw_data; its dims [2,3] and type FLOAT need 24");
}

TEST(OnnxLoaderTest, TypedFieldOfTheWrongLengthNamesTheField) {
  tfhost::testing::TempDir dir("onnx_loader");
  ::onnx::ModelProto m = BaseModel();
  m.mutable_graph()->mutable_initializer(1)->add_float_data(7);
  TFHOST_EXPECT_ERROR(LoadOnnxModel(Write(dir, "m.onnx", m), LoadOptions()), StatusCode::kInvalidArgument,
                      "initializer 1 'b' holds 4 values in float_data; its dims need 3");
}

TEST(OnnxLoaderTest, InitializerOfAnUnsupportedTypeNamesTheType) {
  tfhost::testing::TempDir dir("onnx_loader");
  ::onnx::ModelProto m = BaseModel();
  m.mutable_graph()->mutable_initializer(1)->set_data_type(17);  // FLOAT8E4M3FN
  TFHOST_EXPECT_ERROR(LoadOnnxModel(Write(dir, "m.onnx", m), LoadOptions()), StatusCode::kUnimplemented,
                      "initializer 1 'b' has data_type FLOAT8E4M3FN, which tfhost has no type for");
}

TEST(OnnxLoaderTest, ExternalDataIsReadAtItsOffsetBesideTheModel) {
  tfhost::testing::TempDir dir("onnx_loader");
  ::onnx::ModelProto m = BaseModel();
  auto* w = m.mutable_graph()->mutable_initializer(0);
  const std::string data = "pad!" + w->raw_data();
  w->clear_raw_data();
  w->set_data_location(::onnx::TensorProto::EXTERNAL);
  for (auto [k, v] : {std::pair{"location", "weights/w.bin"}, std::pair{"offset", "4"}, std::pair{"length", "24"}}) {
    auto* e = w->add_external_data();
    e->set_key(k);
    e->set_value(v);
  }
  const std::string path = Write(dir, "v/model.onnx", m);
  fs::create_directories(dir.Sub("v/weights"));
  WriteBytes(dir.Sub("v/weights/w.bin"), data);
  auto model = LoadOnnxModel(path, LoadOptions());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  auto out = (*model)->RunSignature("serving_default", {{"x", Tensor::FromVector<float>({1, 2}, {1, 2})}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->at("y").data<float>()[0], 1.5f);

  WriteBytes(dir.Sub("v/weights/w.bin"), data.substr(0, 20));
  TFHOST_EXPECT_ERROR(LoadOnnxModel(path, LoadOptions()), StatusCode::kDataLoss,
                      "initializer 0 'w': external data file");
}

TEST(OnnxLoaderTest, ExternalDataPathLeavingTheModelFolderIsRefused) {
  tfhost::testing::TempDir dir("onnx_loader");
  ::onnx::ModelProto m = BaseModel();
  auto* w = m.mutable_graph()->mutable_initializer(0);
  w->clear_raw_data();
  w->set_data_location(::onnx::TensorProto::EXTERNAL);
  auto* e = w->add_external_data();
  e->set_key("location");
  e->set_value("../secret.bin");
  WriteBytes(dir.Sub("secret.bin"), std::string(24, '\0'));
  TFHOST_EXPECT_ERROR(LoadOnnxModel(Write(dir, "v/model.onnx", m), LoadOptions()), StatusCode::kInvalidArgument,
                      "external data location '../secret.bin' leads outside the model's folder");
  e->set_value("/etc/passwd");
  TFHOST_EXPECT_ERROR(LoadOnnxModel(Write(dir, "v/model.onnx", m), LoadOptions()), StatusCode::kInvalidArgument,
                      "must be a relative path inside the model's folder");
}

TEST(OnnxLoaderTest, ValueReadBeforeItIsDefinedNamesIt) {
  tfhost::testing::TempDir dir("onnx_loader");
  ::onnx::ModelProto m = BaseModel();
  m.mutable_graph()->mutable_node(1)->set_input(0, "nowhere");
  TFHOST_EXPECT_ERROR(LoadOnnxModel(Write(dir, "m.onnx", m), LoadOptions()), StatusCode::kInvalidArgument,
                      "value 'nowhere' is read before any node, graph input or initializer defines it");
}

TEST(OnnxLoaderTest, AttributeOfTheWrongTypeNamesNodeAndAttribute) {
  tfhost::testing::TempDir dir("onnx_loader");
  ::onnx::ModelProto m = BaseModel();
  ::onnx::NodeProto n = Node("Softmax", {"y"}, {"z"}, "probs");
  auto* a = n.add_attribute();
  a->set_name("axis");
  a->set_type(::onnx::AttributeProto::FLOAT);
  a->set_f(1);
  *m.mutable_graph()->add_node() = n;
  m.mutable_graph()->mutable_output(0)->set_name("z");
  TFHOST_EXPECT_ERROR(LoadOnnxModel(Write(dir, "m.onnx", m), LoadOptions()), StatusCode::kInvalidArgument,
                      "ONNX node 3 ('probs', op Softmax, opset 17): attribute 'axis' is FLOAT; expected INT");
}

TEST(OnnxLoaderTest, ConstantNodeFeedsAnOutputDirectly) {
  tfhost::testing::TempDir dir("onnx_loader");
  ::onnx::ModelProto m = BaseModel();
  ::onnx::NodeProto c = Node("Constant", {}, {"k"}, "k");
  auto* a = c.add_attribute();
  a->set_name("value_ints");
  a->set_type(::onnx::AttributeProto::INTS);
  a->add_ints(4);
  a->add_ints(-2);
  *m.mutable_graph()->add_node() = c;
  *m.mutable_graph()->add_output() = TensorInfo("k", ::onnx::TensorProto::INT64, {2});
  auto model = LoadOnnxModel(Write(dir, "m.onnx", m), LoadOptions());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  auto out = (*model)->RunSignature("serving_default", {{"x", Tensor::FromVector<float>({1, 2}, {1, 2})}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual(out->at("k"), Tensor::FromVector<int64_t>({4, -2})));
}

TEST(OnnxLoaderTest, ModelLoaderFindsOnnxFilesAndVersionFolders) {
  tfhost::testing::TempDir dir("onnx_loader");
  const std::string file = Write(dir, "net.onnx", BaseModel());
  Write(dir, "base/3/model.onnx", BaseModel());
  Write(dir, "base/12/model.onnx", BaseModel(13));
  EXPECT_EQ(*DetectModelFormat(file), ModelFormat::kOnnx);
  EXPECT_EQ(*DetectModelFormat(dir.Sub("base/3")), ModelFormat::kOnnx);
  EXPECT_EQ(*DetectModelFormat(dir.Sub("base")), ModelFormat::kOnnx);
  auto model = LoadModel(dir.Sub("base"));
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  EXPECT_EQ((*model)->info().format, "ONNX");
  EXPECT_EQ((*model)->info().metadata.at("opset"), "13");  // version 12 wins
}

}  // namespace
}  // namespace tfhost::loaders
