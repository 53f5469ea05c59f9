#include "ir/graph.h"

#include "ir/tensor_proto.h"

#include <algorithm>
#include <deque>

namespace tfhost::ir {

StatusOr<ParsedTensorName> ParseTensorName(const std::string& name) {
  ParsedTensorName out;
  std::string s = name;
  if (!s.empty() && s[0] == '^') {
    out.is_control = true;
    s = s.substr(1);
  }
  auto colon = s.rfind(':');
  if (colon != std::string::npos && !out.is_control) {
    std::string idx = s.substr(colon + 1);
    if (idx.empty() || idx.size() > 9 ||
        !std::all_of(idx.begin(), idx.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return InvalidArgument("malformed tensor name '" + name +
                             "': expected 'node' or 'node:<output index>'");
    }
    out.index = std::stoi(idx);
    s = s.substr(0, colon);
  }
  if (s.empty()) {
    return InvalidArgument("malformed tensor name '" + name + "': empty node name");
  }
  out.node = s;
  return out;
}

StatusOr<Graph> Graph::FromGraphDef(const tensorflow::GraphDef& graph_def) {
  Graph g;
  g.nodes_.reserve(graph_def.node_size());
  for (const auto& nd : graph_def.node()) {
    if (nd.name().empty()) return InvalidArgument("GraphDef has a node with an empty name (op '" + nd.op() + "')");
    if (g.index_.count(nd.name())) {
      return InvalidArgument("GraphDef has two nodes named '" + nd.name() + "'");
    }
    Node n;
    n.name = nd.name();
    n.op = nd.op();
    n.device = nd.device();
    n.attrs = AttrMap(nd.attr().begin(), nd.attr().end());
    g.index_[n.name] = static_cast<int>(g.nodes_.size());
    g.nodes_.push_back(std::move(n));
  }
  for (int i = 0; i < graph_def.node_size(); ++i) {
    const auto& nd = graph_def.node(i);
    for (const std::string& input : nd.input()) {
      auto parsed = ParseTensorName(input);
      if (!parsed.ok()) return parsed.status().WithContext("node '" + nd.name() + "'");
      int src = g.FindNode(parsed->node);
      if (src < 0) {
        return InvalidArgument("node '" + nd.name() + "' (" + nd.op() + ") has input '" + input +
                               "' but no node named '" + parsed->node + "' exists");
      }
      if (parsed->is_control) {
        g.nodes_[i].control_inputs.push_back(src);
      } else {
        if (!g.nodes_[i].control_inputs.empty()) {
          return InvalidArgument("node '" + nd.name() + "': data input '" + input +
                                 "' follows a control input; control inputs must come last");
        }
        g.nodes_[i].inputs.push_back({src, parsed->index});
      }
    }
  }
  g.library_ = graph_def.library();
  return g;
}

int Graph::FindNode(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? -1 : it->second;
}

StatusOr<TensorRef> Graph::ResolveTensor(const std::string& tensor_name) const {
  TFHOST_ASSIGN_OR_RETURN(ParsedTensorName parsed, ParseTensorName(tensor_name));
  if (parsed.is_control) {
    return InvalidArgument("'" + tensor_name + "' names a control dependency, not a tensor");
  }
  int node = FindNode(parsed.node);
  if (node < 0) return NotFound("no node named '" + parsed.node + "' for tensor '" + tensor_name + "'");
  return TensorRef{node, parsed.index};
}

StatusOr<int> Graph::AddNode(Node node) {
  if (index_.count(node.name)) return AlreadyExists("graph already has a node named '" + node.name + "'");
  int id = static_cast<int>(nodes_.size());
  index_[node.name] = id;
  nodes_.push_back(std::move(node));
  return id;
}

Status Graph::Compact(const std::vector<bool>& keep) {
  std::vector<int> remap(nodes_.size(), -1);
  int next = 0;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (keep[i]) remap[i] = next++;
  }
  std::vector<Node> kept;
  kept.reserve(next);
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (!keep[i]) continue;
    Node n = std::move(nodes_[i]);
    for (auto& in : n.inputs) {
      if (remap[in.node] < 0) return Internal("node '" + n.name + "' still consumes a removed node");
      in.node = remap[in.node];
    }
    std::vector<int> controls;
    for (int c : n.control_inputs) {
      if (remap[c] >= 0) controls.push_back(remap[c]);
    }
    n.control_inputs = std::move(controls);
    kept.push_back(std::move(n));
  }
  nodes_ = std::move(kept);
  index_.clear();
  for (size_t i = 0; i < nodes_.size(); ++i) index_[nodes_[i].name] = static_cast<int>(i);
  return OkStatus();
}

std::string Graph::UniqueName(const std::string& base) const {
  if (!index_.count(base)) return base;
  for (int i = 1;; ++i) {
    std::string candidate = base + "_" + std::to_string(i);
    if (!index_.count(candidate)) return candidate;
  }
}

const tensorflow::FunctionDef* Graph::FindFunction(const std::string& name) const {
  for (const auto& f : library_.function()) {
    if (f.signature().name() == name) return &f;
  }
  return nullptr;
}

StatusOr<std::vector<int>> Graph::TopologicalOrder() const {
  std::vector<int> pending(nodes_.size(), 0);
  auto consumers = Consumers();
  for (size_t i = 0; i < nodes_.size(); ++i) {
    pending[i] = static_cast<int>(nodes_[i].inputs.size() + nodes_[i].control_inputs.size());
  }
  std::deque<int> ready;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    if (pending[i] == 0) ready.push_back(static_cast<int>(i));
  }
  std::vector<int> order;
  order.reserve(nodes_.size());
  while (!ready.empty()) {
    int n = ready.front();
    ready.pop_front();
    order.push_back(n);
    for (int c : consumers[n]) {
      if (--pending[c] == 0) ready.push_back(c);
    }
  }
  if (order.size() != nodes_.size()) {
    for (size_t i = 0; i < nodes_.size(); ++i) {
      if (pending[i] > 0) {
        return Unimplemented("graph has a cycle through node '" + nodes_[i].name + "' (" +
                             nodes_[i].op + "); TF1 while loops are not supported yet");
      }
    }
  }
  return order;
}

std::vector<std::vector<int>> Graph::Consumers() const {
  // One entry per edge (a node consuming two outputs of n appears twice), so
  // that pending-input counts match.
  std::vector<std::vector<int>> out(nodes_.size());
  for (size_t i = 0; i < nodes_.size(); ++i) {
    for (const auto& in : nodes_[i].inputs) out[in.node].push_back(static_cast<int>(i));
    for (int c : nodes_[i].control_inputs) out[c].push_back(static_cast<int>(i));
  }
  return out;
}

void SetConstValue(Node* node, Tensor value) {
  node->op = "Const";
  tensorflow::AttrValue dtype;
  dtype.set_type(static_cast<tensorflow::DataType>(value.dtype()));
  node->attrs["dtype"] = dtype;
  tensorflow::AttrValue stub;
  stub.mutable_tensor()->set_dtype(static_cast<tensorflow::DataType>(value.dtype()));
  *stub.mutable_tensor()->mutable_tensor_shape() = ShapeToProto(value.shape());
  node->attrs["value"] = std::move(stub);
  node->constant = std::move(value);
}

tensorflow::GraphDef Graph::ToGraphDef() const {
  tensorflow::GraphDef gd;
  for (const Node& n : nodes_) {
    auto* nd = gd.add_node();
    nd->set_name(n.name);
    nd->set_op(n.op);
    nd->set_device(n.device);
    for (const auto& in : n.inputs) {
      const std::string& src = nodes_[in.node].name;
      nd->add_input(in.index == 0 ? src : src + ":" + std::to_string(in.index));
    }
    for (int c : n.control_inputs) nd->add_input("^" + nodes_[c].name);
    for (const auto& [k, v] : n.attrs) (*nd->mutable_attr())[k] = v;
    if (n.constant.valid()) TensorToProto(n.constant, (*nd->mutable_attr())["value"].mutable_tensor());
  }
  *gd.mutable_library() = library_;
  return gd;
}

}  // namespace tfhost::ir
