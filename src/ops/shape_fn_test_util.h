// Test helpers for shape functions: a small graph builder whose nodes carry
// output dtypes directly (so InferShapes alone is exercised), and a one-node
// runner of a registered shape function on given input shapes and values.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ir/graph.h"
#include "ir/tensor_proto.h"
#include "ops/shape_inference.h"

namespace tfhost::ops::testing {

class GraphBuilder {
 public:
  int Placeholder(const std::string& name, std::vector<int64_t> dims) {
    ir::AttrMap attrs;
    *attrs["shape"].mutable_shape() = ir::PartialShape::Known(std::move(dims)).ToProto();
    return Add(name, "Placeholder", {}, attrs);
  }
  int PlaceholderUnknownRank(const std::string& name) {
    ir::AttrMap attrs;
    attrs["shape"].mutable_shape()->set_unknown_rank(true);
    return Add(name, "Placeholder", {}, attrs);
  }
  int Const(const std::string& name, const Tensor& value) {
    ir::AttrMap attrs;
    ir::TensorToProto(value, attrs["value"].mutable_tensor());
    return Add(name, "Const", {}, attrs, 1, value.dtype());
  }
  int Add(const std::string& name, const std::string& op, std::vector<ir::TensorRef> inputs, ir::AttrMap attrs = {},
          int num_outputs = 1, DType dtype = DType::kFloat) {
    ir::Node n;
    n.name = name;
    n.op = op;
    n.inputs = std::move(inputs);
    n.attrs = std::move(attrs);
    n.output_dtypes.assign(num_outputs, dtype);
    auto id = graph.AddNode(std::move(n));
    EXPECT_TRUE(id.ok()) << id.status().ToString();
    return *id;
  }
  std::string Shape(int node, int index = 0) const { return graph.node(node).output_shapes.at(index).ToString(); }

  ir::Graph graph;
};

inline ir::TensorRef Out(int node, int index = 0) { return {node, index}; }

// Runs `op`'s registered shape function on the given input shapes and
// constant input values (null where unknown); the function must succeed.
inline std::vector<ir::PartialShape> InferShape(const std::string& op, std::vector<ir::PartialShape> inputs,
                                                std::vector<const Tensor*> values, int num_outputs,
                                                ir::AttrMap attrs = {}) {
  ir::Node node;
  node.name = "n";
  node.op = op;
  node.attrs = std::move(attrs);
  values.resize(inputs.size(), nullptr);
  ShapeContext ctx(node, std::move(inputs), std::move(values), num_outputs);
  const ShapeFn* fn = ShapeFnRegistry::Global().Find(op);
  EXPECT_NE(fn, nullptr) << op;
  if (fn == nullptr) return {};
  Status status = (*fn)(ctx);
  EXPECT_TRUE(status.ok()) << op << ": " << status.ToString();
  return ctx.TakeOutputs();
}

}  // namespace tfhost::ops::testing
