// Loads a frozen GraphDef (binary .pb or text .pbtxt) into a runtime::Model.
// A GraphDef has no signatures: the model gets one synthesized signature,
// "serving_default", whose inputs are the Placeholders and whose outputs are
// the tensors no node consumes; callers may also feed/fetch tensor names.
#pragma once

#include <memory>
#include <string>

#include "loaders/model_loader.h"

namespace tfhost::loaders {

StatusOr<std::unique_ptr<runtime::Model>> LoadGraphDefModel(const std::string& path,
                                                            const LoadOptions& options);

}  // namespace tfhost::loaders
