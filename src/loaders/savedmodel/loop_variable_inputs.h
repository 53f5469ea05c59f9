// Variables passed into While loops, for variable freezing
// (variable_freezing.h). A TF2 While receives each variable its body reads
// as a resource loop variable: Keras's LSTM, GRU and SimpleRNN pass their
// kernel, recurrent kernel and bias this way, and the body reads them with
// ReadVariableOp every step. When the loop only reads such a variable, its
// frozen value can be passed in instead, as a tensor loop variable: the
// body's reads become Identity of the argument, and the argument gets the
// value's static shape, so the passes see the weights' shapes inside the
// body as they do at the top level.
//
// A loop input qualifies when the body returns the argument unchanged, every
// use of it in the body and in cond is a ReadVariableOp of it, and nothing
// reads the While's output for that input.
//
// Thread-safety: plain functions on a graph the caller owns.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "base/tensor.h"
#include "ir/graph.h"

namespace tfhost::loaders {

// "" when While node `loop` only reads the variable at input `slot`;
// otherwise why not, naming the node and function.
std::string LoopOnlyReads(const ir::Graph& graph, const std::vector<std::vector<int>>& consumers, int loop,
                          int slot);

struct FrozenLoopInput {
  int slot = -1;
  int frozen = -1;  // the Const node holding the value
  DType dtype = DType::kInvalid;
  Shape shape;
};

// Feeds each input's Const into `loop` in place of the handle and rewrites
// copies of its body and cond (new names, so other callers keep the
// originals) to take the value: argument types, output_shapes and T follow,
// reads become Identity. Every slot must have passed LoopOnlyReads.
Status FreezeLoopInputs(ir::Graph& graph, int loop, const std::vector<FrozenLoopInput>& inputs);

}  // namespace tfhost::loaders
