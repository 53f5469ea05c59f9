#include "loaders/savedmodel/saved_model_writer.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "checkpoint/tensor_bundle_writer.h"
#include "ir/tensor_proto.h"
#include "ops/op_registry.h"

namespace tfhost::loaders {

namespace fs = std::filesystem;

namespace {

tensorflow::TensorShapeProto PartialShapeToProto(const ir::PartialShape& shape) {
  tensorflow::TensorShapeProto proto;
  if (shape.unknown_rank) {
    proto.set_unknown_rank(true);
    return proto;
  }
  for (int64_t d : shape.dims) proto.add_dim()->set_size(d);
  return proto;
}

tensorflow::NodeDef* AddNode(tensorflow::GraphDef* graph, const std::string& name, const std::string& op,
                             std::initializer_list<std::string> inputs = {}) {
  tensorflow::NodeDef* node = graph->add_node();
  node->set_name(name);
  node->set_op(op);
  for (const auto& in : inputs) node->add_input(in);
  return node;
}

void SetTypeAttr(tensorflow::NodeDef* node, const std::string& key, DType dtype) {
  (*node->mutable_attr())[key].set_type(static_cast<tensorflow::DataType>(dtype));
}

tensorflow::NodeDef* AddConst(tensorflow::GraphDef* graph, const std::string& name, const Tensor& value) {
  tensorflow::NodeDef* node = AddNode(graph, name, "Const");
  SetTypeAttr(node, "dtype", value.dtype());
  ir::TensorToProto(value, (*node->mutable_attr())["value"].mutable_tensor());
  return node;
}

// The node names the GraphDef defines, for conflict checks.
std::set<std::string> NodeNames(const tensorflow::GraphDef& graph) {
  std::set<std::string> names;
  for (const auto& n : graph.node()) names.insert(n.name());
  return names;
}

// Adds VariableV2 + read nodes for variables the graph lacks and checks the
// ones it has. Returns the variable node names in checkpoint-key order.
Status AddVariables(const SavedModelSpec& spec, tensorflow::GraphDef* graph) {
  std::set<std::string> names = NodeNames(*graph);
  for (const auto& [name, value] : spec.variables) {
    if (name.empty()) return InvalidArgument("a variable has an empty name");
    if (!value.valid() || IsStringLike(value.dtype()) || DTypeSize(value.dtype()) == 0) {
      return InvalidArgument("variable '" + name + "' must be a valid numeric tensor, got " +
                             (value.valid() ? DTypeShortName(value.dtype()) : std::string("an empty tensor")));
    }
    if (names.count(name)) {
      for (const auto& n : graph->node()) {
        if (n.name() != name) continue;
        if (n.op() != "VariableV2") {
          return InvalidArgument("variable '" + name + "' clashes with graph node '" + name + "' (" + n.op() +
                                 "); expected a VariableV2 node or none");
        }
        auto dtype = n.attr().find("dtype");
        if (dtype == n.attr().end() || dtype->second.type() != static_cast<tensorflow::DataType>(value.dtype())) {
          return InvalidArgument("VariableV2 node '" + name + "' must have dtype " +
                                 DTypeShortName(value.dtype()) + " to hold the given value");
        }
      }
    } else {
      tensorflow::NodeDef* var = AddNode(graph, name, "VariableV2");
      SetTypeAttr(var, "dtype", value.dtype());
      *(*var->mutable_attr())["shape"].mutable_shape() = ir::ShapeToProto(value.shape());
      (*var->mutable_attr())["container"].set_s("");
      (*var->mutable_attr())["shared_name"].set_s("");
      names.insert(name);
    }
    std::string read = name + "/read";
    if (!names.count(read)) {
      tensorflow::NodeDef* node = AddNode(graph, read, "Identity", {name});
      SetTypeAttr(node, "T", value.dtype());
      names.insert(read);
    }
  }
  return OkStatus();
}

// The TF1 Saver's restore subgraph (docs/formats.md §2.3).
void AddRestoreSubgraph(const SavedModelSpec& spec, tensorflow::GraphDef* graph, tensorflow::SaverDef* saver) {
  // The filename tensor is a Const that the loader feeds with the real prefix.
  AddConst(graph, "save/Const", Tensor::StringScalar("model"));
  int64_t n = static_cast<int64_t>(spec.variables.size());
  Tensor names(DType::kString, Shape({n}));
  Tensor slices(DType::kString, Shape({n}));
  int64_t i = 0;
  for (const auto& [name, value] : spec.variables) names.strings()[i++] = name;
  AddConst(graph, "save/RestoreV2/tensor_names", names);
  AddConst(graph, "save/RestoreV2/shape_and_slices", slices);
  tensorflow::NodeDef* restore = AddNode(graph, "save/RestoreV2", "RestoreV2",
                                         {"save/Const", "save/RestoreV2/tensor_names",
                                          "save/RestoreV2/shape_and_slices"});
  auto* dtypes = (*restore->mutable_attr())["dtypes"].mutable_list();
  for (const auto& [name, value] : spec.variables) dtypes->add_type(static_cast<tensorflow::DataType>(value.dtype()));
  tensorflow::NodeDef* restore_all = nullptr;
  std::vector<std::string> assigns;
  i = 0;
  for (const auto& [name, value] : spec.variables) {
    std::string assign_name = i == 0 ? "save/Assign" : "save/Assign_" + std::to_string(i);
    tensorflow::NodeDef* assign =
        AddNode(graph, assign_name, "Assign", {name, "save/RestoreV2" + (i == 0 ? std::string() : ":" + std::to_string(i))});
    SetTypeAttr(assign, "T", value.dtype());
    (*assign->mutable_attr())["validate_shape"].set_b(true);
    (*assign->mutable_attr())["use_locking"].set_b(true);
    assigns.push_back(assign_name);
    ++i;
  }
  restore_all = AddNode(graph, "save/restore_all", "NoOp");
  for (const auto& a : assigns) restore_all->add_input("^" + a);
  saver->set_filename_tensor_name("save/Const:0");
  saver->set_restore_op_name("save/restore_all");
  saver->set_max_to_keep(5);
  saver->set_keep_checkpoint_every_n_hours(10000.0f);
  saver->set_version(tensorflow::SaverDef::V2);
}

// Names every op the graph uses, with tfhost's schema where it has one, as
// TensorFlow's writers do (MetaInfoDef.stripped_op_list).
void FillStrippedOpList(const tensorflow::GraphDef& graph, tensorflow::OpList* list) {
  std::set<std::string> ops;
  for (const auto& n : graph.node()) ops.insert(n.op());
  const auto& registry = ops::OpRegistry::Global();
  for (const auto& op : ops) {
    if (const ops::OpRegistration* r = registry.Find(op)) *list->add_op() = r->def;
  }
}

Status WriteStringToFile(const fs::path& path, const std::string& contents) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Unavailable("cannot create " + path.string());
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  out.close();
  if (!out) return DataLoss("error writing " + path.string());
  return OkStatus();
}

}  // namespace

void SignatureToProto(const runtime::Signature& signature, tensorflow::SignatureDef* proto) {
  proto->set_method_name(signature.method_name);
  auto fill = [](const runtime::TensorSpec& spec, tensorflow::TensorInfo* info) {
    info->set_name(spec.tensor_name);
    info->set_dtype(static_cast<tensorflow::DataType>(spec.dtype));
    *info->mutable_tensor_shape() = PartialShapeToProto(spec.shape);
  };
  for (const auto& in : signature.inputs) fill(in, &(*proto->mutable_inputs())[in.key]);
  for (const auto& out : signature.outputs) fill(out, &(*proto->mutable_outputs())[out.key]);
  for (const auto& [key, value] : signature.defaults) {
    ir::TensorToProto(value, &(*proto->mutable_defaults())[key]);
  }
}

StatusOr<tensorflow::SavedModel> BuildSavedModelProto(const SavedModelSpec& spec) {
  tensorflow::SavedModel saved_model;
  saved_model.set_saved_model_schema_version(1);
  tensorflow::MetaGraphDef* meta = saved_model.add_meta_graphs();
  tensorflow::GraphDef* graph = meta->mutable_graph_def();
  *graph = spec.graph_def;
  if (!graph->has_versions()) graph->mutable_versions()->set_producer(1395);

  TFHOST_RETURN_IF_ERROR(AddVariables(spec, graph));
  if (!spec.variables.empty()) {
    std::set<std::string> names = NodeNames(*graph);
    for (const char* reserved : {"save/Const", "save/RestoreV2", "save/restore_all"}) {
      if (names.count(reserved)) {
        return InvalidArgument(std::string("graph node '") + reserved +
                               "' clashes with the restore subgraph the writer adds");
      }
    }
    AddRestoreSubgraph(spec, graph, meta->mutable_saver_def());
  }

  // Assets: a Const per asset tensor the graph lacks, then both the TF2 field
  // and the TF1 collection, so loaders of either vintage find them.
  std::set<std::string> names = NodeNames(*graph);
  auto* asset_collection = (*meta->mutable_collection_def())["saved_model_assets"].mutable_any_list();
  for (const auto& asset : spec.assets) {
    if (asset.filename.empty() || asset.filename.find('/') != std::string::npos || asset.filename == "." ||
        asset.filename == "..") {
      return InvalidArgument("asset filename '" + asset.filename + "' must be a plain file name");
    }
    TFHOST_ASSIGN_OR_RETURN(ir::ParsedTensorName tensor, ir::ParseTensorName(asset.tensor_name));
    if (!names.count(tensor.node)) {
      AddConst(graph, tensor.node, Tensor::StringScalar(asset.filename));
      names.insert(tensor.node);
    }
    tensorflow::AssetFileDef def;
    def.set_filename(asset.filename);
    def.mutable_tensor_info()->set_name(tensor.node + ":" + std::to_string(tensor.index));
    def.mutable_tensor_info()->set_dtype(tensorflow::DT_STRING);
    def.mutable_tensor_info()->mutable_tensor_shape();
    *meta->add_asset_file_def() = def;
    asset_collection->add_value()->PackFrom(def);
  }
  if (spec.assets.empty()) meta->mutable_collection_def()->erase("saved_model_assets");
  if (!spec.main_op.empty()) {
    if (!names.count(spec.main_op)) return InvalidArgument("main op '" + spec.main_op + "' is not a graph node");
    (*meta->mutable_collection_def())["saved_model_main_op"].mutable_node_list()->add_value(spec.main_op);
  }

  // Every signature tensor must exist, so a bad spec fails here, not at load.
  auto graph_or = ir::Graph::FromGraphDef(*graph);
  if (!graph_or.ok()) return graph_or.status().WithContext("building the SavedModel graph");
  for (const auto& sig : spec.signatures) {
    if (sig.name.empty()) return InvalidArgument("a signature has an empty name");
    if (meta->signature_def().count(sig.name)) return InvalidArgument("duplicate signature '" + sig.name + "'");
    for (const auto* list : {&sig.inputs, &sig.outputs}) {
      for (const auto& t : *list) {
        auto ref = graph_or->ResolveTensor(t.tensor_name);
        if (!ref.ok()) {
          return ref.status().WithContext("signature '" + sig.name + "', key '" + t.key + "'");
        }
      }
    }
    SignatureToProto(sig, &(*meta->mutable_signature_def())[sig.name]);
  }

  auto* info = meta->mutable_meta_info_def();
  info->set_meta_graph_version("tfhost");
  for (const auto& tag : spec.tags) info->add_tags(tag);
  info->set_tensorflow_version("2.15.0");
  info->set_tensorflow_git_version("tfhost");
  FillStrippedOpList(*graph, info->mutable_stripped_op_list());
  return saved_model;
}

Status WriteSavedModel(const std::string& export_dir_string, const SavedModelSpec& spec,
                       const SavedModelWriteOptions& options) {
  fs::path export_dir = fs::path(export_dir_string).lexically_normal();
  if (export_dir.filename().empty()) export_dir = export_dir.parent_path();
  std::error_code ec;
  bool exists = fs::exists(export_dir, ec);
  if (exists && !options.overwrite) {
    return AlreadyExists("SavedModel directory " + export_dir.string() + " already exists");
  }
  TFHOST_ASSIGN_OR_RETURN(tensorflow::SavedModel proto, BuildSavedModelProto(spec));

  fs::path parent = export_dir.parent_path().empty() ? fs::path(".") : export_dir.parent_path();
  fs::create_directories(parent, ec);
  if (ec) return Unavailable("cannot create " + parent.string() + ": " + ec.message());
  fs::path tmp = parent / ("." + export_dir.filename().string() + ".tmp-" + std::to_string(::getpid()));
  fs::remove_all(tmp, ec);
  fs::create_directories(tmp, ec);
  if (ec) return Unavailable("cannot create " + tmp.string() + ": " + ec.message());

  auto write_all = [&]() -> Status {
    std::string bytes;
    if (!proto.SerializeToString(&bytes)) return Internal("cannot serialize the SavedModel proto");
    TFHOST_RETURN_IF_ERROR(WriteStringToFile(tmp / "saved_model.pb", bytes));
    if (!spec.variables.empty()) {
      fs::create_directories(tmp / "variables", ec);
      if (ec) return Unavailable("cannot create " + (tmp / "variables").string() + ": " + ec.message());
      checkpoint::TensorBundleWriter writer((tmp / "variables" / "variables").string());
      for (const auto& [name, value] : spec.variables) {
        TFHOST_RETURN_IF_ERROR(writer.Add(name, value));
      }
      TFHOST_RETURN_IF_ERROR(writer.Finish());
    }
    if (!spec.assets.empty()) {
      fs::create_directories(tmp / "assets", ec);
      if (ec) return Unavailable("cannot create " + (tmp / "assets").string() + ": " + ec.message());
      for (const auto& asset : spec.assets) {
        TFHOST_RETURN_IF_ERROR(WriteStringToFile(tmp / "assets" / asset.filename, asset.contents));
      }
    }
    return OkStatus();
  };
  Status st = write_all();
  if (!st.ok()) {
    fs::remove_all(tmp, ec);
    return st.WithContext("writing SavedModel " + export_dir.string());
  }
  // Move an existing model aside first: rename() cannot replace a non-empty
  // directory, and this order never leaves export_dir missing for long.
  fs::path old;
  if (exists) {
    old = parent / ("." + export_dir.filename().string() + ".old-" + std::to_string(::getpid()));
    fs::remove_all(old, ec);
    fs::rename(export_dir, old, ec);
    if (ec) {
      fs::remove_all(tmp, ec);
      return Unavailable("cannot move the old " + export_dir.string() + " aside: " + ec.message());
    }
  }
  fs::rename(tmp, export_dir, ec);
  if (ec) {
    std::string message = ec.message();
    fs::remove_all(tmp, ec);
    if (!old.empty()) fs::rename(old, export_dir, ec);
    return Unavailable("cannot rename the new SavedModel into " + export_dir.string() + ": " + message);
  }
  if (!old.empty()) fs::remove_all(old, ec);
  return OkStatus();
}

}  // namespace tfhost::loaders
