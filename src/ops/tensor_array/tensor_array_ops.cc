// The TF1 TensorArray family (V3): TensorArrayV3, WriteV3, ReadV3,
// ScatterV3, GatherV3, ConcatV3, SplitV3, SizeV3, CloseV3, as dynamic_rnn and
// tf.while_loop accumulators write them; GradV3 / GradWithShape (gradient
// arrays, found or created per source, whose writes to one index add up); and
// the older V2 and V1 spellings of the same ops, whose handle is a string
// (Ref(string) in V1) instead of a resource and whose creation op has no flow
// output. Handles of every version are the container key, so they mix.
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
#include <map>
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
  // Gradient arrays: writes to one index add up instead of failing.
  bool multiple_writes_aggregate = false;
  // Gradient arrays of this one, by gradient source.
  std::map<std::string, std::string> grads;
  std::vector<Tensor> items;
  std::vector<uint8_t> written;  // per index
  std::vector<uint8_t> cleared;  // per index: read once with clear_after_read
};

StatusOr<std::shared_ptr<TensorArrayState>> LookupArray(const KernelContext& ctx) {
  const Tensor& h = ctx.input(0);
  if ((h.dtype() != DType::kResource && h.dtype() != DType::kString) || h.NumElements() != 1) {
    return ctx.Error("handle must be a resource (or V1/V2 string) scalar, got " + DTypeShortName(h.dtype()) +
                     h.shape().ToString());
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
    TFHOST_RETURN_IF_ERROR(tensor_array::CheckSlotsFit(ctx, index + 1, "a TensorArray grown"));
    ta.items.resize(index + 1);
    ta.written.resize(index + 1, 0);
    ta.cleared.resize(index + 1, 0);
  }
  if (ta.written[index] && !ta.multiple_writes_aggregate) {
    return ctx.Error("could not write to TensorArray index " + std::to_string(index) +
                     " because it has already been written to");
  }
  if (ta.written[index] && ta.items[index].shape() != value.shape()) {
    return ctx.Error("could not aggregate a value of shape " + value.shape().ToString() + " into index " +
                     std::to_string(index) + " which holds shape " + ta.items[index].shape().ToString());
  }
  return OkStatus();
}

template <typename T>
void AddInto(Tensor& acc, const Tensor& value) {
  T* a = acc.data<T>();
  const T* v = value.data<T>();
  for (int64_t i = 0; i < acc.NumElements(); ++i) a[i] = static_cast<T>(a[i] + v[i]);
}

// Stores `value` at `index` after PrepareWrite: a gradient array adds it to
// what is already there (TensorFlow's multiple_writes_aggregate).
Status StoreElement(const KernelContext& ctx, TensorArrayState& ta, int64_t index, Tensor value) {
  if (!ta.written[index]) {
    ta.items[index] = std::move(value);
    ta.written[index] = 1;
    return OkStatus();
  }
  Tensor sum(ta.dtype, value.shape());
  tensor_array::CopyElements(ta.items[index], 0, sum, 0, sum.NumElements());
  switch (ta.dtype) {
    case DType::kFloat: AddInto<float>(sum, value); break;
    case DType::kDouble: AddInto<double>(sum, value); break;
    case DType::kInt32: AddInto<int32_t>(sum, value); break;
    case DType::kInt64: AddInto<int64_t>(sum, value); break;
    default:
      return ctx.Error("cannot aggregate writes of " + DTypeShortName(ta.dtype) + " in a gradient TensorArray");
  }
  ta.items[index] = std::move(sum);
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
  TFHOST_RETURN_IF_ERROR(tensor_array::CheckSlotsFit(ctx, size, "a TensorArray"));
  auto ta = std::make_shared<TensorArrayState>();
  TFHOST_ASSIGN_OR_RETURN(ta->dtype, ctx.Attr<DType>("dtype"));
  TFHOST_ASSIGN_OR_RETURN(ta->element_shape, ctx.AttrOr<ir::PartialShape>("element_shape", ir::PartialShape()));
  TFHOST_ASSIGN_OR_RETURN(ta->dynamic_size, ctx.AttrOr<bool>("dynamic_size", false));
  TFHOST_ASSIGN_OR_RETURN(ta->clear_after_read, ctx.AttrOr<bool>("clear_after_read", true));
  ta->items.resize(size);
  ta->written.assign(size, 0);
  ta->cleared.assign(size, 0);
  std::string name = StepContainer::Current()->Add(ctx.node().name + "/TensorArray", ta);
  // V3 returns a resource handle and a flow; V2 and V1 a string handle only.
  const bool v3 = ctx.num_outputs() == 2;
  Tensor handle(v3 ? DType::kResource : DType::kString, Shape());
  handle.strings()[0] = name;
  ctx.set_output(0, std::move(handle));
  if (v3) ctx.set_output(1, Tensor::Scalar<float>(0.0f));
  return OkStatus();
}

// TensorArrayGradV3 / TensorArrayGradWithShape: the gradient array of `handle`
// for `source`, created on first use with the forward array's current size,
// dtype and element shape (prefixed by shape_to_prepend for WithShape), not
// dynamic, with writes to one index adding up.
Status TensorArrayGrad(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(auto ta, LookupArray(ctx));
  TFHOST_ASSIGN_OR_RETURN(std::string source, ctx.Attr<std::string>("source"));
  const bool with_shape = ctx.node().op == "TensorArrayGradWithShape";
  ir::PartialShape element_shape;
  std::vector<int64_t> prepend;
  if (with_shape) {
    const Tensor& p = ctx.input(2);
    if (p.rank() != 1 || (p.dtype() != DType::kInt32 && p.dtype() != DType::kInt64)) {
      return ctx.Error("shape_to_prepend must be an int32 vector, got " + DTypeShortName(p.dtype()) +
                       p.shape().ToString());
    }
    TFHOST_ASSIGN_OR_RETURN(prepend, p.ToInt64Vector());
    for (int64_t d : prepend) {
      if (d < -1) return ctx.Error("shape_to_prepend has a negative dim " + std::to_string(d));
    }
  }
  StepContainer* step = StepContainer::Current();
  std::lock_guard<std::mutex> lock(ta->mu);
  auto it = ta->grads.find(source);
  std::string name;
  if (it != ta->grads.end() && step->Find(it->second) != nullptr) {
    name = it->second;
  } else {
    auto grad = std::make_shared<TensorArrayState>();
    grad->dtype = ta->dtype;
    grad->element_shape = ta->element_shape;
    if (with_shape) {
      if (!ta->element_shape.rank_known()) {
        grad->element_shape = ir::PartialShape();
      } else {
        std::vector<int64_t> dims = prepend;
        dims.insert(dims.end(), ta->element_shape.dims.begin(), ta->element_shape.dims.end());
        grad->element_shape = ir::PartialShape::Known(dims);
      }
    }
    grad->multiple_writes_aggregate = true;
    grad->items.resize(ta->items.size());
    grad->written.assign(ta->items.size(), 0);
    grad->cleared.assign(ta->items.size(), 0);
    name = step->Add(ctx.node().name + "/TensorArrayGrad@" + source, grad);
    ta->grads[source] = name;
  }
  Tensor handle(ctx.input(0).dtype(), Shape());
  handle.strings()[0] = name;
  ctx.set_output(0, std::move(handle));
  ctx.set_output(1, ctx.input(1));
  return OkStatus();
}

Status TensorArrayWriteV3(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(auto ta, LookupArray(ctx));
  TFHOST_ASSIGN_OR_RETURN(int64_t index, tensor_array::ReadScalarIndex(ctx, 1, "index"));
  std::lock_guard<std::mutex> lock(ta->mu);
  TFHOST_RETURN_IF_ERROR(PrepareWrite(ctx, *ta, index, ctx.input(2)));
  TFHOST_RETURN_IF_ERROR(StoreElement(ctx, *ta, index, ctx.input(2)));
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

// Gathers `indices` (every index when null: V1's TensorArrayPack).
Status GatherElements(KernelContext& ctx, const std::vector<int64_t>* wanted) {
  TFHOST_ASSIGN_OR_RETURN(auto ta, LookupArray(ctx));
  TFHOST_ASSIGN_OR_RETURN(ir::PartialShape attr_shape,
                          ctx.AttrOr<ir::PartialShape>("element_shape", ir::PartialShape()));
  std::lock_guard<std::mutex> lock(ta->mu);
  std::vector<int64_t> indices;
  if (wanted != nullptr) {
    indices = *wanted;
  } else {
    for (size_t i = 0; i < ta->items.size(); ++i) indices.push_back(static_cast<int64_t>(i));
  }
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

Status TensorArrayGatherV3(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> indices, ReadIndices(ctx, 1));
  return GatherElements(ctx, &indices);
}

Status TensorArrayPack(KernelContext& ctx) { return GatherElements(ctx, nullptr); }

// Writes the rows of `value` to `indices` (rows 0..n-1 when null: V1's
// TensorArrayUnpack).
Status ScatterElements(KernelContext& ctx, const std::vector<int64_t>* wanted, const Tensor& value) {
  TFHOST_ASSIGN_OR_RETURN(auto ta, LookupArray(ctx));
  std::vector<int64_t> indices;
  if (wanted != nullptr) {
    indices = *wanted;
  } else if (value.rank() >= 1) {
    for (int64_t i = 0; i < value.dim(0); ++i) indices.push_back(i);
  }
  if (value.rank() < 1 || value.dim(0) != static_cast<int64_t>(indices.size())) {
    return ctx.Error("value of shape " + value.shape().ToString() + " must have one row per index (" +
                     std::to_string(indices.size()) + ")");
  }
  std::lock_guard<std::mutex> lock(ta->mu);
  for (size_t k = 0; k < indices.size(); ++k) {
    Tensor row = tensor_array::Row(value, static_cast<int64_t>(k));
    TFHOST_RETURN_IF_ERROR(PrepareWrite(ctx, *ta, indices[k], row));
    TFHOST_RETURN_IF_ERROR(StoreElement(ctx, *ta, indices[k], std::move(row)));
  }
  return OkStatus();
}

Status TensorArrayScatterV3(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> indices, ReadIndices(ctx, 1));
  TFHOST_RETURN_IF_ERROR(ScatterElements(ctx, &indices, ctx.input(2)));
  ctx.set_output(0, ctx.input(3));
  return OkStatus();
}

Status TensorArrayUnpack(KernelContext& ctx) {
  TFHOST_RETURN_IF_ERROR(ScatterElements(ctx, nullptr, ctx.input(1)));
  ctx.set_output(0, ctx.input(2));
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
    TFHOST_RETURN_IF_ERROR(StoreElement(ctx, *ta, static_cast<int64_t>(k), std::move(piece)));
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
  // One schema per op in TensorFlow's V3 spelling; the V2 ("...V2", string
  // handle) and V1 (no suffix, Ref(string) handle) names share the kernels.
  // `h` is the handle type and `v` the suffix of the version being registered.
  struct Version { const char* suffix; const char* handle; const char* created; };
  for (const Version& version : {Version{"V3", "resource", "resource"}, Version{"V2", "string", "string"},
                                 Version{"", "string", "Ref(string)"}}) {
    const std::string v = version.suffix;
    const bool v3 = v == "V3";
    // V1 takes Ref(string) handles into every op; V2 plain strings.
    const std::string h = v.empty() ? std::string("Ref(string)") : version.handle;
    ir::OpDefBuilder create("TensorArray" + v);
    create.Input("size: int32").Output(std::string("handle: ") + version.created);
    if (v3) create.Output("flow: float");
    create.Attr("dtype: type").Attr("element_shape: shape = unknown").Attr("dynamic_size: bool = false")
        .Attr("clear_after_read: bool = true").Attr("tensor_array_name: string = \"\"").SetIsStateful();
    if (v3) create.Attr("identical_element_shapes: bool = false");
    r.Register(create, TensorArrayV3);
    r.Register(ir::OpDefBuilder("TensorArrayGrad" + v).Input("handle: " + h).Input("flow_in: float")
                   .Output("grad_handle: " + std::string(v3 ? "resource" : v.empty() ? "Ref(string)" : "string"))
                   .Output("flow_out: float").Attr("source: string").SetIsStateful(),
               TensorArrayGrad);
    r.Register(ir::OpDefBuilder("TensorArrayWrite" + v).Input("handle: " + h).Input("index: int32")
                   .Input("value: T").Input("flow_in: float").Output("flow_out: float").Attr("T: type")
                   .SetIsStateful(),
               TensorArrayWriteV3);
    r.Register(ir::OpDefBuilder("TensorArrayRead" + v).Input("handle: " + h).Input("index: int32")
                   .Input("flow_in: float").Output("value: dtype").Attr("dtype: type").SetIsStateful(),
               TensorArrayReadV3);
    ir::OpDefBuilder gather("TensorArrayGather" + v);
    gather.Input("handle: " + h).Input("indices: int32").Input("flow_in: float").Output("value: dtype")
        .Attr("dtype: type").Attr("element_shape: shape = unknown").SetIsStateful();
    r.Register(gather, TensorArrayGatherV3);
    r.Register(ir::OpDefBuilder("TensorArrayScatter" + v).Input("handle: " + h).Input("indices: int32")
                   .Input("value: T").Input("flow_in: float").Output("flow_out: float").Attr("T: type")
                   .SetIsStateful(),
               TensorArrayScatterV3);
    r.Register(ir::OpDefBuilder("TensorArrayConcat" + v).Input("handle: " + h).Input("flow_in: float")
                   .Output("value: dtype").Output("lengths: int64").Attr("dtype: type")
                   .Attr("element_shape_except0: shape = unknown").SetIsStateful(),
               TensorArrayConcatV3);
    r.Register(ir::OpDefBuilder("TensorArraySplit" + v).Input("handle: " + h).Input("value: T")
                   .Input("lengths: int64").Input("flow_in: float").Output("flow_out: float").Attr("T: type")
                   .SetIsStateful(),
               TensorArraySplitV3);
    r.Register(ir::OpDefBuilder("TensorArraySize" + v).Input("handle: " + h).Input("flow_in: float")
                   .Output("size: int32").SetIsStateful(),
               TensorArraySizeV3);
    r.Register(ir::OpDefBuilder("TensorArrayClose" + v).Input("handle: " + h).SetIsStateful(), TensorArrayCloseV3);
  }
  // V1 also has Pack/Unpack: a Gather/Scatter of every index.
  r.Register(ir::OpDefBuilder("TensorArrayPack").Input("handle: Ref(string)").Input("flow_in: float")
                 .Output("value: dtype").Attr("dtype: type").Attr("element_shape: shape = unknown").SetIsStateful(),
             TensorArrayPack);
  r.Register(ir::OpDefBuilder("TensorArrayUnpack").Input("handle: Ref(string)").Input("value: T")
                 .Input("flow_in: float").Output("flow_out: float").Attr("T: type").SetIsStateful(),
             TensorArrayUnpack);
  r.Register(ir::OpDefBuilder("TensorArrayGradWithShape").Input("handle: resource").Input("flow_in: float")
                 .Input("shape_to_prepend: int32").Output("grad_handle: resource").Output("flow_out: float")
                 .Attr("source: string").SetIsStateful(),
             TensorArrayGrad);
}

}  // namespace tfhost::ops
