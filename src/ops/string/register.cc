#include "ops/op_registry.h"
#include "ops/string/string_ops.h"

namespace tfhost::ops {

void RegisterStringOps(OpRegistry& registry) {
  RegisterBasicStringOps(registry);
  RegisterRegexOps(registry);
  RegisterStringConversionOps(registry);
  // StringToHashBucketFast is not registered: it needs FarmHash's
  // Fingerprint64, which tfhost does not link yet.
}

}  // namespace tfhost::ops
