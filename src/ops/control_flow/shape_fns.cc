// Shape functions of the graph plumbing ops: identities pass shapes, known
// values and resource-handle shapes straight through; Switch forwards its
// data to both branches; Merge keeps only what every input agrees on, since
// any one of them may be the live one at run time. Functional ops take their
// output_shapes attr; TensorArray and TensorList ops give what the element
// shape attrs and constant element_shape inputs say, and leave the rest
// unknown (list handles are variant scalars).
#include "ops/shape_inference.h"

namespace tfhost::ops {

namespace {

Status SwitchShape(ShapeContext& ctx) {
  for (int i = 0; i < 2; ++i) {
    ctx.set_output(i, ctx.input(0));
    if (ctx.input_handle_shape(0).rank_known()) ctx.set_output_handle_shape(i, ctx.input_handle_shape(0));
  }
  return OkStatus();
}

Status MergeShape(ShapeContext& ctx) {
  if (ctx.num_inputs() > 0) {
    ir::PartialShape out = ctx.input(0);
    for (int i = 1; i < ctx.num_inputs(); ++i) out = ir::RelaxShapes(out, ctx.input(i));
    ctx.set_output(0, std::move(out));
  }
  ctx.set_output(1, ir::PartialShape::Scalar());  // value_index
  return OkStatus();
}

// If/Case/While: the output_shapes attr when it lists every output (TF2
// writes it; a While whose variables change shape lists unknown dims there).
Status FunctionalShape(ShapeContext& ctx) {
  auto shapes = ctx.Attr<std::vector<ir::PartialShape>>("output_shapes");
  if (!shapes || static_cast<int>(shapes->size()) != ctx.num_outputs()) return OkStatus();
  for (int i = 0; i < ctx.num_outputs(); ++i) ctx.set_output(i, (*shapes)[i]);
  return OkStatus();
}

Status ScalarOutputs(ShapeContext& ctx) {
  for (int i = 0; i < ctx.num_outputs(); ++i) ctx.set_output(i, ir::PartialShape::Scalar());
  return OkStatus();
}

// Output 0 is the element_shape input (index `input`) read as a shape, with
// `leading` unknown dims in front (Stack, Gather) or none (GetItem).
ShapeFn ElementShapeFromInput(int input, int leading) {
  return [input, leading](ShapeContext& ctx) {
    ir::PartialShape element = ctx.InputAsShape(input);
    if (ctx.input(input).rank() == 0) element = ir::PartialShape::Unknown();  // scalar -1: unknown rank
    if (!element.rank_known()) return OkStatus();
    std::vector<int64_t> dims(leading, -1);
    dims.insert(dims.end(), element.dims.begin(), element.dims.end());
    ctx.set_output(0, ir::PartialShape::Known(dims));
    return OkStatus();
  };
}

Status TensorArrayV3Shape(ShapeContext& ctx) {
  ctx.set_output(1, ir::PartialShape::Scalar());  // flow; the handle's shape is tfhost's own
  return OkStatus();
}

Status TensorArrayGatherShape(ShapeContext& ctx) {
  auto element = ctx.AttrOr<ir::PartialShape>("element_shape", ir::PartialShape());
  if (!element || !element->rank_known()) return OkStatus();
  std::vector<int64_t> dims = {ctx.input(1).rank() == 1 ? ctx.input(1).dim(0) : -1};
  dims.insert(dims.end(), element->dims.begin(), element->dims.end());
  ctx.set_output(0, ir::PartialShape::Known(dims));
  return OkStatus();
}

Status TensorArrayConcatShape(ShapeContext& ctx) {
  auto except0 = ctx.AttrOr<ir::PartialShape>("element_shape_except0", ir::PartialShape());
  if (except0 && except0->rank_known()) {
    std::vector<int64_t> dims = {-1};
    dims.insert(dims.end(), except0->dims.begin(), except0->dims.end());
    ctx.set_output(0, ir::PartialShape::Known(dims));
  }
  ctx.set_output(1, ir::PartialShape::UnknownOfRank(1));
  return OkStatus();
}

Status TensorListConcatShape(ShapeContext& ctx) {
  ctx.set_output(1, ir::PartialShape::UnknownOfRank(1));
  return OkStatus();
}

Status PopBackShape(ShapeContext& ctx) {
  ctx.set_output(0, ir::PartialShape::Scalar());
  ir::PartialShape element = ctx.InputAsShape(1);
  if (ctx.input(1).rank() == 0) element = ir::PartialShape::Unknown();
  ctx.set_output(1, element);
  return OkStatus();
}

}  // namespace

void RegisterControlFlowShapeFns(ShapeFnRegistry& registry) {
  registry.Register({"LoopCond", "RefEnter", "RefExit", "RefNextIteration"}, ForwardAllInputs);
  registry.Register("RefSwitch", SwitchShape);
  registry.Register("RefMerge", MergeShape);
  registry.Register({"If", "StatelessIf", "Case", "StatelessCase", "While", "StatelessWhile"}, FunctionalShape);
  registry.Register("TensorArrayV3", TensorArrayV3Shape);
  registry.Register({"TensorArrayWriteV3", "TensorArrayScatterV3", "TensorArraySplitV3", "TensorArraySizeV3"},
                    ScalarOutputs);
  registry.Register("TensorArrayGatherV3", TensorArrayGatherShape);
  registry.Register("TensorArrayConcatV3", TensorArrayConcatShape);
  registry.Register({"TensorArrayGradV3", "TensorArrayGradWithShape", "TensorArrayGradV2", "TensorArrayGrad",
                     "TensorArrayWriteV2", "TensorArrayScatterV2", "TensorArraySplitV2", "TensorArraySizeV2",
                     "TensorArrayWrite", "TensorArrayScatter", "TensorArraySplit", "TensorArraySize",
                     "TensorArrayUnpack", "TensorArrayV2", "TensorArray"},
                    ScalarOutputs);
  registry.Register({"TensorArrayGatherV2", "TensorArrayGather", "TensorArrayPack"}, TensorArrayGatherShape);
  registry.Register({"TensorArrayConcatV2", "TensorArrayConcat"}, TensorArrayConcatShape);
  registry.Register({"EmptyTensorList", "TensorListReserve", "TensorListFromTensor", "TensorListSetItem",
                     "TensorListPushBack", "TensorListResize", "TensorListLength", "TensorListScatterV2",
                     "TensorListScatterIntoExistingList", "TensorListSplit", "TensorListScatter"},
                    ScalarOutputs);
  registry.Register("TensorListGetItem", ElementShapeFromInput(2, 0));
  registry.Register("TensorListStack", ElementShapeFromInput(1, 1));
  registry.Register("TensorListGather", ElementShapeFromInput(2, 1));
  registry.Register("TensorListPopBack", PopBackShape);
  registry.Register({"TensorListConcatV2", "TensorListConcat"}, TensorListConcatShape);
  registry.Register({"Identity", "StopGradient", "Snapshot", "PreventGradient", "IdentityN", "Enter", "Exit",
                     "RefIdentity", "NextIteration", "CheckNumerics", "EnsureShape", "_TfhostCopy"},
                    ForwardAllInputs);
  registry.Register("Switch", SwitchShape);
  registry.Register("Merge", MergeShape);
}

}  // namespace tfhost::ops
