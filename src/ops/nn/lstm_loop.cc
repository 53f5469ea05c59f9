#include "ops/nn/lstm_loop.h"

#include <algorithm>
#include <climits>
#include <string>
#include <vector>

#include "ops/nn/lstm_cell.h"
#include "ops/nn/nn_registrations.h"
#include "ops/tensor_array/element_util.h"
#include "ops/tensor_array/tensor_list.h"

namespace tfhost::ops::nn {

StatusOr<LstmLoopRoles> ReadLstmLoopRoles(const KernelContext& ctx) {
  LstmLoopRoles roles;
  int* fields[] = {&roles.counter, &roles.limit,      &roles.time,   &roles.outputs, &roles.h,
                   &roles.c,       &roles.projection, &roles.kernel, &roles.bias};
  std::vector<bool> taken(ctx.num_inputs(), false);
  for (size_t k = 0; k < std::size(fields); ++k) {
    TFHOST_ASSIGN_OR_RETURN(int64_t at, ctx.Attr<int64_t>(kLstmLoopRoleAttrs[k]));
    if (at < 0 || at >= ctx.num_inputs()) {
      return ctx.Error(std::string("attr ") + kLstmLoopRoleAttrs[k] + " is " + std::to_string(at) +
                       ", expected an input position in [0, " + std::to_string(ctx.num_inputs()) + ")");
    }
    if (taken[at]) {
      return ctx.Error(std::string("attr ") + kLstmLoopRoleAttrs[k] + " names input " + std::to_string(at) +
                       ", which another role already names");
    }
    taken[at] = true;
    *fields[k] = static_cast<int>(at);
  }
  int* optional[] = {&roles.mask, &roles.output_state};
  const char* optional_attrs[] = {"mask_index", "output_state_index"};
  for (int k = 0; k < 2; ++k) {
    TFHOST_ASSIGN_OR_RETURN(int64_t at, ctx.AttrOr<int64_t>(optional_attrs[k], -1));
    if (at == -1) continue;
    if (at < 0 || at >= ctx.num_inputs() || taken[at]) {
      return ctx.Error(std::string("attr ") + optional_attrs[k] + " is " + std::to_string(at) +
                       ", expected -1 or an input position in [0, " + std::to_string(ctx.num_inputs()) +
                       ") no other role names");
    }
    taken[at] = true;
    *optional[k] = static_cast<int>(at);
  }
  if ((roles.mask < 0) != (roles.output_state < 0)) {
    return ctx.Error("attrs mask_index and output_state_index must be set together (a masked layer) or both be -1");
  }
  TFHOST_ASSIGN_OR_RETURN(roles.mask_units, ctx.AttrOr<int64_t>("mask_units", -1));
  TFHOST_ASSIGN_OR_RETURN(roles.steps, ctx.Attr<int64_t>("steps"));
  if (roles.steps < 0 || roles.steps > INT32_MAX) {
    return ctx.Error("attr steps is " + std::to_string(roles.steps) + ", expected a bound in [0, 2^31)");
  }
  TFHOST_ASSIGN_OR_RETURN(roles.output_slot, ctx.AttrOr<int64_t>("output_slot", -1));
  if (roles.output_slot < -1 || roles.output_slot > INT32_MAX) {
    return ctx.Error("attr output_slot is " + std::to_string(roles.output_slot) +
                     ", expected -1 (the step index) or an element index in [0, 2^31)");
  }
  return roles;
}

void LstmStepReference(const LstmStepArgs& a) {
  const int64_t width = 4 * a.units;
  std::vector<double> acc(width);
  for (int64_t r = 0; r < a.h_rows; ++r) {
    std::fill(acc.begin(), acc.end(), 0.0);
    for (int64_t q = 0; q < a.k; ++q) {
      const double hv = a.h[r * a.k + q];
      const float* w = a.kernel + q * width;
      for (int64_t j = 0; j < width; ++j) acc[j] += hv * static_cast<double>(w[j]);
    }
    for (int64_t j = 0; j < width; ++j) a.y[r * width + j] = static_cast<float>(acc[j]);
  }
  const int64_t y_stride = a.h_rows == 1 ? 0 : width;
  for (int64_t r = 0; r < a.rows; ++r) {
    LstmCellRowReference(a.x + r * a.x_stride, a.y + r * y_stride, a.bias, a.c + r * a.c_stride,
                         a.h_out + r * a.units, a.c_out + r * a.units, a.units);
  }
}

namespace {

StatusOr<int32_t> ReadInt32Scalar(const KernelContext& ctx, int i, const char* what) {
  const Tensor& t = ctx.input(i);
  if (t.dtype() != DType::kInt32 || t.NumElements() != 1) {
    return ctx.Error(std::string(what) + " (input " + std::to_string(i) + ") must be an int32 scalar, got " +
                     DTypeShortName(t.dtype()) + t.shape().ToString());
  }
  return t.data<int32_t>()[0];
}

// "step 3": errors inside the loop name the step. Built only for an error:
// the loop runs once per time step.
std::string StepName(int64_t time) { return "step " + std::to_string(time); }

// `what`, prefixed with the step's name when `time` is one (>= 0).
Status CheckFloat(const KernelContext& ctx, const Tensor& t, int rank, const char* what, int64_t time = -1) {
  if (t.dtype() != DType::kFloat || t.rank() != rank) {
    return ctx.Error((time >= 0 ? StepName(time) + ": " : std::string()) + what + " must be float32 of rank " +
                     std::to_string(rank) + ", got " + DTypeShortName(t.dtype()) + t.shape().ToString());
  }
  return OkStatus();
}

// x_t: element `time` of the projection list, as TensorListGetItem reads it.
StatusOr<Tensor> ProjectionAt(const KernelContext& ctx, const tensor_array::TensorList& list, int64_t time,
                              int64_t width) {
  if (time < 0 || time >= static_cast<int64_t>(list.items.size())) {
    return ctx.Error(StepName(time) + ": index " + std::to_string(time) + " is out of range for the projected input's list of " +
                     std::to_string(list.items.size()) + " elements");
  }
  Tensor x = list.items[time];
  if (!x.valid()) {
    auto shape = ir::MergeShapes(list.element_shape, ir::PartialShape::Known({-1, width}));
    if (!shape.ok()) {
      return ctx.Error(StepName(time) + ": the projected input's element shape " + list.element_shape.ToString() +
                       " conflicts with [?, " + std::to_string(width) + "]");
    }
    TFHOST_ASSIGN_OR_RETURN(x, tensor_array::Zeros(ctx, DType::kFloat, *shape, "projected input element " +
                                                                                  std::to_string(time)));
  }
  TFHOST_RETURN_IF_ERROR(CheckFloat(ctx, x, 2, "the projected input", time));
  if (x.dim(1) != width) {
    return ctx.Error(StepName(time) + ": the projected input " + x.shape().ToString() + " must have " + std::to_string(width) +
                     " columns, 4 x the units of the recurrent kernel");
  }
  return x;
}

// The mask of step `time`: element `time` of the mask list, bool [rows, 1].
StatusOr<Tensor> MaskAt(const KernelContext& ctx, const tensor_array::TensorList& list, int64_t time) {
  if (time >= static_cast<int64_t>(list.items.size())) {
    return ctx.Error(StepName(time) + ": index " + std::to_string(time) + " is out of range for the mask's list of " +
                     std::to_string(list.items.size()) + " elements");
  }
  Tensor m = list.items[time];
  if (!m.valid()) {
    TFHOST_ASSIGN_OR_RETURN(m, tensor_array::Zeros(ctx, DType::kBool, list.element_shape,
                                                   "mask element " + std::to_string(time)));
  }
  if (m.dtype() != DType::kBool || m.rank() != 2 || m.dim(1) != 1) {
    return ctx.Error(StepName(time) + ": the mask must be bool [rows, 1], got " + DTypeShortName(m.dtype()) +
                     m.shape().ToString());
  }
  return m;
}

// SelectV2(mask tiled over the columns, a, b), rows broadcast as SelectV2
// broadcasts them; every operand has `units` columns. Errors name the step
// and `what` (the state selected).
StatusOr<Tensor> SelectRows(const KernelContext& ctx, const Tensor& mask, const Tensor& a, const Tensor& b,
                            int64_t units, int64_t time, const char* what) {
  if (a.dtype() != DType::kFloat || b.dtype() != DType::kFloat || a.rank() != 2 || b.rank() != 2 ||
      a.dim(1) != units || b.dim(1) != units) {
    return ctx.Error(StepName(time) + ": " + what + ": expected float32 [rows, " + std::to_string(units) + "] states, got " +
                     DTypeShortName(a.dtype()) + a.shape().ToString() + " and " + DTypeShortName(b.dtype()) +
                     b.shape().ToString());
  }
  const int64_t rows = std::max({mask.dim(0), a.dim(0), b.dim(0)});
  const bool empty = mask.dim(0) == 0 || a.dim(0) == 0 || b.dim(0) == 0;
  for (int64_t r : {mask.dim(0), a.dim(0), b.dim(0)}) {
    if (!empty && r != rows && r != 1) {
      return ctx.Error(StepName(time) + ": " + what + ": rows do not broadcast: mask " + mask.shape().ToString() + ", " +
                       a.shape().ToString() + " and " + b.shape().ToString());
    }
  }
  TFHOST_ASSIGN_OR_RETURN(Tensor out, ctx.AllocateOutput(DType::kFloat, Shape({empty ? 0 : rows, units})));
  for (int64_t r = 0; r < (empty ? 0 : rows); ++r) {
    const bool keep = mask.data<bool>()[mask.dim(0) == 1 ? 0 : r];
    const Tensor& from = keep ? a : b;
    const float* src = from.data<float>() + (from.dim(0) == 1 ? 0 : r) * units;
    std::copy(src, src + units, out.data<float>() + r * units);
  }
  return out;
}

}  // namespace

Status RunLstmLoop(KernelContext& ctx, const LstmStepFn& step) {
  TFHOST_ASSIGN_OR_RETURN(LstmLoopRoles roles, ReadLstmLoopRoles(ctx));
  TFHOST_ASSIGN_OR_RETURN(int32_t counter, ReadInt32Scalar(ctx, roles.counter, "the iteration counter"));
  TFHOST_ASSIGN_OR_RETURN(int32_t limit, ReadInt32Scalar(ctx, roles.limit, "the iteration limit"));
  TFHOST_ASSIGN_OR_RETURN(int32_t time, ReadInt32Scalar(ctx, roles.time, "the step index"));
  TFHOST_ASSIGN_OR_RETURN(auto projection, tensor_array::ReadList(ctx, roles.projection));
  if (projection->element_dtype != DType::kFloat) {
    return ctx.Error("the projected input's list holds " + DTypeShortName(projection->element_dtype) +
                     ", expected float32");
  }
  const Tensor kernel = ctx.input(roles.kernel);
  const Tensor bias = ctx.input(roles.bias);
  TFHOST_RETURN_IF_ERROR(CheckFloat(ctx, kernel, 2, "the recurrent kernel"));
  const int64_t width = kernel.dim(1);
  if (width % 4 != 0 || bias.dtype() != DType::kFloat || bias.rank() != 1 || bias.dim(0) != width) {
    return ctx.Error("the recurrent kernel " + kernel.shape().ToString() + " and bias " + bias.shape().ToString() +
                     " must be [k, 4 * units] and [4 * units]");
  }
  const int64_t units = width / 4;
  Tensor h = ctx.input(roles.h);
  Tensor c = ctx.input(roles.c);
  { TFHOST_RETURN_IF_ERROR(tensor_array::ReadList(ctx, roles.outputs).status()); }
  std::shared_ptr<const tensor_array::TensorList> mask;
  Tensor output_state;
  if (roles.mask >= 0) {
    TFHOST_ASSIGN_OR_RETURN(mask, tensor_array::ReadList(ctx, roles.mask));
    // Tiled to one column (Keras tiles by [1, 1]) SelectV2 broadcasts it.
    if (roles.mask_units != units && roles.mask_units != 1) {
      return ctx.Error("the mask is tiled to " + std::to_string(roles.mask_units) +
                       " columns (attr mask_units), which do not broadcast against the layer's " +
                       std::to_string(units) + " units");
    }
    output_state = ctx.input(roles.output_state);
  }
  tensor_array::WritableList out = tensor_array::TakeWritableList(ctx, roles.outputs);
  Tensor y;
  while (counter < limit && time < roles.steps) {
    TFHOST_ASSIGN_OR_RETURN(Tensor x, ProjectionAt(ctx, *projection, time, width));
    TFHOST_RETURN_IF_ERROR(CheckFloat(ctx, h, 2, "h", time));
    if (h.dim(1) != kernel.dim(0)) {
      return ctx.Error(StepName(time) + ": h " + h.shape().ToString() + " cannot multiply the recurrent kernel " +
                       kernel.shape().ToString() + " (expected " + std::to_string(kernel.dim(0)) + " columns)");
    }
    if (!y.valid() || y.dim(0) != h.dim(0)) {
      TFHOST_ASSIGN_OR_RETURN(y, ctx.AllocateOutput(DType::kFloat, Shape({h.dim(0), width})));
    }
    auto geometry = CheckLstmCellOperands(ctx, x, y, bias, c);
    if (!geometry.ok()) return geometry.status().WithContext(StepName(time));
    TFHOST_ASSIGN_OR_RETURN(Tensor h_next, ctx.AllocateOutput(DType::kFloat, Shape({geometry->batch, units})));
    TFHOST_ASSIGN_OR_RETURN(Tensor c_next, ctx.AllocateOutput(DType::kFloat, Shape({geometry->batch, units})));
    if (geometry->batch > 0) {
      LstmStepArgs a;
      a.x = x.data<float>();
      a.x_stride = geometry->x_stride;
      a.h = h.data<float>();
      a.h_rows = h.dim(0);
      a.c = c.data<float>();
      a.c_stride = geometry->c_stride;
      a.kernel = kernel.data<float>();
      a.bias = bias.data<float>();
      a.y = y.data<float>();
      a.h_out = h_next.data<float>();
      a.c_out = c_next.data<float>();
      a.rows = geometry->batch;
      a.k = kernel.dim(0);
      a.units = units;
      step(a);
    }
    if (mask != nullptr) {
      // o' = SelectV2(m, h', o), h' = SelectV2(m, h', h), c' = SelectV2(m, c', c).
      TFHOST_ASSIGN_OR_RETURN(Tensor m, MaskAt(ctx, *mask, time));
      TFHOST_ASSIGN_OR_RETURN(output_state, SelectRows(ctx, m, h_next, output_state, units, time, "output"));
      TFHOST_ASSIGN_OR_RETURN(h_next, SelectRows(ctx, m, h_next, h, units, time, "h"));
      TFHOST_ASSIGN_OR_RETURN(c_next, SelectRows(ctx, m, c_next, c, units, time, "c"));
    }
    const Tensor& written = mask != nullptr ? output_state : h_next;
    // TensorListSetItem(outputs, slot, h').
    const int64_t slot = roles.output_slot < 0 ? time : roles.output_slot;
    const int64_t size = static_cast<int64_t>(out.list->items.size());
    if (slot >= size) {
      return ctx.Error(StepName(time) + ": index " + std::to_string(slot) + " is out of range for the outputs' list of " +
                       std::to_string(size) + " elements");
    }
    TFHOST_RETURN_IF_ERROR(tensor_array::CheckListItem(ctx, *out.list, written));
    out.list->items[slot] = written;
    h = std::move(h_next);
    c = std::move(c_next);
    ++counter;
    ++time;
  }
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    if (i == roles.counter) {
      ctx.set_output(i, Tensor::Scalar<int32_t>(counter));
    } else if (i == roles.time) {
      ctx.set_output(i, Tensor::Scalar<int32_t>(time));
    } else if (i == roles.outputs) {
      ctx.set_output(i, std::move(out).Output());
    } else if (i == roles.h) {
      ctx.set_output(i, std::move(h));
    } else if (i == roles.c) {
      ctx.set_output(i, std::move(c));
    } else if (i == roles.output_state) {
      ctx.set_output(i, std::move(output_state));
    } else {
      ctx.set_output(i, ctx.TakeInput(i));
    }
  }
  return OkStatus();
}

void RegisterLstmLoopOps(OpRegistry& registry) {
  ir::OpDefBuilder def(kLstmLoopOp);
  def.Input("input: T").Output("output: T").Attr("T: list(type) >= 9");
  for (const char* attr : kLstmLoopRoleAttrs) def.Attr(std::string(attr) + ": int");
  def.Attr("steps: int").Attr("output_slot: int = -1");
  def.Attr("mask_index: int = -1").Attr("output_state_index: int = -1").Attr("mask_units: int = -1");
  registry.Register(def, [](KernelContext& ctx) { return RunLstmLoop(ctx, LstmStepReference); });
}

}  // namespace tfhost::ops::nn
