#include "serving/model_manager/model_config.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace tfhost::serving {

namespace fs = std::filesystem;

namespace {

// Collects the first parse error with its position (the parser's default
// collector logs to stderr, which a server must not rely on).
class FirstErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column, const std::string& message) override {
    if (!has_error_) {
      has_error_ = true;
      // The parser counts from 0.
      line_ = line + 1;
      column_ = column + 1;
      message_ = message;
    }
  }
  void AddWarning(int, google::protobuf::io::ColumnNumber, const std::string&) override {}

  bool has_error_ = false;
  int line_ = 0;
  int column_ = 0;
  std::string message_;
};

constexpr uintmax_t kMaxConfigBytes = 64u << 20;
constexpr int kMaxDirEntries = 100000;

bool ParseVersion(const std::string& name, int64_t* out) {
  if (name.empty() || name.size() > 19) return false;
  int64_t v = 0;
  for (char c : name) {
    if (c < '0' || c > '9') return false;
    int d = c - '0';
    if (v > (INT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

}  // namespace

StatusOr<ModelServerConfig> ParseModelServerConfig(const std::string& text, const std::string& source_name) {
  ModelServerConfig config;
  google::protobuf::TextFormat::Parser parser;
  FirstErrorCollector errors;
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(text, &config)) {
    if (errors.has_error_) {
      return InvalidArgument(source_name + ":" + std::to_string(errors.line_) + ":" + std::to_string(errors.column_) +
                             ": " + errors.message_ +
                             " (expected a tensorflow.serving.ModelServerConfig in protobuf text format)");
    }
    return InvalidArgument(source_name +
                           ": not a tensorflow.serving.ModelServerConfig in protobuf text format");
  }
  return config;
}

StatusOr<ModelServerConfig> ReadModelServerConfigFile(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return NotFound("model config file " + path + " does not exist or is not a file");
  uintmax_t size = fs::file_size(path, ec);
  if (ec) return NotFound("cannot stat model config file " + path + ": " + ec.message());
  if (size > kMaxConfigBytes) {
    return InvalidArgument("model config file " + path + " is " + std::to_string(size) +
                           " bytes; at most 64 MiB expected");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot open model config file " + path);
  std::ostringstream buf;
  buf << in.rdbuf();
  return ParseModelServerConfig(buf.str(), path);
}

Status ValidateModelServerConfig(const ModelServerConfig& config) {
  if (config.config_case() == ModelServerConfig::kCustomModelConfig) {
    return Unimplemented("ModelServerConfig.custom_model_config is not supported; use model_config_list");
  }
  std::set<std::string> names;
  const auto& list = config.model_config_list().config();
  for (int i = 0; i < list.size(); ++i) {
    const ModelConfig& m = list[i];
    std::string where = "model_config_list.config[" + std::to_string(i) + "]";
    if (m.name().empty()) return InvalidArgument(where + ": 'name' is empty; every model needs a name");
    where += " (model \"" + m.name() + "\")";
    if (!names.insert(m.name()).second) {
      return InvalidArgument(where + ": duplicate model name; names must be unique");
    }
    if (m.base_path().empty()) return InvalidArgument(where + ": 'base_path' is empty; expected the directory "
                                                      "holding numeric version subdirectories");
    if (!m.model_platform().empty() && m.model_platform() != "tensorflow" && m.model_platform() != "tflite" &&
        m.model_platform() != "onnx") {
      return InvalidArgument(where + ": model_platform \"" + m.model_platform() +
                             "\" is not supported; expected \"tensorflow\", \"tflite\" or \"onnx\"");
    }
    if (m.model_type() == tensorflow::serving::OTHER) {
      return InvalidArgument(where + ": model_type OTHER is not supported; expected TENSORFLOW or unset");
    }
    const ServableVersionPolicy& policy = m.model_version_policy();
    std::set<int64_t> specific;
    if (policy.policy_choice_case() == ServableVersionPolicy::kLatest) {
      if (policy.latest().num_versions() > 1000) {
        return InvalidArgument(where + ": model_version_policy.latest.num_versions " +
                               std::to_string(policy.latest().num_versions()) + " is too large; expected <= 1000");
      }
    } else if (policy.policy_choice_case() == ServableVersionPolicy::kSpecific) {
      if (policy.specific().versions().empty()) {
        return InvalidArgument(where + ": model_version_policy.specific lists no versions; expected at least one");
      }
      for (int64_t v : policy.specific().versions()) {
        if (v < 0) return InvalidArgument(where + ": model_version_policy.specific has negative version " +
                                          std::to_string(v));
        specific.insert(v);
      }
    }
    for (const auto& [label, version] : m.version_labels()) {
      if (label.empty()) return InvalidArgument(where + ": version_labels has an empty label");
      if (version < 0) {
        return InvalidArgument(where + ": version label \"" + label + "\" points at negative version " +
                               std::to_string(version));
      }
      if (!specific.empty() && !specific.count(version)) {
        return InvalidArgument(where + ": version label \"" + label + "\" points at version " +
                               std::to_string(version) + ", which the policy " + VersionPolicyString(policy) +
                               " does not serve");
      }
    }
  }
  return OkStatus();
}

ModelServerConfig SingleModelConfig(const std::string& model_name, const std::string& base_path) {
  ModelServerConfig config;
  ModelConfig* m = config.mutable_model_config_list()->add_config();
  m->set_name(model_name);
  m->set_base_path(base_path);
  m->set_model_platform("tensorflow");
  return config;
}

StatusOr<std::map<int64_t, std::string>> ListVersionDirectories(const std::string& base_path) {
  std::error_code ec;
  if (!fs::is_directory(base_path, ec)) {
    return NotFound("model base path " + base_path + " does not exist or is not a directory");
  }
  std::map<int64_t, std::string> out;
  fs::directory_iterator it(base_path, fs::directory_options::skip_permission_denied, ec);
  if (ec) return NotFound("cannot list model base path " + base_path + ": " + ec.message());
  int seen = 0;
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) return Unavailable("error listing model base path " + base_path + ": " + ec.message());
    if (++seen > kMaxDirEntries) break;
    int64_t version;
    std::string name = it->path().filename().string();
    if (!ParseVersion(name, &version)) continue;
    std::error_code ec2;
    if (!fs::is_directory(it->path(), ec2)) continue;  // follows symlinks
    // "0123" and "123" both parse to 123: the first in listing order wins,
    // deterministically by name.
    auto existing = out.find(version);
    if (existing == out.end() || it->path().string() < existing->second) out[version] = it->path().string();
  }
  return out;
}

std::vector<int64_t> SelectVersions(const ServableVersionPolicy& policy, const std::vector<int64_t>& available) {
  std::vector<int64_t> sorted = available;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  std::vector<int64_t> out;
  switch (policy.policy_choice_case()) {
    case ServableVersionPolicy::kAll:
      return sorted;
    case ServableVersionPolicy::kSpecific: {
      std::set<int64_t> wanted(policy.specific().versions().begin(), policy.specific().versions().end());
      for (int64_t v : sorted) {
        if (wanted.count(v)) out.push_back(v);
      }
      return out;
    }
    case ServableVersionPolicy::kLatest:
    default: {
      size_t n = policy.policy_choice_case() == ServableVersionPolicy::kLatest ? policy.latest().num_versions() : 1;
      if (n == 0) n = 1;
      size_t start = sorted.size() > n ? sorted.size() - n : 0;
      out.assign(sorted.begin() + start, sorted.end());
      return out;
    }
  }
}

std::string VersionPolicyString(const ServableVersionPolicy& policy) {
  switch (policy.policy_choice_case()) {
    case ServableVersionPolicy::kAll:
      return "all";
    case ServableVersionPolicy::kSpecific: {
      std::string s = "specific{";
      for (int i = 0; i < policy.specific().versions_size(); ++i) {
        s += (i ? "," : "") + std::to_string(policy.specific().versions(i));
      }
      return s + "}";
    }
    case ServableVersionPolicy::kLatest:
      return "latest{" + std::to_string(std::max<uint32_t>(1, policy.latest().num_versions())) + "}";
    default:
      return "latest{1}";
  }
}

}  // namespace tfhost::serving
