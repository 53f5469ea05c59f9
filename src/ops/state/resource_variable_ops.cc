// TF2 resource variables: a VarHandleOp yields a DT_RESOURCE handle (the
// variable's name); reads and assignments look the variable up in the
// session's ResourceManager by that name.
#include <cstring>
#include <mutex>
#include <type_traits>

#include "ops/state/state_ops.h"

namespace tfhost::ops {

std::string VariableResourceName(const ir::Node& node) {
  const tensorflow::AttrValue* shared = node.FindAttr("shared_name");
  if (shared != nullptr && shared->value_case() == tensorflow::AttrValue::kS && !shared->s().empty()) {
    return shared->s();
  }
  return node.name;
}

namespace state_internal {
namespace {

template <typename T>
void AddOrSubtractElements(const T* x, const T* y, T* z, int64_t n, bool subtract) {
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_integral_v<T>) {
      // Unsigned arithmetic: integers wrap like TensorFlow's instead of being UB.
      using U = std::make_unsigned_t<T>;
      z[i] = static_cast<T>(subtract ? static_cast<U>(static_cast<U>(x[i]) - static_cast<U>(y[i]))
                                     : static_cast<U>(static_cast<U>(x[i]) + static_cast<U>(y[i])));
    } else {
      z[i] = subtract ? x[i] - y[i] : x[i] + y[i];
    }
  }
}

// bool never reaches the arithmetic (rejected above); this keeps the dtype
// switch compiling.
template <>
void AddOrSubtractElements<bool>(const bool*, const bool*, bool*, int64_t, bool) {}

}  // namespace

StatusOr<std::shared_ptr<Variable>> LookupOrCreateVariable(ResourceManager* resources,
                                                           const std::string& name, DType dtype) {
  TFHOST_ASSIGN_OR_RETURN(std::shared_ptr<Variable> var,
                          resources->LookupOrCreate<Variable>(name, [dtype] {
                            auto v = std::make_shared<Variable>();
                            v->dtype = dtype;
                            return v;
                          }));
  std::lock_guard<std::mutex> lock(var->mu);
  if (var->dtype == DType::kInvalid) var->dtype = dtype;
  if (var->dtype != dtype) {
    return InvalidArgument("variable '" + name + "' has dtype " + DTypeShortName(var->dtype) +
                           ", not " + DTypeShortName(dtype));
  }
  return var;
}

StatusOr<Tensor> AddOrSubtract(const Tensor& a, const Tensor& b, bool subtract, const std::string& what) {
  if (a.dtype() != b.dtype()) {
    return InvalidArgument(what + ": dtypes differ (" + DTypeShortName(a.dtype()) + " vs " +
                           DTypeShortName(b.dtype()) + ")");
  }
  if (a.shape() != b.shape()) {
    return InvalidArgument(what + ": cannot update a variable of shape " + a.shape().ToString() +
                           " with a value of shape " + b.shape().ToString() + "; shapes must be equal");
  }
  const DType dtype = a.dtype();
  const int64_t n = a.NumElements();
  Tensor out(dtype, a.shape());
  if (dtype == DType::kHalf || dtype == DType::kBFloat16) {
    const bool half = dtype == DType::kHalf;
    const uint16_t* x = a.data<uint16_t>();
    const uint16_t* y = b.data<uint16_t>();
    uint16_t* z = out.data<uint16_t>();
    for (int64_t i = 0; i < n; ++i) {
      float fx = half ? HalfToFloat(x[i]) : BFloat16ToFloat(x[i]);
      float fy = half ? HalfToFloat(y[i]) : BFloat16ToFloat(y[i]);
      float r = subtract ? fx - fy : fx + fy;
      z[i] = half ? FloatToHalf(r) : FloatToBFloat16(r);
    }
    return out;
  }
  if (dtype == DType::kBool || !IsSupportedDType(dtype) || IsStringLike(dtype)) {
    return InvalidArgument(what + ": dtype " + DTypeShortName(dtype) + " does not support addition");
  }
  bool handled = false;
  TFHOST_SWITCH_REAL_TYPES(dtype, {
    AddOrSubtractElements(a.data<T>(), b.data<T>(), out.data<T>(), n, subtract);
    handled = true;
  }, {});
  if (!handled) {
    return InvalidArgument(what + ": dtype " + DTypeShortName(dtype) + " does not support addition");
  }
  return out;
}

namespace {

Status CheckValueDType(const KernelContext& ctx, const Tensor& value, DType dtype,
                       const std::string& dtype_attr) {
  if (value.dtype() != dtype) {
    return ctx.Error("value has dtype " + DTypeShortName(value.dtype()) + " but attr " +
                     dtype_attr + " is " + DTypeShortName(dtype));
  }
  return OkStatus();
}

}  // namespace

Status AssignVariable(const KernelContext& ctx, const std::string& name, DType dtype,
                      const std::string& dtype_attr, const Tensor& value, bool validate_shape) {
  TFHOST_RETURN_IF_ERROR(CheckValueDType(ctx, value, dtype, dtype_attr));
  auto var = LookupOrCreateVariable(ctx.resources(), name, dtype);
  if (!var.ok()) return ctx.Error(var.status().message());
  std::lock_guard<std::mutex> lock((*var)->mu);
  if (validate_shape && (*var)->initialized() && (*var)->value.shape() != value.shape()) {
    return ctx.Error("variable " + name + " has shape " + (*var)->value.shape().ToString() +
                     " but the assigned value has shape " + value.shape().ToString());
  }
  (*var)->value = value;
  return OkStatus();
}

StatusOr<Tensor> UpdateVariable(const KernelContext& ctx, const std::string& name, DType dtype,
                                const std::string& dtype_attr, const Tensor& delta,
                                bool subtract) {
  TFHOST_RETURN_IF_ERROR(CheckValueDType(ctx, delta, dtype, dtype_attr));
  auto var = ctx.resources()->Lookup<Variable>(name);
  if (!var.ok()) {
    return FailedPrecondition(ir::NodeContext(ctx.node()) + ": variable " + name +
                              " is uninitialized");
  }
  std::lock_guard<std::mutex> lock((*var)->mu);
  if (!(*var)->initialized()) {
    return FailedPrecondition(ir::NodeContext(ctx.node()) + ": variable " + name +
                              " is uninitialized");
  }
  auto result = AddOrSubtract((*var)->value, delta, subtract, "variable " + name);
  if (!result.ok()) return ctx.Error(result.status().message());
  (*var)->value = *result;
  return std::move(*result);
}

bool VariableIsInitialized(const KernelContext& ctx, const std::string& name) {
  auto var = ctx.resources()->Lookup<Variable>(name);
  if (!var.ok()) return false;
  std::lock_guard<std::mutex> lock((*var)->mu);
  return (*var)->initialized();
}

}  // namespace state_internal

namespace {

using state_internal::LookupOrCreateVariable;

// The variable name held by resource input `i`.
StatusOr<std::string> ResourceInputName(const KernelContext& ctx, int i) {
  const Tensor& t = ctx.input(i);
  if (!t.valid() || !IsStringLike(t.dtype()) || t.NumElements() != 1) {
    return ctx.Error("input " + std::to_string(i) + " must be a scalar resource handle, got " +
                     (t.valid() ? DTypeShortName(t.dtype()) + t.shape().ToString() : "nothing"));
  }
  if (t.strings()[0].empty()) return ctx.Error("input " + std::to_string(i) + " is an empty resource handle");
  return t.strings()[0];
}

Status VarHandleOpKernel(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(DType dtype, ctx.Attr<DType>("dtype"));
  std::string name = VariableResourceName(ctx.node());
  auto var = LookupOrCreateVariable(ctx.resources(), name, dtype);
  if (!var.ok()) return ctx.Error(var.status().message());
  Tensor handle(DType::kResource, Shape());
  handle.strings()[0] = std::move(name);
  ctx.set_output(0, std::move(handle));
  return OkStatus();
}

Status ReadVariableOpKernel(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(std::string name, ResourceInputName(ctx, 0));
  TFHOST_ASSIGN_OR_RETURN(DType dtype, ctx.Attr<DType>("dtype"));
  auto var = ctx.resources()->Lookup<Variable>(name);
  if (!var.ok()) {
    return FailedPrecondition(ir::NodeContext(ctx.node()) + ": variable " + name +
                              " is uninitialized (it does not exist)");
  }
  Tensor value;
  {
    std::lock_guard<std::mutex> lock((*var)->mu);
    value = (*var)->value;
  }
  if (!value.valid()) {
    return FailedPrecondition(ir::NodeContext(ctx.node()) + ": variable " + name + " is uninitialized");
  }
  if (value.dtype() != dtype) {
    return ctx.Error("variable " + name + " holds " + DTypeShortName(value.dtype()) +
                     " but the read expects " + DTypeShortName(dtype));
  }
  // The variable keeps its reference, so a consumer never reuses this buffer in place.
  ctx.set_output(0, std::move(value));
  return OkStatus();
}

Status AssignVariableOpKernel(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(std::string name, ResourceInputName(ctx, 0));
  TFHOST_ASSIGN_OR_RETURN(DType dtype, ctx.Attr<DType>("dtype"));
  TFHOST_ASSIGN_OR_RETURN(bool validate_shape, ctx.AttrOr<bool>("validate_shape", false));
  return state_internal::AssignVariable(ctx, name, dtype, "dtype", ctx.input(1), validate_shape);
}

Status AssignUpdateKernel(KernelContext& ctx, bool subtract) {
  TFHOST_ASSIGN_OR_RETURN(std::string name, ResourceInputName(ctx, 0));
  TFHOST_ASSIGN_OR_RETURN(DType dtype, ctx.Attr<DType>("dtype"));
  return state_internal::UpdateVariable(ctx, name, dtype, "dtype", ctx.input(1), subtract)
      .status();
}

Status VarIsInitializedOpKernel(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(std::string name, ResourceInputName(ctx, 0));
  ctx.set_output(0, Tensor::Scalar<bool>(state_internal::VariableIsInitialized(ctx, name)));
  return OkStatus();
}

// The ResourceManager cannot forget a name, so destroying a variable returns
// it to the uninitialized state: later reads fail as they would in TF.
Status DestroyResourceOpKernel(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(std::string name, ResourceInputName(ctx, 0));
  TFHOST_ASSIGN_OR_RETURN(bool ignore_lookup_error, ctx.AttrOr<bool>("ignore_lookup_error", true));
  auto var = ctx.resources()->Lookup<Variable>(name);
  if (!var.ok()) {
    if (ignore_lookup_error) return OkStatus();
    return NotFound(ir::NodeContext(ctx.node()) + ": " + var.status().message());
  }
  std::lock_guard<std::mutex> lock((*var)->mu);
  (*var)->value = Tensor();
  return OkStatus();
}

// Our variables never copy on read (readers share the immutable value), so
// there is nothing to disable.
Status DisableCopyOnReadKernel(KernelContext& ctx) {
  return ResourceInputName(ctx, 0).status();
}

Status ResourceGatherKernel(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(std::string name, ResourceInputName(ctx, 0));
  TFHOST_ASSIGN_OR_RETURN(DType dtype, ctx.Attr<DType>("dtype"));
  TFHOST_ASSIGN_OR_RETURN(int64_t batch_dims, ctx.AttrOr<int64_t>("batch_dims", 0));
  if (batch_dims != 0) {
    return Unimplemented(ir::NodeContext(ctx.node()) + ": batch_dims=" + std::to_string(batch_dims) +
                         " is not supported (only 0)");
  }
  const Tensor& indices = ctx.input(1);
  if (indices.dtype() != DType::kInt32 && indices.dtype() != DType::kInt64) {
    return ctx.Error("indices must be int32 or int64, got " + DTypeShortName(indices.dtype()));
  }
  auto var = ctx.resources()->Lookup<Variable>(name);
  Tensor params;
  if (var.ok()) {
    std::lock_guard<std::mutex> lock((*var)->mu);
    params = (*var)->value;
  }
  if (!params.valid()) {
    return FailedPrecondition(ir::NodeContext(ctx.node()) + ": variable " + name + " is uninitialized");
  }
  if (params.dtype() != dtype) {
    return ctx.Error("variable " + name + " holds " + DTypeShortName(params.dtype()) +
                     " but attr dtype is " + DTypeShortName(dtype));
  }
  if (params.rank() < 1) return ctx.Error("variable " + name + " must have rank >= 1 to gather from");
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> idx, indices.ToInt64Vector());
  const int64_t rows = params.dim(0);
  std::vector<int64_t> out_dims = indices.shape().dims();
  for (int d = 1; d < params.rank(); ++d) out_dims.push_back(params.dim(d));
  const int64_t row_elems = rows == 0 ? 0 : params.NumElements() / rows;
  for (size_t i = 0; i < idx.size(); ++i) {
    if (idx[i] < 0 || idx[i] >= rows) {
      return ctx.Error("indices[" + std::to_string(i) + "] = " + std::to_string(idx[i]) +
                       " is not in [0, " + std::to_string(rows) + ")");
    }
  }
  Tensor out(dtype, Shape(std::move(out_dims)));
  if (IsStringLike(dtype)) {
    for (size_t i = 0; i < idx.size(); ++i) {
      for (int64_t j = 0; j < row_elems; ++j) {
        out.strings()[i * row_elems + j] = params.strings()[idx[i] * row_elems + j];
      }
    }
  } else {
    const size_t row_bytes = static_cast<size_t>(row_elems) * DTypeSize(dtype);
    const char* src = static_cast<const char*>(params.raw_data());
    char* dst = static_cast<char*>(out.raw_data());
    for (size_t i = 0; i < idx.size(); ++i) {
      std::memcpy(dst + i * row_bytes, src + idx[i] * row_bytes, row_bytes);
    }
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterResourceVariableOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("VarHandleOp")
                        .Output("resource: resource")
                        .Attr("container: string = ''")
                        .Attr("shared_name: string = ''")
                        .Attr("debug_name: string = ''")
                        .Attr("dtype: type")
                        .Attr("shape: shape")
                        .Attr("allowed_devices: list(string) = []")
                        .SetIsStateful(),
                    VarHandleOpKernel);
  registry.Register(ir::OpDefBuilder("ReadVariableOp")
                        .Input("resource: resource")
                        .Output("value: dtype")
                        .Attr("dtype: type")
                        .SetIsStateful(),
                    ReadVariableOpKernel);
  registry.Register(ir::OpDefBuilder("AssignVariableOp")
                        .Input("resource: resource")
                        .Input("value: dtype")
                        .Attr("dtype: type")
                        .Attr("validate_shape: bool = false")
                        .SetIsStateful(),
                    AssignVariableOpKernel);
  registry.Register(ir::OpDefBuilder("AssignAddVariableOp")
                        .Input("resource: resource")
                        .Input("value: dtype")
                        .Attr("dtype: type")
                        .SetIsStateful(),
                    [](KernelContext& ctx) { return AssignUpdateKernel(ctx, false); });
  registry.Register(ir::OpDefBuilder("AssignSubVariableOp")
                        .Input("resource: resource")
                        .Input("value: dtype")
                        .Attr("dtype: type")
                        .SetIsStateful(),
                    [](KernelContext& ctx) { return AssignUpdateKernel(ctx, true); });
  registry.Register(ir::OpDefBuilder("VarIsInitializedOp")
                        .Input("resource: resource")
                        .Output("is_initialized: bool")
                        .SetIsStateful(),
                    VarIsInitializedOpKernel);
  registry.Register(ir::OpDefBuilder("DestroyResourceOp")
                        .Input("resource: resource")
                        .Attr("ignore_lookup_error: bool = true")
                        .SetIsStateful(),
                    DestroyResourceOpKernel);
  registry.Register(ir::OpDefBuilder("DisableCopyOnRead")
                        .Input("resource: resource")
                        .SetIsStateful(),
                    DisableCopyOnReadKernel);
  registry.Register(ir::OpDefBuilder("ResourceGather")
                        .Input("resource: resource")
                        .Input("indices: Tindices")
                        .Output("output: dtype")
                        .Attr("batch_dims: int = 0")
                        .Attr("validate_indices: bool = true")
                        .Attr("dtype: type")
                        .Attr("Tindices: {int32, int64}")
                        .SetIsStateful(),
                    ResourceGatherKernel);
}

}  // namespace tfhost::ops
