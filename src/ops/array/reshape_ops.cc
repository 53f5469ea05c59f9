// Ops that change how a tensor's elements are viewed without reordering them
// (Reshape, Squeeze, ExpandDims: the output shares the input's buffer), plus
// Transpose and InvertPermutation, which reorder by a permutation.
#include <algorithm>

#include "ops/array/array_util.h"
#include "ops/array/strided_copy.h"

namespace tfhost::ops::array {

namespace {

// TensorFlow's rule: one -1 takes what the other dims leave. Zero-sized dims
// in the request are left out of the product so that the -1 can still be
// inferred when the input is empty.
Status ReshapeKernel(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  const Tensor& shape_t = ctx.input(1);
  if (shape_t.rank() != 1) {
    return ctx.Error("shape must be 1-D, got shape " + shape_t.shape().ToString());
  }
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ReadIndexVector(ctx, 1, "shape"));
  int unknown = -1;
  int64_t product = 1;
  bool has_zero = false;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == -1) {
      if (unknown != -1) {
        return ctx.Error("only one dimension of shape " + JoinInts(dims) + " may be -1");
      }
      unknown = static_cast<int>(i);
    } else if (dims[i] < 0) {
      return ctx.Error("shape " + JoinInts(dims) + " has negative dimension " +
                       std::to_string(dims[i]) + " at index " + std::to_string(i));
    } else if (dims[i] == 0) {
      has_zero = true;
    } else {
      if (product > (int64_t{1} << 62) / dims[i]) {
        return ctx.Error("shape " + JoinInts(dims) + " has too many elements");
      }
      product *= dims[i];
    }
  }
  const int64_t n = input.NumElements();
  auto mismatch = [&]() {
    return ctx.Error("input to reshape is a tensor with " + std::to_string(n) + " values (shape " +
                     input.shape().ToString() + "), but the requested shape " + JoinInts(dims) +
                     (unknown == -1 ? " has " + std::to_string(has_zero ? 0 : product)
                                    : " requires a multiple of " + std::to_string(product)));
  };
  if (unknown != -1) {
    int64_t known_input = 1;
    bool input_has_zero = false;
    for (int64_t d : input.shape().dims()) {
      if (d == 0 && has_zero) {
        input_has_zero = true;
      } else {
        known_input *= d;
      }
    }
    int64_t missing = known_input / product;
    if (!input_has_zero && missing * product != known_input) return mismatch();
    dims[unknown] = missing;
  } else if ((has_zero ? 0 : product) != n) {
    return mismatch();
  }
  TFHOST_ASSIGN_OR_RETURN(Shape out_shape, OutputShape(ctx, dims, "reshape output"));
  if (out_shape.num_elements() != n) return mismatch();
  TFHOST_ASSIGN_OR_RETURN(Tensor out, input.Reshaped(out_shape));
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status SqueezeKernel(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> squeeze,
                          ctx.AttrOr<std::vector<int64_t>>("squeeze_dims", {}));
  const int rank = input.rank();
  std::vector<bool> drop(rank, false);
  for (int64_t d : squeeze) {
    TFHOST_ASSIGN_OR_RETURN(int axis, NormalizeAxis(ctx, d, rank, "squeeze_dims entry"));
    if (input.dim(axis) != 1) {
      return ctx.Error("cannot squeeze dim[" + std::to_string(axis) + "] of shape " +
                       input.shape().ToString() + ": expected a dimension of 1, got " +
                       std::to_string(input.dim(axis)));
    }
    drop[axis] = true;
  }
  std::vector<int64_t> dims;
  for (int i = 0; i < rank; ++i) {
    bool dropped = squeeze.empty() ? input.dim(i) == 1 : drop[i];
    if (!dropped) dims.push_back(input.dim(i));
  }
  TFHOST_ASSIGN_OR_RETURN(Tensor out, input.Reshaped(Shape(dims)));
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status ExpandDimsKernel(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  TFHOST_ASSIGN_OR_RETURN(int64_t dim, ReadIndexScalar(ctx, 1, "dim"));
  const int rank = input.rank();
  if (dim < -rank - 1 || dim > rank) {
    return ctx.Error("dim " + std::to_string(dim) + " is out of range; expected a value in [" +
                     std::to_string(-rank - 1) + ", " + std::to_string(rank) + "] for input shape " +
                     input.shape().ToString());
  }
  if (dim < 0) dim += rank + 1;
  std::vector<int64_t> dims = input.shape().dims();
  dims.insert(dims.begin() + dim, 1);
  TFHOST_ASSIGN_OR_RETURN(Tensor out, input.Reshaped(Shape(dims)));
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

// Checks that `perm` is a permutation of [0, n); error names `what`.
Status CheckPermutation(const KernelContext& ctx, const std::vector<int64_t>& perm, int64_t n,
                        const std::string& what) {
  if (static_cast<int64_t>(perm.size()) != n) {
    return ctx.Error(what + " " + JoinInts(perm) + " must have " + std::to_string(n) + " entries");
  }
  std::vector<bool> seen(perm.size(), false);
  for (int64_t p : perm) {
    if (p < 0 || p >= n || seen[p]) {
      return ctx.Error(what + " " + JoinInts(perm) + " is not a permutation of [0, " +
                       std::to_string(n) + ")");
    }
    seen[p] = true;
  }
  return OkStatus();
}

Status TransposeKernel(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  TFHOST_RETURN_IF_ERROR(CheckMovable(ctx, input.dtype()));
  if (ctx.input(1).rank() != 1) {
    return ctx.Error("perm must be 1-D, got shape " + ctx.input(1).shape().ToString());
  }
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> perm, ReadIndexVector(ctx, 1, "perm"));
  TFHOST_RETURN_IF_ERROR(CheckPermutation(ctx, perm, input.rank(), "perm"));
  std::vector<int64_t> in_strides = RowMajorStrides(input.shape());
  std::vector<int64_t> dims(perm.size());
  StridedLayout src;
  for (size_t i = 0; i < perm.size(); ++i) {
    dims[i] = input.dim(static_cast<int>(perm[i]));
    src.strides.push_back(in_strides[perm[i]]);
  }
  Tensor out(input.dtype(), Shape(dims));
  CopyStrided(dims, input, src, out, DenseLayout(out.shape()), ctx.intra_op());
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status InvertPermutationKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (x.rank() != 1) return ctx.Error("x must be 1-D, got shape " + x.shape().ToString());
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> perm, ReadIndexVector(ctx, 0, "x"));
  if (x.dtype() == DType::kInt32 && x.NumElements() > INT32_MAX) {
    return ctx.Error("x has more than 2^31-1 elements");
  }
  TFHOST_RETURN_IF_ERROR(CheckPermutation(ctx, perm, x.NumElements(), "x"));
  Tensor y(x.dtype(), x.shape());
  for (size_t i = 0; i < perm.size(); ++i) {
    if (x.dtype() == DType::kInt32) {
      y.data<int32_t>()[perm[i]] = static_cast<int32_t>(i);
    } else {
      y.data<int64_t>()[perm[i]] = static_cast<int64_t>(i);
    }
  }
  ctx.set_output(0, std::move(y));
  return OkStatus();
}

}  // namespace

void RegisterReshapeOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("Reshape")
                        .Input("tensor: T").Input("shape: Tshape").Output("output: T")
                        .Attr("T: type").Attr("Tshape: {int32, int64} = DT_INT32"),
                    ReshapeKernel);
  registry.Register(ir::OpDefBuilder("Squeeze")
                        .Input("input: T").Output("output: T")
                        .Attr("T: type").Attr("squeeze_dims: list(int) = []"),
                    SqueezeKernel);
  registry.Register(ir::OpDefBuilder("ExpandDims")
                        .Input("input: T").Input("dim: Tdim").Output("output: T")
                        .Attr("T: type").Attr("Tdim: {int32, int64} = DT_INT32"),
                    ExpandDimsKernel);
  registry.Register(ir::OpDefBuilder("Transpose")
                        .Input("x: T").Input("perm: Tperm").Output("y: T")
                        .Attr("T: type").Attr("Tperm: {int32, int64} = DT_INT32"),
                    TransposeKernel);
  registry.Register(ir::OpDefBuilder("InvertPermutation")
                        .Input("x: T").Output("y: T").Attr("T: {int32, int64} = DT_INT32"),
                    InvertPermutationKernel);
}

}  // namespace tfhost::ops::array
