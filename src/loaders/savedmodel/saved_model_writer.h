// Writes TF1-style SavedModel directories that TensorFlow, TensorFlow Serving
// and tfhost's own loader read: `saved_model.pb` (one MetaGraphDef), the
// variables as a tensor bundle (`variables/variables.{index,data-*}`), and
// `assets/`. Used for the demo models and for tests that need a model with
// exactly known contents.
//
// Variables are written the way tf.compat.v1.train.Saver does (docs/formats.md
// §2.3): one `VariableV2` node per variable (plus `<name>/read`), and a
// restore subgraph `save/Const` (the filename tensor) -> `save/RestoreV2` ->
// `save/Assign_i` -> `save/restore_all` (NoOp) that the SaverDef names.
//
// Thread-safety: WriteSavedModel is reentrant; do not write the same
// directory from two threads.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/tensor.h"
#include "ir/graph.h"
#include "runtime/model.h"
#include "tensorflow/core/protobuf/saved_model.pb.h"

namespace tfhost::loaders {

struct SavedModelAsset {
  std::string filename;  // basename inside assets/ (no '/')
  std::string contents;
  // DT_STRING scalar fed with the asset's full path at load time ("vocab:0").
  // If no node of that name exists, a Const holding `filename` is added.
  std::string tensor_name;
};

struct SavedModelSpec {
  // The serving graph. It may refer to a variable by its node name ("w:0")
  // or by "<name>/read:0"; the writer adds the VariableV2 and read nodes for
  // every entry of `variables` that the graph does not already define. A
  // VariableV2 the graph does define must agree with the value's dtype and
  // shape.
  tensorflow::GraphDef graph_def;
  // Signatures keyed by their name; TensorSpec.key is the alias,
  // TensorSpec.tensor_name the graph tensor.
  std::vector<runtime::Signature> signatures;
  // Checkpoint key (= VariableV2 node name) -> value.
  std::map<std::string, Tensor> variables;
  std::vector<SavedModelAsset> assets;
  std::vector<std::string> tags = {"serve"};
  // Optional node run once after the restore (collection saved_model_main_op).
  std::string main_op;
};

struct SavedModelWriteOptions {
  // Replace `export_dir` if it exists (otherwise that is AlreadyExists).
  bool overwrite = false;
};

// Builds the MetaGraphDef-wrapped SavedModel proto (graph with variable and
// restore nodes added, SaverDef, SignatureDefs, asset collections) without
// touching the disk. Fails, naming the node or signature, if a signature
// refers to a tensor the graph lacks or a variable conflicts with a node.
StatusOr<tensorflow::SavedModel> BuildSavedModelProto(const SavedModelSpec& spec);

// Writes the SavedModel into `export_dir`: everything goes to a temporary
// sibling directory first, which is renamed into place at the end, so a
// reader never sees a half-written model.
Status WriteSavedModel(const std::string& export_dir, const SavedModelSpec& spec,
                       const SavedModelWriteOptions& options = {});

// Convenience: the SignatureDef proto of a runtime::Signature.
void SignatureToProto(const runtime::Signature& signature, tensorflow::SignatureDef* proto);

}  // namespace tfhost::loaders
