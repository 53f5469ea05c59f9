#include "ops/op_registry.h"
#include "ops/parsing/parse_example.h"

namespace tfhost::ops {

void RegisterParsingOps(OpRegistry& registry) {
  RegisterParseExampleOps(registry);  // ParseExample, ParseExampleV2, ParseSingleExample
  RegisterDecodeCsvOp(registry);
  RegisterDecodeRawOp(registry);
}

}  // namespace tfhost::ops
