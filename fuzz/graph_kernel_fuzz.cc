// Structure-aware fuzzer that reaches the kernels: it builds small graphs from
// the op registry and runs them. Each input drives a FuzzedDataProvider that
// picks up to kMaxNodes ops by name, gives every attr a value its schema
// allows (or not: the wrong type, a missing one, an out-of-range int), wires
// each input to an earlier value of the right dtype most of the time and of
// any dtype otherwise, and feeds placeholders and constants with the values
// kernels trip over (fuzz/fuzz_values.h). The graph then goes the loader's
// way (IR, type inference, optionally the default graph passes, Session
// creation with fast or reference kernels) and every output is fetched.
//
// Nothing may crash, read out of bounds or hang; errors are the expected
// answer to most graphs. Sessions hold at most kMaxTensorBytes of tensors at
// once (SessionOptions::max_tensor_bytes_in_use), so a graph that asks for
// gigabytes fails with ResourceExhausted instead of tripping the fuzzer's
// memory limit.
//
// Ops left out, and why: the ones that touch the file system or the
// process's output (checkpoint save/restore/merge, table initialisation from
// a text file, Print): a fuzzer must not write files or read a FIFO.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "fuzz/fuzz_values.h"
#include "ir/graph.h"
#include "ir/op_def_util.h"
#include "ir/tensor_proto.h"
#include "ops/op_registry.h"
#include "passes/pass_manager.h"
#include "runtime/session.h"
#include "tensorflow/core/framework/graph.pb.h"

namespace {

using tfhost::DType;
using tfhost::fuzz::PickDType;

constexpr int kMaxNodes = 6;
constexpr int64_t kMaxTensorBytes = 8 << 20;

const std::vector<std::string>& FuzzableOps() {
  static const std::vector<std::string> ops = [] {
    const std::set<std::string> excluded = {"SaveV2", "RestoreV2", "MergeV2Checkpoints", "InitializeTableFromTextFile",
                                            "InitializeTableFromTextFileV2", "Print", "PrintV2", "ReadFile",
                                            "WriteFile", "MatchingFiles"};
    std::vector<std::string> out;
    for (const std::string& op : tfhost::ops::OpRegistry::Global().OpNames()) {
      if (!excluded.count(op)) out.push_back(op);
    }
    return out;
  }();
  return ops;
}

struct Value {
  std::string name;  // "node:index"
  DType dtype;
};

class GraphBuilder {
 public:
  explicit GraphBuilder(FuzzedDataProvider& in) : in_(in) {}

  void AddSource() {
    const std::string name = "s" + std::to_string(graph_.node_size());
    const DType dtype = PickDType(in_);
    const tfhost::Shape shape = tfhost::fuzz::PickShape(in_);
    tfhost::Tensor value = tfhost::fuzz::FillTensor(in_, dtype, shape);
    auto* node = graph_.add_node();
    node->set_name(name);
    if (in_.ConsumeBool()) {
      node->set_op("Placeholder");
      (*node->mutable_attr())["dtype"].set_type(static_cast<tensorflow::DataType>(value.dtype()));
      feeds_.emplace_back(name + ":0", value);
    } else {
      node->set_op("Const");
      (*node->mutable_attr())["dtype"].set_type(static_cast<tensorflow::DataType>(value.dtype()));
      tfhost::ir::TensorToProto(value, (*node->mutable_attr())["value"].mutable_tensor());
    }
    values_.push_back({name + ":0", value.dtype()});
  }

  void AddOp() {
    const auto& ops = FuzzableOps();
    const std::string& op = ops[in_.ConsumeIntegralInRange<size_t>(0, ops.size() - 1)];
    const tensorflow::OpDef& def = tfhost::ops::OpRegistry::Global().Find(op)->def;
    const std::string name = "n" + std::to_string(graph_.node_size());
    tensorflow::NodeDef node;
    node.set_name(name);
    node.set_op(op);
    auto& attrs = *node.mutable_attr();
    for (const auto& attr : def.attr()) {
      // Leave a defaulted attr out a third of the time (the loader fills it).
      if (attr.has_default_value() && in_.ConsumeIntegralInRange<int>(0, 2) == 0) continue;
      SetAttr(def, attr, &attrs[attr.name()]);
    }
    for (const auto& arg : def.input_arg()) {
      for (const DType want : ArgDTypes(def, arg, attrs)) node.add_input(PickInput(want));
    }
    if (values_.size() > 1 && in_.ConsumeIntegralInRange<int>(0, 7) == 0) {
      const std::string& control = values_[in_.ConsumeIntegralInRange<size_t>(0, values_.size() - 1)].name;
      node.add_input("^" + control.substr(0, control.find(':')));
    }
    int index = 0;
    for (const auto& arg : def.output_arg()) {
      for (const DType dtype : ArgDTypes(def, arg, attrs)) {
        const std::string tensor = name + ":" + std::to_string(index++);
        fetches_.push_back(tensor);
        if (dtype != DType::kInvalid) values_.push_back({tensor, dtype});
      }
    }
    *graph_.add_node() = std::move(node);
  }

  const tensorflow::GraphDef& graph() const { return graph_; }
  const tfhost::runtime::NamedTensors& feeds() const { return feeds_; }
  const std::vector<std::string>& fetches() const { return fetches_; }

 private:
  // An attr's value from what its schema allows, or something else now and then.
  void SetAttr(const tensorflow::OpDef& def, const tensorflow::OpDef::AttrDef& attr, tensorflow::AttrValue* out) {
    const std::string& type = attr.type();
    const bool wild = in_.ConsumeIntegralInRange<int>(0, 15) == 0;
    if (type == "type") {
      const auto& allowed = attr.allowed_values().list().type();
      // Prefer a dtype some earlier value has, so the wiring can be valid.
      DType dtype = values_.empty() ? PickDType(in_) : values_[in_.ConsumeIntegralInRange<size_t>(0, values_.size() - 1)].dtype;
      const bool ok = allowed.empty() ||
                      std::find(allowed.begin(), allowed.end(), static_cast<tensorflow::DataType>(dtype)) != allowed.end();
      if (!ok && !wild) dtype = static_cast<DType>(allowed[in_.ConsumeIntegralInRange<int>(0, allowed.size() - 1)]);
      out->set_type(static_cast<tensorflow::DataType>(dtype));
    } else if (type == "int") {
      const bool is_count = IsNumberAttr(def, attr.name());
      // A count's schema minimum may be past 3 (_TfhostLstmLoop's 9 inputs).
      const int64_t least = std::max<int64_t>(attr.minimum(), 1);
      int64_t v = is_count && !wild ? in_.ConsumeIntegralInRange<int64_t>(least, std::max<int64_t>(least, 3))
                                    : tfhost::fuzz::PickInteger<int32_t>(in_);
      if (wild && !is_count) v = tfhost::fuzz::PickInteger<int64_t>(in_);
      out->set_i(v);
    } else if (type == "float") {
      out->set_f(tfhost::fuzz::PickFloat(in_));
    } else if (type == "bool") {
      out->set_b(in_.ConsumeBool());
    } else if (type == "string") {
      const auto& allowed = attr.allowed_values().list().s();
      if (!allowed.empty() && !wild) {
        out->set_s(allowed[in_.ConsumeIntegralInRange<int>(0, allowed.size() - 1)]);
      } else {
        out->set_s(PickString());
      }
    } else if (type == "shape") {
      SetShape(out->mutable_shape());
    } else if (type == "tensor") {
      const DType dtype = PickDType(in_);
      tfhost::ir::TensorToProto(tfhost::fuzz::FillTensor(in_, dtype, tfhost::fuzz::PickShape(in_, 2)), out->mutable_tensor());
    } else if (type == "func") {
      out->mutable_func()->set_name("f" + std::to_string(in_.ConsumeIntegralInRange<int>(0, 3)));
    } else if (type.rfind("list(", 0) == 0) {
      const bool is_type_list = type == "list(type)";
      const int least = static_cast<int>(std::clamp<int64_t>(attr.minimum(), 0, 64));
      const int n = is_type_list ? in_.ConsumeIntegralInRange<int>(least, std::max(least, 3))
                                 : in_.ConsumeIntegralInRange<int>(0, 5);
      auto* list = out->mutable_list();
      for (int i = 0; i < n; ++i) {
        if (type == "list(int)") {
          list->add_i(in_.ConsumeIntegralInRange<int>(0, 9) == 0 ? tfhost::fuzz::PickInteger<int32_t>(in_)
                                                                   : in_.ConsumeIntegralInRange<int>(1, 3));
        } else if (is_type_list) {
          list->add_type(static_cast<tensorflow::DataType>(
              values_.empty() || in_.ConsumeBool() ? PickDType(in_)
                                                   : values_[in_.ConsumeIntegralInRange<size_t>(0, values_.size() - 1)].dtype));
        } else if (type == "list(float)") {
          list->add_f(tfhost::fuzz::PickFloat(in_));
        } else if (type == "list(string)") {
          list->add_s(PickString());
        } else if (type == "list(shape)") {
          SetShape(list->add_shape());
        } else if (type == "list(bool)") {
          list->add_b(in_.ConsumeBool());
        }
      }
    } else {
      out->set_i(0);  // an attr kind tfhost does not know: the wrong kind of value
    }
  }

  std::string PickString() {
    static const char* kCommon[] = {"", "SAME", "VALID", "EXPLICIT", "NHWC", "NCHW", "NDHWC", "UTF-8", "REPLACE", "%s"};
    if (in_.ConsumeBool()) return kCommon[in_.ConsumeIntegralInRange<size_t>(0, std::size(kCommon) - 1)];
    return in_.ConsumeRandomLengthString(12);
  }

  void SetShape(tensorflow::TensorShapeProto* shape) {
    if (in_.ConsumeIntegralInRange<int>(0, 5) == 0) {
      shape->set_unknown_rank(true);
      return;
    }
    const int rank = in_.ConsumeIntegralInRange<int>(0, 4);
    for (int i = 0; i < rank; ++i) shape->add_dim()->set_size(in_.ConsumeIntegralInRange<int>(-1, 4));
  }

  static bool IsNumberAttr(const tensorflow::OpDef& def, const std::string& attr) {
    for (const auto& arg : def.input_arg()) if (arg.number_attr() == attr) return true;
    for (const auto& arg : def.output_arg()) if (arg.number_attr() == attr) return true;
    return false;
  }

  // The dtypes an argument stands for once the node's attrs are set (kInvalid
  // where an attr the schema needs is missing or has the wrong kind).
  std::vector<DType> ArgDTypes(const tensorflow::OpDef& def, const tensorflow::OpDef::ArgDef& arg,
                               const google::protobuf::Map<std::string, tensorflow::AttrValue>& attrs) {
    auto attr_value = [&](const std::string& name) -> const tensorflow::AttrValue* {
      if (auto it = attrs.find(name); it != attrs.end()) return &it->second;
      for (const auto& a : def.attr()) if (a.name() == name && a.has_default_value()) return &a.default_value();
      return nullptr;
    };
    std::vector<DType> out;
    if (!arg.type_list_attr().empty()) {
      if (const auto* v = attr_value(arg.type_list_attr())) {
        for (const int t : v->list().type()) out.push_back(static_cast<DType>(t));
      }
      return out;
    }
    DType dtype = static_cast<DType>(arg.type());
    if (!arg.type_attr().empty()) {
      const auto* v = attr_value(arg.type_attr());
      dtype = v != nullptr && v->value_case() == tensorflow::AttrValue::kType ? static_cast<DType>(v->type()) : DType::kInvalid;
    }
    int64_t count = 1;
    if (!arg.number_attr().empty()) {
      const auto* v = attr_value(arg.number_attr());
      count = v != nullptr && v->value_case() == tensorflow::AttrValue::kI ? v->i() : 1;
      count = std::clamp<int64_t>(count, 0, 4);
    }
    out.assign(static_cast<size_t>(count), dtype);
    return out;
  }

  std::string PickInput(DType want) {
    if (values_.empty()) return "missing:0";
    std::vector<size_t> matching;
    for (size_t i = 0; i < values_.size(); ++i) if (values_[i].dtype == want) matching.push_back(i);
    if (!matching.empty() && in_.ConsumeIntegralInRange<int>(0, 7) != 0) {
      return values_[matching[in_.ConsumeIntegralInRange<size_t>(0, matching.size() - 1)]].name;
    }
    // Wrong dtype, or an output index the producer may not have.
    const Value& v = values_[in_.ConsumeIntegralInRange<size_t>(0, values_.size() - 1)];
    if (in_.ConsumeIntegralInRange<int>(0, 15) == 0) return v.name.substr(0, v.name.find(':')) + ":7";
    return v.name;
  }

  FuzzedDataProvider& in_;
  tensorflow::GraphDef graph_;
  std::vector<Value> values_;
  tfhost::runtime::NamedTensors feeds_;
  std::vector<std::string> fetches_;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  GraphBuilder builder(in);
  const int sources = in.ConsumeIntegralInRange<int>(1, 3);
  for (int i = 0; i < sources; ++i) builder.AddSource();
  const int ops = in.ConsumeIntegralInRange<int>(1, kMaxNodes);
  for (int i = 0; i < ops; ++i) builder.AddOp();
  const bool optimize = in.ConsumeBool();
  const bool reference = in.ConsumeBool();

  auto graph = tfhost::ir::Graph::FromGraphDef(builder.graph());
  if (!graph.ok()) return 0;
  if (!tfhost::ir::InferTypes(*graph, tfhost::ops::OpRegistry::Global().Lookup()).ok()) return 0;
  if (optimize) {
    std::vector<std::string> roots = builder.fetches();
    for (const auto& [name, value] : builder.feeds()) roots.push_back(name);
    auto ctx = tfhost::passes::PassContext::FromRoots(*graph, roots);
    if (!tfhost::passes::PassManager::Default().Run(&*graph, ctx).ok()) return 0;
  }
  tfhost::runtime::SessionOptions options;
  options.intra_op_threads = 1;
  options.model_name = "fuzz";
  options.kernels = reference ? tfhost::backends::KernelChoice::kReference : tfhost::backends::KernelChoice::kFast;
  options.max_tensor_bytes_in_use = kMaxTensorBytes;
  options.max_loop_iterations = 10000;
  auto session = tfhost::runtime::Session::Create(std::move(*graph), options);
  if (!session.ok()) return 0;
  (void)(*session)->Run(builder.feeds(), builder.fetches());
  return 0;
}
