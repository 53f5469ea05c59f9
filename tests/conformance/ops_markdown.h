// Renders docs/ops.md from the op registry: every op tfhost has a kernel for,
// with its inputs, outputs and the dtypes each type attr allows. The doc is
// generated, never edited by hand; ops_doc_test fails when it is stale, and
// `cmake --build <dir> --target update_ops_doc` rewrites it.
#pragma once

#include <sstream>
#include <string>

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

inline std::string OpsMarkdown(const ops::OpRegistry& registry) {
  std::ostringstream md;
  const auto names = registry.OpNames();
  md << "# Supported ops\n\n"
     << "Generated from tfhost's op registry by `tests/conformance/ops_markdown.h`; do not edit.\n"
     << "Regenerate with `cmake --build <build dir> --target update_ops_doc` (the `ops_doc_test`\n"
     << "test fails while this page is stale). `tfhost inspect MODEL --check` tells whether a model\n"
     << "needs any op missing here.\n\n"
     << names.size() << " ops. Dtypes: the types each type attr allows (\"any\" = unrestricted);\n"
     << "arguments with a fixed type show it in place.\n\n"
     << "| Op | Inputs | Outputs | Dtypes |\n|---|---|---|---|\n";
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
       << (dtypes.empty() ? "—" : dtypes) << " |\n";
  }
  return md.str();
}

}  // namespace tfhost::conformance
