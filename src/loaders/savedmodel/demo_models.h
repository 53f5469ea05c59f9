// Small demo models with fixed weights, written as TF1-style SavedModels
// (`tfhost demo-models DIR`): something to serve, run and benchmark without
// TensorFlow installed. Every weight is a variable, so loading one exercises
// the whole restore path (VariableV2, RestoreV2, Assign).
//
//   half_plus_two  y = 0.5 * x + 2, the shape of TF Serving's own test model:
//                  predict `serving_default` (x -> y, float [-1,1]) and
//                  `classify_x_to_y` / `regress_x_to_y` taking serialized
//                  tf.Example strings (ParseExample, dense key "x").
//   mlp            Dense 4->8 + ReLU -> Dense 8->3 + Softmax; input x [-1,4].
//   cnn            Conv2D 3x3 SAME (4 filters) + BiasAdd + ReLU -> MaxPool 2x2
//                  -> Reshape [-1,64] -> MatMul [64,3] -> Softmax; input
//                  x [-1,8,8,1].
//
// Thread-safety: all functions are reentrant.
#pragma once

#include <string>
#include <vector>

#include "loaders/savedmodel/saved_model_writer.h"

namespace tfhost::loaders {

// {"half_plus_two", "mlp", "cnn"}.
std::vector<std::string> DemoModelNames();

// The model as a writer spec; NotFound (listing the names) for an unknown
// name. Weights come from fixed formulas, so every call gives the same model.
StatusOr<SavedModelSpec> BuildDemoModel(const std::string& name);

// One line saying what the model computes, for `tfhost demo-models`.
std::string DemoModelDescription(const std::string& name);

// Writes each demo model as a TF Serving base path `<dir>/<name>/1/`,
// replacing earlier copies. Returns the version directories written.
StatusOr<std::vector<std::string>> WriteDemoModels(const std::string& dir);

}  // namespace tfhost::loaders
