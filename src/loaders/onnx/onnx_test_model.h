// Small ONNX models built with tfhost's own schema (src/proto/onnx), for
// the loader's unit tests: each test starts from y = relu(x @ w + b) with a
// symbolic batch and varies one thing (an extra node, an opset, a broken
// initializer). Test-only; not part of the library.
#pragma once

#include <fstream>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "base/tensor.h"
#include "base/test_temp_dir.h"
#include "loaders/onnx/onnx_loader.h"
#include "onnx/onnx.pb.h"

namespace tfhost::loaders::onnx::testing {

inline ::onnx::ValueInfoProto TensorInfo(const std::string& name, int32_t elem, const std::vector<int64_t>& dims,
                                         const std::vector<std::string>& symbolic = {}) {
  ::onnx::ValueInfoProto v;
  v.set_name(name);
  auto* t = v.mutable_type()->mutable_tensor_type();
  t->set_elem_type(elem);
  auto* shape = t->mutable_shape();
  for (size_t i = 0; i < dims.size(); ++i) {
    auto* d = shape->add_dim();
    if (dims[i] >= 0) {
      d->set_dim_value(dims[i]);
    } else {
      d->set_dim_param(i < symbolic.size() ? symbolic[i] : "N");
    }
  }
  return v;
}

inline ::onnx::TensorProto FloatTensor(const std::string& name, const std::vector<int64_t>& dims,
                                       const std::vector<float>& values, bool raw = false) {
  ::onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(::onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t.add_dims(d);
  if (raw) {
    t.set_raw_data(std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
  } else {
    for (float v : values) t.add_float_data(v);
  }
  return t;
}

inline ::onnx::NodeProto Node(const std::string& op, const std::vector<std::string>& in,
                              const std::vector<std::string>& out, const std::string& name = "") {
  ::onnx::NodeProto n;
  n.set_op_type(op);
  n.set_name(name);
  for (const auto& i : in) n.add_input(i);
  for (const auto& o : out) n.add_output(o);
  return n;
}

// x [N, 2] -> MatMul(w [2, 3]) -> Add(b [3]) -> Relu -> y [N, 3], with
// w = [[1, 0, -1], [0, 1, 1]] (raw_data) and b = [0.5, -1, 0] (float_data).
inline ::onnx::ModelProto BaseModel(int64_t opset = 17) {
  ::onnx::ModelProto m;
  m.set_ir_version(8);
  m.set_producer_name("tfhost-test");
  auto* o = m.add_opset_import();
  o->set_domain("");
  o->set_version(opset);
  auto* g = m.mutable_graph();
  g->set_name("base");
  *g->add_input() = TensorInfo("x", ::onnx::TensorProto::FLOAT, {-1, 2}, {"batch"});
  *g->add_output() = TensorInfo("y", ::onnx::TensorProto::FLOAT, {-1, 3}, {"batch"});
  *g->add_initializer() = FloatTensor("w", {2, 3}, {1, 0, -1, 0, 1, 1}, /*raw=*/true);
  *g->add_initializer() = FloatTensor("b", {3}, {0.5f, -1, 0});
  *g->add_node() = Node("MatMul", {"x", "w"}, {"xw"}, "matmul");
  *g->add_node() = Node("Add", {"xw", "b"}, {"xwb"}, "bias");
  *g->add_node() = Node("Relu", {"xwb"}, {"y"}, "relu");
  return m;
}

// BaseModel's header (IR version, opset, producer) with an empty graph.
inline ::onnx::ModelProto EmptyModel(int64_t opset = 17) {
  ::onnx::ModelProto m = BaseModel(opset);
  auto* g = m.mutable_graph();
  g->clear_node();
  g->clear_initializer();
  g->clear_input();
  g->clear_output();
  return m;
}

inline void SetInt(::onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(::onnx::AttributeProto::INT);
  a->set_i(v);
}

// x [2, 3] float -> `node` -> `outputs` (name, elem type), with `extra`
// initializers.
inline ::onnx::ModelProto OneNode(::onnx::NodeProto node, const std::vector<std::pair<std::string, int32_t>>& outputs,
                           const std::vector<::onnx::TensorProto>& extra = {}) {
  ::onnx::ModelProto m = EmptyModel();
  auto* g = m.mutable_graph();
  *g->add_input() = TensorInfo("x", ::onnx::TensorProto::FLOAT, {2, 3});
  for (const auto& [name, type] : outputs) {
    ::onnx::ValueInfoProto v;
    v.set_name(name);
    v.mutable_type()->mutable_tensor_type()->set_elem_type(type);
    *g->add_output() = v;
  }
  for (const auto& t : extra) *g->add_initializer() = t;
  *g->add_node() = std::move(node);
  return m;
}

inline ::onnx::TensorProto Int64Tensor(const std::string& name, std::vector<int64_t> values) {
  ::onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(::onnx::TensorProto::INT64);
  t.add_dims(static_cast<int64_t>(values.size()));
  for (int64_t v : values) t.add_int64_data(v);
  return t;
}

inline std::string Serialize(const ::onnx::ModelProto& m) {
  std::string bytes;
  m.SerializeToString(&bytes);
  return bytes;
}

inline void WriteBytes(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

struct Feed {
  std::string name;
  Tensor value;
};

inline int32_t OnnxType(DType dtype) {
  switch (dtype) {
    case DType::kFloat: return ::onnx::TensorProto::FLOAT;
    case DType::kInt32: return ::onnx::TensorProto::INT32;
    default: return ::onnx::TensorProto::INT64;
  }
}

// Loads a model of one node whose inputs are all graph inputs, runs it on
// `feeds` and answers its output `y`.
inline StatusOr<Tensor> RunNode(const ::onnx::NodeProto& node, const std::vector<Feed>& feeds,
                                int32_t out_type = ::onnx::TensorProto::FLOAT) {
  ::onnx::ModelProto m = EmptyModel();
  auto* g = m.mutable_graph();
  std::map<std::string, Tensor> inputs;
  for (const Feed& f : feeds) {
    *g->add_input() = TensorInfo(f.name, OnnxType(f.value.dtype()), f.value.shape().dims());
    inputs.emplace(f.name, f.value);
  }
  ::onnx::ValueInfoProto y;
  y.set_name("y");
  y.mutable_type()->mutable_tensor_type()->set_elem_type(out_type);
  *g->add_output() = y;
  *g->add_node() = node;
  ::tfhost::testing::TempDir dir("onnx_node");
  const std::string path = dir.Sub("m.onnx");
  WriteBytes(path, Serialize(m));
  TFHOST_ASSIGN_OR_RETURN(auto model, ::tfhost::loaders::LoadOnnxModel(path, ::tfhost::loaders::LoadOptions()));
  TFHOST_ASSIGN_OR_RETURN(auto out, model->RunSignature("serving_default", inputs));
  return out.at("y");
}

}  // namespace tfhost::loaders::onnx::testing
