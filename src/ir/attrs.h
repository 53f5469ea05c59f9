// Typed access to a node's TensorFlow attrs. Errors name the node, the attr,
// and what type or value was expected, because attrs come from model files.
#pragma once

#include <string>
#include <vector>

#include "base/tensor.h"
#include "ir/graph.h"
#include "ir/partial_shape.h"

namespace tfhost::ir {

// Supported T: int64_t, int, float, bool, std::string, DType, Tensor,
// PartialShape, tensorflow::NameAttrList, and std::vector of int64_t, int,
// float, std::string, DType, PartialShape.
template <typename T>
StatusOr<T> GetAttr(const Node& node, const std::string& key);

// Like GetAttr, but returns `default_value` when the attr is absent (TF omits
// attrs equal to their default when stripped_default_attrs is set).
template <typename T>
StatusOr<T> GetAttrOr(const Node& node, const std::string& key, T default_value) {
  if (node.FindAttr(key) == nullptr) return default_value;
  return GetAttr<T>(node, key);
}

// "node 'conv1' (Conv2D)": the prefix used by error messages about a node.
std::string NodeContext(const Node& node);

}  // namespace tfhost::ir
