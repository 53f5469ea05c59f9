// Test helpers for the graph passes: build small graphs node by node and
// evaluate them with the reference kernels (RunSingleOp in topological
// order), so a test can compare a graph's outputs before and after a pass.
#pragma once

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "ir/attrs.h"
#include "ir/op_def_util.h"
#include "ir/tensor_proto.h"
#include "ops/run_single_op.h"
#include "ops/shape_inference.h"
#include "passes/pass_manager.h"

namespace tfhost::passes::testing {

// `def` as the loader hands a graph to the passes: schema defaults filled,
// dtypes and static shapes inferred.
inline ir::Graph AsLoaded(const tensorflow::GraphDef& def) {
  auto g = ir::Graph::FromGraphDef(def);
  EXPECT_TRUE(g.ok()) << g.status().ToString();
  if (!g.ok()) return ir::Graph();
  ir::Graph graph = std::move(*g);
  const auto& registry = ops::OpRegistry::Global();
  for (int i = 0; i < graph.num_nodes(); ++i) {
    if (const auto* r = registry.Find(graph.node(i).op)) ir::FillDefaultAttrs(r->def, &graph.mutable_node(i));
  }
  Status st = ir::InferTypes(graph, registry.Lookup());
  EXPECT_TRUE(st.ok()) << st.ToString();
  st = ops::InferShapes(graph);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return graph;
}

// The same for a GraphDef in text format.
inline ir::Graph AsLoaded(const std::string& text) {
  tensorflow::GraphDef def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def)) << text;
  return AsLoaded(def);
}

class GraphBuilder {
 public:
  // inputs: "name", "name:1", "^name".
  GraphBuilder& Add(const std::string& name, const std::string& op, std::vector<std::string> inputs = {},
                    ir::AttrMap attrs = {}) {
    auto* nd = def_.add_node();
    nd->set_name(name);
    nd->set_op(op);
    for (const auto& in : inputs) nd->add_input(in);
    // Most test ops are float: T defaults to it.
    if (op != "Const" && op != "Placeholder" && op != "NoOp" && attrs.count("T") == 0) {
      attrs["T"] = ops::MakeAttr(DType::kFloat);
    }
    for (auto& [k, v] : attrs) (*nd->mutable_attr())[k] = v;
    return *this;
  }
  GraphBuilder& Const(const std::string& name, const Tensor& t, std::vector<std::string> controls = {}) {
    return Add(name, "Const", controls, {{"dtype", ops::MakeAttr(t.dtype())}, {"value", ops::MakeAttr(t)}});
  }
  GraphBuilder& Placeholder(const std::string& name, DType dtype, std::vector<int64_t> shape) {
    tensorflow::AttrValue s;
    *s.mutable_shape() = ir::PartialShape::Known(shape).ToProto();
    return Add(name, "Placeholder", {}, {{"dtype", ops::MakeAttr(dtype)}, {"shape", s}});
  }
  // A graph as the loader would hand it to the passes: defaults, dtypes, shapes.
  ir::Graph Build() const { return AsLoaded(def_); }

 private:
  tensorflow::GraphDef def_;
};

// Float values start + step * (i % 97): distinct enough that a pass mixing
// up elements, rows or channels changes the outputs.
inline Tensor Ramp(const Shape& shape, float step, float start) {
  Tensor t(DType::kFloat, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = start + step * static_cast<float>(i % 97);
  return t;
}

// Evaluates `fetches` (tensor names) of a stateless graph.
inline std::vector<Tensor> Evaluate(const ir::Graph& graph, const std::map<std::string, Tensor>& feeds,
                                    const std::vector<std::string>& fetches) {
  std::map<ir::TensorRef, Tensor> values;
  auto order = graph.TopologicalOrder();
  EXPECT_TRUE(order.ok());
  for (int i : *order) {
    const ir::Node& n = graph.node(i);
    std::vector<Tensor> outs;
    if (auto it = feeds.find(n.name); it != feeds.end()) {
      outs = {it->second};
    } else if (n.op == "NoOp") {
      continue;
    } else if (n.op == "Const") {
      // Through GetAttr: a value the passes hold as a tensor (ir::SetConstValue)
      // is not in the attrs a single-op run would read.
      auto value = ir::GetAttr<Tensor>(n, "value");
      EXPECT_TRUE(value.ok()) << n.name << ": " << value.status().ToString();
      if (!value.ok()) return {};
      outs = {*value};
    } else {
      std::vector<Tensor> ins;
      for (const auto& in : n.inputs) ins.push_back(values.at(in));
      auto r = ops::RunSingleOp(n.op, ins, n.attrs);
      EXPECT_TRUE(r.ok()) << n.name << ": " << r.status().ToString();
      if (!r.ok()) return {};
      outs = std::move(*r);
    }
    for (size_t k = 0; k < outs.size(); ++k) values[ir::TensorRef{i, static_cast<int>(k)}] = outs[k];
  }
  std::vector<Tensor> result;
  for (const auto& f : fetches) {
    auto ref = graph.ResolveTensor(f);
    EXPECT_TRUE(ref.ok()) << f;
    result.push_back(values.at(*ref));
  }
  return result;
}

inline void ExpectSameTensors(const std::vector<Tensor>& a, const std::vector<Tensor>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].dtype(), b[i].dtype());
    EXPECT_EQ(a[i].shape().dims(), b[i].shape().dims());
    EXPECT_EQ(a[i].ToDoubleVector(), b[i].ToDoubleVector()) << a[i].DebugString() << " vs " << b[i].DebugString();
  }
}

// `graph` after `pass` and dead-node pruning, with `roots` fetchable (the
// pass and the pruning must succeed).
inline ir::Graph RunPassAndPrune(ir::Graph graph, GraphPass& pass, const std::vector<std::string>& roots) {
  const PassContext ctx = PassContext::FromRoots(graph, roots);
  Status st = pass.Run(&graph, ctx);
  EXPECT_TRUE(st.ok()) << pass.name() << ": " << st.ToString();
  st = PruneDeadNodes(&graph, ctx);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return graph;
}

inline int CountOp(const ir::Graph& graph, const std::string& op) {
  int n = 0;
  for (const auto& node : graph.nodes()) n += node.op == op;
  return n;
}

}  // namespace tfhost::passes::testing
