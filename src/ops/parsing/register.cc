#include "ops/op_registry.h"

namespace tfhost::ops {

void RegisterParsingOps(OpRegistry& registry) {
}

}  // namespace tfhost::ops
