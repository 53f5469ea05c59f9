// Variables bound to function captures through a TF2 SavedModel's object
// graph.
//
// A TF2 signature is a call (StatefulPartitionedCall) whose trailing inputs
// are captures: handles from VarHandleOps of the MetaGraph's graph. Two
// routes give those variables their values:
//   * the saver's restore function (SaverDef.restore_op_name), which is all
//     TensorFlow Serving runs;
//   * the object graph, which is what tf.saved_model.load uses: the
//     SavedConcreteFunction lists, per capture, the object-graph node it is
//     bound to (bound_inputs), and the checkpoint's own object graph (the
//     TrackableObjectGraph stored under _CHECKPOINTABLE_OBJECT_GRAPH) names
//     the bundle key holding that object's value. The two graphs are matched
//     by child names from the root, as a checkpoint restore matches them.
// The routes agree on most models. They part when a variable is tracked
// twice: a Keras 3 model inside a tf.Module gets two VarHandleOps per
// variable, and the restore function fills the ones the signatures never
// read. The loader restores, through the object graph, each captured
// variable the restore function does not reach, so such a model serves the
// values tf.saved_model.load gives it.
//
// Thread-safety: plain functions on values the caller owns.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "checkpoint/tensor_bundle_reader.h"
#include "ir/graph.h"
#include "tensorflow/core/protobuf/saved_object_graph.pb.h"
#include "tensorflow/core/protobuf/trackable_object_graph.pb.h"

namespace tfhost::loaders {

struct BoundVariable {
  std::string handle;          // the VarHandleOp node passed as the capture
  std::string checkpoint_key;  // the bundle key of its value
};

// The TrackableObjectGraph a TF2 checkpoint stores under
// _CHECKPOINTABLE_OBJECT_GRAPH; NotFound when the bundle has none (a TF1
// checkpoint), InvalidArgument naming the prefix when it does not parse.
StatusOr<tensorflow::TrackableObjectGraph> ReadCheckpointObjectGraph(const checkpoint::TensorBundleReader& bundle,
                                                                     const std::string& prefix);

// For every call node of `graph` whose function `objects` lists with bound
// inputs, the captures that are VarHandleOps bound to a variable object with
// a saved value, each handle once. Fails naming the call node or object id
// when the object graph contradicts the graph (more bound inputs than the
// call has inputs, an id out of range).
StatusOr<std::vector<BoundVariable>> CapturedVariables(const ir::Graph& graph,
                                                       const tensorflow::SavedObjectGraph& objects,
                                                       const tensorflow::TrackableObjectGraph& checkpoint_objects);

// Adds a NoOp that restores `variables` from the bundle at `prefix` (one
// RestoreV2 of their keys, one AssignVariableOp per handle) and returns its
// name. The dtype restored is the one each VarHandleOp declares.
StatusOr<std::string> AddBoundVariableRestore(ir::Graph& graph, const std::vector<BoundVariable>& variables,
                                              const std::string& prefix);

}  // namespace tfhost::loaders
