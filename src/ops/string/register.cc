#include "ops/op_registry.h"
#include "ops/string/string_ops.h"

namespace tfhost::ops {

void RegisterStringOps(OpRegistry& registry) {
  RegisterBasicStringOps(registry);
  RegisterRegexOps(registry);
  RegisterStringConversionOps(registry);
  RegisterStringHashOps(registry);
  RegisterStringNGramsOp(registry);
  RegisterBase64StripSplitOps(registry);
  RegisterPrintOps(registry);
  RegisterUnicodeOps(registry);
  RegisterUnicodeScriptOp(registry);
  RegisterUnsortedSegmentJoinOp(registry);
}

}  // namespace tfhost::ops
