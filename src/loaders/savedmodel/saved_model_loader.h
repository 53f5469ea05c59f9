// Loads a SavedModel directory (TF1 and TF2) into a runtime::Model:
// MetaGraph chosen by tag set, all SignatureDefs, variables restored from the
// tensor bundle, init ops run with asset paths fed, functions inlined.
#pragma once

#include <memory>
#include <string>

#include "loaders/model_loader.h"

namespace tfhost::loaders {

// `export_dir` contains saved_model.pb or saved_model.pbtxt.
StatusOr<std::unique_ptr<runtime::Model>> LoadSavedModel(const std::string& export_dir,
                                                         const LoadOptions& options);

}  // namespace tfhost::loaders
