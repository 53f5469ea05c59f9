#include "ops/op_registry.h"
#include "ops/text/text_ops.h"

namespace tfhost::ops {

void RegisterTextOps(OpRegistry& registry) {
  RegisterTextNormalizeOps(registry);
  RegisterRegexSplitOp(registry);
  RegisterWordpieceOp(registry);
  RegisterWhitespaceTokenizerOp(registry);
  RegisterUnicodeScriptTokenizerOp(registry);
  RegisterFastWordpieceOps(registry);
}

}  // namespace tfhost::ops
