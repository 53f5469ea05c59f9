// A scratch ir::Graph written out as a FunctionDef of the function-body
// grammar (docs/formats.md §1.6), for the loaders whose formats nest graphs
// (TFLite's called subgraphs, ONNX's If branches): the runtime then calls it
// from TensorFlow's If/While as it calls a TF2 SavedModel's functions.
//
// Thread-safety: a plain function; `body` is the caller's.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "ir/graph.h"
#include "tensorflow/core/framework/function.pb.h"

namespace tfhost::loaders {

struct FunctionBoundary {
  std::vector<int> arg_nodes;          // the Placeholders that become arg0, arg1, ...
  std::vector<DType> arg_types;
  std::vector<ir::TensorRef> rets;     // become out0, out1, ...
  // The declared result types; kInvalid takes what the nodes compute. A
  // declared type the nodes do not compute is an error.
  std::vector<DType> ret_types;
};

// `body`'s types are inferred first (so output args can be named); errors
// start with `where`. The result's signature is named `name`.
StatusOr<tensorflow::FunctionDef> GraphToFunctionDef(ir::Graph& body, const std::string& name,
                                                     const FunctionBoundary& boundary, const std::string& where);

}  // namespace tfhost::loaders
