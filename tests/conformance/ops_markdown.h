// Renders docs/ops.md from the op registry: every op tfhost has a kernel for,
// with its inputs, outputs, the dtypes each type attr allows, and what checked
// it in the conformance suite (read from the committed case files and
// unchecked_ops.txt). The doc is generated, never edited by hand;
// ops_doc_test fails when it is stale, and
// `cmake --build <dir> --target update_ops_doc` rewrites it.
#pragma once

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include <rapidjson/document.h>

#include "ops/op_registry.h"

namespace tfhost::conformance {

inline std::string TypeName(int t) { return DTypeShortName(static_cast<DType>(t)); }

inline std::string ArgText(const tensorflow::OpDef::ArgDef& arg) {
  std::string type = !arg.type_attr().empty()       ? arg.type_attr()
                     : !arg.type_list_attr().empty() ? arg.type_list_attr()
                                                     : TypeName(arg.type());
  if (!arg.number_attr().empty()) type = arg.number_attr() + " × " + type;
  return "`" + arg.name() + ": " + type + "`";
}

// Which references check each op: the sources of its conformance cases, or
// why none can.
struct OpCoverage {
  // "TensorFlow" (cases/tf_*.json, computed by TensorFlow itself),
  // "TensorFlow.js" (the other case files' cases computed by TensorFlow.js),
  // "hand-derived" (cases there with their own "reference": values derived
  // from TensorFlow's documented semantics or another implementation).
  std::map<std::string, std::set<std::string>> sources;
  // unchecked_ops.txt: ops no reference can check, with the reason.
  std::map<std::string, std::string> unchecked;
};

inline StatusOr<OpCoverage> LoadOpCoverage(const std::filesystem::path& cases_dir,
                                           const std::filesystem::path& unchecked_file) {
  OpCoverage coverage;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(cases_dir, ec)) {
    if (entry.path().extension() != ".json") continue;
    std::ifstream in(entry.path());
    std::stringstream text;
    text << in.rdbuf();
    rapidjson::Document doc;
    doc.Parse(text.str().c_str());
    if (doc.HasParseError() || !doc.IsObject() || !doc.HasMember("cases") || !doc["cases"].IsArray()) {
      return InvalidArgument("conformance case file " + entry.path().string() + " does not parse");
    }
    const bool tensorflow = entry.path().filename().string().rfind("tf_", 0) == 0;
    for (const auto& c : doc["cases"].GetArray()) {
      const std::string source = tensorflow                 ? "TensorFlow"
                                 : c.HasMember("reference") ? "hand-derived"
                                                            : "TensorFlow.js";
      coverage.sources[c["op"].GetString()].insert(source);
    }
  }
  if (ec) return NotFound("conformance cases directory " + cases_dir.string() + ": " + ec.message());
  std::ifstream in(unchecked_file);
  if (!in) return NotFound("cannot read " + unchecked_file.string());
  for (std::string line; std::getline(in, line);) {
    if (line.empty() || line[0] == '#') continue;
    const size_t tab = line.find('\t');
    if (tab == std::string::npos) return InvalidArgument(unchecked_file.string() + ": no tab in line: " + line);
    coverage.unchecked[line.substr(0, tab)] = line.substr(tab + 1);
  }
  return coverage;
}

// The "Checked by" cell: the sources, strongest first, or why there are none.
inline std::string CheckedBy(const OpCoverage& coverage, const std::string& op) {
  std::string cell;
  auto it = coverage.sources.find(op);
  for (const char* source : {"TensorFlow", "TensorFlow.js", "hand-derived"}) {
    if (it != coverage.sources.end() && it->second.count(source)) cell += (cell.empty() ? "" : ", ") + std::string(source);
  }
  if (!cell.empty()) return cell;
  auto reason = coverage.unchecked.find(op);
  return reason == coverage.unchecked.end() ? "—" : "— (" + reason->second + ")";
}

inline std::string OpsMarkdown(const ops::OpRegistry& registry, const OpCoverage& coverage) {

  std::ostringstream md;
  const auto names = registry.OpNames();
  md << "# Supported ops\n\n"
     << "Generated from tfhost's op registry by `tests/conformance/ops_markdown.h`; do not edit.\n"
     << "Regenerate with `cmake --build <build dir> --target update_ops_doc` (the `ops_doc_test`\n"
     << "test fails while this page is stale). `tfhost inspect MODEL --check` tells whether a model\n"
     << "needs any op missing here.\n\n"
     << names.size() << " ops. Dtypes: the types each type attr allows (\"any\" = unrestricted);\n"
     << "arguments with a fixed type show it in place. Checked by: the references whose cases\n"
     << "`tests/conformance/op_conformance_test` replays on every kernel of the op (reference and\n"
     << "each fast-kernel backend): \"TensorFlow\" (computed by TensorFlow itself,\n"
     << "`tests/conformance/generator/tf/`), \"TensorFlow.js\" (its CPU kernels), \"hand-derived\"\n"
     << "(from TensorFlow's documented semantics), or \"—\" with the reason no case can check the op\n"
     << "(`tests/conformance/unchecked_ops.txt`).\n\n"
     << "| Op | Inputs | Outputs | Dtypes | Checked by |\n|---|---|---|---|---|\n";
  for (const auto& name : names) {
    const tensorflow::OpDef& def = registry.Find(name)->def;
    auto join_args = [](const auto& args) {
      std::string s;
      for (const auto& a : args) s += (s.empty() ? "" : ", ") + ArgText(a);
      return s.empty() ? std::string("—") : s;
    };
    std::string dtypes;
    for (const auto& attr : def.attr()) {
      if (attr.type() != "type" && attr.type() != "list(type)") continue;
      std::string allowed;
      for (int t : attr.allowed_values().list().type()) allowed += (allowed.empty() ? "" : ", ") + TypeName(t);
      dtypes += (dtypes.empty() ? "" : "; ") + std::string("`") + attr.name() + "`: " +
                (allowed.empty() ? std::string("any") : allowed);
    }
    md << "| " << name << " | " << join_args(def.input_arg()) << " | " << join_args(def.output_arg()) << " | "
       << (dtypes.empty() ? "—" : dtypes) << " | " << CheckedBy(coverage, name) << " |\n";
  }
  return md.str();
}

}  // namespace tfhost::conformance
