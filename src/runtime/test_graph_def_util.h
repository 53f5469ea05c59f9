// Test helpers for the runtime's tests: GraphDefs written node by node.
#pragma once

#include <string>
#include <vector>

#include "base/tensor.h"
#include "ir/tensor_proto.h"
#include "tensorflow/core/framework/graph.pb.h"

namespace tfhost::runtime::testing {

// Appends a node; inputs as in a GraphDef ("n", "n:1", "^n"). No attrs.
inline tensorflow::NodeDef* AddNode(tensorflow::GraphDef& g, const std::string& name, const std::string& op,
                                    std::vector<std::string> inputs = {}) {
  auto* n = g.add_node();
  n->set_name(name);
  n->set_op(op);
  for (auto& i : inputs) n->add_input(i);
  return n;
}

// Makes `n` hold `value` as a Const does (dtype and value attrs).
inline void SetConst(tensorflow::NodeDef* n, const Tensor& value) {
  (*n->mutable_attr())["dtype"].set_type(static_cast<tensorflow::DataType>(value.dtype()));
  ir::TensorToProto(value, (*n->mutable_attr())["value"].mutable_tensor());
}

}  // namespace tfhost::runtime::testing
