// FastWordpieceTokenizeWithOffsets and TFText>FastWordpieceDetokenize
// (tensorflow_text.FastWordpieceTokenizer's tokenize_with_offsets and
// detokenize). Both read the tokenizer's flatbuffer model from the wp_model
// input, a uint8 constant in the graph (fast_wordpiece_model.h); the work is
// fast_wordpiece_tokenizer.cc's.
//
// Tokenize: a vector of strings in; pieces, ids, row splits, and start/end
// byte offsets out (ragged over the inputs). Detokenize: ids ragged by
// input_row_splits in, one string per row out.
#include "ops/text/fast_wordpiece_model.h"
#include "ops/text/fast_wordpiece_tokenizer.h"
#include "ops/text/text_ops.h"

namespace tfhost::ops {
namespace {

using text_internal::FastWordpieceModel;
using text_internal::FastWordpieceTokenizer;
using text_internal::Int64Vector;

Status WithNode(const KernelContext& ctx, const Status& status) {
  return status.WithContext(ir::NodeContext(ctx.node()));
}

StatusOr<FastWordpieceModel> ModelInput(const KernelContext& ctx, int i) {
  const Tensor& t = ctx.input(i);
  if (t.dtype() != DType::kUInt8) {
    return ctx.Error("wp_model must be a uint8 tensor (the model flatbuffer), got " + DTypeShortName(t.dtype()));
  }
  auto model = FastWordpieceModel::Parse(t.data<uint8_t>(), static_cast<size_t>(t.NumElements()));
  if (!model.ok()) return WithNode(ctx, model.status());
  return model;
}

Status FastWordpieceTokenizeWithOffsets(KernelContext& ctx) {
  TFHOST_RETURN_IF_ERROR(text_internal::CheckStringVector(ctx, 0, "input_values"));
  TFHOST_ASSIGN_OR_RETURN(FastWordpieceModel model, ModelInput(ctx, 1));
  const FastWordpieceTokenizer tokenizer(model);
  const Tensor& values = ctx.input(0);
  text_internal::WordpieceOutput out;
  std::vector<int64_t> row_splits = {0};
  row_splits.reserve(values.NumElements() + 1);
  for (int64_t i = 0; i < values.NumElements(); ++i) {
    Status st = tokenizer.Tokenize(values.strings()[i], out);
    if (!st.ok()) return WithNode(ctx, st.WithContext("input_values[" + std::to_string(i) + "]"));
    row_splits.push_back(static_cast<int64_t>(out.ids.size()));
  }
  ctx.set_output(0, text_internal::StringVector(std::move(out.pieces)));
  ctx.set_output(1, Int64Vector(out.ids));
  ctx.set_output(2, Int64Vector(row_splits));
  ctx.set_output(3, Int64Vector(out.starts));
  ctx.set_output(4, Int64Vector(out.ends));
  return OkStatus();
}

Status FastWordpieceDetokenize(KernelContext& ctx) {
  const Tensor& ids = ctx.input(0);
  const Tensor& splits_t = ctx.input(1);
  if (ids.dtype() != DType::kInt32 || ids.rank() != 1) {
    return ctx.Error("input_values must be an int32 vector of token ids, got " + DTypeShortName(ids.dtype()) +
                     ids.shape().ToString());
  }
  if (splits_t.dtype() != DType::kInt64 || splits_t.rank() != 1) {
    return ctx.Error("input_row_splits must be an int64 vector, got " + DTypeShortName(splits_t.dtype()) +
                     splits_t.shape().ToString());
  }
  const int64_t* splits = splits_t.data<int64_t>();
  const int64_t num_splits = splits_t.NumElements();
  // tensorflow-text slices input_values with these unchecked.
  for (int64_t i = 0; i < num_splits; ++i) {
    if (splits[i] < 0 || splits[i] > ids.NumElements() || (i > 0 && splits[i] < splits[i - 1])) {
      return ctx.Error("input_row_splits must be non-decreasing values in [0, " + std::to_string(ids.NumElements()) +
                       "], got " + std::to_string(splits[i]) + " at " + std::to_string(i));
    }
  }
  TFHOST_ASSIGN_OR_RETURN(FastWordpieceModel model, ModelInput(ctx, 2));
  const FastWordpieceTokenizer tokenizer(model);
  const int64_t rows = num_splits > 0 ? num_splits - 1 : 0;
  Tensor out(DType::kString, Shape({rows}));
  for (int64_t r = 0; r < rows; ++r) {
    auto text = tokenizer.Detokenize(ids.data<int32_t>() + splits[r], splits[r + 1] - splits[r]);
    if (!text.ok()) return WithNode(ctx, text.status());
    out.strings()[r] = std::move(*text);
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterFastWordpieceOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("FastWordpieceTokenizeWithOffsets")
                        .Input("input_values: string")
                        .Input("wp_model: uint8")
                        .Output("output_subwords: string")
                        .Output("output_ids: int64")
                        .Output("output_row_splits: int64")
                        .Output("start_values: int64")
                        .Output("end_values: int64"),
                    FastWordpieceTokenizeWithOffsets);
  registry.Register(ir::OpDefBuilder("TFText>FastWordpieceDetokenize")
                        .Input("input_values: int32")
                        .Input("input_row_splits: int64")
                        .Input("wp_model: uint8")
                        .Output("output_words: string"),
                    FastWordpieceDetokenize);
}

}  // namespace tfhost::ops
