// Shape functions of the lookup-table ops. A table handle carries the shape
// of one value beside it (scalar for HashTable and MutableHashTable, the
// `value_shape` attr for MutableHashTableOfTensors), so a find over keys of
// shape K yields K + value_shape.
#include "ops/shape_inference.h"

namespace tfhost::ops {

namespace {

// The handle is a scalar resource (V2) or a 2-element string ref (TF1).
Status TableShape(ShapeContext& ctx, bool v2, bool of_tensors) {
  ctx.set_output(0, v2 ? ir::PartialShape::Scalar() : ir::PartialShape::Known({2}));
  if (!of_tensors) {
    ctx.set_output_handle_shape(0, ir::PartialShape::Scalar());
  } else if (auto s = ctx.Attr<ir::PartialShape>("value_shape"); s.has_value()) {
    ctx.set_output_handle_shape(0, *s);
  }
  return OkStatus();
}

ir::PartialShape Concat(const ir::PartialShape& a, const ir::PartialShape& b) {
  if (!a.rank_known() || !b.rank_known()) return ir::PartialShape::Unknown();
  std::vector<int64_t> dims = a.dims;
  dims.insert(dims.end(), b.dims.begin(), b.dims.end());
  return ir::PartialShape::Known(std::move(dims));
}

Status FindShape(ShapeContext& ctx) {
  ctx.set_output(0, Concat(ctx.input(1), ctx.input_handle_shape(0)));
  return OkStatus();
}

Status ExportShape(ShapeContext& ctx) {
  ctx.set_output(0, ir::PartialShape::Known({-1}));
  ctx.set_output(1, Concat(ir::PartialShape::Known({-1}), ctx.input_handle_shape(0)));
  return OkStatus();
}

}  // namespace

void RegisterLookupShapeFns(ShapeFnRegistry& registry) {
  for (bool v2 : {false, true}) {
    const std::string suffix = v2 ? "V2" : "";
    registry.Register("HashTable" + suffix, [v2](ShapeContext& ctx) { return TableShape(ctx, v2, false); });
    registry.Register("MutableHashTable" + suffix, [v2](ShapeContext& ctx) { return TableShape(ctx, v2, false); });
    registry.Register("MutableHashTableOfTensors" + suffix,
                      [v2](ShapeContext& ctx) { return TableShape(ctx, v2, true); });
    registry.Register("LookupTableFind" + suffix, FindShape);
    registry.Register("LookupTableExport" + suffix, ExportShape);
    registry.Register("LookupTableSize" + suffix, [](ShapeContext& ctx) {
      ctx.set_output(0, ir::PartialShape::Scalar());
      return OkStatus();
    });
  }
}

}  // namespace tfhost::ops
