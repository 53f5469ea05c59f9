// docs/ops.md must be what the registry and the conformance suite's case
// files render (ops_markdown.h). With
// TFHOST_UPDATE_OPS_DOC=1 the test rewrites the page instead (the
// update_ops_doc build target does that).
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "ops_markdown.h"

namespace tfhost {
namespace {

const conformance::OpCoverage& Coverage() {
  static const conformance::OpCoverage* coverage = [] {
    auto loaded = conformance::LoadOpCoverage(TFHOST_CONFORMANCE_CASES, TFHOST_UNCHECKED_OPS);
    EXPECT_TRUE(loaded.ok()) << loaded.status().ToString();
    return new conformance::OpCoverage(loaded.ok() ? *loaded : conformance::OpCoverage{});
  }();
  return *coverage;
}

TEST(OpsDocTest, DocsOpsMdIsCurrent) {
  const std::string want = conformance::OpsMarkdown(ops::OpRegistry::Global(), Coverage());
  const char* update = std::getenv("TFHOST_UPDATE_OPS_DOC");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(TFHOST_OPS_DOC) << want;
  }
  std::ifstream in(TFHOST_OPS_DOC);
  std::stringstream have;
  have << in.rdbuf();
  EXPECT_TRUE(have.str() == want) << TFHOST_OPS_DOC << " is stale: run "
                                  << "`cmake --build <build dir> --target update_ops_doc` and commit the result";
}

TEST(OpsDocTest, EveryRegisteredOpHasARow) {
  const std::string md = conformance::OpsMarkdown(ops::OpRegistry::Global(), Coverage());
  for (const auto& name : ops::OpRegistry::Global().OpNames()) {
    EXPECT_NE(md.find("\n| " + name + " |"), std::string::npos) << name;
  }
}

// unchecked_ops.txt lists only registered ops that no TensorFlow case
// checks: an op that gains cases (or leaves the registry) leaves the list.
TEST(OpsDocTest, UncheckedOpsAreRegisteredAndUnchecked) {
  for (const auto& [op, reason] : Coverage().unchecked) {
    EXPECT_NE(ops::OpRegistry::Global().Find(op), nullptr) << op << " is listed in unchecked_ops.txt but not registered";
    auto it = Coverage().sources.find(op);
    EXPECT_TRUE(it == Coverage().sources.end() || !it->second.count("TensorFlow"))
        << op << " has TensorFlow cases; remove it from unchecked_ops.txt";
    EXPECT_FALSE(reason.empty()) << op;
  }
}

}  // namespace
}  // namespace tfhost
