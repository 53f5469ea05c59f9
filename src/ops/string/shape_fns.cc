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
  // UnsortedSegmentJoin: [num_segments] + inputs.shape[rank(segment_ids):].
  registry.Register("UnsortedSegmentJoin", [](ShapeContext& ctx) {
    const ir::PartialShape& inputs = ctx.input(0);
    const ir::PartialShape& ids = ctx.input(1);
    auto n = ctx.InputInts(2);
    const int64_t segments = n && n->size() == 1 && (*n)[0] >= 0 ? (*n)[0] : -1;
    if (!inputs.rank_known() || !ids.rank_known()) return OkStatus();
    if (ids.rank() == 0 || ids.rank() > inputs.rank()) {
      return ctx.Error("segment_ids of rank " + std::to_string(ids.rank()) + " cannot index inputs of shape " +
                       inputs.ToString());
    }
    std::vector<int64_t> dims = {segments};
    for (int d = ids.rank(); d < inputs.rank(); ++d) dims.push_back(inputs.dim(d));
    ctx.set_output(0, ir::PartialShape::Known(std::move(dims)));
    return OkStatus();
  });
}

}  // namespace tfhost::ops
