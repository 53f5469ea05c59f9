// The TF1 TensorArray family (V3): TensorArrayV3, WriteV3, ReadV3,
// ScatterV3, GatherV3, ConcatV3, SplitV3, SizeV3, CloseV3, as dynamic_rnn and
// tf.while_loop accumulators write them.
//
// A TensorArray lives in the run's StepContainer (it dies with the run, as
// in TensorFlow); its DT_RESOURCE handle holds the container key. The float
// `flow` tensors carry no data: they only order reads after writes in the
// graph, so kernels pass flow_in through as flow_out.
//
// TensorFlow's rules: an index is written at most once; reading an element
// never written gives zeros when the element shape is fully known and is an
// error otherwise; with clear_after_read (the default) an element can be read
// only once; writes past the size grow the array only when dynamic_size.
#include <mutex>

#include "ir/attrs.h"
#include "ops/control_flow/control_flow_ops.h"
#include "ops/tensor_array/element_util.h"
#include "ops/tensor_array/step_container.h"

namespace tfhost::ops {

namespace {

using tensor_array::kMaxElements;

struct TensorArrayState : Resource {
  std::string TypeName() const override { return "TensorArray"; }
  std::mutex mu;
  DType dtype = DType::kInvalid;
  ir::PartialShape element_shape;
  bool dynamic_size = false;
  bool clear_after_read = true;
  bool closed = false;
  std::vector<Tensor> items;
  std::vector<uint8_t> written;  // per index
  std::vector<uint8_t> cleared;  // per index: read once with clear_after_read
};

StatusOr<std::shared_ptr<TensorArrayState>> LookupArray(const KernelContext& ctx) {
  const Tensor& h = ctx.input(0);
  if (h.dtype() != DType::kResource || h.NumElements() != 1) {
    return ctx.Error("handle must be a resource scalar, got " + DTypeShortName(h.dtype()) + h.shape().ToString());
  }
  auto object = StepContainer::Current()->Find(h.strings()[0]);
  auto ta = std::dynamic_pointer_cast<TensorArrayState>(object);
  if (!ta) {
    return ctx.Error("TensorArray '" + h.strings()[0] +
                     "' does not exist in this run (it was closed, or the handle comes from another run)");
  }
  std::lock_guard<std::mutex> lock(ta->mu);
  if (ta->closed) return ctx.Error("TensorArray '" + h.strings()[0] + "' has already been closed");
  return ta;
}

// Index `index` for writing, growing a dynamic array; caller holds mu.
Status PrepareWrite(const KernelContext& ctx, TensorArrayState& ta, int64_t index, const Tensor& value) {
  if (value.dtype() != ta.dtype) {
    return ctx.Error("the TensorArray holds " + DTypeShortName(ta.dtype) + ", got " + DTypeShortName(value.dtype()));
  }
  if (!ta.element_shape.IsCompatibleWith(value.shape())) {
    return ctx.Error("value of shape " + value.shape().ToString() + " does not fit the element shape " +
                     ta.element_shape.ToString());
  }
  int64_t size = static_cast<int64_t>(ta.items.size());
  if (index < 0 || index >= kMaxElements || (index >= size && !ta.dynamic_size)) {
    return ctx.Error("index " + std::to_string(index) + " is out of range for a TensorArray of size " +
                     std::to_string(size));
  }
  if (index >= size) {
    ta.items.resize(index + 1);
    ta.written.resize(index + 1, 0);
    ta.cleared.resize(index + 1, 0);
  }
  if (ta.written[index]) {
    return ctx.Error("could not write to TensorArray index " + std::to_string(index) +
                     " because it has already been written to");
  }
  return OkStatus();
}

// Reads element `index` (zeros when never written and the shape is known);
// caller holds mu.
StatusOr<Tensor> ReadElement(const KernelContext& ctx, TensorArrayState& ta, int64_t index) {
  int64_t size = static_cast<int64_t>(ta.items.size());
  if (index < 0 || index >= size) {
    return ctx.Error("index " + std::to_string(index) + " is out of range for a TensorArray of size " +
                     std::to_string(size));
  }
  if (ta.cleared[index]) {
    return ctx.Error("could not read TensorArray index " + std::to_string(index) +
                     " twice because it was cleared after a previous read (clear_after_read is true)");
  }
  Tensor value;
  if (ta.written[index]) {
    value = ta.items[index];
  } else {
    TFHOST_ASSIGN_OR_RETURN(value, tensor_array::Zeros(ctx, ta.dtype, ta.element_shape,
                                                      "TensorArray element " + std::to_string(index)));
  }
  if (ta.clear_after_read && ta.written[index]) {
    ta.items[index] = Tensor();
    ta.cleared[index] = 1;
  }
  return value;
}

Status TensorArrayV3(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(int64_t size, tensor_array::ReadScalarIndex(ctx, 0, "size"));
  if (size < 0 || size > kMaxElements) {
    return ctx.Error("size must be in [0, " + std::to_string(kMaxElements) + "], got " + std::to_string(size));
  }
  auto ta = std::make_shared<TensorArrayState>();
  TFHOST_ASSIGN_OR_RETURN(ta->dtype, ctx.Attr<DType>("dtype"));
  TFHOST_ASSIGN_OR_RETURN(ta->element_shape, ctx.AttrOr<ir::PartialShape>("element_shape", ir::PartialShape()));
  TFHOST_ASSIGN_OR_RETURN(ta->dynamic_size, ctx.AttrOr<bool>("dynamic_size", false));
  TFHOST_ASSIGN_OR_RETURN(ta->clear_after_read, ctx.AttrOr<bool>("clear_after_read", true));
  ta->items.resize(size);
  ta->written.assign(size, 0);
  ta->cleared.assign(size, 0);
  std::string name = StepContainer::Current()->Add(ctx.node().name + "/TensorArray", ta);
  Tensor handle(DType::kResource, Shape());
  handle.strings()[0] = name;
  ctx.set_output(0, std::move(handle));
  ctx.set_output(1, Tensor::Scalar<float>(0.0f));
  return OkStatus();
}

Status TensorArrayWriteV3(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(auto ta, LookupArray(ctx));
  TFHOST_ASSIGN_OR_RETURN(int64_t index, tensor_array::ReadScalarIndex(ctx, 1, "index"));
  std::lock_guard<std::mutex> lock(ta->mu);
  TFHOST_RETURN_IF_ERROR(PrepareWrite(ctx, *ta, index, ctx.input(2)));
  ta->items[index] = ctx.input(2);
  ta->written[index] = 1;
  ctx.set_output(0, ctx.input(3));
  return OkStatus();
}

Status TensorArrayReadV3(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(auto ta, LookupArray(ctx));
  TFHOST_ASSIGN_OR_RETURN(int64_t index, tensor_array::ReadScalarIndex(ctx, 1, "index"));
  TFHOST_ASSIGN_OR_RETURN(DType dtype, ctx.Attr<DType>("dtype"));
  std::lock_guard<std::mutex> lock(ta->mu);
  if (dtype != ta->dtype) return ctx.Error("dtype is " + DTypeShortName(dtype) + " but the TensorArray holds " +
                                           DTypeShortName(ta->dtype));
  TFHOST_ASSIGN_OR_RETURN(Tensor value, ReadElement(ctx, *ta, index));
  ctx.set_output(0, std::move(value));
  return OkStatus();
}

StatusOr<std::vector<int64_t>> ReadIndices(const KernelContext& ctx, int i) {
  const Tensor& t = ctx.input(i);
  if (t.rank() != 1) return ctx.Error("indices must be a vector, got " + t.shape().ToString());
  return t.ToInt64Vector();
}

Status TensorArrayGatherV3(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(auto ta, LookupArray(ctx));
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> indices, ReadIndices(ctx, 1));
  TFHOST_ASSIGN_OR_RETURN(ir::PartialShape attr_shape,
                          ctx.AttrOr<ir::PartialShape>("element_shape", ir::PartialShape()));
  std::lock_guard<std::mutex> lock(ta->mu);
  std::vector<Tensor> items;
  for (int64_t i : indices) {
    TFHOST_ASSIGN_OR_RETURN(Tensor v, ReadElement(ctx, *ta, i));
    items.push_back(std::move(v));
  }
  Shape element_shape;
  if (!items.empty()) {
    element_shape = items[0].shape();
  } else {
    auto merged = ir::MergeShapes(ta->element_shape, attr_shape);
    if (!merged.ok() || !merged->IsFullyDefined()) {
      return ctx.Error("cannot gather zero elements: the element shape is not fully defined");
    }
    element_shape = merged->ToShape();
  }
  TFHOST_ASSIGN_OR_RETURN(Tensor out, tensor_array::Stack(ctx, items, ta->dtype, element_shape));
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status TensorArrayScatterV3(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(auto ta, LookupArray(ctx));
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> indices, ReadIndices(ctx, 1));
  const Tensor& value = ctx.input(2);
  if (value.rank() < 1 || value.dim(0) != static_cast<int64_t>(indices.size())) {
    return ctx.Error("value of shape " + value.shape().ToString() + " must have one row per index (" +
                     std::to_string(indices.size()) + ")");
  }
  std::lock_guard<std::mutex> lock(ta->mu);
  for (size_t k = 0; k < indices.size(); ++k) {
    Tensor row = tensor_array::Row(value, static_cast<int64_t>(k));
    TFHOST_RETURN_IF_ERROR(PrepareWrite(ctx, *ta, indices[k], row));
    ta->items[indices[k]] = std::move(row);
    ta->written[indices[k]] = 1;
  }
  ctx.set_output(0, ctx.input(3));
  return OkStatus();
}

Status TensorArrayConcatV3(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(auto ta, LookupArray(ctx));
  std::lock_guard<std::mutex> lock(ta->mu);
  std::vector<Tensor> items;
  for (size_t i = 0; i < ta->items.size(); ++i) {
    TFHOST_ASSIGN_OR_RETURN(Tensor v, ReadElement(ctx, *ta, static_cast<int64_t>(i)));
    if (v.rank() < 1) return ctx.Error("concatenated elements must have rank >= 1; element " + std::to_string(i) +
                                       " is a scalar");
    items.push_back(std::move(v));
  }
  std::vector<int64_t> rest;
  if (!items.empty()) {
    rest.assign(items[0].shape().dims().begin() + 1, items[0].shape().dims().end());
  } else {
    TFHOST_ASSIGN_OR_RETURN(ir::PartialShape except0,
                            ctx.AttrOr<ir::PartialShape>("element_shape_except0", ir::PartialShape()));
    if (!except0.IsFullyDefined()) return ctx.Error("cannot concatenate zero elements of unknown shape");
    rest = except0.dims;
  }
  Tensor lengths(DType::kInt64, Shape({static_cast<int64_t>(items.size())}));
  int64_t rows = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    std::vector<int64_t> r(items[i].shape().dims().begin() + 1, items[i].shape().dims().end());
    if (r != rest) return ctx.Error("elements differ beyond dim 0: " + Shape(rest).ToString() + " vs " +
                                    Shape(r).ToString());
    lengths.data<int64_t>()[i] = items[i].dim(0);
    rows += items[i].dim(0);
  }
  std::vector<int64_t> dims = {rows};
  dims.insert(dims.end(), rest.begin(), rest.end());
  TFHOST_ASSIGN_OR_RETURN(Shape shape, MakeShape(dims, "concatenated shape"));
  Tensor out(ta->dtype, shape);
  int64_t offset = 0;
  for (const auto& item : items) {
    tensor_array::CopyElements(item, 0, out, offset, item.NumElements());
    offset += item.NumElements();
  }
  ctx.set_output(0, std::move(out));
  ctx.set_output(1, std::move(lengths));
  return OkStatus();
}

Status TensorArraySplitV3(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(auto ta, LookupArray(ctx));
  const Tensor& value = ctx.input(1);
  const Tensor& lengths_t = ctx.input(2);
  if (lengths_t.rank() != 1) return ctx.Error("lengths must be a vector, got " + lengths_t.shape().ToString());
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> lengths, lengths_t.ToInt64Vector());
  if (value.rank() < 1) return ctx.Error("value must have rank >= 1, got a scalar");
  int64_t total = 0;
  for (int64_t l : lengths) {
    if (l < 0 || l > value.dim(0)) return ctx.Error("invalid length " + std::to_string(l));
    total += l;
  }
  if (total != value.dim(0)) {
    return ctx.Error("lengths sum to " + std::to_string(total) + " but value has " + std::to_string(value.dim(0)) +
                     " rows");
  }
  int64_t row_size = value.dim(0) == 0 ? 0 : value.NumElements() / value.dim(0);
  std::lock_guard<std::mutex> lock(ta->mu);
  int64_t offset = 0;
  for (size_t k = 0; k < lengths.size(); ++k) {
    std::vector<int64_t> dims = value.shape().dims();
    dims[0] = lengths[k];
    Tensor piece(value.dtype(), Shape(dims));
    tensor_array::CopyElements(value, offset * row_size, piece, 0, lengths[k] * row_size);
    offset += lengths[k];
    TFHOST_RETURN_IF_ERROR(PrepareWrite(ctx, *ta, static_cast<int64_t>(k), piece));
    ta->items[k] = std::move(piece);
    ta->written[k] = 1;
  }
  ctx.set_output(0, ctx.input(3));
  return OkStatus();
}

Status TensorArraySizeV3(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(auto ta, LookupArray(ctx));
  std::lock_guard<std::mutex> lock(ta->mu);
  ctx.set_output(0, Tensor::Scalar<int32_t>(static_cast<int32_t>(ta->items.size())));
  return OkStatus();
}

Status TensorArrayCloseV3(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(auto ta, LookupArray(ctx));
  {
    std::lock_guard<std::mutex> lock(ta->mu);
    ta->closed = true;
    ta->items.clear();
  }
  StepContainer::Current()->Remove(ctx.input(0).strings()[0]);
  return OkStatus();
}

}  // namespace

void RegisterTensorArrayOps(OpRegistry& r) {
  r.Register(ir::OpDefBuilder("TensorArrayV3").Input("size: int32").Output("handle: resource").Output("flow: float")
                 .Attr("dtype: type").Attr("element_shape: shape = unknown").Attr("dynamic_size: bool = false")
                 .Attr("clear_after_read: bool = true").Attr("identical_element_shapes: bool = false")
                 .Attr("tensor_array_name: string = \"\"").SetIsStateful(),
             TensorArrayV3);
  r.Register(ir::OpDefBuilder("TensorArrayWriteV3").Input("handle: resource").Input("index: int32").Input("value: T")
                 .Input("flow_in: float").Output("flow_out: float").Attr("T: type").SetIsStateful(),
             TensorArrayWriteV3);
  r.Register(ir::OpDefBuilder("TensorArrayReadV3").Input("handle: resource").Input("index: int32")
                 .Input("flow_in: float").Output("value: dtype").Attr("dtype: type").SetIsStateful(),
             TensorArrayReadV3);
  r.Register(ir::OpDefBuilder("TensorArrayGatherV3").Input("handle: resource").Input("indices: int32")
                 .Input("flow_in: float").Output("value: dtype").Attr("dtype: type")
                 .Attr("element_shape: shape = unknown").SetIsStateful(),
             TensorArrayGatherV3);
  r.Register(ir::OpDefBuilder("TensorArrayScatterV3").Input("handle: resource").Input("indices: int32")
                 .Input("value: T").Input("flow_in: float").Output("flow_out: float").Attr("T: type").SetIsStateful(),
             TensorArrayScatterV3);
  r.Register(ir::OpDefBuilder("TensorArrayConcatV3").Input("handle: resource").Input("flow_in: float")
                 .Output("value: dtype").Output("lengths: int64").Attr("dtype: type")
                 .Attr("element_shape_except0: shape = unknown").SetIsStateful(),
             TensorArrayConcatV3);
  r.Register(ir::OpDefBuilder("TensorArraySplitV3").Input("handle: resource").Input("value: T")
                 .Input("lengths: int64").Input("flow_in: float").Output("flow_out: float").Attr("T: type")
                 .SetIsStateful(),
             TensorArraySplitV3);
  r.Register(ir::OpDefBuilder("TensorArraySizeV3").Input("handle: resource").Input("flow_in: float")
                 .Output("size: int32").SetIsStateful(),
             TensorArraySizeV3);
  r.Register(ir::OpDefBuilder("TensorArrayCloseV3").Input("handle: resource").SetIsStateful(), TensorArrayCloseV3);
}

}  // namespace tfhost::ops
