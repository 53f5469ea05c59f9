#include "loaders/savedmodel/saved_model_loader.h"

#include <google/protobuf/text_format.h>

#include <algorithm>
#include <climits>
#include <filesystem>
#include <map>
#include <set>

#include "checkpoint/tensor_bundle_reader.h"
#include "ir/function_inliner.h"
#include "ir/reachability.h"
#include "loaders/graph_to_session.h"
#include "loaders/savedmodel/object_graph_captures.h"
#include "loaders/savedmodel/ref_variables.h"
#include "loaders/savedmodel/restore_subset.h"
#include "loaders/savedmodel/signatures.h"
#include "loaders/savedmodel/variable_freezing.h"
#include "ops/op_registry.h"
#include "tensorflow/core/protobuf/saved_model.pb.h"

namespace tfhost::loaders {

namespace fs = std::filesystem;

namespace {

constexpr char kInitOpSignatureKey[] = "__saved_model_init_op";

std::string Join(const std::vector<std::string>& items, const std::string& sep) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

std::string TagSetString(const std::vector<std::string>& tags) { return "{" + Join(tags, ", ") + "}"; }

// saved_model.pb (binary) wins over saved_model.pbtxt, as in TensorFlow.
Status ReadSavedModelProto(const fs::path& dir, tensorflow::SavedModel* saved_model) {
  std::error_code ec;
  fs::path pb = dir / "saved_model.pb";
  if (fs::is_regular_file(pb, ec)) {
    TFHOST_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(pb.string()));
    if (!saved_model->ParseFromString(bytes) || saved_model->meta_graphs_size() == 0) {
      return InvalidArgument(pb.string() + " is not a valid SavedModel protobuf (" + std::to_string(bytes.size()) +
                             " bytes" + (bytes.empty() ? "" : "; truncated or corrupt, or not a SavedModel") +
                             "): expected a tensorflow.SavedModel with at least one MetaGraphDef");
    }
    return OkStatus();
  }
  fs::path pbtxt = dir / "saved_model.pbtxt";
  if (fs::is_regular_file(pbtxt, ec)) {
    TFHOST_ASSIGN_OR_RETURN(std::string text, ReadFileToString(pbtxt.string()));
    // TextFormat reports syntax errors through a log hook; the Status below
    // is what callers see.
    google::protobuf::TextFormat::Parser parser;
    if (!parser.ParseFromString(text, saved_model) || saved_model->meta_graphs_size() == 0) {
      return InvalidArgument(pbtxt.string() + " is not a valid SavedModel protobuf in text format: expected a "
                             "tensorflow.SavedModel with at least one MetaGraphDef");
    }
    return OkStatus();
  }
  return NotFound(dir.string() + " contains neither saved_model.pb nor saved_model.pbtxt");
}

StatusOr<const tensorflow::MetaGraphDef*> SelectMetaGraph(const tensorflow::SavedModel& saved_model,
                                                          const std::vector<std::string>& wanted,
                                                          const std::string& where) {
  std::set<std::string> wanted_set(wanted.begin(), wanted.end());
  std::vector<std::string> available;
  for (const auto& mg : saved_model.meta_graphs()) {
    const auto& tags = mg.meta_info_def().tags();
    std::set<std::string> have(tags.begin(), tags.end());
    if (have == wanted_set) return &mg;
    available.push_back(TagSetString(std::vector<std::string>(tags.begin(), tags.end())));
  }
  return NotFound(where + " has no MetaGraph with tags " + TagSetString(wanted) +
                  "; available tag sets: " + Join(available, ", "));
}

// Asset tensors to feed with "<export_dir>/assets/<filename>": asset_file_def
// (TF2), else the saved_model_assets collection of Any-packed AssetFileDefs.
StatusOr<runtime::NamedTensors> AssetFeeds(const tensorflow::MetaGraphDef& mg, const fs::path& dir) {
  std::vector<tensorflow::AssetFileDef> assets(mg.asset_file_def().begin(), mg.asset_file_def().end());
  if (assets.empty()) {
    auto it = mg.collection_def().find("saved_model_assets");
    if (it != mg.collection_def().end()) {
      for (const auto& any : it->second.any_list().value()) {
        tensorflow::AssetFileDef asset;
        if (!any.UnpackTo(&asset)) {
          return InvalidArgument("collection 'saved_model_assets' holds a '" + any.type_url() +
                                 "' that is not a valid tensorflow.AssetFileDef");
        }
        assets.push_back(std::move(asset));
      }
    }
  }
  runtime::NamedTensors feeds;
  std::set<std::string> seen;
  for (const auto& asset : assets) {
    const std::string& tensor = asset.tensor_info().name();
    if (tensor.empty()) continue;  // TF2 may list assets that feed no placeholder
    fs::path relative(asset.filename());
    bool escapes = relative.empty() || relative.is_absolute();
    for (const auto& part : relative) escapes |= part == "..";
    if (escapes) {
      return InvalidArgument("asset file name '" + asset.filename() +
                             "' is not a plain path inside the assets/ folder");
    }
    if (!seen.insert(tensor).second) continue;
    feeds.emplace_back(tensor, Tensor::StringScalar((dir / "assets" / asset.filename()).string()));
  }
  return feeds;
}

// The node to run after restoring: signature __saved_model_init_op, else
// collection saved_model_main_op, else legacy_init_op. Empty = none.
StatusOr<std::string> InitOpName(const tensorflow::MetaGraphDef& mg) {
  auto sig = mg.signature_def().find(kInitOpSignatureKey);
  if (sig != mg.signature_def().end()) {
    auto out = sig->second.outputs().find(kInitOpSignatureKey);
    if (out == sig->second.outputs().end() || out->second.name().empty()) {
      return InvalidArgument(std::string("signature '") + kInitOpSignatureKey + "' has no output '" +
                             kInitOpSignatureKey + "' naming the init op");
    }
    TFHOST_ASSIGN_OR_RETURN(auto parsed, ir::ParseTensorName(out->second.name()));
    return parsed.node;
  }
  for (const char* key : {"saved_model_main_op", "legacy_init_op"}) {
    auto it = mg.collection_def().find(key);
    if (it == mg.collection_def().end()) continue;
    const auto& list = it->second.node_list().value();
    if (list.size() != 1) {
      return InvalidArgument(std::string("collection '") + key + "' must name exactly one op, it has " +
                             std::to_string(list.size()));
    }
    TFHOST_ASSIGN_OR_RETURN(auto parsed, ir::ParseTensorName(list[0]));
    return parsed.node;
  }
  return std::string();
}

bool IsVariableNode(const ir::Node& node) { return IsRefVariableOp(node.op) || node.op == "VarHandleOp"; }

// Resource names of the variables that `roots` read and that `init_roots`
// (the init op) do not set up themselves.
std::vector<std::string> VariablesNeeded(const ir::Graph& graph, const std::vector<int>& roots,
                                         const std::vector<int>& init_roots) {
  std::vector<bool> used = ir::ReachableFrom(graph, roots);
  std::vector<bool> by_init = ir::ReachableFrom(graph, init_roots);
  std::set<std::string> initialized, needed;
  for (int i = 0; i < graph.num_nodes(); ++i) {
    if (by_init[i] && IsVariableNode(graph.node(i))) initialized.insert(VariableResourceName(graph.node(i)));
  }
  for (int i = 0; i < graph.num_nodes(); ++i) {
    if (!used[i] || !IsVariableNode(graph.node(i))) continue;
    std::string name = VariableResourceName(graph.node(i));
    if (!initialized.count(name)) needed.insert(name);
  }
  return std::vector<std::string>(needed.begin(), needed.end());
}

StatusOr<int> NodeOfTensor(const ir::Graph& graph, const std::string& tensor) {
  TFHOST_ASSIGN_OR_RETURN(auto parsed, ir::ParseTensorName(tensor));
  int id = graph.FindNode(parsed.node);
  if (id < 0) return NotFound("the graph has no node '" + parsed.node + "'");
  return id;
}

// Signature tensors must exist; a dtype that disagrees with the graph is
// corrected to what the graph produces (TF1 exports exist whose SignatureDef
// says DT_FLOAT for a DT_STRING placeholder, and TensorFlow feeds them as the
// graph says). Corrections are noted in `metadata`.
Status CheckSignatureTensors(const ir::Graph& graph, runtime::Signature& sig,
                             std::map<std::string, std::string>& metadata) {
  auto check = [&](runtime::TensorSpec& spec, const char* direction) -> Status {
    auto ref = graph.ResolveTensor(spec.tensor_name);
    if (!ref.ok()) {
      return NotFound("signature '" + sig.name + "' " + direction + " '" + spec.key + "' refers to tensor '" +
                      spec.tensor_name + "', which the graph does not have");
    }
    const ir::Node& node = graph.node(ref->node);
    if (node.output_dtypes.empty()) return OkStatus();  // op without schema; the runtime reports it
    if (ref->index >= static_cast<int>(node.output_dtypes.size())) {
      return NotFound("signature '" + sig.name + "' " + direction + " '" + spec.key + "' refers to tensor '" +
                      spec.tensor_name + "', but node '" + node.name + "' has " +
                      std::to_string(node.output_dtypes.size()) + " outputs");
    }
    DType actual = node.output_dtypes[ref->index];
    if (actual != DType::kInvalid && actual != spec.dtype) {
      metadata["signature_dtype_corrected." + sig.name + "." + spec.key] =
          DTypeName(spec.dtype) + " -> " + DTypeName(actual);
      spec.dtype = actual;
    }
    return OkStatus();
  };
  for (auto& spec : sig.inputs) TFHOST_RETURN_IF_ERROR(check(spec, "input"));
  for (auto& spec : sig.outputs) TFHOST_RETURN_IF_ERROR(check(spec, "output"));
  return OkStatus();
}

// The captured variables of a TF2 model's calls, with their bundle keys
// (object_graph_captures.h); none for TF1 models and unreadable bundles
// (null), whose restore step reports the bundle itself.
StatusOr<std::vector<BoundVariable>> ObjectGraphCaptures(const ir::Graph& graph, const tensorflow::MetaGraphDef& mg,
                                                         const checkpoint::TensorBundleReader* bundle,
                                                         const std::string& prefix) {
  if (!mg.has_object_graph_def() || bundle == nullptr) return std::vector<BoundVariable>();
  auto checkpoint_objects = ReadCheckpointObjectGraph(*bundle, prefix);
  if (!checkpoint_objects.ok()) {
    if (checkpoint_objects.status().code() == StatusCode::kNotFound) return std::vector<BoundVariable>();
    return checkpoint_objects.status();
  }
  return CapturedVariables(graph, mg.object_graph_def(), *checkpoint_objects);
}

// Makes `restore_op` also restore, through the object graph, each captured
// variable it does not reach itself; returns the op to run in its place.
StatusOr<std::string> RestoreUnreachedCaptures(ir::Graph& graph, const std::vector<BoundVariable>& captured,
                                               const std::string& restore_op, const std::string& prefix,
                                               runtime::ModelInfo& info) {
  const int restore_id = graph.FindNode(restore_op);
  const std::vector<bool> restored = ir::ReachableFrom(graph, {restore_id});
  std::set<std::string> restored_names;
  for (int i = 0; i < graph.num_nodes(); ++i) {
    if (restored[i] && IsVariableNode(graph.node(i))) restored_names.insert(VariableResourceName(graph.node(i)));
  }
  std::vector<BoundVariable> unreached;
  for (const BoundVariable& var : captured) {
    const int id = graph.FindNode(var.handle);
    if (id >= 0 && !restored_names.count(VariableResourceName(graph.node(id)))) unreached.push_back(var);
  }
  if (unreached.empty()) return restore_op;
  TFHOST_ASSIGN_OR_RETURN(std::string bound, AddBoundVariableRestore(graph, unreached, prefix));
  ir::Node both;
  both.name = graph.UniqueName("_tfhost_restore");
  both.op = "NoOp";
  both.control_inputs = {restore_id, graph.FindNode(bound)};
  std::string name = both.name;
  TFHOST_RETURN_IF_ERROR(graph.AddNode(std::move(both)).status());
  info.metadata["variables_restored_by_object_graph"] = std::to_string(unreached.size());
  return name;
}

// Variable count and bytes from the bundle's entries (the object graph of
// TF2 checkpoints is bookkeeping, not a variable); none for an unreadable
// bundle (null), which the restore step reports.
void CountVariables(const checkpoint::TensorBundleReader* bundle, runtime::ModelInfo& info) {
  if (bundle == nullptr) return;
  for (const auto& [key, entry] : bundle->entries()) {
    if (key == "_CHECKPOINTABLE_OBJECT_GRAPH") continue;
    ++info.variable_count;
    info.variable_bytes += static_cast<int64_t>(entry.size());
  }
}

// The values of the plan's variables after the restore step, from a session
// of their own over a copy of `graph` that runs only what restoring and
// reading needs; it and its variables are gone when this returns.
StatusOr<std::vector<Tensor>> RestoredVariableValues(const ir::Graph& graph, const FreezePlan& plan,
                                                     const tensorflow::OpList* op_defs, const LoadOptions& options,
                                                     const std::string& model_name, const std::string& restore_op,
                                                     const runtime::NamedTensors& restore_feeds) {
  LoadOptions plain = options;
  plain.optimize_graph = false;
  plain.freeze_variables = false;
  plain.precision = "fp32";
  plain.keep.clear();
  ir::Graph copy = graph;
  // Only the plan's variables are read afterwards, so only their part of
  // the restore step runs when that part can be told apart.
  std::vector<std::string> sources;
  for (const FreezePlan::Variable& var : plan.variables) sources.push_back(var.source);
  std::vector<std::string> targets = NarrowRestore(copy, restore_op, sources);
  if (targets.empty()) targets = {restore_op};
  std::vector<std::string> roots = targets;
  std::vector<std::string> fetches;
  for (const auto& [tensor, value] : restore_feeds) roots.push_back(tensor);
  for (const FreezePlan::Variable& var : plan.variables) {
    std::string read = var.source;  // a TF1 VariableV2 outputs the value
    const ir::Node& source = copy.node(copy.FindNode(var.source));
    if (source.op == "VarHandleOp") {
      ir::Node node;
      node.name = copy.UniqueName(var.source + "/_tfhost_read");
      node.op = "ReadVariableOp";
      node.inputs = {ir::TensorRef{copy.FindNode(var.source), 0}};
      if (const tensorflow::AttrValue* dtype = source.FindAttr("dtype")) node.attrs["dtype"] = *dtype;
      read = node.name;
      TFHOST_RETURN_IF_ERROR(copy.AddNode(std::move(node)).status());
    }
    fetches.push_back(read + ":0");
    roots.push_back(read);
  }
  TFHOST_ASSIGN_OR_RETURN(std::unique_ptr<runtime::Session> session,
                          GraphToSession(std::move(copy), op_defs, plain, model_name, roots));
  TFHOST_RETURN_IF_ERROR(session->Run(restore_feeds, {}, targets).status());
  return session->Run({}, fetches);
}

// Freezes the variables the signatures read when variable_freezing.h allows
// it, noting in info.metadata how many or why not. True when the graph no
// longer needs the restore step.
StatusOr<bool> FreezeServedVariables(ir::Graph& graph, const std::vector<int>& served, const std::vector<int>& init,
                                     const tensorflow::OpList* op_defs, const LoadOptions& options,
                                     const std::string& model_name, const std::string& restore_op,
                                     const runtime::NamedTensors& restore_feeds, runtime::ModelInfo& info) {
  FreezePlan plan = PlanVariableFreezing(graph, served, init);
  if (!plan.declined.empty()) {
    info.metadata["variables_not_frozen"] = plan.declined;
    return false;
  }
  if (plan.variables.empty()) return false;
  auto values = RestoredVariableValues(graph, plan, op_defs, options, model_name, restore_op, restore_feeds);
  if (!values.ok()) {
    if (values.status().code() != StatusCode::kFailedPrecondition) return values.status();
    // A variable the checkpoint leaves uninitialized: served unfrozen, so
    // the signatures that never read it still run, as in TensorFlow.
    info.metadata["variables_not_frozen"] = values.status().message();
    return false;
  }
  TFHOST_RETURN_IF_ERROR(FreezeVariables(graph, plan, std::move(*values)));
  info.metadata["variables_frozen"] = std::to_string(plan.variables.size());
  return true;
}

StatusOr<std::unique_ptr<runtime::Model>> LoadSavedModelImpl(const fs::path& dir, const LoadOptions& options) {
  const std::string model_name = dir.string();
  tensorflow::SavedModel saved_model;
  TFHOST_RETURN_IF_ERROR(ReadSavedModelProto(dir, &saved_model));
  TFHOST_ASSIGN_OR_RETURN(const tensorflow::MetaGraphDef* mg,
                          SelectMetaGraph(saved_model, options.tags, dir.string()));

  runtime::ModelInfo info;
  info.path = dir.string();
  info.format = mg->has_object_graph_def() ? "SavedModel (TF2)" : "SavedModel (TF1)";
  for (const auto& m : saved_model.meta_graphs()) {
    const auto& tags = m.meta_info_def().tags();
    info.tag_sets.emplace_back(tags.begin(), tags.end());
  }
  const auto& meta = mg->meta_info_def();
  if (!meta.tensorflow_version().empty()) info.metadata["tensorflow_version"] = meta.tensorflow_version();
  if (!meta.tensorflow_git_version().empty()) info.metadata["tensorflow_git_version"] = meta.tensorflow_git_version();
  if (mg->graph_def().has_versions()) {
    info.metadata["producer"] = std::to_string(mg->graph_def().versions().producer());
  }

  // Schemas: the model's own OpDefs (they carry the defaults TF stripped),
  // then tfhost's registry.
  std::map<std::string, const tensorflow::OpDef*> model_defs;
  for (const auto& def : meta.stripped_op_list().op()) model_defs[def.name()] = &def;
  const auto& registry = ops::OpRegistry::Global();
  ir::OpDefLookup lookup = [&](const std::string& op) -> const tensorflow::OpDef* {
    auto it = model_defs.find(op);
    if (it != model_defs.end()) return it->second;
    const ops::OpRegistration* r = registry.Find(op);
    return r ? &r->def : nullptr;
  };

  auto graph_or = ir::Graph::FromGraphDef(mg->graph_def());
  if (!graph_or.ok()) return graph_or.status().WithContext("model '" + model_name + "'");
  ir::Graph graph = std::move(*graph_or);
  // Nothing below reads the GraphDef again (the ir::Graph has its own copy
  // of every node and the library): free it before the session decodes the
  // constants, so large Const values are never held three times.
  for (auto& m : *saved_model.mutable_meta_graphs()) {
    if (&m == mg) tensorflow::GraphDef().Swap(m.mutable_graph_def());
  }

  // Signatures.
  std::map<std::string, runtime::Signature> signatures;
  for (const auto& [key, def] : mg->signature_def()) {
    if (IsInternalSignatureKey(key)) continue;
    auto sig = ConvertSignature(key, def);
    if (!sig.ok()) {
      if (sig.status().code() == StatusCode::kUnimplemented) {
        info.metadata["skipped_signature." + key] = sig.status().message();
        continue;
      }
      return sig.status().WithContext("model '" + model_name + "', signature '" + key + "'");
    }
    signatures.emplace(key, std::move(*sig));
  }

  // Restore and init.
  const fs::path prefix = dir / "variables" / "variables";
  std::error_code ec;
  const bool has_variables = fs::is_regular_file(checkpoint::IndexFileName(prefix.string()), ec);
  // The bundle's index, read once for what the loader needs from it (the
  // object graph, the variable count); null when it does not open.
  std::unique_ptr<checkpoint::TensorBundleReader> bundle;
  if (has_variables) {
    auto opened = checkpoint::TensorBundleReader::Open(prefix.string());
    if (opened.ok()) bundle = std::move(*opened);
  }
  const auto& saver = mg->saver_def();
  std::string restore_op;
  if (has_variables && !saver.restore_op_name().empty()) {
    auto parsed = ir::ParseTensorName(saver.restore_op_name());
    if (!parsed.ok()) return parsed.status().WithContext("model '" + model_name + "': saver_def.restore_op_name");
    restore_op = parsed->node;
  }
  auto init_op = InitOpName(*mg);
  if (!init_op.ok()) return init_op.status().WithContext("model '" + model_name + "'");
  auto asset_feeds = AssetFeeds(*mg, dir);
  if (!asset_feeds.ok()) return asset_feeds.status().WithContext("model '" + model_name + "'");

  // Roots: everything the loader and the signatures run or feed.
  std::vector<std::string> roots;
  for (const auto& [key, sig] : signatures) {
    // Fed tensors too: graph passes keep every root by name.
    for (const auto& spec : sig.inputs) roots.push_back(spec.tensor_name);
    for (const auto& spec : sig.outputs) {
      roots.push_back(spec.tensor_name);
      auto id = NodeOfTensor(graph, spec.tensor_name);
      if (!id.ok()) {
        return id.status().WithContext("model '" + model_name + "': signature '" + key + "' output '" +
                                       spec.key + "' (" + spec.tensor_name + ")");
      }
    }
  }
  for (const std::string* op : {&restore_op, &*init_op}) {
    if (op->empty()) continue;
    if (graph.FindNode(*op) < 0) {
      return NotFound("model '" + model_name + "': the " + (op == &restore_op ? "restore" : "init") +
                      " op '" + *op + "' is not in the graph");
    }
    roots.push_back(*op);
  }
  // The loader feeds these itself; a missing one is reported when it is fed.
  std::vector<std::string> fed;
  if (!restore_op.empty()) fed.push_back(saver.filename_tensor_name());
  for (const auto& [tensor, value] : *asset_feeds) fed.push_back(tensor);
  for (const std::string& tensor : fed) {
    if (NodeOfTensor(graph, tensor).ok()) roots.push_back(tensor);
  }
  // Before inlining: a training step's call whose body tfhost cannot inline
  // or type is as unreachable as any other node there.
  std::vector<std::string> kept = roots;
  if (!kept.empty()) kept.insert(kept.end(), options.keep.begin(), options.keep.end());
  auto pruned = ir::PruneToRoots(graph, kept);
  if (!pruned.ok()) return pruned.status().WithContext("model '" + model_name + "'");
  std::vector<BoundVariable> captured;
  if (!restore_op.empty()) {
    auto found = ObjectGraphCaptures(graph, *mg, bundle.get(), prefix.string());
    if (!found.ok()) return found.status().WithContext("model '" + model_name + "'");
    captured = std::move(*found);
  }

  ir::InlineOptions inline_options;
  inline_options.max_depth = options.session.max_function_depth;
  inline_options.max_nodes = static_cast<int>(std::min<int64_t>(options.max_graph_nodes, INT_MAX));
  Status st = ir::InlineFunctionCalls(graph, lookup, inline_options);
  if (!st.ok()) return st.WithContext("model '" + model_name + "'");
  auto rewritten = RewriteRefVariables(graph, lookup);
  if (!rewritten.ok()) return rewritten.status().WithContext("model '" + model_name + "'");

  if (!captured.empty()) {
    auto combined = RestoreUnreachedCaptures(graph, captured, restore_op, prefix.string(), info);
    if (!combined.ok()) return combined.status().WithContext("model '" + model_name + "'");
    std::replace(roots.begin(), roots.end(), restore_op, *combined);
    restore_op = *combined;
  }

  // Node indices only now: inlining and the rewrite add and remove nodes.
  std::vector<int> signature_nodes;
  for (const auto& [key, sig] : signatures) {
    for (const auto& spec : sig.outputs) {
      auto id = NodeOfTensor(graph, spec.tensor_name);
      if (!id.ok()) return id.status().WithContext("model '" + model_name + "' after inlining function calls");
      signature_nodes.push_back(*id);
    }
  }
  std::vector<int> init_nodes;
  if (!init_op->empty()) init_nodes.push_back(graph.FindNode(*init_op));
  if (!has_variables) {
    std::vector<std::string> needed = VariablesNeeded(graph, signature_nodes, init_nodes);
    if (!needed.empty()) {
      return NotFound("model '" + model_name + "': " + checkpoint::IndexFileName(prefix.string()) +
                      " does not exist, but the signatures read variables (" + Join(needed, ", ") +
                      ") that only a checkpoint can initialize");
    }
  }

  // Weights become constants the passes can fold (variable_freezing.h)
  // when nothing served writes them; the served session then never restores.
  if (options.freeze_variables && !restore_op.empty()) {
    std::vector<int> served = signature_nodes;
    for (const std::string& name : options.keep) {
      auto parsed = ir::ParseTensorName(name);
      if (parsed.ok() && graph.FindNode(parsed->node) >= 0) served.push_back(graph.FindNode(parsed->node));
    }
    runtime::NamedTensors restore_feeds = *asset_feeds;
    restore_feeds.emplace_back(saver.filename_tensor_name(), Tensor::StringScalar(prefix.string()));
    auto frozen = FreezeServedVariables(graph, served, init_nodes, &meta.stripped_op_list(), options, model_name,
                                        restore_op, restore_feeds, info);
    if (!frozen.ok()) {
      return frozen.status().WithContext("model '" + model_name + "': restoring variables from " + prefix.string());
    }
    if (*frozen) {
      CountVariables(bundle.get(), info);
      std::erase(roots, restore_op);
      std::erase(roots, saver.filename_tensor_name());
      restore_op.clear();
    }
  }

  // Signature tensors are checked against the graph before it moves into
  // the session; ops it has no schema for stay unchecked.
  TFHOST_ASSIGN_OR_RETURN(std::unique_ptr<runtime::Session> session,
                          GraphToSession(std::move(graph), &meta.stripped_op_list(), options, model_name, roots));
  for (auto& [key, sig] : signatures) {
    st = CheckSignatureTensors(session->graph(), sig, info.metadata);
    if (!st.ok()) return st.WithContext("model '" + model_name + "'");
  }

  if (!restore_op.empty()) {
    runtime::NamedTensors feeds = *asset_feeds;
    if (saver.filename_tensor_name().empty()) {
      return InvalidArgument("model '" + model_name + "': saver_def has a restore op but no filename_tensor_name");
    }
    feeds.emplace_back(saver.filename_tensor_name(), Tensor::StringScalar(prefix.string()));
    auto restored = session->Run(feeds, {}, {restore_op});
    if (!restored.ok()) {
      return restored.status().WithContext("model '" + model_name + "': restoring variables from " +
                                           prefix.string());
    }
    CountVariables(bundle.get(), info);
  }
  if (!init_op->empty()) {
    auto ran = session->Run(*asset_feeds, {}, {*init_op});
    if (!ran.ok()) {
      return ran.status().WithContext("model '" + model_name + "': running init op '" + *init_op + "'");
    }
  }
  return std::make_unique<runtime::Model>(std::move(session), std::move(signatures), std::move(info));
}

}  // namespace

StatusOr<std::unique_ptr<runtime::Model>> LoadSavedModel(const std::string& export_dir,
                                                         const LoadOptions& options) {
  return LoadSavedModelImpl(fs::path(export_dir), options);
}

}  // namespace tfhost::loaders
