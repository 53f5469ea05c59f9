// Signatures for graph-only model formats (frozen GraphDefs, TF.js graph
// models): converting a stored SignatureDef into a runtime::Signature, and
// synthesizing "serving_default" when the model carries none — inputs are the
// Placeholders, outputs are the tensors that no node consumes. Shared by the
// GraphDef and TF.js loaders, which then finish through FinishGraphModel.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "loaders/model_loader.h"
#include "tensorflow/core/protobuf/meta_graph.pb.h"

namespace tfhost::loaders {

inline constexpr char kDefaultSignatureName[] = "serving_default";
inline constexpr char kPredictMethodName[] = "tensorflow/serving/predict";

// Names of the nodes whose outputs a synthesized signature returns: nodes
// that no other node consumes (by data or control edge), except Const, NoOp
// and Placeholder nodes. Needs no types, so it also serves as the roots for
// GraphToSession.
std::vector<std::string> UnconsumedNodeNames(const ir::Graph& graph);

// Builds "serving_default" from a typed graph (output_dtypes filled): one
// input per Placeholder (key = node name, tensor "name:0", dtype and shape
// from its attrs; `producer` < 21 reads an empty Placeholder shape as unknown,
// as TensorFlow does for such old graphs), one output per output tensor of
// each UnconsumedNodeNames node (key = node name when the node has one
// output, else "name:i"). Fails when there is no output at all.
// `output_nodes` are those nodes' names taken from the graph as loaded: the
// graph passes may since have folded an output into a Const, which
// UnconsumedNodeNames would no longer list.
StatusOr<runtime::Signature> SynthesizeSignature(const ir::Graph& graph, int producer,
                                                 const std::vector<std::string>& output_nodes);

// Converts a SignatureDef; every tensor must exist in the typed graph. A
// TensorInfo without dtype takes the node's output dtype, one without shape
// has an unknown shape. Errors name the signature and the key.
StatusOr<runtime::Signature> SignatureFromDef(const std::string& name, const tensorflow::SignatureDef& def,
                                              const ir::Graph& graph);

// Node names that the signature's outputs need (roots for GraphToSession).
StatusOr<std::vector<std::string>> SignatureRoots(const tensorflow::SignatureDef& def);

struct GraphModelParts {
  ir::Graph graph;  // untyped, straight from the GraphDef (and weights)
  std::optional<tensorflow::SignatureDef> signature;  // none: synthesize one
  int producer = 0;  // GraphDef versions.producer
  // Nodes run once right after the session is created (TF.js model
  // initializers); they are roots too.
  std::vector<std::string> init_targets;
  runtime::ModelInfo info;
  std::string model_name;  // for error messages
};

// Drops control edges from Placeholders (a feed satisfies them, as in
// TensorFlow), types the graph and creates the Session through
// GraphToSession, builds the signature and runs the init targets. Errors
// name the model.
StatusOr<std::unique_ptr<runtime::Model>> FinishGraphModel(GraphModelParts parts, const LoadOptions& options);

}  // namespace tfhost::loaders
