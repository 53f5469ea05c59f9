#include "ops/op_registry.h"

#include <set>

#include <gtest/gtest.h>

namespace tfhost::ops {
namespace {

TEST(OpRegistryTest, EveryRegisteredOpSchemaHasUniqueArgNames) {
  const auto& registry = OpRegistry::Global();
  for (const auto& name : registry.OpNames()) {
    const auto* reg = registry.Find(name);
    std::set<std::string> seen;
    for (const auto& a : reg->def.output_arg()) EXPECT_TRUE(seen.insert(a.name()).second) << name;
    EXPECT_TRUE(reg->kernel != nullptr) << name;
  }
}

}  // namespace
}  // namespace tfhost::ops
