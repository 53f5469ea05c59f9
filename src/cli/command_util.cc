#include "cli/command_util.h"

#include <glob.h>

#include "loaders/model_loader.h"

namespace tfhost::cli {

std::vector<std::string> SplitTags(const std::string& tags) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= tags.size()) {
    size_t comma = tags.find(',', start);
    std::string item = tags.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

StatusOr<std::unique_ptr<runtime::Model>> LoadModelForCli(const std::string& path, const std::string& tags,
                                                          int intra_op_threads) {
  loaders::LoadOptions options;
  options.tags = SplitTags(tags);
  options.session.intra_op_threads = intra_op_threads;
  return loaders::LoadModel(path, options);
}

void AddModelPathFlag(FlagParser& flags, std::string* path) {
  flags.AddPositional("PATH", path, "SavedModel dir, TF Serving base path, .pb/.pbtxt GraphDef or model.json");
}

void AddSignatureAndTagFlags(FlagParser& flags, std::string* signature, std::string* tags) {
  flags.AddString("signature", signature, "S", "signature to run (default: serving_default)");
  flags.AddString("tag", tags, "T", "SavedModel tag set, comma-separated (default: serve)");
}

int ReportFailure(std::ostream& err, const std::string& command, const Status& status) {
  err << "tfhost " << command << ": " << status.message() << "\n";
  return kExitFailure;
}

int ReportUsage(std::ostream& err, const std::string& command, const std::string& message) {
  err << "tfhost " << command << ": " << message << "\n"
      << "Run 'tfhost " << command << " --help' for usage.\n";
  return kExitUsage;
}

int ParseOrExit(FlagParser& flags, const std::vector<std::string>& args, const std::string& command,
                std::ostream& out, std::ostream& err) {
  Status st = flags.Parse(args);
  if (!st.ok()) return ReportUsage(err, command, st.message());
  if (flags.help_requested()) {
    out << flags.Help();
    return kExitOk;
  }
  return -1;
}

std::string FileNameForTensor(const std::string& name) {
  std::string out = name;
  for (char& c : out) {
    if (c == ':' || c == '/' || c == '\\') c = '_';
  }
  if (out.empty() || out == "." || out == "..") out = "_" + out;
  return out;
}

StatusOr<std::vector<std::string>> ExpandFileArguments(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const std::string& a : args) {
    if (a.find_first_of("*?[") == std::string::npos) {
      out.push_back(a);
      continue;
    }
    glob_t g;
    int rc = ::glob(a.c_str(), 0, nullptr, &g);
    if (rc != 0) {
      globfree(&g);
      if (rc == GLOB_NOMATCH) return NotFound("no file matches '" + a + "'");
      return InvalidArgument("cannot expand the file pattern '" + a + "'");
    }
    for (size_t i = 0; i < g.gl_pathc; ++i) out.push_back(g.gl_pathv[i]);
    globfree(&g);
  }
  return out;
}

}  // namespace tfhost::cli
