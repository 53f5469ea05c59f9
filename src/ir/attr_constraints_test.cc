// Attr values an OpDef forbids are refused when the graph is typed, naming
// the node, the attr, the value and what the schema allows.
#include "ir/attr_constraints.h"

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include "base/test_status.h"
#include "ir/op_def_builder.h"

namespace tfhost::ir {
namespace {

tensorflow::OpDef Schema(const OpDefBuilder& builder) {
  auto def = builder.Finalize();
  EXPECT_TRUE(def.ok()) << def.status().ToString();
  return *def;
}

Node NodeWith(const std::string& op, const std::string& attrs_pbtxt) {
  tensorflow::NodeDef def;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString("name: 'n' op: '" + op + "' " + attrs_pbtxt, &def));
  tensorflow::GraphDef g;
  *g.add_node() = def;
  auto graph = Graph::FromGraphDef(g);
  EXPECT_TRUE(graph.ok()) << graph.status().ToString();
  return graph->node(0);
}

const tensorflow::OpDef& ComplexSchema() {
  static const tensorflow::OpDef def = Schema(OpDefBuilder("Complex").Input("real: T").Input("imag: T")
                                                  .Output("out: Tout").Attr("T: {float, double} = DT_FLOAT")
                                                  .Attr("Tout: {complex64, complex128} = DT_COMPLEX64"));
  return def;
}

TEST(AttrConstraintsTest, ATypeOutsideItsAllowedListIsRefusedNamingBoth) {
  // Found by fuzzing: Complex with Tout = float wrote complex elements past a float tensor.
  TFHOST_EXPECT_ERROR(CheckAttrConstraints(ComplexSchema(), NodeWith("Complex", "attr { key: 'Tout' value { type: DT_FLOAT } }")),
                      StatusCode::kInvalidArgument,
                      "node 'n' (Complex): attr 'Tout' is DT_FLOAT, which is not one of its allowed types "
                      "(DT_COMPLEX64, DT_COMPLEX128)");
  EXPECT_TRUE(CheckAttrConstraints(ComplexSchema(), NodeWith("Complex", "attr { key: 'Tout' value { type: DT_COMPLEX128 } }")).ok());
}

TEST(AttrConstraintsTest, ATypeAttrHoldingAnotherKindIsRefused) {
  TFHOST_EXPECT_ERROR(CheckAttrConstraints(ComplexSchema(), NodeWith("Complex", "attr { key: 'T' value { i: 1 } }")),
                      StatusCode::kInvalidArgument, "node 'n' (Complex): attr 'T' must hold a type");
}

TEST(AttrConstraintsTest, StringsOutsideTheirListAndIntsBelowTheirMinimumAreRefused) {
  const tensorflow::OpDef pool = Schema(OpDefBuilder("Pool").Input("x: float").Output("y: float")
                                            .Attr("padding: {'SAME', 'VALID'}").Attr("N: int >= 2")
                                            .Attr("ksize: list(int) >= 4"));
  TFHOST_EXPECT_ERROR(CheckAttrConstraints(pool, NodeWith("Pool", "attr { key: 'padding' value { s: 'FULL' } }")),
                      StatusCode::kInvalidArgument,
                      "node 'n' (Pool): attr 'padding' is 'FULL', which is not one of its allowed values ('SAME', 'VALID')");
  TFHOST_EXPECT_ERROR(CheckAttrConstraints(pool, NodeWith("Pool", "attr { key: 'N' value { i: 1 } }")),
                      StatusCode::kInvalidArgument, "node 'n' (Pool): attr 'N' is 1, below its minimum 2");
  TFHOST_EXPECT_ERROR(CheckAttrConstraints(pool, NodeWith("Pool", "attr { key: 'ksize' value { list { i: [1, 2] } } }")),
                      StatusCode::kInvalidArgument, "node 'n' (Pool): attr 'ksize' has 2 values, fewer than its minimum 4");
  EXPECT_TRUE(CheckAttrConstraints(
      pool, NodeWith("Pool", "attr { key: 'padding' value { s: 'VALID' } } attr { key: 'N' value { i: 2 } } "
                             "attr { key: 'ksize' value { list { i: [1, 2, 2, 1] } } }")).ok());
}

}  // namespace
}  // namespace tfhost::ir
