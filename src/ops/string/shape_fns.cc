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
  // Unicode ops: decoding flattens the input into ragged rows (N + 1 splits,
  // a data-dependent number of code points); encoding makes one string per row.
  registry.Register({"UnicodeDecode", "UnicodeDecodeWithOffsets"}, [](ShapeContext& ctx) {
    const int64_t n = ctx.input(0).NumElements();
    ctx.set_output(0, ir::PartialShape::Known({n < 0 ? -1 : n + 1}));
    ctx.set_output(1, ir::PartialShape::Known({-1}));
    ctx.set_output(2, ir::PartialShape::Known({-1}));
    return OkStatus();
  });
  registry.Register("UnicodeEncode", [](ShapeContext& ctx) {
    const ir::PartialShape& splits = ctx.input(1);
    ctx.set_output(0, ir::PartialShape::Known({splits.rank() == 1 && splits.dim(0) > 0 ? splits.dim(0) - 1 : -1}));
    return OkStatus();
  });
  registry.Register("UnicodeTranscode", UnchangedShape);
  registry.Register("UnicodeScript", UnchangedShape);
}

}  // namespace tfhost::ops
