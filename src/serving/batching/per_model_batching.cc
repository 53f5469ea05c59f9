#include "serving/batching/per_model_batching.h"

#include <filesystem>

namespace tfhost::serving::batching {

namespace fs = std::filesystem;

std::string FindPerModelBatchingParams(const Servable& servable) {
  std::error_code ec;
  const fs::path version_dir(servable.path);
  const fs::path in_saved_model = version_dir / "assets.extra" / kPerModelBatchingParamsFile;
  if (fs::is_regular_file(in_saved_model, ec)) return in_saved_model.string();
  const fs::path beside_versions = version_dir.parent_path() / kPerModelBatchingParamsFile;
  if (fs::is_regular_file(beside_versions, ec)) return beside_versions.string();
  return "";
}

PerModelBatching::PerModelBatching(BatchingConfig global, ServingMetrics* metrics)
    : global_(std::move(global)), metrics_(metrics) {}

PerModelBatching::~PerModelBatching() = default;

StatusOr<std::shared_ptr<BatchingRunner>> PerModelBatching::RunnerForVersion(const Servable& servable) {
  const std::string path = FindPerModelBatchingParams(servable);
  if (path.empty()) return std::shared_ptr<BatchingRunner>();
  auto config = LoadBatchingParametersFile(path);
  if (!config.ok()) {
    return config.status().WithContext("per-model batching parameters of model \"" + servable.name + "\" version " +
                                       std::to_string(servable.version));
  }
  config->mode = global_.mode;
  config->target_latency_ms = global_.target_latency_ms;
  TFHOST_RETURN_IF_ERROR(ValidateBatchingConfig(*config, path));
  const auto key = std::make_pair(servable.name, config->DebugString());
  std::lock_guard lock(mu_);
  auto it = runners_.find(key);
  if (it != runners_.end()) return it->second;
  BatchingRunnerOptions options;
  options.config = *config;
  options.metrics = metrics_;
  auto runner = BatchingRunner::Create(std::move(options));
  if (!runner.ok()) return runner.status().WithContext(path);
  runners_.emplace(key, *runner);
  return *runner;
}

std::vector<BatchingRunner*> PerModelBatching::runners() const {
  std::lock_guard lock(mu_);
  std::vector<BatchingRunner*> out;
  for (const auto& [key, runner] : runners_) out.push_back(runner.get());
  return out;
}

}  // namespace tfhost::serving::batching
