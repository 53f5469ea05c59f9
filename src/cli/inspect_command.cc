// `tfhost inspect PATH [--json] [--tag T] [--check] [--optimized [--precision P]]`: what
// `saved_model_cli show --all` prints (format, tag sets, every signature with
// its tensors), plus the op histogram of the graph tfhost will run, the
// variables' count and size, and, per signature, the ops on its path that
// tfhost has no kernel for ("know before you deploy"). A model with such ops
// does not load; inspect then reads the model file itself to list them, and
// exits non-zero. `--check` exits non-zero whenever any op is missing.
// GraphDef and TF.js models have no signatures of their own; the one
// synthesized from their placeholders and unconsumed outputs is shown. An
// output whose recorded shape has unknown rank shows what static shape
// inference found instead, marked "(inferred)" ("inferred_shape" in JSON).
// `--optimized` adds what the graph passes did (PrintPassStats).
#include <rapidjson/document.h>
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <google/protobuf/text_format.h>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "cli/cli.h"
#include "backends/backend_registry.h"
#include "backends/placement.h"
#include "cli/command_util.h"
#include "ir/precision_attrs.h"
#include "loaders/graph_to_session.h"
#include "loaders/model_loader.h"
#include "ops/op_registry.h"
#include "passes/pass_manager.h"
#include "tensorflow/core/framework/graph.pb.h"
#include "tensorflow/core/protobuf/saved_model.pb.h"

namespace tfhost::cli {

namespace {

// TFLite models name theirs too (or follow TF Serving's rule; the
// "signatures" metadata line says which); an ONNX graph declares its inputs
// and outputs, which are serving_default's.
bool HasOwnSignatures(const runtime::ModelInfo& info) {
  return info.format.rfind("SavedModel", 0) == 0 || info.format == "TFLite" || info.format == "ONNX";
}

std::vector<std::pair<std::string, int>> OpHistogram(const ir::Graph& graph) {
  std::map<std::string, int> counts;
  for (const auto& n : graph.nodes()) ++counts[n.op];
  std::vector<std::pair<std::string, int>> sorted(counts.begin(), counts.end());
  std::stable_sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  return sorted;
}

// What static shape inference knows about a signature tensor whose recorded
// shape has unknown rank, or nullopt when it knows no more (or the tensor is
// not in the graph).
std::optional<ir::PartialShape> InferredShape(const ir::Graph& graph, const runtime::TensorSpec& t) {
  if (!t.shape.unknown_rank) return std::nullopt;
  auto ref = graph.ResolveTensor(t.tensor_name);
  if (!ref.ok()) return std::nullopt;
  const auto& shapes = graph.node(ref->node).output_shapes;
  if (ref->index < 0 || ref->index >= static_cast<int>(shapes.size()) || shapes[ref->index].unknown_rank) {
    return std::nullopt;
  }
  return shapes[ref->index];
}

// --- Op support -------------------------------------------------------------

// Signature name -> ops (sorted) on its path that have no tfhost kernel.
using MissingOps = std::map<std::string, std::set<std::string>>;

// "^name", "name:1" -> "name".
std::string NodeOfInput(const std::string& input) {
  std::string name = input.rfind('^', 0) == 0 ? input.substr(1) : input;
  return name.substr(0, name.find(':'));
}

// Ops reachable from `roots` (tensor or node names; empty = every node),
// following data and control inputs and descending into the functions that
// nodes call (by op name, or through func attrs such as If's branches and
// While's body), whose ops tfhost has no kernel for. PartitionedCall and
// StatefulPartitionedCall need none: the loader inlines them.
std::set<std::string> MissingOpsOnPath(const tensorflow::GraphDef& graph, const std::vector<std::string>& roots) {
  const ops::OpRegistry& registry = ops::OpRegistry::Global();
  std::map<std::string, const tensorflow::FunctionDef*> functions;
  for (const auto& f : graph.library().function()) functions[f.signature().name()] = &f;
  std::map<std::string, const tensorflow::NodeDef*> by_name;
  for (const auto& n : graph.node()) by_name[n.name()] = &n;

  std::set<std::string> missing, visited_functions;
  std::deque<std::string> pending_functions;
  auto check_node = [&](const tensorflow::NodeDef& n) {
    if (functions.count(n.op())) {
      pending_functions.push_back(n.op());
    } else if (n.op() != "PartitionedCall" && n.op() != "StatefulPartitionedCall" && registry.Find(n.op()) == nullptr) {
      missing.insert(n.op());
    }
    for (const auto& [key, attr] : n.attr()) {
      if (attr.has_func()) pending_functions.push_back(attr.func().name());
      for (const auto& f : attr.list().func()) pending_functions.push_back(f.name());
    }
  };
  std::set<std::string> seen;
  std::deque<std::string> queue;
  if (roots.empty()) {
    for (const auto& n : graph.node()) queue.push_back(n.name());
  } else {
    for (const auto& r : roots) queue.push_back(NodeOfInput(r));
  }
  while (!queue.empty()) {
    std::string name = queue.front();
    queue.pop_front();
    if (!seen.insert(name).second) continue;
    auto it = by_name.find(name);
    if (it == by_name.end()) continue;
    check_node(*it->second);
    for (const auto& in : it->second->input()) queue.push_back(NodeOfInput(in));
  }
  while (!pending_functions.empty()) {
    std::string f = pending_functions.front();
    pending_functions.pop_front();
    if (!visited_functions.insert(f).second) continue;
    auto it = functions.find(f);
    if (it == functions.end()) continue;
    for (const auto& n : it->second->node_def()) check_node(n);
  }
  return missing;
}

// Per signature of a loaded model, from the graph tfhost will run.
MissingOps MissingOpsOfModel(runtime::Model& model) {
  const tensorflow::GraphDef graph = model.session().graph().ToGraphDef();
  MissingOps result;
  for (const auto& [name, sig] : model.signatures()) {
    std::vector<std::string> roots;
    for (const auto& t : sig.outputs) roots.push_back(t.tensor_name);
    result[name] = MissingOpsOnPath(graph, roots);
  }
  return result;
}

// A model tfhost could not load, read from its file(s) just far enough to
// name the ops it lacks: SavedModel (saved_model.pb/.pbtxt, the meta graph
// with the requested tags, else the first; a TF Serving base path's highest
// numeric version) and GraphDef (.pb/.pbtxt). Formats without signatures get
// one entry, "<whole graph>". nullopt when the file cannot be read this way.
std::optional<MissingOps> MissingOpsOfUnloadableModel(const std::string& path, const std::string& tags) {
  namespace fs = std::filesystem;
  auto read = [](const fs::path& p) -> std::optional<std::string> {
    std::ifstream in(p, std::ios::binary);
    if (!in) return std::nullopt;
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  std::error_code ec;
  fs::path dir = path;
  if (fs::is_directory(dir, ec) && !fs::exists(dir / "saved_model.pb", ec) && !fs::exists(dir / "saved_model.pbtxt", ec)) {
    int64_t best = -1;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      const std::string n = entry.path().filename().string();
      if (!n.empty() && n.size() < 18 && std::all_of(n.begin(), n.end(), ::isdigit) && std::stoll(n) > best) {
        best = std::stoll(n);
      }
    }
    if (best >= 0) dir /= std::to_string(best);
  }
  if (fs::is_directory(dir, ec)) {
    tensorflow::SavedModel saved_model;
    if (auto bytes = read(dir / "saved_model.pb")) {
      if (!saved_model.ParseFromString(*bytes)) return std::nullopt;
    } else if (auto text = read(dir / "saved_model.pbtxt")) {
      if (!google::protobuf::TextFormat::ParseFromString(*text, &saved_model)) return std::nullopt;
    } else {
      return std::nullopt;
    }
    if (saved_model.meta_graphs_size() == 0) return std::nullopt;
    std::vector<std::string> want = SplitTags(tags);
    std::sort(want.begin(), want.end());
    const tensorflow::MetaGraphDef* mg = &saved_model.meta_graphs(0);
    for (const auto& candidate : saved_model.meta_graphs()) {
      std::vector<std::string> have(candidate.meta_info_def().tags().begin(), candidate.meta_info_def().tags().end());
      std::sort(have.begin(), have.end());
      if (have == want) mg = &candidate;
    }
    MissingOps result;
    for (const auto& [name, sig] : mg->signature_def()) {
      std::vector<std::string> roots;
      for (const auto& [key, info] : sig.outputs()) roots.push_back(info.name());
      result[name] = MissingOpsOnPath(mg->graph_def(), roots);
    }
    if (result.empty()) result["<whole graph>"] = MissingOpsOnPath(mg->graph_def(), {});
    return result;
  }
  auto bytes = read(path);
  if (!bytes) return std::nullopt;
  tensorflow::GraphDef graph;
  if (path.size() >= 5 && path.compare(path.size() - 5, 5, ".json") == 0) {
    // TF.js graph model: modelTopology.node[] and .library.function[].nodeDef[].
    rapidjson::Document doc;
    doc.Parse(bytes->c_str(), bytes->size());
    if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("modelTopology") ||
        !doc["modelTopology"].IsObject()) {
      return std::nullopt;
    }
    const auto& topology = doc["modelTopology"];
    auto add_nodes = [](const rapidjson::Value& list, auto* out) {
      if (!list.IsArray()) return;
      for (const auto& n : list.GetArray()) {
        if (!n.IsObject() || !n.HasMember("op") || !n["op"].IsString()) continue;
        auto* node = out->Add();
        node->set_op(n["op"].GetString());
        if (n.HasMember("name") && n["name"].IsString()) node->set_name(n["name"].GetString());
      }
    };
    if (topology.HasMember("node")) add_nodes(topology["node"], graph.mutable_node());
    if (topology.HasMember("library") && topology["library"].IsObject() &&
        topology["library"].HasMember("function") && topology["library"]["function"].IsArray()) {
      for (const auto& f : topology["library"]["function"].GetArray()) {
        if (!f.IsObject() || !f.HasMember("nodeDef")) continue;
        auto* fn = graph.mutable_library()->add_function();
        fn->mutable_signature()->set_name("tfjs_function_" + std::to_string(graph.library().function_size()));
        add_nodes(f["nodeDef"], fn->mutable_node_def());
        // Every function body counts: call one from a placeholder node.
        auto* call = graph.add_node();
        call->set_name(fn->signature().name() + "_call");
        call->set_op(fn->signature().name());
      }
    }
    return MissingOps{{"<whole graph>", MissingOpsOnPath(graph, {})}};
  }
  const bool text = path.size() >= 6 && path.compare(path.size() - 6, 6, ".pbtxt") == 0;
  if (text ? !google::protobuf::TextFormat::ParseFromString(*bytes, &graph) : !graph.ParseFromString(*bytes)) {
    return std::nullopt;
  }
  return MissingOps{{"<whole graph>", MissingOpsOnPath(graph, {})}};
}

bool AnyMissing(const MissingOps& missing) {
  return std::any_of(missing.begin(), missing.end(), [](const auto& kv) { return !kv.second.empty(); });
}

void PrintMissing(const MissingOps& missing, std::ostream& out) {
  out << "\nOps without a tfhost kernel, per signature:\n";
  for (const auto& [name, ops] : missing) {
    out << "  " << name << ": ";
    if (ops.empty()) out << "none";
    bool first = true;
    for (const auto& op : ops) {
      out << (first ? "" : ", ") << op;
      first = false;
    }
    out << "\n";
  }
}

template <typename Writer>
void WriteMissing(Writer& w, const MissingOps& missing) {
  w.Key("unsupported_ops");
  w.StartObject();
  for (const auto& [name, ops] : missing) {
    w.Key(name.c_str());
    w.StartArray();
    for (const auto& op : ops) w.String(op.c_str());
    w.EndArray();
  }
  w.EndObject();
}

std::string HumanBytes(int64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), u == 0 ? "%.0f %s" : "%.1f %s", v, units[u]);
  return buf;
}

void PrintText(runtime::Model& model, const std::string& tags, const MissingOps& missing, std::ostream& out) {
  const runtime::ModelInfo& info = model.info();
  out << "Model: " << info.path << "\n";
  out << "Format: " << info.format << "\n";
  if (!info.tag_sets.empty()) {
    out << "Tag sets:";
    for (const auto& set : info.tag_sets) {
      out << " [";
      for (size_t i = 0; i < set.size(); ++i) out << (i ? ", " : "") << set[i];
      out << "]";
    }
    out << "  (loaded: " << tags << ")\n";
  }
  for (const auto& [k, v] : info.metadata) out << k << ": " << v << "\n";
  out << "Variables: " << info.variable_count << " (" << HumanBytes(info.variable_bytes) << ")\n";
  if (!HasOwnSignatures(info)) {
    out << "\nNo SignatureDefs in this format; tfhost synthesizes one from the placeholders (inputs)\n"
           "and the tensors no node consumes (outputs):\n";
  }
  for (const auto& [name, sig] : model.signatures()) {
    out << "\nsignature_def['" << name << "']:\n";
    out << "  method name: " << (sig.method_name.empty() ? "<none>" : sig.method_name) << "\n";
    for (const auto* list : {&sig.inputs, &sig.outputs}) {
      out << (list == &sig.inputs ? "  inputs:\n" : "  outputs:\n");
      if (list->empty()) out << "    <none>\n";
      for (const auto& t : *list) {
        out << "    '" << t.key << "' tensor: " << t.tensor_name << "  dtype: " << DTypeShortName(t.dtype)
            << "  shape: ";
        auto inferred = list == &sig.outputs ? InferredShape(model.session().graph(), t) : std::nullopt;
        out << (inferred ? inferred->ToString() + " (inferred)" : t.shape.ToString());
        if (list == &sig.inputs && sig.defaults.count(t.key)) out << "  (optional)";
        out << "\n";
      }
    }
  }
  const ir::Graph& graph = model.session().graph();
  out << "\nOps (" << graph.num_nodes() << " nodes):\n";
  for (const auto& [op, count] : OpHistogram(graph)) {
    out << "  " << op << std::string(op.size() < 32 ? 32 - op.size() : 1, ' ') << count << "\n";
  }
  PrintMissing(missing, out);
}

// `inferred`: what shape inference adds for an output whose recorded shape
// has unknown rank ("inferred_shape"; "shape" stays as recorded).
void WriteSpec(rapidjson::PrettyWriter<rapidjson::StringBuffer>& w, const runtime::TensorSpec& t,
               const std::optional<ir::PartialShape>& inferred = std::nullopt) {
  w.StartObject();
  w.Key("key");
  w.String(t.key.c_str());
  w.Key("tensor");
  w.String(t.tensor_name.c_str());
  w.Key("dtype");
  w.String(DTypeShortName(t.dtype).c_str());
  w.Key("shape");
  if (t.shape.unknown_rank) {
    w.Null();
  } else {
    w.StartArray();
    for (int64_t d : t.shape.dims) w.Int64(d);
    w.EndArray();
  }
  if (inferred) {
    w.Key("inferred_shape");
    w.StartArray();
    for (int64_t d : inferred->dims) w.Int64(d);
    w.EndArray();
  }
  w.EndObject();
}

std::string ToJson(runtime::Model& model, const MissingOps& missing) {
  const runtime::ModelInfo& info = model.info();
  rapidjson::StringBuffer buffer;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buffer);
  w.SetIndent(' ', 2);
  w.StartObject();
  w.Key("path");
  w.String(info.path.c_str());
  w.Key("format");
  w.String(info.format.c_str());
  w.Key("tag_sets");
  w.StartArray();
  for (const auto& set : info.tag_sets) {
    w.StartArray();
    for (const auto& t : set) w.String(t.c_str());
    w.EndArray();
  }
  w.EndArray();
  w.Key("metadata");
  w.StartObject();
  for (const auto& [k, v] : info.metadata) {
    w.Key(k.c_str());
    w.String(v.c_str());
  }
  w.EndObject();
  w.Key("signatures_synthesized");
  w.Bool(!HasOwnSignatures(info));
  w.Key("signatures");
  w.StartObject();
  for (const auto& [name, sig] : model.signatures()) {
    w.Key(name.c_str());
    w.StartObject();
    w.Key("method_name");
    w.String(sig.method_name.c_str());
    w.Key("inputs");
    w.StartArray();
    for (const auto& t : sig.inputs) WriteSpec(w, t);
    w.EndArray();
    w.Key("outputs");
    w.StartArray();
    for (const auto& t : sig.outputs) WriteSpec(w, t, InferredShape(model.session().graph(), t));
    w.EndArray();
    w.EndObject();
  }
  w.EndObject();
  const ir::Graph& graph = model.session().graph();
  w.Key("node_count");
  w.Int(graph.num_nodes());
  w.Key("ops");
  w.StartObject();
  for (const auto& [op, count] : OpHistogram(graph)) {
    w.Key(op.c_str());
    w.Int(count);
  }
  w.EndObject();
  w.Key("variable_count");
  w.Int64(info.variable_count);
  w.Key("variable_bytes");
  w.Int64(info.variable_bytes);
  WriteMissing(w, missing);
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace

// --optimized: the node count before and after each graph pass (src/passes),
// replayed on `model` (inspect loads it without passes), the optimized
// graph's op histogram, and what its fused nodes fuse. With --precision
// bf16, the bf16 passes as `tfhost run` would apply them here, and how many
// nodes compute in bf16 and store their output in bf16.
Status PrintPassStats(runtime::Model& model, const std::string& precision, std::ostream& out) {
  // With the weights: the session's own graph holds only their dtype and
  // shape (one copy of the weights), and CSE must compare values.
  ir::Graph graph = model.session().GraphWithConstants();
  std::vector<std::string> roots;
  for (const auto& [name, sig] : model.signatures()) {
    for (const auto& t : sig.inputs) roots.push_back(t.tensor_name);
    for (const auto& t : sig.outputs) roots.push_back(t.tensor_name);
  }
  std::vector<passes::PassStats> stats;
  passes::PassContext ctx = passes::PassContext::FromRoots(graph, roots);
  ctx.has_fast_kernel = loaders::FastKernelCheck(backends::BackendRegistry::Global(), backends::KernelChoice::kFast);
  TFHOST_RETURN_IF_ERROR(passes::PassManager::Default().Run(&graph, ctx, &stats));
  if (precision == "bf16") {
    TFHOST_RETURN_IF_ERROR(passes::PassManager::Bf16(backends::BackendRegistry::Global().HostHasNativeBf16())
                               .Run(&graph, passes::PassContext::FromRoots(graph, roots), &stats));
  } else if (precision == "fp32-strict") {
    passes::PassManager strict;
    strict.Add(passes::MakePrecisionPass(passes::Precision::kFp32Strict));
    TFHOST_RETURN_IF_ERROR(strict.Run(&graph, passes::PassContext::FromRoots(graph, roots), &stats));
  }
  out << "\nGraph passes (nodes before -> after):\n";
  for (const auto& row : stats) {
    out << "  " << row.pass << ": " << row.nodes_before << " -> " << row.nodes_after << "\n";
  }
  out << "Optimized op histogram (" << graph.num_nodes() << " nodes):\n";
  for (const auto& [op, count] : OpHistogram(graph)) out << "  " << op << ": " << count << "\n";
  // What each fused node does: fused_ops of the conv/matmul fusions, the
  // program of the element-wise fusion; identical ones counted together.
  std::map<std::string, int> fused;
  for (const auto& n : graph.nodes()) {
    const char* key = n.op == passes::kFusedElementwiseOp ? "ops" : "fused_ops";
    const tensorflow::AttrValue* attr = n.FindAttr(key);
    if (attr == nullptr || !attr->has_list()) continue;
    std::string line = n.op + " [";
    for (int i = 0; i < attr->list().s_size(); ++i) line += (i ? ", " : "") + attr->list().s(i);
    ++fused[line + "]"];
  }
  if (!fused.empty()) {
    out << "Fused nodes (op [fused ops]: count):\n";
    for (const auto& [line, count] : fused) out << "  " << line << ": " << count << "\n";
  }
  // Where the optimized graph's nodes run (backends/placement.h): per
  // backend, its node count and ops; copies where memory spaces meet.
  const auto& registry = backends::BackendRegistry::Global();
  TFHOST_ASSIGN_OR_RETURN(backends::PlacementSummary placement,
                          backends::PlaceGraph(&graph, registry, model.session().options().kernels));
  out << "Placement (" << placement.ToString() << "):\n";
  std::map<std::string, std::map<std::string, int>> ops_by_backend;
  for (const auto& n : graph.nodes()) {
    if (!n.backend.empty()) ++ops_by_backend[n.backend][n.op];
  }
  for (const backends::Backend* b : registry.backends()) {
    auto it = ops_by_backend.find(b->name());
    if (it == ops_by_backend.end()) continue;
    out << "  " << b->name() << " (" << b->memory_space().ToString() << ", priority " << b->priority() << "):";
    for (const auto& [op, count] : it->second) out << " " << op << " " << count;
    out << "\n";
  }
  if (precision == "bf16") {
    int marked = 0, stored = 0;
    for (const auto& n : graph.nodes()) {
      marked += n.FindAttr(ir::kPrecisionAttr) != nullptr;
      stored += n.FindAttr(ir::kOutputDtypeAttr) != nullptr;
    }
    out << "bf16: " << marked << " nodes compute in bf16, " << stored << " store their output in bf16"
        << (backends::BackendRegistry::Global().HostHasNativeBf16() ? "" : " (this CPU has no native bf16: all float32 at run time)") << "\n";
  } else if (precision == "fp32-strict") {
    int strict = 0;
    for (const auto& n : graph.nodes()) strict += n.FindAttr(ir::kStrictFp32Attr) != nullptr;
    out << "fp32-strict: " << strict << " float32 products keep full float32 operands (no TF32 on a GPU)\n";
  }
  return OkStatus();
}

int InspectCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::string path, tags = "serve";
  std::string precision = "fp32";
  bool json = false, check = false, optimized = false;
  FlagParser flags("tfhost inspect PATH [--json] [--tag T] [--check] [--optimized [--precision P]]",
                   "Shows a model's format, tag sets, signatures (inputs and outputs with tensor names,\n"
                   "dtypes and shapes), the op histogram of its graph, its variables, and per signature\n"
                   "the ops on its path that tfhost has no kernel for.");
  flags.AddPositional("PATH", &path, "SavedModel dir, TF Serving base path, .pb/.pbtxt GraphDef, model.json, .tflite or .onnx");
  flags.AddBool("json", &json, "print JSON instead of text");
  flags.AddString("tag", &tags, "T", "SavedModel tag set to load, comma-separated (default: serve)");
  flags.AddBool("check", &check, "exit 1 when any signature needs an op tfhost lacks");
  flags.AddBool("optimized", &optimized,
                "also show the graph after the passes: node counts per pass, op histogram, fused ops (text)");
  AddPrecisionFlag(flags, &precision);
  if (int code = ParseOrExit(flags, args, "inspect", out, err); code >= 0) return code;
  if (Status st = CheckPrecisionFlag(precision); !st.ok()) return ReportUsage(err, "inspect", st.message());

  // The model as written; --optimized adds the view after the passes.
  CliLoad load;
  load.tags = tags;
  load.intra_op_threads = 1;
  load.optimize_graph = false;
  // The passes see the weights as the served graph has them: frozen into
  // constants where the loader freezes them (variable_freezing.h).
  load.freeze_variables = optimized;
  auto model = LoadModelForCli(path, load);
  if (!model.ok()) {
    // A missing kernel fails the load; name every missing op, per signature,
    // rather than only the first one the loader met.
    auto missing = MissingOpsOfUnloadableModel(path, tags);
    if (missing && AnyMissing(*missing)) {
      if (json) {
        rapidjson::StringBuffer buffer;
        rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buffer);
        w.SetIndent(' ', 2);
        w.StartObject();
        w.Key("path");
        w.String(path.c_str());
        w.Key("load_error");
        w.String(model.status().message().c_str());
        WriteMissing(w, *missing);
        w.EndObject();
        out << std::string(buffer.GetString(), buffer.GetSize()) << "\n";
      } else {
        out << "Model: " << path << "\n";
        PrintMissing(*missing, out);
      }
    }
    return ReportFailure(err, "inspect", model.status());
  }
  const MissingOps missing = MissingOpsOfModel(**model);
  if (json) {
    out << ToJson(**model, missing) << "\n";
  } else {
    PrintText(**model, tags, missing, out);
    if (optimized) {
      Status st = PrintPassStats(**model, precision, out);
      if (!st.ok()) return ReportFailure(err, "inspect", st);
    }
  }
  if (check && AnyMissing(missing)) {
    err << "tfhost inspect: some signatures need ops tfhost does not support\n";
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace tfhost::cli
