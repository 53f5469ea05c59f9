// Shape functions of the variable ops. Ref variables have the shape of their
// `shape` attr; a resource handle is a scalar whose *variable* shape travels
// beside it (ShapeContext's handle shapes), so ReadVariableOp and
// ResourceGather know what they read.
#include "ops/shape_inference.h"

namespace tfhost::ops {

namespace {

ir::PartialShape ShapeAttr(const ShapeContext& ctx) {
  return ctx.Attr<ir::PartialShape>("shape").value_or(ir::PartialShape::Unknown());
}

Status RefVariableShape(ShapeContext& ctx) {
  ctx.set_output(0, ShapeAttr(ctx));
  return OkStatus();
}

Status VarHandleShape(ShapeContext& ctx) {
  ctx.set_output(0, ir::PartialShape::Scalar());
  ctx.set_output_handle_shape(0, ShapeAttr(ctx));
  return OkStatus();
}

Status ReadVariableShape(ShapeContext& ctx) {
  ctx.set_output(0, ctx.input_handle_shape(0));
  return OkStatus();
}

// The variable behind a ref op's input 0. The SavedModel loader rewires that
// input from the VariableV2 to a resource handle (loaders/savedmodel/
// ref_variables.h marks such nodes with _tfhost_var_name), whose own shape
// is the scalar handle's: the variable's shape is the handle's.
const ir::PartialShape& RefInputVariableShape(const ShapeContext& ctx) {
  return ctx.node().FindAttr("_tfhost_var_name") != nullptr ? ctx.input_handle_shape(0) : ctx.input(0);
}

// Assign(ref, value): with validate_shape the value must fit the variable, and
// the result is the value's shape either way (validate_shape=false reshapes).
Status AssignShape(ShapeContext& ctx) {
  const bool validate = ctx.AttrOr<bool>("validate_shape", true).value_or(true);
  if (!validate) {
    ctx.set_output(0, ctx.input(1));
    return OkStatus();
  }
  auto merged = ir::MergeShapes(RefInputVariableShape(ctx), ctx.input(1));
  if (!merged.ok()) return ctx.Error("value does not fit the variable: " + merged.status().message());
  ctx.set_output(0, std::move(*merged));
  return OkStatus();
}

// ResourceGather(resource, indices) with batch_dims = 0:
// indices.shape + params.shape[1:].
Status ResourceGatherShape(ShapeContext& ctx) {
  const ir::PartialShape& params = ctx.input_handle_shape(0);
  const ir::PartialShape& indices = ctx.input(1);
  if (ctx.AttrOr<int64_t>("batch_dims", 0).value_or(-1) != 0) return OkStatus();
  if (!params.rank_known() || params.rank() < 1 || !indices.rank_known()) return OkStatus();
  std::vector<int64_t> dims = indices.dims;
  dims.insert(dims.end(), params.dims.begin() + 1, params.dims.end());
  ctx.set_output(0, ir::PartialShape::Known(std::move(dims)));
  return OkStatus();
}

Status ScalarOutput(ShapeContext& ctx) {
  ctx.set_output(0, ir::PartialShape::Scalar());
  return OkStatus();
}

}  // namespace

void RegisterStateShapeFns(ShapeFnRegistry& registry) {
  registry.Register({"VariableV2", "Variable"}, RefVariableShape);
  registry.Register("VarHandleOp", VarHandleShape);
  registry.Register("ReadVariableOp", ReadVariableShape);
  registry.Register("Assign", AssignShape);
  registry.Register({"AssignAdd", "AssignSub"}, [](ShapeContext& ctx) {
    ctx.set_output(0, RefInputVariableShape(ctx));
    return OkStatus();
  });
  registry.Register("ResourceGather", ResourceGatherShape);
  registry.Register({"IsVariableInitialized", "VarIsInitializedOp", "ShardedFilename", "ShardedFilespec"},
                    ScalarOutput);
}

}  // namespace tfhost::ops
