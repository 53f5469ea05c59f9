// `tfhost inspect PATH [--json] [--tag T]`: what `saved_model_cli show --all`
// prints (format, tag sets, every signature with its tensors), plus the op
// histogram of the graph tfhost will run and the variables' count and size.
// GraphDef and TF.js models have no signatures of their own; the one
// synthesized from their placeholders and unconsumed outputs is shown. An
// output whose recorded shape has unknown rank shows what static shape
// inference found instead, marked "(inferred)" ("inferred_shape" in JSON).
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <algorithm>
#include <map>
#include <optional>

#include "cli/cli.h"
#include "cli/command_util.h"

namespace tfhost::cli {

namespace {

bool HasOwnSignatures(const runtime::ModelInfo& info) { return info.format.rfind("SavedModel", 0) == 0; }

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

void PrintText(runtime::Model& model, const std::string& tags, std::ostream& out) {
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

std::string ToJson(runtime::Model& model) {
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
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace

int InspectCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::string path, tags = "serve";
  bool json = false;
  FlagParser flags("tfhost inspect PATH [--json] [--tag T]",
                   "Shows a model's format, tag sets, signatures (inputs and outputs with tensor names,\n"
                   "dtypes and shapes), the op histogram of its graph, and its variables.");
  flags.AddPositional("PATH", &path, "SavedModel dir, TF Serving base path, .pb/.pbtxt GraphDef or model.json");
  flags.AddBool("json", &json, "print JSON instead of text");
  flags.AddString("tag", &tags, "T", "SavedModel tag set to load, comma-separated (default: serve)");
  if (int code = ParseOrExit(flags, args, "inspect", out, err); code >= 0) return code;

  auto model = LoadModelForCli(path, tags, 1);
  if (!model.ok()) return ReportFailure(err, "inspect", model.status());
  if (json) {
    out << ToJson(**model) << "\n";
  } else {
    PrintText(**model, tags, out);
  }
  return kExitOk;
}

}  // namespace tfhost::cli
