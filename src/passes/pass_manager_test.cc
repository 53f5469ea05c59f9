#include "passes/pass_manager.h"

#include <gtest/gtest.h>

#include "passes/test_graph_util.h"

namespace tfhost::passes {
namespace {

// A loop body's shape: a list argument, an element read nobody uses (Keras
// keeps reading its input list after the projection was hoisted), and a
// stateful op whose output nobody reads either.
constexpr char kBody[] = R"(
node { name: "_arg_0" op: "Placeholder" attr { key: "dtype" value { type: DT_VARIANT } } }
node { name: "_arg_1" op: "Placeholder" attr { key: "dtype" value { type: DT_INT32 } } }
node { name: "shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { } int_val: -1 } } } }
node { name: "unread" op: "TensorListGetItem" input: "_arg_0" input: "_arg_1" input: "shape"
       attr { key: "element_dtype" value { type: DT_FLOAT } } }
node { name: "seed" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
       attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } } int_val: 2 } } } }
node { name: "draw" op: "RandomUniform" input: "seed" attr { key: "T" value { type: DT_INT32 } }
       attr { key: "dtype" value { type: DT_FLOAT } } }
node { name: "_ret" op: "IdentityN" input: "_arg_0" input: "_arg_1"
       attr { key: "T" value { list { type: DT_VARIANT type: DT_INT32 } } } }
)";

ir::Graph Build() { return testing::AsLoaded(std::string(kBody)); }

TEST(PassManagerTest, InAFunctionBodyAPureNodeNothingReadsIsDroppedButAStatefulOneStays) {
  ir::Graph graph = Build();
  PassContext ctx = PassContext::FromRoots(graph, {"_ret", "_arg_0", "_arg_1"});
  ctx.keep_unconsumed = false;
  ASSERT_TRUE(PassManager::Default().Run(&graph, ctx).ok());
  EXPECT_EQ(graph.FindNode("unread"), -1);  // reads a list, so no pass may rewrite it, but it may go
  EXPECT_NE(graph.FindNode("draw"), -1);    // stateful: runs for its effect
  EXPECT_NE(graph.FindNode("_arg_0"), -1);
}

TEST(PassManagerTest, InAModelsGraphANodeNothingReadsIsKeptForFetchingByName) {
  ir::Graph graph = Build();
  ASSERT_TRUE(PassManager::Default().Run(&graph, PassContext::FromRoots(graph, {"_ret"})).ok());
  EXPECT_NE(graph.FindNode("unread"), -1);
}

}  // namespace
}  // namespace tfhost::passes
