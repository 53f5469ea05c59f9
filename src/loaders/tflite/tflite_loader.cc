#include "loaders/tflite/tflite_loader.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "loaders/graph_to_session.h"
#include "loaders/graphdef/graph_signature.h"
#include "loaders/tflite/tflite_file.h"
#include "loaders/tflite/tflite_functions.h"
#include "loaders/tflite/tflite_graph_builder.h"
#include "loaders/tflite/tflite_signatures.h"

namespace tfhost::loaders {

namespace {

namespace fs = std::filesystem;
using tflite::GraphBuilder;

StatusOr<runtime::TensorSpec> MakeSpec(GraphBuilder& b, const tflite::SignatureTensor& pending,
                                       const std::string& where, bool output) {
  if (pending.tensor < 0 || pending.tensor >= b.num_tensors()) {
    return InvalidArgument(where + " '" + pending.key + "' names tensor " + std::to_string(pending.tensor) +
                           "; subgraph " + std::to_string(b.subgraph_index()) + " has " +
                           std::to_string(b.num_tensors()) + " tensors");
  }
  runtime::TensorSpec spec;
  spec.key = pending.key;
  auto name = output ? b.SignatureOutputName(pending.tensor) : b.TensorName(pending.tensor);
  if (!name.ok()) return name.status().WithContext(where + " '" + pending.key + "'");
  spec.tensor_name = *name;
  const auto& t = b.tensor(pending.tensor);
  spec.dtype = tflite::BoundaryDTypeOf(t.type());
  spec.shape = ir::PartialShape::Known(tflite::SignatureDims(t));
  return spec;
}

std::string ModelNameOf(const std::string& path) {
  fs::path p(path);
  std::error_code ec;
  if (p.filename() == kTfliteModelFileName && p.has_parent_path()) {
    return fs::absolute(p, ec).parent_path().filename().string();
  }
  return p.stem().string();
}

// Builds CALL_ONCE's init subgraphs into `graph` (an init subgraph may ask
// for more) and returns a NoOp that runs them all, or "" when none writes
// anything.
StatusOr<std::string> AddInitSubgraphs(const tflite::TfliteFile& file, tflite::SubgraphLibrary& library,
                                       ir::Graph& graph) {
  std::vector<int> last_writes;
  for (size_t i = 0; i < library.init_subgraphs().size(); ++i) {
    const int index = library.init_subgraphs()[i];
    GraphBuilder b(file, index, "init_" + std::to_string(index) + "/", &graph, &library);
    TFHOST_RETURN_IF_ERROR(b.Build());
    if (b.last_stateful() >= 0) last_writes.push_back(b.last_stateful());
  }
  if (last_writes.empty()) return std::string();
  ir::Node init;
  init.name = graph.UniqueName("tflite_call_once");
  init.op = "NoOp";
  init.control_inputs = std::move(last_writes);
  const std::string name = init.name;
  TFHOST_RETURN_IF_ERROR(graph.AddNode(std::move(init)).status());
  return name;
}

}  // namespace

bool IsTfliteModelFile(const std::string& path) { return tflite::IsTfliteFile(path); }

StatusOr<std::unique_ptr<runtime::Model>> LoadTfliteModel(const std::string& path, const LoadOptions& options) {
  TFHOST_ASSIGN_OR_RETURN(auto file, tflite::ReadTfliteFile(path));
  TFHOST_ASSIGN_OR_RETURN(std::vector<tflite::TfliteSignature> pending, tflite::ReadTfliteSignatures(*file));

  // The subgraphs signatures run are built into the graph; those that
  // control flow calls become library functions on the way, and CALL_ONCE's
  // init subgraphs are built after them, to run once at load.
  ir::Graph graph;
  tflite::SubgraphLibrary library(*file, &graph);
  std::map<int, std::unique_ptr<GraphBuilder>> builders;
  for (const auto& sig : pending) {
    if (builders.count(sig.subgraph)) continue;
    std::string prefix = sig.subgraph == 0 ? "" : "subgraph_" + std::to_string(sig.subgraph) + "/";
    auto builder = std::make_unique<GraphBuilder>(*file, sig.subgraph, prefix, &graph, &library);
    TFHOST_RETURN_IF_ERROR(builder->Build());
    builders[sig.subgraph] = std::move(builder);
  }
  TFHOST_ASSIGN_OR_RETURN(std::string init_op, AddInitSubgraphs(*file, library, graph));

  std::map<std::string, runtime::Signature> signatures;
  std::vector<std::string> roots;
  for (const auto& p : pending) {
    GraphBuilder& b = *builders[p.subgraph];
    runtime::Signature sig;
    sig.name = p.name;
    sig.method_name = p.method_name;
    const std::string where = path + ": signature '" + p.name + "'";
    for (auto [from, to, what] :
         {std::tuple{&p.inputs, &sig.inputs, " input"}, std::tuple{&p.outputs, &sig.outputs, " output"}}) {
      std::set<std::string> keys;
      for (const auto& spec : *from) {
        if (!keys.insert(spec.key).second) return InvalidArgument(where + what + " '" + spec.key + "' is listed twice");
        TFHOST_ASSIGN_OR_RETURN(runtime::TensorSpec s, MakeSpec(b, spec, where + what, to == &sig.outputs));
        auto parsed = ir::ParseTensorName(s.tensor_name);
        if (parsed.ok()) roots.push_back(parsed->node);
        to->push_back(std::move(s));
      }
      std::sort(to->begin(), to->end(), [](const auto& a, const auto& c) { return a.key < c.key; });
    }
    signatures[p.name] = std::move(sig);
  }
  if (!init_op.empty()) roots.push_back(init_op);

  runtime::ModelInfo info;
  info.path = path;
  info.format = "TFLite";
  info.metadata["schema_version"] = std::to_string(file->model->version());
  info.metadata["signatures"] = pending.front().source;
  if (file->model->description() != nullptr) info.metadata["description"] = file->model->description()->str();
  if (const auto* metadata = file->model->metadata()) {
    for (const auto* m : *metadata) {
      if (m->name() == nullptr) continue;
      auto data = tflite::BufferData(*file, m->buffer());
      // Small text entries (min_runtime_version, CONVERSION_METADATA is binary).
      if (data.ok() && data->size() <= 64 &&
          std::all_of(data->begin(), data->end(), [](char c) { return c == 0 || (c >= 32 && c < 127); })) {
        info.metadata[m->name()->str()] = std::string(data->data(), strnlen(data->data(), data->size()));
      }
    }
  }
  // Weights are the buffers that hold data (buffer 0 is the empty sentinel).
  if (const auto* buffers = file->model->buffers()) {
    for (flatbuffers::uoffset_t i = 1; i < buffers->size(); ++i) {
      auto data = tflite::BufferData(*file, i);
      if (!data.ok() || data->empty()) continue;
      ++info.variable_count;
      info.variable_bytes += static_cast<int64_t>(data->size());
    }
  }
  // The flatbuffer is not needed once its constants are copied out.
  file.reset();

  const std::string model_name = ModelNameOf(path);
  TFHOST_ASSIGN_OR_RETURN(auto session, GraphToSession(std::move(graph), nullptr, options, model_name, roots));
  for (const auto& [name, sig] : signatures) {
    for (const auto* specs : {&sig.inputs, &sig.outputs}) {
      for (const auto& spec : *specs) {
        auto resolved = session->graph().ResolveTensor(spec.tensor_name);
        if (!resolved.ok()) {
          return resolved.status().WithContext("model '" + model_name + "': signature '" + name + "' key '" +
                                               spec.key + "'");
        }
      }
    }
  }
  if (!init_op.empty()) {
    // CALL_ONCE runs its subgraph before the first inference; at load is
    // before any.
    auto ran = session->Run({}, {}, {init_op});
    if (!ran.ok()) {
      return ran.status().WithContext("model '" + model_name + "': running the CALL_ONCE init subgraphs");
    }
  }
  return std::make_unique<runtime::Model>(std::move(session), std::move(signatures), std::move(info));
}

}  // namespace tfhost::loaders
