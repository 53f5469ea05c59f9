#include "loaders/graphdef/graphdef_loader.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <filesystem>

#include "loaders/graph_to_session.h"
#include "loaders/graphdef/graph_signature.h"

namespace tfhost::loaders {

namespace {

namespace fs = std::filesystem;

// Keeps the text parser's first error (with line and column) instead of
// letting protobuf print it to stderr.
class FirstErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column, const std::string& message) override {
    if (error_.empty()) {
      error_ = "line " + std::to_string(line + 1) + ", column " + std::to_string(column + 1) + ": " + message;
    }
  }
  const std::string& error() const { return error_; }

 private:
  std::string error_;
};

Status ParseText(const std::string& bytes, const std::string& path, tensorflow::GraphDef* graph_def) {
  FirstErrorCollector errors;
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(bytes, graph_def)) {
    return InvalidArgument("cannot parse " + path + " as a text-format GraphDef: " +
                           (errors.error().empty() ? "malformed text" : errors.error()));
  }
  return OkStatus();
}

Status ParseBinary(const std::string& bytes, const std::string& path, tensorflow::GraphDef* graph_def) {
  if (!graph_def->ParseFromString(bytes)) {
    return InvalidArgument("cannot parse " + path + " as a binary GraphDef (" + std::to_string(bytes.size()) +
                           " bytes): the file is corrupt, truncated, or not a GraphDef");
  }
  return OkStatus();
}

// Const count and bytes, for ModelInfo: a frozen graph's weights are its
// constants. Bytes come from the declared shapes, without decoding values.
void CountConstants(const tensorflow::GraphDef& graph_def, runtime::ModelInfo* info) {
  for (const auto& node : graph_def.node()) {
    if (node.op() != "Const") continue;
    auto it = node.attr().find("value");
    if (it == node.attr().end() || !it->second.has_tensor()) continue;
    const auto& tensor = it->second.tensor();
    int64_t elements = 1;
    for (const auto& d : tensor.tensor_shape().dim()) {
      if (d.size() < 0 || (d.size() > 0 && elements > (int64_t{1} << 40) / d.size())) {
        elements = 0;
        break;
      }
      elements *= d.size();
    }
    size_t element_size = DTypeSize(BaseType(tensor.dtype()));
    int64_t bytes = static_cast<int64_t>(element_size) * elements;
    if (element_size == 0) {
      bytes = 0;
      for (const auto& s : tensor.string_val()) bytes += static_cast<int64_t>(s.size());
    }
    ++info->variable_count;
    info->variable_bytes += bytes;
  }
}

}  // namespace

StatusOr<std::unique_ptr<runtime::Model>> LoadGraphDefModel(const std::string& path,
                                                            const LoadOptions& options) {
  TFHOST_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(path));
  tensorflow::GraphDef graph_def;
  const std::string ext = fs::path(path).extension().string();
  if (ext == ".pbtxt") {
    TFHOST_RETURN_IF_ERROR(ParseText(bytes, path, &graph_def));
  } else if (ext == ".pb") {
    TFHOST_RETURN_IF_ERROR(ParseBinary(bytes, path, &graph_def));
  } else {
    // Other names (".graphdef"): binary first, then text.
    if (!ParseBinary(bytes, path, &graph_def).ok()) {
      graph_def.Clear();
      Status text = ParseText(bytes, path, &graph_def);
      if (!text.ok()) {
        return InvalidArgument("cannot parse " + path + " as a GraphDef, neither binary nor text (" +
                               text.message() + ")");
      }
    }
  }
  // The file's bytes are not needed once parsed (a frozen graph's weights
  // would otherwise be held three times: file, GraphDef, ir::Graph).
  std::string().swap(bytes);
  if (graph_def.node_size() == 0) {
    return InvalidArgument(path + " holds a GraphDef with no nodes (or is not a GraphDef at all)");
  }

  GraphModelParts parts;
  parts.model_name = fs::path(path).stem().string();
  parts.producer = graph_def.versions().producer();
  parts.info.path = path;
  parts.info.format = "GraphDef";
  if (graph_def.has_versions()) {
    parts.info.metadata["producer"] = std::to_string(graph_def.versions().producer());
  }
  CountConstants(graph_def, &parts.info);
  {
    auto graph = ir::Graph::FromGraphDef(graph_def);
    if (!graph.ok()) return graph.status().WithContext(path);
    parts.graph = std::move(*graph);
  }
  // The ir::Graph holds its own copy; the GraphDef goes before the session
  // decodes the constants.
  tensorflow::GraphDef().Swap(&graph_def);
  return FinishGraphModel(std::move(parts), options);
}

}  // namespace tfhost::loaders
