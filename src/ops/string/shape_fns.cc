// Shape functions of the string ops: most are element-wise over their first
// input; StringJoin and Substr broadcast; StringSplitV2 yields a sparse
// tensor whose value count depends on the data.
#include "ops/shape_inference.h"

namespace tfhost::ops {

namespace {

Status StringSplitShape(ShapeContext& ctx) {
  ctx.set_output(0, ir::PartialShape::Known({-1, 2}));
  ctx.set_output(1, ir::PartialShape::Known({-1}));
  ctx.set_output(2, ir::PartialShape::Known({2}));
  return OkStatus();
}

}  // namespace

void RegisterStringShapeFns(ShapeFnRegistry& registry) {
  registry.Register({"StringLength", "StringLower", "StringUpper", "AsString", "StringToNumber",
                     "StaticRegexReplace", "StringToHashBucketFast", "StringToHashBucketStrong", "StringToHashBucket", "StaticRegexFullMatch", "RegexReplace", "RegexFullMatch"},
                    UnchangedShape);
  registry.Register({"StringJoin", "Substr"}, BroadcastingShape);
  registry.Register({"StringSplitV2", "StringSplit"}, StringSplitShape);
  registry.Register({"EncodeBase64", "DecodeBase64", "StringStrip", "Print"}, UnchangedShape);
  registry.Register("StringFormat", [](ShapeContext& ctx) {
    ctx.set_output(0, ir::PartialShape::Scalar());
    return OkStatus();
  });
  registry.Register("StringNGrams", [](ShapeContext& ctx) {
    ctx.set_output(0, ir::PartialShape::Known({-1}));
    ctx.set_output(1, ctx.input(1));  // one split per row, as data_splits
    return OkStatus();
  });
}

}  // namespace tfhost::ops
