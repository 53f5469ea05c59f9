// TF Serving's model configuration: the ModelServerConfig text proto
// (--model_config_file), the single-model config built from --model_name /
// --model_base_path, validation, and version discovery (numeric
// subdirectories of a base path filtered by a ServableVersionPolicy).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "tensorflow_serving/config/model_server_config.pb.h"

namespace tfhost::serving {

using tensorflow::serving::ModelConfig;
using tensorflow::serving::ModelServerConfig;
using ServableVersionPolicy = tensorflow::serving::FileSystemStoragePathSourceConfig::ServableVersionPolicy;

// Parses text-format ModelServerConfig. `source_name` (usually the file
// path) prefixes errors, which give line:column and the parser's complaint,
// e.g. "models.config:3:5: Message type "tensorflow.serving.ModelConfig" has
// no field named "nme".". Does not validate; call ValidateModelServerConfig.
StatusOr<ModelServerConfig> ParseModelServerConfig(const std::string& text, const std::string& source_name);

// Reads and parses a config file (at most 64 MiB). NOT_FOUND if missing.
StatusOr<ModelServerConfig> ReadModelServerConfigFile(const std::string& path);

// Checks what TF Serving checks before loading anything: a
// model_config_list (custom_model_config is UNIMPLEMENTED), unique non-empty
// names, base_path present, model_platform "tensorflow" or empty (model_type
// TENSORFLOW or unspecified), latest.num_versions sane, specific.versions
// non-empty and non-negative, labels non-empty with non-negative versions and,
// for a `specific` policy, naming one of its versions. INVALID_ARGUMENT
// naming the model and field otherwise.
Status ValidateModelServerConfig(const ModelServerConfig& config);

// The config TF Serving builds from --model_name / --model_base_path
// (platform "tensorflow", default policy latest 1).
ModelServerConfig SingleModelConfig(const std::string& model_name, const std::string& base_path);

// Numeric children of `base_path` (directories or symlinks to directories
// whose names parse as a non-negative int64: "00000123" = 123), version ->
// full path. Other entries are ignored. NOT_FOUND if base_path is missing or
// not a directory. At most 100000 entries are examined.
StatusOr<std::map<int64_t, std::string>> ListVersionDirectories(const std::string& base_path);

// The versions a policy aspires to among `available` (sorted ascending on
// return): latest N (unset/0 = 1) picks the N largest, all picks every one,
// specific picks the listed ones that exist.
std::vector<int64_t> SelectVersions(const ServableVersionPolicy& policy, const std::vector<int64_t>& available);

// "latest{1}", "all", "specific{7,9}" for logs and errors.
std::string VersionPolicyString(const ServableVersionPolicy& policy);

}  // namespace tfhost::serving
