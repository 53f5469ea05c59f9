#include "loaders/savedmodel/demo_models.h"

#include <cmath>
#include <filesystem>

#include "ir/tensor_proto.h"

namespace tfhost::loaders {

namespace {

// A few lines per node instead of raw protobuf calls; attrs follow what
// TensorFlow 1.x writes for each op.
class GraphBuilder {
 public:
  tensorflow::NodeDef* Node(const std::string& name, const std::string& op, std::vector<std::string> inputs,
                            DType t = DType::kFloat, const char* type_attr = "T") {
    tensorflow::NodeDef* n = graph_.add_node();
    n->set_name(name);
    n->set_op(op);
    for (auto& in : inputs) n->add_input(in);
    if (type_attr != nullptr) Type(n, type_attr, t);
    return n;
  }
  tensorflow::NodeDef* Placeholder(const std::string& name, DType dtype, std::vector<int64_t> dims) {
    tensorflow::NodeDef* n = Node(name, "Placeholder", {}, dtype, "dtype");
    auto* shape = (*n->mutable_attr())["shape"].mutable_shape();
    for (int64_t d : dims) shape->add_dim()->set_size(d);
    return n;
  }
  tensorflow::NodeDef* Const(const std::string& name, const Tensor& value) {
    tensorflow::NodeDef* n = Node(name, "Const", {}, value.dtype(), "dtype");
    ir::TensorToProto(value, (*n->mutable_attr())["value"].mutable_tensor());
    return n;
  }
  static void Type(tensorflow::NodeDef* n, const std::string& key, DType t) {
    (*n->mutable_attr())[key].set_type(static_cast<tensorflow::DataType>(t));
  }
  static void Ints(tensorflow::NodeDef* n, const std::string& key, std::vector<int64_t> values) {
    auto* list = (*n->mutable_attr())[key].mutable_list();
    for (int64_t v : values) list->add_i(v);
  }
  static void Str(tensorflow::NodeDef* n, const std::string& key, const std::string& value) {
    (*n->mutable_attr())[key].set_s(value);
  }
  static void Bool(tensorflow::NodeDef* n, const std::string& key, bool value) {
    (*n->mutable_attr())[key].set_b(value);
  }
  tensorflow::GraphDef Finish() {
    graph_.mutable_versions()->set_producer(27);  // a TF 1.x producer, as TF1 exports carry
    return graph_;
  }

 private:
  tensorflow::GraphDef graph_;
};

runtime::TensorSpec Spec(const std::string& key, const std::string& tensor, DType dtype, std::vector<int64_t> dims) {
  runtime::TensorSpec s;
  s.key = key;
  s.tensor_name = tensor;
  s.dtype = dtype;
  s.shape.unknown_rank = false;
  s.shape.dims = std::move(dims);
  return s;
}

// Deterministic weights in [-scale, scale): a fixed smooth formula of the
// element index, different per `seed`, so models need no random state.
Tensor FormulaWeights(Shape shape, double seed, double scale) {
  Tensor t(DType::kFloat, std::move(shape));
  float* w = t.data<float>();
  for (int64_t i = 0; i < t.NumElements(); ++i) {
    w[i] = static_cast<float>(scale * std::sin(0.7 * static_cast<double>(i) + seed));
  }
  return t;
}

tensorflow::NodeDef* MatMul(GraphBuilder& g, const std::string& name, const std::string& a, const std::string& b) {
  tensorflow::NodeDef* n = g.Node(name, "MatMul", {a, b});
  GraphBuilder::Bool(n, "transpose_a", false);
  GraphBuilder::Bool(n, "transpose_b", false);
  return n;
}

tensorflow::NodeDef* BiasAdd(GraphBuilder& g, const std::string& name, const std::string& value,
                             const std::string& bias) {
  tensorflow::NodeDef* n = g.Node(name, "BiasAdd", {value, bias});
  GraphBuilder::Str(n, "data_format", "NHWC");
  return n;
}

SavedModelSpec HalfPlusTwo() {
  GraphBuilder g;
  g.Placeholder("tf_example", DType::kString, {-1});
  // tf.io.parse_example with one required FixedLenFeature([1], float32):
  // names and the (empty) dense default are Consts, the key is a Const input.
  g.Const("ParseExample/Const", Tensor(DType::kFloat, Shape({0})));
  g.Const("ParseExample/ParseExample/names", Tensor(DType::kString, Shape({0})));
  g.Const("ParseExample/ParseExample/dense_keys_0", Tensor::StringScalar("x"));
  tensorflow::NodeDef* parse =
      g.Node("ParseExample/ParseExample", "ParseExample",
             {"tf_example", "ParseExample/ParseExample/names", "ParseExample/ParseExample/dense_keys_0",
              "ParseExample/Const"},
             DType::kFloat, nullptr);
  (*parse->mutable_attr())["Nsparse"].set_i(0);
  (*parse->mutable_attr())["Ndense"].set_i(1);
  (*parse->mutable_attr())["sparse_types"].mutable_list();
  (*parse->mutable_attr())["Tdense"].mutable_list()->add_type(tensorflow::DT_FLOAT);
  (*parse->mutable_attr())["dense_shapes"].mutable_list()->add_shape()->add_dim()->set_size(1);
  g.Node("x", "Identity", {"ParseExample/ParseExample"});
  g.Node("Mul", "Mul", {"a/read", "x"});
  g.Node("y", "Add", {"Mul", "b/read"});

  SavedModelSpec spec;
  spec.graph_def = g.Finish();
  spec.variables["a"] = Tensor::Scalar<float>(0.5f);
  spec.variables["b"] = Tensor::Scalar<float>(2.0f);
  runtime::Signature predict{"serving_default", "tensorflow/serving/predict",
                             {Spec("x", "x:0", DType::kFloat, {-1, 1})},
                             {Spec("y", "y:0", DType::kFloat, {-1, 1})},
                             {}};
  runtime::Signature classify{"classify_x_to_y", "tensorflow/serving/classify",
                              {Spec("inputs", "tf_example:0", DType::kString, {-1})},
                              {Spec("scores", "y:0", DType::kFloat, {-1, 1})},
                              {}};
  runtime::Signature regress{"regress_x_to_y", "tensorflow/serving/regress",
                             {Spec("inputs", "tf_example:0", DType::kString, {-1})},
                             {Spec("outputs", "y:0", DType::kFloat, {-1, 1})},
                             {}};
  spec.signatures = {predict, classify, regress};
  return spec;
}

SavedModelSpec Mlp() {
  GraphBuilder g;
  g.Placeholder("x", DType::kFloat, {-1, 4});
  MatMul(g, "dense/MatMul", "x", "dense/kernel/read");
  BiasAdd(g, "dense/BiasAdd", "dense/MatMul", "dense/bias/read");
  g.Node("dense/Relu", "Relu", {"dense/BiasAdd"});
  MatMul(g, "dense_1/MatMul", "dense/Relu", "dense_1/kernel/read");
  BiasAdd(g, "dense_1/BiasAdd", "dense_1/MatMul", "dense_1/bias/read");
  g.Node("dense_1/Softmax", "Softmax", {"dense_1/BiasAdd"});

  SavedModelSpec spec;
  spec.graph_def = g.Finish();
  spec.variables["dense/kernel"] = FormulaWeights(Shape({4, 8}), 0.1, 0.8);
  spec.variables["dense/bias"] = FormulaWeights(Shape({8}), 1.3, 0.1);
  spec.variables["dense_1/kernel"] = FormulaWeights(Shape({8, 3}), 2.9, 0.8);
  spec.variables["dense_1/bias"] = FormulaWeights(Shape({3}), 4.2, 0.1);
  spec.signatures = {runtime::Signature{"serving_default", "tensorflow/serving/predict",
                                        {Spec("x", "x:0", DType::kFloat, {-1, 4})},
                                        {Spec("probabilities", "dense_1/Softmax:0", DType::kFloat, {-1, 3})},
                                        {}}};
  return spec;
}

SavedModelSpec Cnn() {
  GraphBuilder g;
  g.Placeholder("x", DType::kFloat, {-1, 8, 8, 1});
  tensorflow::NodeDef* conv = g.Node("conv2d/Conv2D", "Conv2D", {"x", "conv2d/kernel/read"});
  GraphBuilder::Ints(conv, "strides", {1, 1, 1, 1});
  GraphBuilder::Ints(conv, "dilations", {1, 1, 1, 1});
  GraphBuilder::Str(conv, "padding", "SAME");
  GraphBuilder::Str(conv, "data_format", "NHWC");
  GraphBuilder::Bool(conv, "use_cudnn_on_gpu", true);
  BiasAdd(g, "conv2d/BiasAdd", "conv2d/Conv2D", "conv2d/bias/read");
  g.Node("conv2d/Relu", "Relu", {"conv2d/BiasAdd"});
  tensorflow::NodeDef* pool = g.Node("max_pooling2d/MaxPool", "MaxPool", {"conv2d/Relu"});
  GraphBuilder::Ints(pool, "ksize", {1, 2, 2, 1});
  GraphBuilder::Ints(pool, "strides", {1, 2, 2, 1});
  GraphBuilder::Str(pool, "padding", "VALID");
  GraphBuilder::Str(pool, "data_format", "NHWC");
  g.Const("flatten/Reshape/shape", Tensor::FromVector<int32_t>({-1, 64}));
  tensorflow::NodeDef* reshape = g.Node("flatten/Reshape", "Reshape", {"max_pooling2d/MaxPool", "flatten/Reshape/shape"});
  GraphBuilder::Type(reshape, "Tshape", DType::kInt32);
  MatMul(g, "dense/MatMul", "flatten/Reshape", "dense/kernel/read");
  g.Node("dense/Softmax", "Softmax", {"dense/MatMul"});

  SavedModelSpec spec;
  spec.graph_def = g.Finish();
  spec.variables["conv2d/kernel"] = FormulaWeights(Shape({3, 3, 1, 4}), 0.5, 0.6);
  spec.variables["conv2d/bias"] = FormulaWeights(Shape({4}), 1.7, 0.1);
  spec.variables["dense/kernel"] = FormulaWeights(Shape({64, 3}), 3.1, 0.3);
  spec.signatures = {runtime::Signature{"serving_default", "tensorflow/serving/predict",
                                        {Spec("x", "x:0", DType::kFloat, {-1, 8, 8, 1})},
                                        {Spec("probabilities", "dense/Softmax:0", DType::kFloat, {-1, 3})},
                                        {}}};
  return spec;
}

}  // namespace

std::vector<std::string> DemoModelNames() { return {"half_plus_two", "mlp", "cnn"}; }

std::string DemoModelDescription(const std::string& name) {
  if (name == "half_plus_two") {
    return "y = 0.5*x + 2; predict x->y [-1,1], classify_x_to_y / regress_x_to_y on tf.Example";
  }
  if (name == "mlp") return "Dense 4->8 ReLU -> Dense 8->3 Softmax; x [-1,4] -> probabilities [-1,3]";
  if (name == "cnn") {
    return "Conv2D 3x3x4 SAME + ReLU -> MaxPool 2x2 -> MatMul 64x3 -> Softmax; x [-1,8,8,1] -> probabilities [-1,3]";
  }
  return "";
}

StatusOr<SavedModelSpec> BuildDemoModel(const std::string& name) {
  if (name == "half_plus_two") return HalfPlusTwo();
  if (name == "mlp") return Mlp();
  if (name == "cnn") return Cnn();
  std::string names;
  for (const auto& n : DemoModelNames()) names += (names.empty() ? "" : ", ") + n;
  return NotFound("no demo model '" + name + "'; available: " + names);
}

StatusOr<std::vector<std::string>> WriteDemoModels(const std::string& dir) {
  std::vector<std::string> written;
  for (const auto& name : DemoModelNames()) {
    TFHOST_ASSIGN_OR_RETURN(SavedModelSpec spec, BuildDemoModel(name));
    std::string export_dir = (std::filesystem::path(dir) / name / "1").string();
    SavedModelWriteOptions options;
    options.overwrite = true;
    TFHOST_RETURN_IF_ERROR(WriteSavedModel(export_dir, spec, options));
    written.push_back(export_dir);
  }
  return written;
}

}  // namespace tfhost::loaders
