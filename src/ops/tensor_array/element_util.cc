#include "ops/tensor_array/element_util.h"

#include <cstring>

#include "base/buffer_pool.h"
#include "ir/graph.h"

namespace tfhost::ops::tensor_array {

Status CheckSlotsFit(const KernelContext& ctx, int64_t n, const std::string& what) {
  const BufferPool* pool = BufferPool::Current();
  if (pool == nullptr || pool->max_in_use_bytes() <= 0 || n <= 0) return OkStatus();
  // n <= kMaxElements: no overflow. Per slot: the Tensor and two flag bytes.
  const int64_t bytes = n * static_cast<int64_t>(sizeof(Tensor) + 2);
  if (bytes <= pool->max_in_use_bytes()) return OkStatus();
  return ResourceExhausted(ir::NodeContext(ctx.node()) + ": " + what + " of " + std::to_string(n) +
                           " elements needs " + std::to_string(bytes) +
                           " bytes of element slots, more than the session's tensor memory limit of " +
                           std::to_string(pool->max_in_use_bytes()) + " bytes");
}

StatusOr<ir::PartialShape> ReadElementShape(const KernelContext& ctx, int i) {
  const Tensor& t = ctx.input(i);
  if (t.dtype() != DType::kInt32 && t.dtype() != DType::kInt64) {
    return ctx.Error("element_shape must be int32 or int64, got " + DTypeShortName(t.dtype()));
  }
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> dims, t.ToInt64Vector());
  if (t.rank() == 0) {
    if (dims[0] != -1) return ctx.Error("a scalar element_shape must be -1 (unknown rank), got " + std::to_string(dims[0]));
    return ir::PartialShape::Unknown();
  }
  if (t.rank() != 1) return ctx.Error("element_shape must be a scalar or vector, got " + t.shape().ToString());
  for (int64_t d : dims) {
    if (d < -1) return ctx.Error("element_shape has an invalid dim " + std::to_string(d));
  }
  return ir::PartialShape::Known(dims);
}

Tensor ElementShapeTensor(const ir::PartialShape& shape, DType dtype) {
  std::vector<int64_t> dims = shape.rank_known() ? shape.dims : std::vector<int64_t>{};
  for (auto& d : dims) d = d < 0 ? -1 : d;
  Shape out_shape = shape.rank_known() ? Shape({static_cast<int64_t>(dims.size())}) : Shape();
  Tensor t(dtype, out_shape);
  if (!shape.rank_known()) {
    if (dtype == DType::kInt32) t.data<int32_t>()[0] = -1;
    else t.data<int64_t>()[0] = -1;
    return t;
  }
  for (size_t k = 0; k < dims.size(); ++k) {
    if (dtype == DType::kInt32) t.data<int32_t>()[k] = static_cast<int32_t>(dims[k]);
    else t.data<int64_t>()[k] = dims[k];
  }
  return t;
}

StatusOr<Tensor> Zeros(const KernelContext& ctx, DType dtype, const ir::PartialShape& shape,
                       const std::string& what) {
  if (!shape.IsFullyDefined()) {
    return ctx.Error(what + " was never set and its element shape " + shape.ToString() +
                     " is not fully defined, so no zeros can stand in for it");
  }
  TFHOST_ASSIGN_OR_RETURN(Shape s, MakeShape(shape.dims, "element shape", kMaxElements * 64));
  return Tensor(dtype, s);
}

void CopyElements(const Tensor& src, int64_t src_offset, Tensor& dst, int64_t dst_offset, int64_t n) {
  if (n <= 0) return;
  if (IsStringLike(src.dtype())) {
    for (int64_t k = 0; k < n; ++k) dst.strings()[dst_offset + k] = src.strings()[src_offset + k];
  } else if (src.dtype() == DType::kVariant) {
    for (int64_t k = 0; k < n; ++k) dst.variants()[dst_offset + k] = src.variants()[src_offset + k];
  } else {
    size_t size = DTypeSize(src.dtype());
    std::memcpy(static_cast<char*>(dst.raw_data()) + dst_offset * size,
                static_cast<const char*>(src.raw_data()) + src_offset * size, n * size);
  }
}

Tensor Row(const Tensor& t, int64_t row) {
  std::vector<int64_t> dims(t.shape().dims().begin() + 1, t.shape().dims().end());
  Tensor out(t.dtype(), Shape(dims));
  int64_t n = out.NumElements();
  CopyElements(t, row * n, out, 0, n);
  return out;
}

StatusOr<Tensor> Stack(const KernelContext& ctx, const std::vector<Tensor>& items, DType dtype,
                       const Shape& element_shape) {
  std::vector<int64_t> dims = {static_cast<int64_t>(items.size())};
  dims.insert(dims.end(), element_shape.dims().begin(), element_shape.dims().end());
  TFHOST_ASSIGN_OR_RETURN(Shape shape, MakeShape(dims, "stacked shape"));
  Tensor out(dtype, shape);
  int64_t n = element_shape.num_elements();
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].dtype() != dtype || items[i].shape() != element_shape) {
      return ctx.Error("element " + std::to_string(i) + " is " + DTypeShortName(items[i].dtype()) +
                       items[i].shape().ToString() + " but element 0 is " + DTypeShortName(dtype) +
                       element_shape.ToString() + "; stacked elements must agree");
    }
    CopyElements(items[i], 0, out, static_cast<int64_t>(i) * n, n);
  }
  return out;
}

StatusOr<int64_t> ReadScalarIndex(const KernelContext& ctx, int i, const std::string& what) {
  const Tensor& t = ctx.input(i);
  if ((t.dtype() != DType::kInt32 && t.dtype() != DType::kInt64) || t.NumElements() != 1) {
    return ctx.Error(what + " must be an int32 scalar, got " + DTypeShortName(t.dtype()) + t.shape().ToString());
  }
  return t.dtype() == DType::kInt32 ? t.data<int32_t>()[0] : t.data<int64_t>()[0];
}

}  // namespace tfhost::ops::tensor_array
