// TF1 SavedModels exported with their training graph still inside: an
// optimizer slot variable, its gradient and the ApplyAdam step sit beside the
// serving graph. Serving loads, restores every variable and runs the
// signature however broken the training step is; the same fault on a node
// a signature reads fails the load naming that node and the model.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "base/test_status.h"
#include "loaders/model_loader.h"
#include "loaders/savedmodel/saved_model_writer.h"

namespace tfhost::loaders {
namespace {

namespace fs = std::filesystem;

class TrainingGraphPruningTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("training_graph_pruning_test_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

tensorflow::NodeDef* AddNode(tensorflow::GraphDef& g, const std::string& name, const std::string& op,
                             const std::vector<std::string>& inputs, bool typed = true) {
  auto* n = g.add_node();
  n->set_name(name);
  n->set_op(op);
  for (const auto& in : inputs) n->add_input(in);
  if (typed) (*n->mutable_attr())["T"].set_type(tensorflow::DT_FLOAT);
  return n;
}

runtime::TensorSpec Spec(const std::string& key, const std::string& tensor) {
  runtime::TensorSpec s;
  s.key = key;
  s.tensor_name = tensor;
  s.dtype = DType::kFloat;
  return s;
}

// Serving: y = x * w. Training: grad = w/Adam [2,3] . g [4,5] (3 vs 4, it
// can never run) feeds ApplyAdam (no tfhost kernel), grouped by train_op.
// `serve_grad` makes the signature return grad as well.
SavedModelSpec ModelWithTrainingStep(bool serve_grad) {
  SavedModelSpec spec;
  auto& g = spec.graph_def;
  auto* x = AddNode(g, "x", "Placeholder", {}, false);
  (*x->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  AddNode(g, "y", "Mul", {"x", "w/read"});
  auto* grad_in = AddNode(g, "train/g", "Placeholder", {}, false);
  (*grad_in->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  auto* dims = (*grad_in->mutable_attr())["shape"].mutable_shape();
  dims->add_dim()->set_size(4);
  dims->add_dim()->set_size(5);
  AddNode(g, "train/grad", "MatMul", {"w/Adam/read", "train/g"});
  AddNode(g, "train/ApplyAdam", "ApplyAdam", {"w", "w/Adam", "train/grad"});
  AddNode(g, "train_op", "NoOp", {"^train/ApplyAdam"}, false);
  spec.variables["w"] = Tensor::FromVector<float>({2, 3});
  spec.variables["w/Adam"] = Tensor::FromVector<float>({0, 0, 0, 0, 0, 0}, Shape({2, 3}));
  runtime::Signature sig{"serving_default", "tensorflow/serving/predict", {Spec("x", "x:0")}, {Spec("y", "y:0")}, {}};
  if (serve_grad) sig.outputs.push_back(Spec("grad", "train/grad:0"));
  spec.signatures = {sig};
  return spec;
}

TEST_F(TrainingGraphPruningTest, BrokenTrainingStepNoSignatureReachesDoesNotFailTheLoad) {
  ASSERT_TRUE(WriteSavedModel(dir_.string(), ModelWithTrainingStep(false)).ok());
  auto model = LoadModel(dir_.string());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  // The restore op still restores the slot variable, as TensorFlow's does.
  EXPECT_EQ((*model)->info().variable_count, 2);
  EXPECT_LT((*model)->session().graph().FindNode("train/ApplyAdam"), 0);
  auto out = (*model)->RunSignature("serving_default", {{"x", Tensor::FromVector<float>({1, -2})}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual(out->at("y"), Tensor::FromVector<float>({2, -6}))) << out->at("y").DebugString();
}

TEST_F(TrainingGraphPruningTest, ShapeConflictOnANodeASignatureReadsFailsNamingNodeAndModel) {
  ASSERT_TRUE(WriteSavedModel(dir_.string(), ModelWithTrainingStep(true)).ok());
  auto model = LoadModel(dir_.string());
  TFHOST_ASSERT_ERROR(
      model, StatusCode::kInvalidArgument,
      "shape inference: node 'train/grad' (MatMul): inner dimensions differ: 3 vs 4 (shapes [2,3] and [4,5])");
  const std::string& message = model.status().message();
  EXPECT_NE(message.find("node 'train/grad' (MatMul): inner dimensions differ: 3 vs 4"), std::string::npos)
      << message;
  EXPECT_NE(message.find("model '" + dir_.string() + "'"), std::string::npos) << message;
}

}  // namespace
}  // namespace tfhost::loaders
