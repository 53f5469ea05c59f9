// The TensorList family (TF2): EmptyTensorList, TensorListReserve,
// TensorListFromTensor, GetItem, SetItem, Stack, Gather, PushBack, PopBack,
// Length, ElementShape, Resize, TensorListConcatV2, ScatterV2, their TF 2.0
// forms TensorListConcat and TensorListScatter, ScatterIntoExistingList and
// Split, with TensorFlow's
// semantics: elements never set read as zeros when the element shape is
// fully known; element_shape inputs refine the list's own shape.
#include "ops/control_flow/control_flow_ops.h"
#include "ops/tensor_array/element_util.h"
#include "ops/tensor_array/tensor_list.h"

namespace tfhost::ops {

namespace tensor_array {

std::string TensorList::DebugString() const {
  return "TensorList(" + DTypeShortName(element_dtype) + element_shape.ToString() + ", " +
         std::to_string(items.size()) + " elements)";
}

StatusOr<std::shared_ptr<const TensorList>> ReadList(const KernelContext& ctx, int i) {
  const Tensor& t = ctx.input(i);
  if (t.dtype() != DType::kVariant || t.NumElements() != 1) {
    return ctx.Error("input " + std::to_string(i) + " must be a variant scalar holding a TensorList, got " +
                     DTypeShortName(t.dtype()) + t.shape().ToString());
  }
  auto list = std::dynamic_pointer_cast<const TensorList>(t.variants()[0]);
  if (!list) return ctx.Error("input " + std::to_string(i) + " does not hold a TensorList");
  return list;
}

Tensor ListTensor(std::shared_ptr<TensorList> list) { return Tensor::VariantScalar(std::move(list)); }

Tensor WritableList::Output() && {
  if (list.get() == holder.variants()[0].get()) {
    list.reset();
    return std::move(holder);
  }
  return ListTensor(std::move(list));
}

WritableList TakeWritableList(KernelContext& ctx, int i) {
  WritableList w;
  w.holder = ctx.TakeInput(i);
  const VariantPtr& held = w.holder.variants()[0];
  auto list = std::static_pointer_cast<const TensorList>(held);
  if (w.holder.RefCountIsOne() && held.use_count() == 2) {  // `held` and `list`
    w.list = std::const_pointer_cast<TensorList>(std::move(list));
  } else {
    w.list = std::make_shared<TensorList>(*list);
  }
  return w;
}

Status CheckListItem(const KernelContext& ctx, const TensorList& list, const Tensor& item) {
  if (item.dtype() != list.element_dtype) {
    return ctx.Error("the list holds " + DTypeShortName(list.element_dtype) + ", got " + DTypeShortName(item.dtype()));
  }
  if (!list.element_shape.IsCompatibleWith(item.shape())) {
    return ctx.Error("element of shape " + item.shape().ToString() + " does not fit the list's element shape " +
                     list.element_shape.ToString());
  }
  return OkStatus();
}

}  // namespace tensor_array

namespace {

using tensor_array::CheckListItem;
using tensor_array::ListTensor;
using tensor_array::ReadElementShape;
using tensor_array::ReadList;
using tensor_array::ReadScalarIndex;
using tensor_array::TakeWritableList;
using tensor_array::TensorList;
using tensor_array::WritableList;

Status CheckElementDType(const KernelContext& ctx, const TensorList& list) {
  TFHOST_ASSIGN_OR_RETURN(DType dtype, ctx.Attr<DType>("element_dtype"));
  if (dtype != list.element_dtype) {
    return ctx.Error("element_dtype is " + DTypeShortName(dtype) + " but the list holds " +
                     DTypeShortName(list.element_dtype));
  }
  return OkStatus();
}

// The list's element shape refined by an element_shape input.
StatusOr<ir::PartialShape> MergedShape(const KernelContext& ctx, const TensorList& list, int input) {
  TFHOST_ASSIGN_OR_RETURN(ir::PartialShape given, ReadElementShape(ctx, input));
  auto merged = ir::MergeShapes(list.element_shape, given);
  if (!merged.ok()) return ctx.Error("element_shape " + given.ToString() + " conflicts with the list's " +
                                     list.element_shape.ToString());
  return *merged;
}

StatusOr<Tensor> ItemOrZeros(const KernelContext& ctx, const TensorList& list, size_t index,
                             const ir::PartialShape& shape) {
  if (list.items[index].valid()) return list.items[index];
  return tensor_array::Zeros(ctx, list.element_dtype, shape, "list element " + std::to_string(index));
}

StatusOr<int64_t> ReadCount(const KernelContext& ctx, int i, const std::string& what) {
  TFHOST_ASSIGN_OR_RETURN(int64_t n, ReadScalarIndex(ctx, i, what));
  if (n < 0 || n > tensor_array::kMaxElements) {
    return ctx.Error(what + " must be in [0, " + std::to_string(tensor_array::kMaxElements) + "], got " +
                     std::to_string(n));
  }
  TFHOST_RETURN_IF_ERROR(tensor_array::CheckSlotsFit(ctx, n, "a list"));
  return n;
}

Status EmptyTensorList(KernelContext& ctx) {
  auto list = std::make_shared<TensorList>();
  TFHOST_ASSIGN_OR_RETURN(list->element_dtype, ctx.Attr<DType>("element_dtype"));
  TFHOST_ASSIGN_OR_RETURN(list->element_shape, ReadElementShape(ctx, 0));
  TFHOST_ASSIGN_OR_RETURN(list->max_num_elements, ReadScalarIndex(ctx, 1, "max_num_elements"));
  ctx.set_output(0, ListTensor(std::move(list)));
  return OkStatus();
}

Status TensorListReserve(KernelContext& ctx) {
  auto list = std::make_shared<TensorList>();
  TFHOST_ASSIGN_OR_RETURN(list->element_dtype, ctx.Attr<DType>("element_dtype"));
  TFHOST_ASSIGN_OR_RETURN(list->element_shape, ReadElementShape(ctx, 0));
  TFHOST_ASSIGN_OR_RETURN(int64_t n, ReadCount(ctx, 1, "num_elements"));
  list->items.resize(n);
  ctx.set_output(0, ListTensor(std::move(list)));
  return OkStatus();
}

Status TensorListFromTensor(KernelContext& ctx) {
  const Tensor& t = ctx.input(0);
  TFHOST_ASSIGN_OR_RETURN(ir::PartialShape shape, ReadElementShape(ctx, 1));
  if (t.rank() < 1) return ctx.Error("tensor must have rank >= 1, got a scalar");
  if (t.dim(0) > tensor_array::kMaxElements) return ctx.Error("tensor has too many rows for a list");
  std::vector<int64_t> rest(t.shape().dims().begin() + 1, t.shape().dims().end());
  if (!shape.IsCompatibleWith(Shape(rest))) {
    return ctx.Error("element_shape " + shape.ToString() + " does not fit rows of shape " + Shape(rest).ToString());
  }
  auto list = std::make_shared<TensorList>();
  list->element_dtype = t.dtype();
  list->element_shape = shape;
  for (int64_t i = 0; i < t.dim(0); ++i) list->items.push_back(tensor_array::Row(t, i));
  ctx.set_output(0, ListTensor(std::move(list)));
  return OkStatus();
}

Status TensorListGetItem(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(auto list, ReadList(ctx, 0));
  TFHOST_RETURN_IF_ERROR(CheckElementDType(ctx, *list));
  TFHOST_ASSIGN_OR_RETURN(int64_t index, ReadScalarIndex(ctx, 1, "index"));
  if (index < 0 || index >= static_cast<int64_t>(list->items.size())) {
    return ctx.Error("index " + std::to_string(index) + " is out of range for a list of " +
                     std::to_string(list->items.size()) + " elements");
  }
  // A set element is returned as it is (as TensorFlow does); the shape the
  // zeros of an unset one take is only worked out for those.
  if (list->items[index].valid()) {
    ctx.set_output(0, list->items[index]);
    return OkStatus();
  }
  TFHOST_ASSIGN_OR_RETURN(ir::PartialShape shape, MergedShape(ctx, *list, 2));
  TFHOST_ASSIGN_OR_RETURN(Tensor item, ItemOrZeros(ctx, *list, index, shape));
  ctx.set_output(0, std::move(item));
  return OkStatus();
}

Status TensorListSetItem(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(auto list, ReadList(ctx, 0));
  TFHOST_ASSIGN_OR_RETURN(int64_t index, ReadScalarIndex(ctx, 1, "index"));
  const Tensor& item = ctx.input(2);
  TFHOST_RETURN_IF_ERROR(CheckListItem(ctx, *list, item));
  static const std::string kResizeAttr = "resize_if_index_out_of_bounds";  // past std::string's inline size
  TFHOST_ASSIGN_OR_RETURN(bool resize, ctx.AttrOr<bool>(kResizeAttr, false));
  int64_t size = static_cast<int64_t>(list->items.size());
  if (index < 0 || (index >= size && !resize) || index >= tensor_array::kMaxElements) {
    return ctx.Error("index " + std::to_string(index) + " is out of range for a list of " + std::to_string(size) +
                     " elements");
  }
  list.reset();
  WritableList out = TakeWritableList(ctx, 0);
  if (index >= size) {
    TFHOST_RETURN_IF_ERROR(tensor_array::CheckSlotsFit(ctx, index + 1, "a list grown"));
    out.list->items.resize(index + 1);
  }
  out.list->items[index] = item;
  ctx.set_output(0, std::move(out).Output());
  return OkStatus();
}

// Stacks elements `indices` of the list into one tensor.
StatusOr<Tensor> StackItems(const KernelContext& ctx, const TensorList& list, const std::vector<int64_t>& indices,
                            const ir::PartialShape& requested) {
  // The element shape: from a set element, else the (refined) list shape.
  Shape element_shape;
  bool known = false;
  for (int64_t i : indices) {
    if (list.items[i].valid()) {
      element_shape = list.items[i].shape();
      known = true;
      break;
    }
  }
  if (!known) {
    if (!requested.IsFullyDefined()) {
      return ctx.Error("cannot stack " + std::to_string(indices.size()) +
                       " unset elements: the element shape " + requested.ToString() + " is not fully defined");
    }
    element_shape = requested.ToShape();
  } else if (!requested.IsCompatibleWith(element_shape)) {
    return ctx.Error("elements of shape " + element_shape.ToString() + " do not fit element_shape " +
                     requested.ToString());
  }
  std::vector<Tensor> items;
  items.reserve(indices.size());
  for (int64_t i : indices) {
    items.push_back(list.items[i].valid() ? list.items[i] : Tensor(list.element_dtype, element_shape));
  }
  return tensor_array::Stack(ctx, items, list.element_dtype, element_shape);
}

Status TensorListStack(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(auto list, ReadList(ctx, 0));
  TFHOST_RETURN_IF_ERROR(CheckElementDType(ctx, *list));
  TFHOST_ASSIGN_OR_RETURN(ir::PartialShape shape, MergedShape(ctx, *list, 1));
  TFHOST_ASSIGN_OR_RETURN(int64_t num, ctx.AttrOr<int64_t>("num_elements", -1));
  if (num != -1 && num != static_cast<int64_t>(list->items.size())) {
    return ctx.Error("num_elements is " + std::to_string(num) + " but the list has " +
                     std::to_string(list->items.size()) + " elements");
  }
  std::vector<int64_t> all(list->items.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = static_cast<int64_t>(i);
  TFHOST_ASSIGN_OR_RETURN(Tensor out, StackItems(ctx, *list, all, shape));
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status TensorListGather(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(auto list, ReadList(ctx, 0));
  TFHOST_RETURN_IF_ERROR(CheckElementDType(ctx, *list));
  const Tensor& idx = ctx.input(1);
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> indices, idx.ToInt64Vector());
  if (idx.rank() != 1) return ctx.Error("indices must be a vector, got " + idx.shape().ToString());
  for (int64_t i : indices) {
    if (i < 0 || i >= static_cast<int64_t>(list->items.size())) {
      return ctx.Error("index " + std::to_string(i) + " is out of range for a list of " +
                       std::to_string(list->items.size()) + " elements");
    }
  }
  TFHOST_ASSIGN_OR_RETURN(ir::PartialShape shape, MergedShape(ctx, *list, 2));
  TFHOST_ASSIGN_OR_RETURN(Tensor out, StackItems(ctx, *list, indices, shape));
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status TensorListPushBack(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(auto list, ReadList(ctx, 0));
  const Tensor& item = ctx.input(1);
  TFHOST_RETURN_IF_ERROR(CheckListItem(ctx, *list, item));
  int64_t size = static_cast<int64_t>(list->items.size());
  if ((list->max_num_elements >= 0 && size >= list->max_num_elements) || size >= tensor_array::kMaxElements) {
    return ctx.Error("the list is full (" + std::to_string(size) + " elements)");
  }
  list.reset();
  WritableList out = TakeWritableList(ctx, 0);
  out.list->items.push_back(item);
  ctx.set_output(0, std::move(out).Output());
  return OkStatus();
}

Status TensorListPopBack(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(auto list, ReadList(ctx, 0));
  TFHOST_RETURN_IF_ERROR(CheckElementDType(ctx, *list));
  if (list->items.empty()) return ctx.Error("cannot pop from an empty list");
  TFHOST_ASSIGN_OR_RETURN(ir::PartialShape shape, MergedShape(ctx, *list, 1));
  TFHOST_ASSIGN_OR_RETURN(Tensor item, ItemOrZeros(ctx, *list, list->items.size() - 1, shape));
  list.reset();
  WritableList out = TakeWritableList(ctx, 0);
  out.list->items.pop_back();
  ctx.set_output(0, std::move(out).Output());
  ctx.set_output(1, std::move(item));
  return OkStatus();
}

Status TensorListLength(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(auto list, ReadList(ctx, 0));
  ctx.set_output(0, Tensor::Scalar<int32_t>(static_cast<int32_t>(list->items.size())));
  return OkStatus();
}

Status TensorListElementShape(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(auto list, ReadList(ctx, 0));
  TFHOST_ASSIGN_OR_RETURN(DType dtype, ctx.Attr<DType>("shape_type"));
  if (dtype != DType::kInt32 && dtype != DType::kInt64) return ctx.Error("shape_type must be int32 or int64");
  ctx.set_output(0, tensor_array::ElementShapeTensor(list->element_shape, dtype));
  return OkStatus();
}

Status TensorListResize(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(auto list, ReadList(ctx, 0));
  TFHOST_ASSIGN_OR_RETURN(int64_t n, ReadCount(ctx, 1, "size"));
  auto out = std::make_shared<TensorList>(*list);
  out->items.resize(n);
  ctx.set_output(0, ListTensor(std::move(out)));
  return OkStatus();
}

// TensorListConcatV2, and TensorListConcat (TF 2.0/2.1) whose element shape
// is an attr instead of input 1.
Status TensorListConcatV2(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(auto list, ReadList(ctx, 0));
  TFHOST_RETURN_IF_ERROR(CheckElementDType(ctx, *list));
  ir::PartialShape shape;
  if (ctx.num_inputs() == 1) {
    TFHOST_ASSIGN_OR_RETURN(ir::PartialShape given, ctx.AttrOr<ir::PartialShape>("element_shape", ir::PartialShape()));
    auto merged = ir::MergeShapes(list->element_shape, given);
    if (!merged.ok()) {
      return ctx.Error("element_shape " + given.ToString() + " conflicts with the list's " + list->element_shape.ToString());
    }
    shape = *merged;
  } else {
    TFHOST_ASSIGN_OR_RETURN(shape, MergedShape(ctx, *list, 1));
  }
  if (shape.rank_known() && shape.rank() < 1) return ctx.Error("concatenated elements must have rank >= 1");
  std::vector<int64_t> rest;
  bool rest_known = false;
  for (const auto& item : list->items) {
    if (!item.valid()) return ctx.Error("cannot concatenate a list with unset elements");
    if (item.rank() < 1) return ctx.Error("concatenated elements must have rank >= 1, got a scalar");
    std::vector<int64_t> r(item.shape().dims().begin() + 1, item.shape().dims().end());
    if (rest_known && r != rest) {
      return ctx.Error("elements differ beyond dim 0: " + Shape(rest).ToString() + " vs " + Shape(r).ToString());
    }
    rest = r;
    rest_known = true;
  }
  if (!rest_known) {
    if (!shape.rank_known()) return ctx.Error("cannot concatenate an empty list of unknown element rank");
    for (int k = 1; k < shape.rank(); ++k) {
      if (shape.dim(k) < 0) return ctx.Error("cannot concatenate an empty list: element shape " + shape.ToString() +
                                             " is not known beyond dim 0");
      rest.push_back(shape.dim(k));
    }
  }
  int64_t rows = 0;
  Tensor lengths(DType::kInt64, Shape({static_cast<int64_t>(list->items.size())}));
  for (size_t i = 0; i < list->items.size(); ++i) {
    lengths.data<int64_t>()[i] = list->items[i].dim(0);
    rows += list->items[i].dim(0);
  }
  std::vector<int64_t> dims = {rows};
  dims.insert(dims.end(), rest.begin(), rest.end());
  TFHOST_ASSIGN_OR_RETURN(Shape out_shape, MakeShape(dims, "concatenated shape"));
  Tensor out(list->element_dtype, out_shape);
  int64_t offset = 0;
  for (const auto& item : list->items) {
    tensor_array::CopyElements(item, 0, out, offset, item.NumElements());
    offset += item.NumElements();
  }
  ctx.set_output(0, std::move(out));
  ctx.set_output(1, std::move(lengths));
  return OkStatus();
}

// Writes rows of `tensor` into `list` at `indices`, growing it as needed.
Status ScatterRows(const KernelContext& ctx, TensorList& list, const Tensor& tensor, int indices_input) {
  const Tensor& idx = ctx.input(indices_input);
  if (idx.rank() != 1) return ctx.Error("indices must be a vector, got " + idx.shape().ToString());
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> indices, idx.ToInt64Vector());
  if (tensor.rank() < 1 || tensor.dim(0) != static_cast<int64_t>(indices.size())) {
    return ctx.Error("tensor of shape " + tensor.shape().ToString() + " must have one row per index (" +
                     std::to_string(indices.size()) + ")");
  }
  if (tensor.dtype() != list.element_dtype) {
    return ctx.Error("the list holds " + DTypeShortName(list.element_dtype) + ", got " + DTypeShortName(tensor.dtype()));
  }
  for (size_t k = 0; k < indices.size(); ++k) {
    int64_t i = indices[k];
    if (i < 0 || i >= tensor_array::kMaxElements) return ctx.Error("index " + std::to_string(i) + " is out of range");
    Tensor row = tensor_array::Row(tensor, static_cast<int64_t>(k));
    TFHOST_RETURN_IF_ERROR(CheckListItem(ctx, list, row));
    if (i >= static_cast<int64_t>(list.items.size())) {
      TFHOST_RETURN_IF_ERROR(tensor_array::CheckSlotsFit(ctx, i + 1, "a list grown"));
      list.items.resize(i + 1);
    }
    list.items[i] = std::move(row);
  }
  return OkStatus();
}

Status TensorListScatterIntoExistingList(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(auto list, ReadList(ctx, 0));
  auto out = std::make_shared<TensorList>(*list);
  TFHOST_RETURN_IF_ERROR(ScatterRows(ctx, *out, ctx.input(1), 2));
  ctx.set_output(0, ListTensor(std::move(out)));
  return OkStatus();
}

// TensorListScatterV2, and TensorListScatter (TF 2.0/2.1) without
// num_elements: the list is as long as the largest index needs.
Status TensorListScatterV2(KernelContext& ctx) {
  auto list = std::make_shared<TensorList>();
  list->element_dtype = ctx.input(0).dtype();
  TFHOST_ASSIGN_OR_RETURN(list->element_shape, ReadElementShape(ctx, 2));
  int64_t n = -1;
  if (ctx.num_inputs() > 3) {
    TFHOST_ASSIGN_OR_RETURN(n, ReadScalarIndex(ctx, 3, "num_elements"));
  }
  if (n > tensor_array::kMaxElements) return ctx.Error("num_elements is too large");
  TFHOST_RETURN_IF_ERROR(tensor_array::CheckSlotsFit(ctx, n, "a list"));
  if (n > 0) list->items.resize(n);
  TFHOST_RETURN_IF_ERROR(ScatterRows(ctx, *list, ctx.input(0), 1));
  if (n >= 0 && static_cast<int64_t>(list->items.size()) > n) {
    return ctx.Error("an index is past num_elements " + std::to_string(n));
  }
  ctx.set_output(0, ListTensor(std::move(list)));
  return OkStatus();
}

Status TensorListSplit(KernelContext& ctx) {
  const Tensor& t = ctx.input(0);
  TFHOST_ASSIGN_OR_RETURN(ir::PartialShape shape, ReadElementShape(ctx, 1));
  const Tensor& lengths_t = ctx.input(2);
  if (t.rank() < 1) return ctx.Error("tensor must have rank >= 1, got a scalar");
  if (lengths_t.rank() != 1) return ctx.Error("lengths must be a vector, got " + lengths_t.shape().ToString());
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> lengths, lengths_t.ToInt64Vector());
  if (static_cast<int64_t>(lengths.size()) > tensor_array::kMaxElements) return ctx.Error("too many lengths");
  int64_t total = 0;
  for (int64_t l : lengths) {
    if (l < 0 || l > t.dim(0)) return ctx.Error("invalid length " + std::to_string(l));
    total += l;
  }
  if (total != t.dim(0)) {
    return ctx.Error("lengths sum to " + std::to_string(total) + " but tensor has " + std::to_string(t.dim(0)) + " rows");
  }
  auto list = std::make_shared<TensorList>();
  list->element_dtype = t.dtype();
  list->element_shape = shape;
  int64_t row = t.dim(0) == 0 ? 0 : t.NumElements() / t.dim(0);
  int64_t offset = 0;
  for (int64_t l : lengths) {
    std::vector<int64_t> dims = t.shape().dims();
    dims[0] = l;
    Tensor piece(t.dtype(), Shape(dims));
    tensor_array::CopyElements(t, offset * row, piece, 0, l * row);
    offset += l;
    if (!shape.IsCompatibleWith(piece.shape())) {
      return ctx.Error("piece of shape " + piece.shape().ToString() + " does not fit element_shape " + shape.ToString());
    }
    list->items.push_back(std::move(piece));
  }
  ctx.set_output(0, ListTensor(std::move(list)));
  return OkStatus();
}

}  // namespace

void RegisterTensorListOps(OpRegistry& r) {
  r.Register(ir::OpDefBuilder("EmptyTensorList").Input("element_shape: shape_type").Input("max_num_elements: int32")
                 .Output("handle: variant").Attr("element_dtype: type").Attr("shape_type: {int32, int64}"),
             EmptyTensorList);
  r.Register(ir::OpDefBuilder("TensorListReserve").Input("element_shape: shape_type").Input("num_elements: int32")
                 .Output("handle: variant").Attr("element_dtype: type").Attr("shape_type: {int32, int64}"),
             TensorListReserve);
  r.Register(ir::OpDefBuilder("TensorListFromTensor").Input("tensor: element_dtype")
                 .Input("element_shape: shape_type").Output("output_handle: variant").Attr("element_dtype: type")
                 .Attr("shape_type: {int32, int64}"),
             TensorListFromTensor);
  r.Register(ir::OpDefBuilder("TensorListGetItem").Input("input_handle: variant").Input("index: int32")
                 .Input("element_shape: int32").Output("item: element_dtype").Attr("element_dtype: type"),
             TensorListGetItem);
  r.Register(ir::OpDefBuilder("TensorListSetItem").Input("input_handle: variant").Input("index: int32")
                 .Input("item: element_dtype").Output("output_handle: variant").Attr("element_dtype: type")
                 .Attr("resize_if_index_out_of_bounds: bool = false"),
             TensorListSetItem);
  r.Register(ir::OpDefBuilder("TensorListStack").Input("input_handle: variant").Input("element_shape: int32")
                 .Output("tensor: element_dtype").Attr("element_dtype: type").Attr("num_elements: int = -1"),
             TensorListStack);
  r.Register(ir::OpDefBuilder("TensorListGather").Input("input_handle: variant").Input("indices: int32")
                 .Input("element_shape: int32").Output("values: element_dtype").Attr("element_dtype: type"),
             TensorListGather);
  r.Register(ir::OpDefBuilder("TensorListPushBack").Input("input_handle: variant").Input("tensor: element_dtype")
                 .Output("output_handle: variant").Attr("element_dtype: type"),
             TensorListPushBack);
  r.Register(ir::OpDefBuilder("TensorListPopBack").Input("input_handle: variant").Input("element_shape: int32")
                 .Output("output_handle: variant").Output("tensor: element_dtype").Attr("element_dtype: type"),
             TensorListPopBack);
  r.Register(ir::OpDefBuilder("TensorListLength").Input("input_handle: variant").Output("length: int32"),
             TensorListLength);
  r.Register(ir::OpDefBuilder("TensorListElementShape").Input("input_handle: variant")
                 .Output("element_shape: shape_type").Attr("shape_type: {int32, int64}"),
             TensorListElementShape);
  r.Register(ir::OpDefBuilder("TensorListResize").Input("input_handle: variant").Input("size: int32")
                 .Output("output_handle: variant"),
             TensorListResize);
  r.Register(ir::OpDefBuilder("TensorListConcatV2").Input("input_handle: variant").Input("element_shape: shape_type")
                 .Input("leading_dims: int64").Output("tensor: element_dtype").Output("lengths: int64")
                 .Attr("element_dtype: type").Attr("shape_type: {int32, int64}"),
             TensorListConcatV2);
  r.Register(ir::OpDefBuilder("TensorListScatterIntoExistingList").Input("input_handle: variant")
                 .Input("tensor: element_dtype").Input("indices: int32").Output("output_handle: variant")
                 .Attr("element_dtype: type"),
             TensorListScatterIntoExistingList);
  r.Register(ir::OpDefBuilder("TensorListScatterV2").Input("tensor: element_dtype").Input("indices: int32")
                 .Input("element_shape: shape_type").Input("num_elements: int32").Output("output_handle: variant")
                 .Attr("element_dtype: type").Attr("shape_type: {int32, int64}"),
             TensorListScatterV2);
  r.Register(ir::OpDefBuilder("TensorListScatter").Input("tensor: element_dtype").Input("indices: int32")
                 .Input("element_shape: shape_type").Output("output_handle: variant")
                 .Attr("element_dtype: type").Attr("shape_type: {int32, int64}"),
             TensorListScatterV2);
  r.Register(ir::OpDefBuilder("TensorListConcat").Input("input_handle: variant").Output("tensor: element_dtype")
                 .Output("lengths: int64").Attr("element_dtype: type").Attr("element_shape: shape = unknown"),
             TensorListConcatV2);
  r.Register(ir::OpDefBuilder("TensorListSplit").Input("tensor: element_dtype").Input("element_shape: shape_type")
                 .Input("lengths: int64").Output("output_handle: variant").Attr("element_dtype: type")
                 .Attr("shape_type: {int32, int64}"),
             TensorListSplit);
}

}  // namespace tfhost::ops
