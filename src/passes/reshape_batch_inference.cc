// reshape_batch_inference: a Reshape of x to [shape(x)[0], c1, ..., ck]
// becomes a Reshape of x to the constant [-1, c1, ..., ck]. Keras writes the
// first form for every Reshape layer (`ops.reshape(x, (ops.shape(x)[0],) +
// target_shape)`): EfficientNet's 16 squeeze-and-excitation blocks each ran
// Shape, StridedSlice and Pack only to rebuild the batch size, four node runs
// where one does.
//
// Exact where it is applied: the product of x's other dims is known
// statically and positive, and equals the product of c1..ck (or fixes the
// one ck of -1, which is then written out), so -1 can only be x's own batch
// size, zero included. Matched: Pack(axis 0) of StridedSlice(Shape(x), [0],
// [1], [1], shrink_axis_mask 1, no other mask) and scalar Consts, where the
// Shape reads the very tensor the Reshape reshapes. The Reshape keeps its
// name and outputs; Shape, StridedSlice and Pack are pruned once nothing
// else reads them.
#include "passes/pattern_util.h"

namespace tfhost::passes {
namespace {

using internal::AddConstNode;
using internal::ConstValue;

// Whether `ref` is StridedSlice(Shape(x))[0] (the batch size of x), with x
// written to *x.
bool IsBatchSizeOf(const ir::Graph& graph, const ir::TensorRef& ref, ir::TensorRef* x) {
  const ir::Node& slice = graph.node(ref.node);
  if (slice.op != "StridedSlice" || ref.index != 0 || slice.inputs.size() != 4) return false;
  for (const char* mask : {"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask"}) {
    auto v = ir::GetAttrOr<int64_t>(slice, mask, 0);
    if (!v.ok() || *v != 0) return false;
  }
  auto shrink = ir::GetAttrOr<int64_t>(slice, "shrink_axis_mask", 0);
  if (!shrink.ok() || *shrink != 1) return false;
  const int64_t want[3] = {0, 1, 1};  // begin, end, strides
  for (int k = 0; k < 3; ++k) {
    std::optional<Tensor> v = ConstValue(graph, slice.inputs[1 + k]);
    if (!v || v->rank() != 1 || v->NumElements() != 1) return false;
    auto values = v->ToInt64Vector();
    if (!values.ok() || (*values)[0] != want[k]) return false;
  }
  const ir::Node& shape = graph.node(slice.inputs[0].node);
  if (shape.op != "Shape" || slice.inputs[0].index != 0 || shape.inputs.size() != 1) return false;
  *x = shape.inputs[0];
  return true;
}

// The constant shape [-1, c1, ..., ck] that gives the same result as
// `pack` for a reshape of x, or nullopt.
std::optional<Tensor> ConstantShape(const ir::Graph& graph, const ir::Node& pack, const ir::TensorRef& reshaped) {
  auto axis = ir::GetAttrOr<int64_t>(pack, "axis", 0);
  if (pack.op != "Pack" || !axis.ok() || *axis != 0 || pack.inputs.size() < 2 || pack.output_dtypes.size() != 1) {
    return std::nullopt;
  }
  const DType dtype = pack.output_dtypes[0];
  if (dtype != DType::kInt32 && dtype != DType::kInt64) return std::nullopt;
  ir::TensorRef x;
  if (!IsBatchSizeOf(graph, pack.inputs[0], &x) || !(x == reshaped)) return std::nullopt;
  const ir::Node& source = graph.node(x.node);
  if (static_cast<int>(source.output_shapes.size()) <= x.index) return std::nullopt;
  const ir::PartialShape& in = source.output_shapes[x.index];
  if (!in.rank_known() || in.rank() < 1) return std::nullopt;
  int64_t rest = 1;  // the elements of one batch item
  for (int i = 1; i < in.rank(); ++i) {
    if (in.dim(i) <= 0 || rest > (int64_t{1} << 40) / in.dim(i)) return std::nullopt;
    rest *= in.dim(i);
  }
  std::vector<int64_t> dims = {-1};
  int unknown = -1;
  int64_t known = 1;
  for (size_t i = 1; i < pack.inputs.size(); ++i) {
    std::optional<Tensor> c = ConstValue(graph, pack.inputs[i]);
    if (!c || c->rank() != 0) return std::nullopt;
    auto v = c->ToInt64Vector();
    if (!v.ok()) return std::nullopt;
    const int64_t d = (*v)[0];
    if (d == -1 && unknown < 0) {
      unknown = static_cast<int>(dims.size());
    } else if (d <= 0 || known > rest / d) {
      return std::nullopt;
    } else {
      known *= d;
    }
    dims.push_back(d);
  }
  if (unknown >= 0) {
    if (rest % known != 0) return std::nullopt;
    dims[unknown] = rest / known;
  } else if (known != rest) {
    return std::nullopt;
  }
  if (dtype == DType::kInt64) return Tensor::FromVector<int64_t>(dims, Shape({static_cast<int64_t>(dims.size())}));
  std::vector<int32_t> narrow;
  for (int64_t d : dims) {
    if (d > INT32_MAX) return std::nullopt;
    narrow.push_back(static_cast<int32_t>(d));
  }
  return Tensor::FromVector<int32_t>(narrow, Shape({static_cast<int64_t>(narrow.size())}));
}

class ReshapeBatchInference : public GraphPass {
 public:
  std::string name() const override { return "reshape_batch_inference"; }

  Status Run(ir::Graph* graph, const PassContext&) override {
    const int n = graph->num_nodes();  // nodes added below are Consts
    for (int i = 0; i < n; ++i) {
      const ir::Node& reshape = graph->node(i);
      if (reshape.op != "Reshape" || reshape.inputs.size() != 2 || IsProtected(*graph, reshape)) continue;
      std::optional<Tensor> shape =
          ConstantShape(*graph, graph->node(reshape.inputs[1].node), reshape.inputs[0]);
      if (!shape || reshape.inputs[1].index != 0) continue;
      TFHOST_ASSIGN_OR_RETURN(int c, AddConstNode(graph, reshape.name + "/shape_batch_inferred", *shape, {}));
      graph->mutable_node(i).inputs[1] = ir::TensorRef{c, 0};
    }
    return OkStatus();
  }
};

}  // namespace

std::unique_ptr<GraphPass> MakeReshapeBatchInference() { return std::make_unique<ReshapeBatchInference>(); }

}  // namespace tfhost::passes
