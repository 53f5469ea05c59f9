// PerModelBatching: `tfhost serve --enable_per_model_batching_parameters`.
// A model may bring its own BatchingParameters (protobuf text, the format of
// --batching_parameters_file) in a file named batching_params.pbtxt, looked
// for when each version loads:
//
//   1. <version dir>/assets.extra/batching_params.pbtxt  (TF Serving's place,
//      inside the SavedModel; per version)
//   2. <base path>/batching_params.pbtxt                  (beside the version
//      folders; for every version of the model)
//
// The first found replaces the global parameters for that model entirely:
// fields it omits take TF Serving's defaults, not the global file's values
// (as TF Serving reads it). The batching mode and target latency stay those
// of the flags. The model then gets a batching runner (its own batch
// threads, num_batch_threads of its file) that serves all its requests; the
// parameters of the version loaded last apply to the whole model. A model
// without a file keeps the global runner. A file that does not parse or
// validate fails that version's load with an error naming the file and field.
//
// Thread-safety: RunnerForVersion is called from the model manager's load
// threads, runners() from anywhere; both lock.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/status.h"
#include "serving/batching/batching_parameters.h"
#include "serving/batching/batching_runner.h"
#include "serving/metrics/metrics_registry.h"
#include "serving/servable/servable.h"

namespace tfhost::serving::batching {

inline constexpr char kPerModelBatchingParamsFile[] = "batching_params.pbtxt";

// The parameters file that applies to `servable`, "" when it has none.
std::string FindPerModelBatchingParams(const Servable& servable);

class PerModelBatching {
 public:
  // `global`: the parameters of the flags (mode and target latency are
  // taken from it); `metrics` may be null and must outlive this.
  PerModelBatching(BatchingConfig global, ServingMetrics* metrics);
  ~PerModelBatching();

  // At each version's load: the runner for the model when the version has a
  // parameters file, null when it has none (the global runner applies).
  // Versions of a model with the same parameters share one runner.
  StatusOr<std::shared_ptr<BatchingRunner>> RunnerForVersion(const Servable& servable);

  // Every runner made so far (for a graceful stop).
  std::vector<BatchingRunner*> runners() const;

 private:
  const BatchingConfig global_;
  ServingMetrics* metrics_;
  mutable std::mutex mu_;
  // By model name and the parameters' DebugString.
  std::map<std::pair<std::string, std::string>, std::shared_ptr<BatchingRunner>> runners_;
};

}  // namespace tfhost::serving::batching
