// Rearranging blocks between spatial dims and the batch or depth dim:
// SpaceToBatchND / BatchToSpaceND (dilated convolutions) and SpaceToDepth /
// DepthToSpace. Each is a reshape + transpose, done as strided copies over a
// view of the tensor with the block dims split out.
#include "ops/array/array_util.h"
#include "ops/array/strided_copy.h"

namespace tfhost::ops::array {

namespace {

// Reads block_shape (input 1) and the [M, 2] pairs in input 2 (paddings or
// crops) and checks them against `input`.
Status ReadBlockSpec(const KernelContext& ctx, const Tensor& input, const std::string& pairs_name,
                     std::vector<int64_t>* block, std::vector<int64_t>* pairs) {
  if (ctx.input(1).rank() != 1) {
    return ctx.Error("block_shape must be 1-D, got shape " + ctx.input(1).shape().ToString());
  }
  TFHOST_ASSIGN_OR_RETURN(*block, ReadIndexVector(ctx, 1, "block_shape"));
  const int m = static_cast<int>(block->size());
  if (input.rank() < 1 + m) {
    return ctx.Error("input shape " + input.shape().ToString() + " must have rank at least " +
                     std::to_string(1 + m) + " for block_shape " + JoinInts(*block));
  }
  for (int64_t b : *block) {
    if (b < 1) return ctx.Error("block_shape " + JoinInts(*block) + " must be positive");
  }
  const Tensor& p = ctx.input(2);
  if (p.rank() != 2 || p.dim(0) != m || p.dim(1) != 2) {
    return ctx.Error(pairs_name + " must have shape [" + std::to_string(m) + ", 2], got " +
                     p.shape().ToString());
  }
  auto values = p.ToInt64Vector();
  if (!values.ok()) return ctx.Error(pairs_name + " must be an integer tensor");
  *pairs = std::move(*values);
  for (int64_t v : *pairs) {
    if (v < 0 || v > (int64_t{1} << 40)) {
      return ctx.Error(pairs_name + " " + JoinInts(*pairs) + " must be non-negative and sane");
    }
  }
  return OkStatus();
}

Status SpaceToBatchNDKernel(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  TFHOST_RETURN_IF_ERROR(CheckMovable(ctx, input.dtype()));
  std::vector<int64_t> block, pads;
  TFHOST_RETURN_IF_ERROR(ReadBlockSpec(ctx, input, "paddings", &block, &pads));
  const int m = static_cast<int>(block.size());
  // Zero-pad the spatial dims first.
  std::vector<int64_t> padded_dims = input.shape().dims();
  int64_t block_count = 1;
  for (int i = 0; i < m; ++i) {
    padded_dims[1 + i] += pads[2 * i] + pads[2 * i + 1];
    if (padded_dims[1 + i] % block[i] != 0) {
      return ctx.Error("padded spatial dim " + std::to_string(i) + " (" +
                       std::to_string(padded_dims[1 + i]) + ") of input shape " +
                       input.shape().ToString() + " is not divisible by block size " +
                       std::to_string(block[i]));
    }
    if (block_count > (int64_t{1} << 40) / block[i]) return ctx.Error("block_shape is too large");
    block_count *= block[i];
  }
  TFHOST_ASSIGN_OR_RETURN(Shape padded_shape, OutputShape(ctx, padded_dims, "padded input"));
  Tensor padded(input.dtype(), padded_shape);
  StridedLayout interior = DenseLayout(padded_shape);
  for (int i = 0; i < m; ++i) interior.offset += pads[2 * i] * interior.strides[1 + i];
  CopyStrided(input.shape().dims(), input, DenseLayout(input.shape()), padded, interior,
              ctx.intra_op());
  // Output view: [b_0..b_{m-1}, batch, q_0..q_{m-1}, rest...].
  const std::vector<int64_t> ps = RowMajorStrides(padded_shape);
  std::vector<int64_t> view;
  StridedLayout src;
  for (int i = 0; i < m; ++i) {
    view.push_back(block[i]);
    src.strides.push_back(ps[1 + i]);
  }
  view.push_back(padded_dims[0]);
  src.strides.push_back(ps[0]);
  std::vector<int64_t> out_dims = {padded_dims[0] * block_count};
  for (int i = 0; i < m; ++i) {
    view.push_back(padded_dims[1 + i] / block[i]);
    src.strides.push_back(ps[1 + i] * block[i]);
    out_dims.push_back(padded_dims[1 + i] / block[i]);
  }
  for (int d = 1 + m; d < input.rank(); ++d) {
    view.push_back(padded_dims[d]);
    src.strides.push_back(ps[d]);
    out_dims.push_back(padded_dims[d]);
  }
  Tensor out(input.dtype(), Shape(out_dims));
  CopyStrided(view, padded, src, out, DenseLayout(Shape(view)), ctx.intra_op());
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status BatchToSpaceNDKernel(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  TFHOST_RETURN_IF_ERROR(CheckMovable(ctx, input.dtype()));
  std::vector<int64_t> block, crops;
  TFHOST_RETURN_IF_ERROR(ReadBlockSpec(ctx, input, "crops", &block, &crops));
  const int m = static_cast<int>(block.size());
  int64_t block_count = 1;
  for (int64_t b : block) {
    if (block_count > (int64_t{1} << 40) / b) return ctx.Error("block_shape is too large");
    block_count *= b;
  }
  if (input.dim(0) % block_count != 0) {
    return ctx.Error("input batch " + std::to_string(input.dim(0)) + " of shape " +
                     input.shape().ToString() + " is not divisible by the block size product " +
                     std::to_string(block_count));
  }
  const int64_t batch = input.dim(0) / block_count;
  std::vector<int64_t> full_dims = {batch};
  for (int i = 0; i < m; ++i) {
    const int64_t full = input.dim(1 + i) * block[i];
    if (crops[2 * i] + crops[2 * i + 1] > full) {
      return ctx.Error("crops " + JoinInts(crops) + " remove more than the " +
                       std::to_string(full) + " elements of spatial dim " + std::to_string(i));
    }
    full_dims.push_back(full);
  }
  for (int d = 1 + m; d < input.rank(); ++d) full_dims.push_back(input.dim(d));
  // Uncropped result viewed as [batch, s_0, b_0, s_1, b_1, ..., rest...].
  const std::vector<int64_t> is = RowMajorStrides(input.shape());
  std::vector<int64_t> view = {batch};
  StridedLayout src;
  src.strides.push_back(is[0]);
  int64_t block_stride = batch * is[0] * block_count;
  for (int i = 0; i < m; ++i) {
    block_stride /= block[i];
    view.push_back(input.dim(1 + i));
    src.strides.push_back(is[1 + i]);
    view.push_back(block[i]);
    src.strides.push_back(block_stride);
  }
  for (int d = 1 + m; d < input.rank(); ++d) {
    view.push_back(input.dim(d));
    src.strides.push_back(is[d]);
  }
  Tensor full(input.dtype(), Shape(full_dims));
  CopyStrided(view, input, src, full, DenseLayout(Shape(view)), ctx.intra_op());
  bool cropped = false;
  for (int64_t c : crops) cropped = cropped || c != 0;
  if (!cropped) {
    ctx.set_output(0, std::move(full));
    return OkStatus();
  }
  std::vector<int64_t> out_dims = full_dims;
  StridedLayout crop = DenseLayout(full.shape());
  for (int i = 0; i < m; ++i) {
    out_dims[1 + i] -= crops[2 * i] + crops[2 * i + 1];
    crop.offset += crops[2 * i] * crop.strides[1 + i];
  }
  Tensor out(input.dtype(), Shape(out_dims));
  CopyStrided(out_dims, full, crop, out, DenseLayout(out.shape()), ctx.intra_op());
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

// Shared by DepthToSpace and SpaceToDepth.
Status DepthSpaceImpl(KernelContext& ctx, bool to_space) {
  const Tensor& input = ctx.input(0);
  TFHOST_RETURN_IF_ERROR(CheckMovable(ctx, input.dtype()));
  TFHOST_ASSIGN_OR_RETURN(int64_t b, ctx.Attr<int64_t>("block_size"));
  TFHOST_ASSIGN_OR_RETURN(std::string format, ctx.AttrOr<std::string>("data_format", "NHWC"));
  if (format != "NHWC" && format != "NCHW") {
    return ctx.Error("data_format '" + format + "' is not supported; expected NHWC or NCHW");
  }
  if (b < 2 || b > (int64_t{1} << 20)) {
    return ctx.Error("block_size must be at least 2, got " + std::to_string(b));
  }
  TFHOST_RETURN_IF_ERROR(ctx.CheckRank(0, 4, 4));
  const bool nhwc = format == "NHWC";
  const int c_dim = nhwc ? 3 : 1, h_dim = nhwc ? 1 : 2, w_dim = nhwc ? 2 : 3;
  const int64_t n = input.dim(0), c = input.dim(c_dim), h = input.dim(h_dim),
                w = input.dim(w_dim);
  const std::vector<int64_t> s = RowMajorStrides(input.shape());
  const int64_t sn = s[0], sc = s[c_dim], sh = s[h_dim], sw = s[w_dim];
  std::vector<int64_t> view, out_dims;
  StridedLayout src;
  if (to_space) {
    if (c % (b * b) != 0) {
      return ctx.Error("depth " + std::to_string(c) + " of input shape " +
                       input.shape().ToString() + " is not divisible by block_size^2 = " +
                       std::to_string(b * b));
    }
    // out[n, h*b+i, w*b+j, c'] = in[n, h, w, (i*b+j)*C' + c'].
    const int64_t c2 = c / (b * b);
    if (nhwc) {
      view = {n, h, b, w, b, c2};
      src.strides = {sn, sh, b * c2 * sc, sw, c2 * sc, sc};
      out_dims = {n, h * b, w * b, c2};
    } else {
      view = {n, c2, h, b, w, b};
      src.strides = {sn, sc, sh, b * c2 * sc, sw, c2 * sc};
      out_dims = {n, c2, h * b, w * b};
    }
  } else {
    if (h % b != 0 || w % b != 0) {
      return ctx.Error("height and width of input shape " + input.shape().ToString() +
                       " must be divisible by block_size " + std::to_string(b));
    }
    // out[n, h, w, (i*b+j)*C + c] = in[n, h*b+i, w*b+j, c].
    if (nhwc) {
      view = {n, h / b, w / b, b, b, c};
      src.strides = {sn, b * sh, b * sw, sh, sw, sc};
      out_dims = {n, h / b, w / b, b * b * c};
    } else {
      view = {n, b, b, c, h / b, w / b};
      src.strides = {sn, sh, sw, sc, b * sh, b * sw};
      out_dims = {n, b * b * c, h / b, w / b};
    }
  }
  TFHOST_ASSIGN_OR_RETURN(Shape out_shape, OutputShape(ctx, out_dims, "output"));
  Tensor out(input.dtype(), out_shape);
  CopyStrided(view, input, src, out, DenseLayout(Shape(view)), ctx.intra_op());
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status DepthToSpaceKernel(KernelContext& ctx) { return DepthSpaceImpl(ctx, true); }
Status SpaceToDepthKernel(KernelContext& ctx) { return DepthSpaceImpl(ctx, false); }

}  // namespace

void RegisterSpaceBatchOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("SpaceToBatchND")
                        .Input("input: T").Input("block_shape: Tblock_shape")
                        .Input("paddings: Tpaddings").Output("output: T")
                        .Attr("T: type").Attr("Tblock_shape: {int32, int64} = DT_INT32")
                        .Attr("Tpaddings: {int32, int64} = DT_INT32"),
                    SpaceToBatchNDKernel);
  registry.Register(ir::OpDefBuilder("BatchToSpaceND")
                        .Input("input: T").Input("block_shape: Tblock_shape")
                        .Input("crops: Tcrops").Output("output: T")
                        .Attr("T: type").Attr("Tblock_shape: {int32, int64} = DT_INT32")
                        .Attr("Tcrops: {int32, int64} = DT_INT32"),
                    BatchToSpaceNDKernel);
  registry.Register(ir::OpDefBuilder("DepthToSpace")
                        .Input("input: T").Output("output: T")
                        .Attr("T: type").Attr("block_size: int >= 2")
                        .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'"),
                    DepthToSpaceKernel);
  registry.Register(ir::OpDefBuilder("SpaceToDepth")
                        .Input("input: T").Output("output: T")
                        .Attr("T: type").Attr("block_size: int >= 2")
                        .Attr("data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'"),
                    SpaceToDepthKernel);
}

}  // namespace tfhost::ops::array
