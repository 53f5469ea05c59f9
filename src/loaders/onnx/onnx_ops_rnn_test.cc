// LSTM through its Loop expansion, on gates pinned by their biases so the
// answer can be worked out by hand: i = o = 1 (bias 100), f = 0 (bias -100),
// c~ = tanh(x_t) (W_c = 1), so every step forgets the last and
// h_t = tanh(tanh(x_t)). The reverse direction must then give the same Y
// rows in time order, and its Y_h is the step at t = 0, the last it runs.
#include <gtest/gtest.h>

#include <cmath>

#include "base/test_status.h"
#include "base/test_temp_dir.h"
#include "loaders/onnx/onnx_loader.h"
#include "loaders/onnx/onnx_test_model.h"

namespace tfhost::loaders {
namespace {

using namespace onnx::testing;  // NOLINT: test model builders

::onnx::ModelProto LstmModel(const std::string& direction) {
  const int dirs = direction == "bidirectional" ? 2 : 1;
  ::onnx::ModelProto m = EmptyModel();
  auto* g = m.mutable_graph();
  *g->add_input() = TensorInfo("x", ::onnx::TensorProto::FLOAT, {3, 1, 1});  // [seq, batch, input]
  std::vector<float> w, r, b;
  for (int d = 0; d < dirs; ++d) {
    w.insert(w.end(), {0, 0, 0, 1});  // gates i, o, f, c; only c reads x
    r.insert(r.end(), {0, 0, 0, 0});
    b.insert(b.end(), {100, 100, -100, 0, 0, 0, 0, 0});
  }
  *g->add_initializer() = FloatTensor("w", {dirs, 4, 1}, w);
  *g->add_initializer() = FloatTensor("r", {dirs, 4, 1}, r);
  *g->add_initializer() = FloatTensor("b", {dirs, 8}, b);
  ::onnx::NodeProto lstm = Node("LSTM", {"x", "w", "r", "b"}, {"y", "y_h", "y_c"});
  SetInt(&lstm, "hidden_size", 1);
  auto* dir = lstm.add_attribute();
  dir->set_name("direction");
  dir->set_type(::onnx::AttributeProto::STRING);
  dir->set_s(direction);
  *g->add_node() = lstm;
  for (const char* name : {"y", "y_h", "y_c"}) {
    ::onnx::ValueInfoProto v;
    v.set_name(name);
    v.mutable_type()->mutable_tensor_type()->set_elem_type(::onnx::TensorProto::FLOAT);
    *g->add_output() = v;
  }
  return m;
}

StatusOr<std::map<std::string, Tensor>> RunLstm(const std::string& direction) {
  tfhost::testing::TempDir dir("onnx_lstm");
  const std::string path = dir.Sub("m.onnx");
  WriteBytes(path, Serialize(LstmModel(direction)));
  TFHOST_ASSIGN_OR_RETURN(auto model, LoadOnnxModel(path, LoadOptions()));
  return model->RunSignature("serving_default", {{"x", Tensor::FromVector<float>({0.5f, -1.0f, 2.0f}, {3, 1, 1})}});
}

double H(double x) { return std::tanh(std::tanh(x)); }

TEST(OnnxLstmTest, ForwardStepsGiveEachTimeStepsHiddenState) {
  auto out = RunLstm("forward");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->at("y").shape(), Shape({3, 1, 1, 1}));
  const std::vector<double> y = out->at("y").ToDoubleVector();
  EXPECT_NEAR(y[0], H(0.5), 1e-6);
  EXPECT_NEAR(y[1], H(-1.0), 1e-6);
  EXPECT_NEAR(y[2], H(2.0), 1e-6);
  EXPECT_NEAR(out->at("y_h").ToDoubleVector()[0], H(2.0), 1e-6);
  EXPECT_NEAR(out->at("y_c").ToDoubleVector()[0], std::tanh(2.0), 1e-6);
}

TEST(OnnxLstmTest, BidirectionalKeepsTimeOrderAndTheBackwardLastStateIsAtTimeZero) {
  auto out = RunLstm("bidirectional");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->at("y").shape(), Shape({3, 2, 1, 1}));
  const std::vector<double> y = out->at("y").ToDoubleVector();
  for (int t = 0; t < 3; ++t) EXPECT_NEAR(y[2 * t], y[2 * t + 1], 1e-6) << "step " << t;
  ASSERT_EQ(out->at("y_h").shape(), Shape({2, 1, 1}));
  EXPECT_NEAR(out->at("y_h").ToDoubleVector()[0], H(2.0), 1e-6);
  EXPECT_NEAR(out->at("y_h").ToDoubleVector()[1], H(0.5), 1e-6);
}

TEST(OnnxLstmTest, SequenceLengthsAreRefusedByName) {
  ::onnx::ModelProto m = LstmModel("forward");
  auto* lstm = m.mutable_graph()->mutable_node(0);
  lstm->add_input("lens");
  *m.mutable_graph()->add_initializer() = Int64Tensor("lens", {3});
  tfhost::testing::TempDir dir("onnx_lstm");
  const std::string path = dir.Sub("m.onnx");
  WriteBytes(path, Serialize(m));
  TFHOST_EXPECT_ERROR(LoadOnnxModel(path, LoadOptions()).status(), StatusCode::kUnimplemented,
                      "op LSTM, opset 17): sequence_lens (sequences of different lengths)");
}

}  // namespace
}  // namespace tfhost::loaders
