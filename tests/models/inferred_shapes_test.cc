// Static shape inference on real TensorFlow-written models: the shapes
// tfhost infers at load time match what can be worked out by hand from each
// graph, never contradict the shapes TensorFlow itself recorded (signature
// TensorInfos and the `_output_shapes` attrs TF1 writers add to nodes), and
// never fail a model TensorFlow accepted.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <iostream>

#include "base/test_fixtures.h"
#include "ir/attrs.h"
#include "loaders/model_loader.h"

namespace tfhost {
namespace {

namespace fs = std::filesystem;

std::string InferredShape(runtime::Model& model, const std::string& tensor) {
  const ir::Graph& graph = model.session().graph();
  auto ref = graph.ResolveTensor(tensor);
  if (!ref.ok()) return "no tensor " + tensor + ": " + ref.status().ToString();
  return graph.node(ref->node).output_shapes.at(ref->index).ToString();
}

TEST(InferredShapesTest, NsfwMobilenetV2OutputIsBatchByFiveClasses) {
  const std::string path = testing::FixturePath("models/tfjs/nsfw_mobilenet_v2");
  TFHOST_REQUIRE_FIXTURE(path);
  auto model = loaders::LoadModel(path);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  // The input placeholder is [-1,224,224,3]; 224 -> 7 through the stride-2
  // convolutions, AvgPool 7x7 VALID -> 1x1, Squeeze [1,2] -> [?,1280],
  // _FusedMatMul with a [1280,5] kernel -> [?,5], Softmax and Identity keep it.
  EXPECT_EQ(InferredShape(**model, "input:0"), "[?,224,224,3]");
  EXPECT_EQ(InferredShape(**model, "Identity:0"), "[?,5]");
}

TEST(InferredShapesTest, HalfPlusTwoOutputFollowsParseExampleDenseShape) {
  const std::string path = testing::FixturePath("models/tfserving/saved_model_half_plus_two_cpu");
  TFHOST_REQUIRE_FIXTURE(path);
  auto model = loaders::LoadModel(path);
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  // tf_example is an unknown-rank string placeholder, but ParseExample needs
  // a vector of examples, and x's dense_shapes entry is [1]: x is [?,1].
  // y = a * x + b with scalar variables a and b keeps that shape.
  EXPECT_EQ(InferredShape(**model, "x:0"), "[?,1]");
  EXPECT_EQ(InferredShape(**model, "y:0"), "[?,1]");
}

// Every model directory under the fixtures that loads (others have their
// own tests saying why they do not).
std::vector<std::string> FixtureModelPaths() {
  std::vector<std::string> paths;
  std::error_code ec;
  for (const char* group : {"models/tfjs", "models/tfserving"}) {
    for (const auto& entry : fs::directory_iterator(testing::FixturePath(group), ec)) {
      if (entry.is_directory()) paths.push_back(entry.path().string());
    }
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

TEST(InferredShapesTest, InferredShapesNeverContradictShapesTensorFlowRecorded) {
  TFHOST_REQUIRE_FIXTURE(testing::FixturePath("models"));
  int models = 0, checked = 0, exact = 0;
  for (const std::string& path : FixtureModelPaths()) {
    auto model = loaders::LoadModel(path);
    if (!model.ok()) {
      // Shape inference must never be the reason a model fails to load.
      EXPECT_EQ(model.status().message().find("shape inference"), std::string::npos)
          << path << ": " << model.status().ToString();
      continue;
    }
    ++models;
    const ir::Graph& graph = (*model)->session().graph();
    for (const auto& [name, sig] : (*model)->signatures()) {
      for (const auto* list : {&sig.inputs, &sig.outputs}) {
        for (const auto& spec : *list) {
          auto ref = graph.ResolveTensor(spec.tensor_name);
          if (!ref.ok()) continue;
          const ir::PartialShape& inferred = graph.node(ref->node).output_shapes.at(ref->index);
          EXPECT_TRUE(inferred.IsCompatibleWith(spec.shape))
              << path << " signature '" << name << "' tensor " << spec.tensor_name << ": inferred "
              << inferred.ToString() << ", recorded " << spec.shape.ToString();
        }
      }
    }
    for (const ir::Node& node : graph.nodes()) {
      auto recorded = ir::GetAttr<std::vector<ir::PartialShape>>(node, "_output_shapes");
      if (!recorded.ok() || recorded->size() != node.output_shapes.size()) continue;
      for (size_t i = 0; i < recorded->size(); ++i) {
        ++checked;
        const ir::PartialShape& inferred = node.output_shapes[i];
        EXPECT_TRUE(inferred.IsCompatibleWith((*recorded)[i]))
            << path << " node '" << node.name << "' (" << node.op << ") output " << i << ": inferred "
            << inferred.ToString() << ", TensorFlow recorded " << (*recorded)[i].ToString();
        if (inferred == (*recorded)[i]) ++exact;
      }
    }
  }
  EXPECT_GT(models, 0);
  // Informational: how much of TensorFlow's own knowledge tfhost recovers.
  std::cout << models << " models; " << exact << " of " << checked
            << " recorded node output shapes inferred exactly\n";
}

}  // namespace
}  // namespace tfhost
