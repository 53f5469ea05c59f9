#include "loaders/tfjs/tfjs_loader.h"

#include <google/protobuf/util/json_util.h>
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "ir/attrs.h"
#include "ir/tensor_proto.h"
#include "loaders/graph_to_session.h"
#include "loaders/graphdef/graph_signature.h"
#include "loaders/tfjs/tfjs_weights.h"

namespace tfhost::loaders {

namespace {

namespace fs = std::filesystem;
using tfjs::WeightSpec;

// Re-serializing and protobuf's JSON parser both recurse, so depth is
// checked once up front (without recursion).
constexpr int kMaxJsonDepth = 64;

int NestingDepth(const rapidjson::Value& root) {
  int deepest = 0;
  std::vector<std::pair<const rapidjson::Value*, int>> stack = {{&root, 1}};
  while (!stack.empty()) {
    auto [value, depth] = stack.back();
    stack.pop_back();
    deepest = std::max(deepest, depth);
    if (depth > kMaxJsonDepth) break;
    if (value->IsObject()) {
      for (const auto& m : value->GetObject()) stack.push_back({&m.value, depth + 1});
    } else if (value->IsArray()) {
      for (const auto& v : value->GetArray()) stack.push_back({&v, depth + 1});
    }
  }
  return deepest;
}

std::string ToJson(const rapidjson::Value& value) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  value.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

// Parses one protobuf-JSON member of model.json (base64 bytes, int64 as
// strings and enum names are handled by protobuf's own JSON mapping).
Status ParseProtoJson(const rapidjson::Value& value, const std::string& what, google::protobuf::Message* message) {
  if (!value.IsObject()) return InvalidArgument(what + " must be a JSON object");
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = true;  // e.g. "resourceId" in TensorInfo
  auto status = google::protobuf::util::JsonStringToMessage(ToJson(value), message, options);
  if (!status.ok()) {
    return InvalidArgument(what + " is not a valid " + message->GetDescriptor()->name() + ": " +
                           status.ToString());
  }
  return OkStatus();
}

const rapidjson::Value* Member(const rapidjson::Value& object, const char* key) {
  if (!object.IsObject()) return nullptr;
  auto it = object.FindMember(key);
  if (it == object.MemberEnd() || it->value.IsNull()) return nullptr;
  return &it->value;
}

StatusOr<WeightSpec> ParseWeightSpec(const rapidjson::Value& entry, const std::string& where) {
  if (!entry.IsObject()) return InvalidArgument(where + " must be an object");
  WeightSpec spec;
  const auto* name = Member(entry, "name");
  if (name == nullptr || !name->IsString()) return InvalidArgument(where + " has no string 'name'");
  spec.name = name->GetString();
  const std::string at = where + " ('" + spec.name + "')";
  const auto* dtype = Member(entry, "dtype");
  if (dtype == nullptr || !dtype->IsString()) return InvalidArgument(at + " has no string 'dtype'");
  spec.dtype = dtype->GetString();
  const auto* shape = Member(entry, "shape");
  if (shape == nullptr || !shape->IsArray()) return InvalidArgument(at + " has no 'shape' array");
  for (const auto& d : shape->GetArray()) {
    if (!d.IsInt64() || d.GetInt64() < 0) {
      return InvalidArgument(at + ": 'shape' must hold non-negative integers");
    }
    spec.shape.push_back(d.GetInt64());
  }
  if (const auto* q = Member(entry, "quantization")) {
    if (!q->IsObject()) return InvalidArgument(at + ": 'quantization' must be an object");
    tfjs::WeightQuantization quant;
    const auto* qdtype = Member(*q, "dtype");
    if (qdtype == nullptr || !qdtype->IsString()) {
      return InvalidArgument(at + ": 'quantization' has no string 'dtype'");
    }
    quant.dtype = qdtype->GetString();
    if (const auto* s = Member(*q, "scale"); s != nullptr && s->IsNumber()) quant.scale = s->GetDouble();
    if (const auto* m = Member(*q, "min"); m != nullptr && m->IsNumber()) quant.min = m->GetDouble();
    spec.quantization = quant;
  }
  return spec;
}

// Converts a decoded weight to the dtype its Const node declares: the
// converter narrows float64/float16 to float32, int64 to int32 and complex128
// to complex64, while the graph's attrs still name the original types.
StatusOr<Tensor> ToNodeDType(const Tensor& weight, DType target, const std::string& where) {
  if (weight.dtype() == target) return weight;
  const int64_t n = weight.NumElements();
  Tensor out(target, weight.shape());
  if (weight.dtype() == DType::kFloat) {
    const float* in = weight.data<float>();
    switch (target) {
      case DType::kDouble: for (int64_t i = 0; i < n; ++i) out.data<double>()[i] = in[i]; return out;
      case DType::kHalf: for (int64_t i = 0; i < n; ++i) out.data<uint16_t>()[i] = FloatToHalf(in[i]); return out;
      case DType::kBFloat16:
        for (int64_t i = 0; i < n; ++i) out.data<uint16_t>()[i] = FloatToBFloat16(in[i]);
        return out;
      default: break;
    }
  } else if (weight.dtype() == DType::kInt32 && IsInteger(target) && target != DType::kBool) {
    const int32_t* in = weight.data<int32_t>();
    bool converted = true;
    TFHOST_SWITCH_REAL_TYPES(target, for (int64_t i = 0; i < n; ++i) out.data<T>()[i] = static_cast<T>(in[i]),
                             converted = false);
    if (converted) return out;
  } else if (weight.dtype() == DType::kComplex64 && target == DType::kComplex128) {
    const float* in = weight.data<float>();
    for (int64_t i = 0; i < 2 * n; ++i) out.data<double>()[i] = in[i];
    return out;
  }
  return InvalidArgument(where + " is " + DTypeShortName(target) + " but its weight is " +
                         DTypeShortName(weight.dtype()));
}

// A Const whose value still carries data (the converter left it in the
// topology, or it is empty) needs no weight. `Attrs` is a NodeDef's or an
// ir::Node's attr map.
template <typename Attrs>
bool HasInlineValue(const Attrs& attrs) {
  auto it = attrs.find("value");
  if (it == attrs.end() || !it->second.has_tensor()) return false;
  const auto& t = it->second.tensor();
  if (!t.tensor_content().empty() || t.float_val_size() || t.double_val_size() || t.int_val_size() ||
      t.string_val_size() || t.scomplex_val_size() || t.int64_val_size() || t.bool_val_size() ||
      t.dcomplex_val_size() || t.half_val_size() || t.uint32_val_size() || t.uint64_val_size()) {
    return true;
  }
  for (const auto& d : t.tensor_shape().dim()) {
    if (d.size() == 0) return true;
  }
  return false;
}

template <typename Attrs>
Status FillConst(const std::string& name, Attrs& attrs, const Tensor& weight) {
  const std::string where = "Const node '" + name + "'";
  DType target = weight.dtype();
  if (auto it = attrs.find("dtype"); it != attrs.end() && it->second.value_case() == tensorflow::AttrValue::kType) {
    target = BaseType(it->second.type());
  } else if (auto v = attrs.find("value"); v != attrs.end() && v->second.has_tensor() &&
                                           v->second.tensor().dtype() != tensorflow::DT_INVALID) {
    target = BaseType(v->second.tensor().dtype());
  }
  if (auto v = attrs.find("value"); v != attrs.end() && v->second.has_tensor() &&
                                    v->second.tensor().has_tensor_shape()) {
    ir::PartialShape declared = ir::PartialShape::FromProto(v->second.tensor().tensor_shape());
    if (!declared.IsCompatibleWith(weight.shape())) {
      return InvalidArgument(where + " declares shape " + declared.ToString() + " but its weight has shape " +
                             weight.shape().ToString());
    }
  }
  TFHOST_ASSIGN_OR_RETURN(Tensor value, ToNodeDType(weight, target, where));
  tensorflow::AttrValue attr;
  ir::TensorToProto(value, attr.mutable_tensor());
  attrs["value"] = std::move(attr);
  attrs["dtype"].set_type(static_cast<tensorflow::DataType>(target));
  return OkStatus();
}

int64_t WeightBytes(const Tensor& t) {
  if (!IsStringLike(t.dtype())) return static_cast<int64_t>(t.ByteSize());
  int64_t bytes = 0;
  for (int64_t i = 0; i < t.NumElements(); ++i) bytes += static_cast<int64_t>(t.strings()[i].size());
  return bytes;
}

// Reads the weightsManifest, decodes every weight and fills the Const nodes
// of `graph` (and of its function bodies) that they name. Each weight goes
// straight from the shards into its node's value and is dropped before the
// next is decoded, so the load holds the shards plus one copy of the
// weights, never a second.
Status ApplyWeights(const rapidjson::Value& doc, const std::string& dir, ir::Graph* graph,
                    runtime::ModelInfo* info) {
  std::vector<WeightSpec> specs;
  std::vector<std::string> paths;
  if (const auto* manifest = Member(doc, "weightsManifest")) {
    if (!manifest->IsArray()) return InvalidArgument("'weightsManifest' must be an array of groups");
    for (rapidjson::SizeType g = 0; g < manifest->Size(); ++g) {
      const auto& group = (*manifest)[g];
      const std::string where = "weightsManifest[" + std::to_string(g) + "]";
      const auto* group_paths = Member(group, "paths");
      const auto* weights = Member(group, "weights");
      if (group_paths == nullptr || !group_paths->IsArray() || weights == nullptr || !weights->IsArray()) {
        return InvalidArgument(where + " must be an object with 'paths' and 'weights' arrays");
      }
      for (const auto& p : group_paths->GetArray()) {
        if (!p.IsString()) return InvalidArgument(where + ".paths must hold strings");
        paths.push_back(p.GetString());
      }
      for (rapidjson::SizeType w = 0; w < weights->Size(); ++w) {
        TFHOST_ASSIGN_OR_RETURN(WeightSpec spec, ParseWeightSpec((*weights)[w], where + ".weights[" +
                                                                                   std::to_string(w) + "]"));
        specs.push_back(std::move(spec));
      }
    }
  }

  // Const nodes by name: top level first, then function bodies under both
  // "node" and "function/node" (the converter extracts those too).
  struct Target {
    ir::Node* node = nullptr;                // a top-level node, or
    tensorflow::NodeDef* node_def = nullptr;  // a node of a function body
    const std::string& name() const { return node ? node->name : node_def->name(); }
    const std::string& op() const { return node ? node->op : node_def->op(); }
  };
  std::map<std::string, Target> nodes;
  for (int i = 0; i < graph->num_nodes(); ++i) {
    Target t;
    t.node = &graph->mutable_node(i);
    nodes.emplace(t.node->name, t);
  }
  for (auto& function : *graph->mutable_library().mutable_function()) {
    for (auto& node : *function.mutable_node_def()) {
      Target t;
      t.node_def = &node;
      nodes.emplace(function.signature().name() + "/" + node.name(), t);
      nodes.emplace(node.name(), t);
    }
  }
  std::set<const void*> filled;
  {
    TFHOST_ASSIGN_OR_RETURN(tfjs::WeightShards shards, tfjs::ReadWeightShards(dir, paths));
    TFHOST_RETURN_IF_ERROR(tfjs::ForEachDecodedWeight(specs, shards, [&](size_t i, Tensor value) -> Status {
      auto it = nodes.find(specs[i].name);
      // TF.js ignores weights that no node uses; so do we.
      if (it == nodes.end()) return OkStatus();
      Target& target = it->second;
      if (target.op() != "Const") {
        return InvalidArgument("weight '" + specs[i].name + "' names node '" + target.name() + "' (" + target.op() +
                               "); weights can only fill Const nodes");
      }
      if (target.node != nullptr) {
        TFHOST_RETURN_IF_ERROR(FillConst(target.node->name, target.node->attrs, value));
        filled.insert(target.node);
      } else {
        TFHOST_RETURN_IF_ERROR(FillConst(target.node_def->name(), *target.node_def->mutable_attr(), value));
        filled.insert(target.node_def);
      }
      ++info->variable_count;
      info->variable_bytes += WeightBytes(value);
      return OkStatus();
    }));
  }
  for (const auto& [name, target] : nodes) {
    if (target.op() != "Const") continue;
    const void* key = target.node ? static_cast<const void*>(target.node) : target.node_def;
    const bool inline_value = target.node ? HasInlineValue(target.node->attrs) : HasInlineValue(target.node_def->attr());
    if (!filled.count(key) && !inline_value) {
      return InvalidArgument("Const node '" + target.name() + "' has no weight in the weightsManifest and no "
                             "value in modelTopology; model.json and its weights do not match");
    }
  }
  return OkStatus();
}

// The model initializer (hash-table setup) joins the main graph; its nodes
// that nothing consumes run once at load. Main-graph inputs that take an
// initializer resource (same "resourceId") become Identities of it.
Status MergeInitializer(const rapidjson::Value& doc, tensorflow::GraphDef* graph_def,
                        tensorflow::SignatureDef* signature, std::vector<std::string>* init_targets) {
  const auto* init_json = Member(doc, "modelInitializer");
  if (init_json == nullptr) return OkStatus();
  tensorflow::GraphDef init;
  TFHOST_RETURN_IF_ERROR(ParseProtoJson(*init_json, "modelInitializer", &init));
  std::set<std::string> names, consumed;
  for (const auto& node : graph_def->node()) names.insert(node.name());
  for (const auto& node : init.node()) {
    if (names.count(node.name())) {
      return InvalidArgument("modelInitializer node '" + node.name() + "' has the name of a main graph node");
    }
    for (const auto& input : node.input()) {
      auto parsed = ir::ParseTensorName(input);
      if (parsed.ok()) consumed.insert(parsed->node);
    }
  }
  for (const auto& node : init.node()) {
    if (!consumed.count(node.name()) && node.op() != "Const" && node.op() != "Placeholder") {
      init_targets->push_back(node.name());
    }
    *graph_def->add_node() = node;
  }
  // resourceId -> initializer tensor, from initializerSignature outputs.
  std::map<int64_t, std::string> resources;
  if (const auto* init_sig = Member(doc, "initializerSignature")) {
    if (const auto* outputs = Member(*init_sig, "outputs"); outputs != nullptr && outputs->IsObject()) {
      for (const auto& m : outputs->GetObject()) {
        const auto* id = Member(m.value, "resourceId");
        const auto* name = Member(m.value, "name");
        if (id != nullptr && id->IsInt64() && name != nullptr && name->IsString()) {
          resources[id->GetInt64()] = name->GetString();
        }
      }
    }
  }
  const rapidjson::Value* sig_json = Member(doc, "signature");
  const auto* inputs = sig_json ? Member(*sig_json, "inputs") : nullptr;
  if (inputs == nullptr || !inputs->IsObject() || signature == nullptr) return OkStatus();
  for (const auto& m : inputs->GetObject()) {
    const auto* id = Member(m.value, "resourceId");
    if (id == nullptr || !id->IsInt64() || !resources.count(id->GetInt64())) continue;
    const std::string key = m.name.GetString();
    auto info = signature->inputs().find(key);
    if (info == signature->inputs().end()) continue;
    auto parsed = ir::ParseTensorName(info->second.name());
    if (!parsed.ok()) return parsed.status().WithContext("signature input '" + key + "'");
    for (auto& node : *graph_def->mutable_node()) {
      if (node.name() != parsed->node || node.op() != "Placeholder") continue;
      node.set_op("Identity");
      node.clear_input();
      node.add_input(resources[id->GetInt64()]);
      node.mutable_attr()->clear();  // "T" follows from the input, as for any node
    }
    signature->mutable_inputs()->erase(key);
  }
  return OkStatus();
}

}  // namespace

StatusOr<std::unique_ptr<runtime::Model>> LoadTfjsModel(const std::string& model_json_path,
                                                        const LoadOptions& options) {
  TFHOST_ASSIGN_OR_RETURN(std::string text, ReadFileToString(model_json_path));
  rapidjson::Document doc;
  // Iterative parsing: a hostile file cannot exhaust the stack by nesting.
  doc.Parse<rapidjson::kParseFullPrecisionFlag | rapidjson::kParseIterativeFlag>(text.data(), text.size());
  if (doc.HasParseError()) {
    return InvalidArgument(model_json_path + " is not valid JSON: " + rapidjson::GetParseError_En(doc.GetParseError()) +
                           " (at byte " + std::to_string(doc.GetErrorOffset()) + ")");
  }
  if (!doc.IsObject()) return InvalidArgument(model_json_path + " must hold a JSON object");
  if (NestingDepth(doc) > kMaxJsonDepth) {
    return InvalidArgument(model_json_path + " nests JSON deeper than " + std::to_string(kMaxJsonDepth) +
                           " levels; a TF.js model needs about 20");
  }
  const auto* topology = Member(doc, "modelTopology");
  const auto* format = Member(doc, "format");
  const bool keras = (format != nullptr && format->IsString() && std::string(format->GetString()) == "layers-model") ||
                     (topology != nullptr && (Member(*topology, "model_config") || Member(*topology, "class_name")));
  if (keras) {
    return Unimplemented(model_json_path + " is a TensorFlow.js layers model (a Keras model), which tfhost does "
                         "not support; convert the original model as a graph model "
                         "(tensorflowjs_converter --output_format=tfjs_graph_model) or serve it as a SavedModel");
  }
  // Converters before 1.0 wrote no "format"; their topology is a GraphDef too.
  if (format != nullptr && !(format->IsString() && std::string(format->GetString()) == "graph-model")) {
    return InvalidArgument(model_json_path + ": \"format\" is " + ToJson(*format) + "; expected \"graph-model\"");
  }
  if (topology == nullptr) return InvalidArgument(model_json_path + " has no 'modelTopology'");

  tensorflow::GraphDef graph_def;
  Status st = ParseProtoJson(*topology, "modelTopology", &graph_def);
  if (!st.ok()) return st.WithContext(model_json_path);

  GraphModelParts parts;
  fs::path path(model_json_path);
  std::error_code ec;
  parts.model_name = path.filename() == "model.json" && path.has_parent_path()
                         ? fs::absolute(path, ec).parent_path().filename().string()
                         : path.stem().string();
  parts.producer = graph_def.versions().producer();
  parts.info.path = model_json_path;
  parts.info.format = "TensorFlow.js";
  for (const char* key : {"generatedBy", "convertedBy"}) {
    if (const auto* v = Member(doc, key); v != nullptr && v->IsString()) parts.info.metadata[key] = v->GetString();
  }
  if (graph_def.has_versions()) parts.info.metadata["producer"] = std::to_string(graph_def.versions().producer());

  // The signature: top level, or inside userDefinedMetadata for old converters.
  const rapidjson::Value* sig_json = Member(doc, "signature");
  if (sig_json == nullptr) {
    if (const auto* meta = Member(doc, "userDefinedMetadata")) sig_json = Member(*meta, "signature");
  }
  if (sig_json != nullptr) {
    tensorflow::SignatureDef def;
    st = ParseProtoJson(*sig_json, "signature", &def);
    if (!st.ok()) return st.WithContext(model_json_path);
    if (def.outputs_size() > 0) parts.signature = std::move(def);
  }

  st = MergeInitializer(doc, &graph_def, parts.signature ? &*parts.signature : nullptr, &parts.init_targets);
  if (!st.ok()) return st.WithContext(model_json_path);

  // The graph is built before the weights exist, and the GraphDef is freed
  // at once: weights are decoded straight into the graph's Const nodes, so
  // they never sit in a GraphDef and an ir::Graph at the same time.
  {
    auto graph = ir::Graph::FromGraphDef(graph_def);
    if (!graph.ok()) return graph.status().WithContext(model_json_path);
    parts.graph = std::move(*graph);
    tensorflow::GraphDef().Swap(&graph_def);
  }
  st = ApplyWeights(doc, path.parent_path().string(), &parts.graph, &parts.info);
  if (!st.ok()) return st.WithContext(model_json_path);
  return FinishGraphModel(std::move(parts), options);
}

}  // namespace tfhost::loaders
