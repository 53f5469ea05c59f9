// docs/ops.md must be what the registry renders (ops_markdown.h). With
// TFHOST_UPDATE_OPS_DOC=1 the test rewrites the page instead (the
// update_ops_doc build target does that).
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "ops_markdown.h"

namespace tfhost {
namespace {

TEST(OpsDocTest, DocsOpsMdIsCurrent) {
  const std::string want = conformance::OpsMarkdown(ops::OpRegistry::Global());
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
  const std::string md = conformance::OpsMarkdown(ops::OpRegistry::Global());
  for (const auto& name : ops::OpRegistry::Global().OpNames()) {
    EXPECT_NE(md.find("\n| " + name + " |"), std::string::npos) << name;
  }
}

}  // namespace
}  // namespace tfhost
