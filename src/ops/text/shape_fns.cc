// Shape functions of tensorflow-text's ops. Normalization is element-wise;
// the tokenizers give flat ragged values whose length depends on the data,
// with one row split per input plus one (or one row length per input).
#include "ops/shape_inference.h"

namespace tfhost::ops {
namespace {

// [n + 1] for n known input elements, else [?].
ir::PartialShape SplitsFor(const ir::PartialShape& input) {
  const int64_t n = input.NumElements();
  return ir::PartialShape::Known({n < 0 ? -1 : n + 1});
}

const ir::PartialShape& Vector() {
  static const ir::PartialShape* v = new ir::PartialShape(ir::PartialShape::Known({-1}));
  return *v;
}

// Every output a vector of unknown length, except output `splits` (if any),
// which holds the row splits over input 0.
void SetRaggedOutputs(ShapeContext& ctx, int splits) {
  for (int i = 0; i < ctx.num_outputs(); ++i) ctx.set_output(i, i == splits ? SplitsFor(ctx.input(0)) : Vector());
}

ShapeFn RaggedOutputs(int splits) {
  return [splits](ShapeContext& ctx) {
    SetRaggedOutputs(ctx, splits);
    return OkStatus();
  };
}

}  // namespace

void RegisterTextShapeFns(ShapeFnRegistry& registry) {
  registry.Register({"CaseFoldUTF8", "NormalizeUTF8"}, UnchangedShape);
  registry.Register("RegexSplitWithOffsets", RaggedOutputs(3));
  registry.Register("TFText>WhitespaceTokenizeWithOffsetsV2", RaggedOutputs(1));
  registry.Register("FastWordpieceTokenizeWithOffsets", RaggedOutputs(2));
  registry.Register("WordpieceTokenizeWithOffsets", [](ShapeContext& ctx) {
    SetRaggedOutputs(ctx, -1);
    const auto partition = ctx.AttrOr<std::string>("output_row_partition_type", "row_lengths");
    const int64_t n = ctx.input(0).NumElements();
    if (partition == "row_lengths") {
      ctx.set_output(1, ir::PartialShape::Known({n}));
    } else if (partition == "row_splits") {
      ctx.set_output(1, SplitsFor(ctx.input(0)));
    }
    return OkStatus();
  });
  registry.Register("UnicodeScriptTokenizeWithOffsets", [](ShapeContext& ctx) {
    SetRaggedOutputs(ctx, -1);
    ctx.set_output(4, ctx.input(1));  // outer splits: one per input split
    return OkStatus();
  });
  registry.Register("TFText>FastWordpieceDetokenize", [](ShapeContext& ctx) {
    const int64_t splits = ctx.input(1).NumElements();
    ctx.set_output(0, ir::PartialShape::Known({splits < 1 ? -1 : splits - 1}));
    return OkStatus();
  });
}

}  // namespace tfhost::ops
