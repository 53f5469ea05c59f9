// A TF2-style SavedModel whose serving signature calls a function holding a
// While loop, loaded through loaders::LoadModel and run through
// Model::RunSignature: the loader inlines the StatefulPartitionedCall, the
// While stays and runs its cond/body from the library.
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <random>

#include "loaders/model_loader.h"
#include "tensorflow/core/protobuf/saved_model.pb.h"

namespace tfhost {
namespace {

namespace fs = std::filesystem;

// Mirrors:
//   @tf.function(input_signature=[tf.TensorSpec([None], tf.float32)])
//   def serve(x):
//     _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y * 2.0), [0, x])
//     return {"y": y}
constexpr char kGraph[] = R"pb(
  node {
    name: "x"
    op: "Placeholder"
    attr { key: "dtype" value { type: DT_FLOAT } }
    attr { key: "shape" value { shape { dim { size: -1 } } } }
  }
  node {
    name: "StatefulPartitionedCall"
    op: "StatefulPartitionedCall"
    input: "x"
    attr { key: "Tin" value { list { type: DT_FLOAT } } }
    attr { key: "Tout" value { list { type: DT_FLOAT } } }
    attr { key: "f" value { func { name: "__inference_serve_10" } } }
  }
  library {
    function {
      signature {
        name: "__inference_serve_10"
        input_arg { name: "x" type: DT_FLOAT }
        output_arg { name: "identity" type: DT_FLOAT }
      }
      node_def {
        name: "i0"
        op: "Const"
        attr { key: "dtype" value { type: DT_INT32 } }
        attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } }
      }
      node_def {
        name: "while"
        op: "While"
        input: "i0:output:0"
        input: "x"
        attr { key: "T" value { list { type: DT_INT32 type: DT_FLOAT } } }
        attr { key: "cond" value { func { name: "while_cond_11" } } }
        attr { key: "body" value { func { name: "while_body_12" } } }
        attr { key: "output_shapes" value { list { shape {} shape { dim { size: -1 } } } } }
        attr { key: "parallel_iterations" value { i: 10 } }
      }
      node_def { name: "Identity" op: "Identity" input: "while:output:1" attr { key: "T" value { type: DT_FLOAT } } }
      ret { key: "identity" value: "Identity:output:0" }
    }
    function {
      signature {
        name: "while_cond_11"
        input_arg { name: "i" type: DT_INT32 }
        input_arg { name: "y" type: DT_FLOAT }
        output_arg { name: "identity" type: DT_BOOL }
      }
      node_def {
        name: "n"
        op: "Const"
        attr { key: "dtype" value { type: DT_INT32 } }
        attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 3 } } }
      }
      node_def { name: "Less" op: "Less" input: "i" input: "n:output:0" attr { key: "T" value { type: DT_INT32 } } }
      ret { key: "identity" value: "Less:z:0" }
    }
    function {
      signature {
        name: "while_body_12"
        input_arg { name: "i" type: DT_INT32 }
        input_arg { name: "y" type: DT_FLOAT }
        output_arg { name: "identity" type: DT_INT32 }
        output_arg { name: "identity_1" type: DT_FLOAT }
      }
      node_def {
        name: "one"
        op: "Const"
        attr { key: "dtype" value { type: DT_INT32 } }
        attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } }
      }
      node_def {
        name: "two"
        op: "Const"
        attr { key: "dtype" value { type: DT_FLOAT } }
        attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {} float_val: 2 } } }
      }
      node_def { name: "add" op: "AddV2" input: "i" input: "one:output:0" attr { key: "T" value { type: DT_INT32 } } }
      node_def { name: "mul" op: "Mul" input: "y" input: "two:output:0" attr { key: "T" value { type: DT_FLOAT } } }
      ret { key: "identity" value: "add:z:0" }
      ret { key: "identity_1" value: "mul:z:0" }
    }
  }
  versions { producer: 1087 }
)pb";

TEST(ControlFlowSavedModelTest, SignatureCallingAFunctionWithAWhileLoopRunsThroughRunSignature) {
  static std::atomic<int> counter{0};
  std::random_device rd;
  fs::path dir = fs::temp_directory_path() /
                 ("tfhost_control_flow_sm_" + std::to_string(rd()) + "_" + std::to_string(counter++));
  fs::create_directories(dir);
  struct Cleanup {
    fs::path dir;
    ~Cleanup() {
      std::error_code ec;
        }
  } cleanup{dir};
  tensorflow::SavedModel saved_model;
  saved_model.set_saved_model_schema_version(1);
  tensorflow::MetaGraphDef* mg = saved_model.add_meta_graphs();
  mg->mutable_meta_info_def()->add_tags("serve");
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(kGraph, mg->mutable_graph_def()));
  tensorflow::SignatureDef& sig = (*mg->mutable_signature_def())["serving_default"];
  sig.set_method_name("tensorflow/serving/predict");
  tensorflow::TensorInfo& in = (*sig.mutable_inputs())["x"];
  in.set_name("x:0");
  in.set_dtype(tensorflow::DT_FLOAT);
  in.mutable_tensor_shape()->add_dim()->set_size(-1);
  tensorflow::TensorInfo& out = (*sig.mutable_outputs())["y"];
  out.set_name("StatefulPartitionedCall:0");
  out.set_dtype(tensorflow::DT_FLOAT);
  out.mutable_tensor_shape()->add_dim()->set_size(-1);
  std::string bytes;
  ASSERT_TRUE(saved_model.SerializeToString(&bytes));
  std::ofstream(dir / "saved_model.pb", std::ios::binary) << bytes;

  auto model = loaders::LoadModel(dir.string());
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  // Three doublings: [1, -2, 0.25] * 8.
  auto result = (*model)->RunSignature("serving_default", {{"x", Tensor::FromVector<float>({1.0f, -2.0f, 0.25f})}});
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  const Tensor& y = result->at("y");
  EXPECT_EQ(std::vector<float>(y.data<float>(), y.data<float>() + y.NumElements()),
            std::vector<float>({8.0f, -16.0f, 2.0f}));
}

}  // namespace
}  // namespace tfhost
