// Questions answered from an op's schema (tensorflow.OpDef) about one node:
// its default attrs, how many tensors each arg holds, and output dtypes.
// Schemas come from the model (MetaInfoDef.stripped_op_list, function
// signatures) or from tfhost's own op registry, through an OpDefLookup.
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "ir/graph.h"
#include "tensorflow/core/framework/op_def.pb.h"

namespace tfhost::ir {

// Returns the schema of an op name, or nullptr when unknown.
using OpDefLookup = std::function<const tensorflow::OpDef*(const std::string& op)>;

// Adds every attr that the schema declares with a default and the node omits.
void FillDefaultAttrs(const tensorflow::OpDef& def, Node* node);

// Number of tensors in one input/output arg of this node (1, N, or the length
// of a type list).
// Number attrs are bounded (kMaxArgListLength) so that a crafted attr cannot
// make the loader allocate per-output state for billions of outputs.
inline constexpr int64_t kMaxArgListLength = 65536;
StatusOr<int> ArgArity(const tensorflow::OpDef::ArgDef& arg, const Node& node);

// dtypes of every flat output of the node, in order.
StatusOr<std::vector<DType>> OutputDTypes(const tensorflow::OpDef& def, const Node& node);

// [begin, begin + length) of the flat outputs that make up output arg
// `arg_name` (for function-body references "node:arg:i").
StatusOr<std::pair<int, int>> OutputArgRange(const tensorflow::OpDef& def, const Node& node,
                                             const std::string& arg_name);

// Fills default attrs and output dtypes of every node with a known schema,
// inferring omitted attrs that the schema binds to inputs from the inputs'
// dtypes (ir/type_attr_inference.h). Nodes whose op is unknown are left
// alone; the runtime reports them.
Status InferTypes(Graph& graph, const OpDefLookup& lookup);

}  // namespace tfhost::ir
