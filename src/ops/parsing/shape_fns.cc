// Shape functions of the tf.Example parsers. A dense output is the batch
// shape of `serialized` followed by its `dense_shapes` entry (a variable-
// length feature's leading -1 stays unknown); sparse outputs are COO triples
// whose value count depends on the data; ragged outputs are flat vectors.
#include "ops/shape_inference.h"

namespace tfhost::ops {

namespace {

ir::PartialShape Concat(const ir::PartialShape& batch, const ir::PartialShape& feature) {
  if (!batch.rank_known() || !feature.rank_known()) return ir::PartialShape::Unknown();
  std::vector<int64_t> dims = batch.dims;
  dims.insert(dims.end(), feature.dims.begin(), feature.dims.end());
  return ir::PartialShape::Known(std::move(dims));
}

// Outputs: num_sparse indices [?, batch_rank+1], num_sparse values [?],
// num_sparse shapes [batch_rank+1], then one dense value per dense_shapes
// entry; returns the index after the dense outputs.
int SetSparseAndDense(ShapeContext& ctx, int64_t num_sparse, const ir::PartialShape& batch) {
  const int64_t coo_rank = batch.rank_known() ? batch.rank() + 1 : -1;
  int out = 0;
  for (int64_t i = 0; i < num_sparse; ++i) ctx.set_output(out++, ir::PartialShape::Known({-1, coo_rank}));
  for (int64_t i = 0; i < num_sparse; ++i) ctx.set_output(out++, ir::PartialShape::Known({-1}));
  for (int64_t i = 0; i < num_sparse; ++i) ctx.set_output(out++, ir::PartialShape::Known({coo_rank}));
  auto dense_shapes = ctx.Attr<std::vector<ir::PartialShape>>("dense_shapes");
  if (!dense_shapes.has_value()) return -1;
  for (const auto& shape : *dense_shapes) ctx.set_output(out++, Concat(batch, shape));
  return out;
}

// ParseExample: `serialized` is a vector of examples (TF requires rank 1).
Status ParseExampleShape(ShapeContext& ctx) {
  auto batch = ir::MergeShapes(ctx.input(0), ir::PartialShape::Known({-1}));
  if (!batch.ok()) return ctx.Error("serialized must be a vector, got shape " + ctx.input(0).ToString());
  auto num_sparse = ctx.Attr<int64_t>("Nsparse");
  if (!num_sparse.has_value() || *num_sparse < 0 || *num_sparse > ctx.num_outputs()) return OkStatus();
  SetSparseAndDense(ctx, *num_sparse, *batch);
  return OkStatus();
}

// ParseExampleV2: `serialized` is a scalar or a vector; ragged outputs follow.
Status ParseExampleV2Shape(ShapeContext& ctx) {
  const ir::PartialShape& batch = ctx.input(0);
  if (batch.rank() > 1) return ctx.Error("serialized must be a scalar or a vector, got shape " + batch.ToString());
  auto num_sparse = ctx.Attr<int64_t>("num_sparse");
  if (!num_sparse.has_value() || *num_sparse < 0 || *num_sparse > ctx.num_outputs()) return OkStatus();
  int out = SetSparseAndDense(ctx, *num_sparse, batch);
  if (out < 0) return OkStatus();
  const int num_ragged = static_cast<int>(ctx.Attr<std::vector<DType>>("ragged_value_types").value_or(std::vector<DType>()).size());
  for (int i = 0; i < num_ragged; ++i) ctx.set_output(out + i, ir::PartialShape::Known({-1}));
  for (int i = 0; i < num_ragged; ++i) ctx.set_output(out + num_ragged + i, ir::PartialShape::Known({-1}));
  return OkStatus();
}

// ParseSingleExample: one scalar example, so no batch dimension.
Status ParseSingleExampleShape(ShapeContext& ctx) {
  auto num_sparse = ctx.Attr<int64_t>("num_sparse");
  if (!num_sparse.has_value() || *num_sparse < 0 || *num_sparse > ctx.num_outputs()) return OkStatus();
  SetSparseAndDense(ctx, *num_sparse, ir::PartialShape::Scalar());
  return OkStatus();
}

// DecodeCSV: every output has the records' shape.
Status DecodeCsvShape(ShapeContext& ctx) {
  for (int i = 0; i < ctx.num_outputs(); ++i) ctx.set_output(i, ctx.input(0));
  return OkStatus();
}

}  // namespace

void RegisterParsingShapeFns(ShapeFnRegistry& registry) {
  registry.Register("ParseExample", ParseExampleShape);
  registry.Register("ParseExampleV2", ParseExampleV2Shape);
  registry.Register("ParseSingleExample", ParseSingleExampleShape);
  registry.Register("DecodeCSV", DecodeCsvShape);
  // DecodeRaw: bytes.shape + [unknown].
  registry.Register("DecodeRaw", [](ShapeContext& ctx) {
    const ir::PartialShape& in = ctx.input(0);
    if (!in.rank_known()) return OkStatus();
    std::vector<int64_t> dims = in.dims;
    dims.push_back(-1);
    ctx.set_output(0, ir::PartialShape::Known(dims));
    return OkStatus();
  });
}

}  // namespace tfhost::ops
