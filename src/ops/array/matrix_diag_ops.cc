// Matrix diagonals (tf.linalg.diag / diag_part / set_diag, tf.eye with a
// dynamic size, band masks): MatrixDiag, MatrixDiagPart, MatrixSetDiag and
// their V2/V3 forms with a diagonal band k = (lower, upper), num_rows /
// num_cols, padding_value and (V3) align.
//
// TensorFlow's indexing: for a matrix [M, N] and diagonal d = col - row in
// [lower, upper], the packed diagonals are [..., upper - lower + 1, L] (no
// diagonal dim when lower == upper) with L = max diagonal length
// min(M + min(upper, 0), N - max(lower, 0)); element n of diagonal d is
// (row, col) = (n + max(-d, 0) - offset, n + max(d, 0) - offset), where
// offset = 0 for a left-aligned diagonal and L - len(d) for a right-aligned
// one, len(d) = min(N - max(d, 0), M + min(d, 0)). align names the
// superdiagonals' side (d >= 0) then the subdiagonals'; V3 defaults to
// RIGHT_LEFT, V2 packs everything LEFT_LEFT, V1 is the main diagonal only.
#include "ops/array/array_util.h"

namespace tfhost::ops::array {
namespace {

struct Band {
  int64_t lower = 0, upper = 0, rows = 0, cols = 0, max_len = 0;
  bool left_super = true, left_sub = true;
  int64_t Len(int64_t d) const { return std::min(cols - std::max<int64_t>(d, 0), rows + std::min<int64_t>(d, 0)); }
  int64_t Offset(int64_t d) const { return (d >= 0 ? left_super : left_sub) ? 0 : max_len - Len(d); }
  int64_t NumDiags() const { return upper - lower + 1; }
};

StatusOr<std::pair<int64_t, int64_t>> ReadK(const KernelContext& ctx, int i) {
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> k, ReadIndexVector(ctx, i, "k"));
  if (k.empty() || k.size() > 2) return ctx.Error("k must have 1 or 2 entries, got " + std::to_string(k.size()));
  const int64_t lower = k[0], upper = k.size() == 2 ? k[1] : k[0];
  if (lower > upper) return ctx.Error("k[0] (" + std::to_string(lower) + ") must not exceed k[1] (" + std::to_string(upper) + ")");
  return std::make_pair(lower, upper);
}

Status ReadAlign(const KernelContext& ctx, Band* band) {
  if (ctx.node().FindAttr("align") == nullptr) {
    band->left_super = band->left_sub = true;  // V2: LEFT_LEFT
    return OkStatus();
  }
  TFHOST_ASSIGN_OR_RETURN(std::string align, ctx.AttrOr<std::string>("align", "RIGHT_LEFT"));
  if (align != "LEFT_RIGHT" && align != "RIGHT_LEFT" && align != "LEFT_LEFT" && align != "RIGHT_RIGHT") {
    return ctx.Error("align must be one of LEFT_RIGHT, RIGHT_LEFT, LEFT_LEFT, RIGHT_RIGHT, got " + align);
  }
  band->left_super = align.rfind("LEFT", 0) == 0;
  band->left_sub = align.size() >= 4 && align.compare(align.size() - 4, 4, "LEFT") == 0;
  return OkStatus();
}

// Calls fn(row, col, diag_row, n) for every in-matrix element of the band.
// An empty matrix or band has none, however many diagonals k names.
template <typename Fn>
void ForEachBandElement(const Band& b, Fn fn) {
  if (b.rows <= 0 || b.cols <= 0 || b.max_len <= 0) return;
  for (int64_t d = b.lower; d <= b.upper; ++d) {
    const int64_t offset = b.Offset(d);
    for (int64_t n = 0; n < b.max_len; ++n) {
      const int64_t r = n + std::max<int64_t>(-d, 0) - offset, c = n + std::max<int64_t>(d, 0) - offset;
      if (r >= 0 && r < b.rows && c >= 0 && c < b.cols) fn(r, c, b.upper - d, n);
    }
  }
}

// MatrixDiag / V2 / V3: diagonals -> matrices.
Status MatrixDiag(KernelContext& ctx) {
  const Tensor& diag = ctx.input(0);
  TFHOST_RETURN_IF_ERROR(CheckMovable(ctx, diag.dtype()));
  const bool v1 = ctx.num_inputs() == 1;
  Band b;
  int64_t num_rows = -1, num_cols = -1;
  Tensor padding(diag.dtype(), Shape());
  if (!v1) {
    TFHOST_ASSIGN_OR_RETURN(auto k, ReadK(ctx, 1));
    b.lower = k.first;
    b.upper = k.second;
    TFHOST_ASSIGN_OR_RETURN(num_rows, ReadIndexScalar(ctx, 2, "num_rows"));
    TFHOST_ASSIGN_OR_RETURN(num_cols, ReadIndexScalar(ctx, 3, "num_cols"));
    if (ctx.input(4).NumElements() != 1 || ctx.input(4).dtype() != diag.dtype()) {
      return ctx.Error("padding_value must be one element of the diagonal's dtype");
    }
    padding = ctx.input(4);
    TFHOST_RETURN_IF_ERROR(ReadAlign(ctx, &b));
  }
  const bool banded = b.lower != b.upper;
  const int min_rank = banded ? 2 : 1;
  if (diag.rank() < min_rank) return ctx.Error("diagonal must have rank >= " + std::to_string(min_rank));
  b.max_len = diag.dim(diag.rank() - 1);
  if (banded && diag.dim(diag.rank() - 2) != b.NumDiags()) {
    return ctx.Error("diagonal has " + std::to_string(diag.dim(diag.rank() - 2)) + " diagonals but k spans " +
                     std::to_string(b.NumDiags()));
  }
  const int64_t min_rows = b.max_len - std::min<int64_t>(b.upper, 0);
  const int64_t min_cols = b.max_len + std::max<int64_t>(b.lower, 0);
  if (num_rows == -1 && num_cols == -1) {
    num_rows = num_cols = std::max(min_rows, min_cols);
  } else if (num_rows == -1) {
    num_rows = min_rows;
  } else if (num_cols == -1) {
    num_cols = min_cols;
  }
  if (num_rows < min_rows || num_cols < min_cols || (num_rows != min_rows && num_cols != min_cols)) {
    return ctx.Error("num_rows " + std::to_string(num_rows) + " and num_cols " + std::to_string(num_cols) +
                     " do not fit diagonals of length " + std::to_string(b.max_len) + " for k = (" +
                     std::to_string(b.lower) + ", " + std::to_string(b.upper) + ")");
  }
  b.rows = num_rows;
  b.cols = num_cols;
  std::vector<int64_t> dims(diag.shape().dims().begin(), diag.shape().dims().end() - (banded ? 2 : 1));
  const int64_t batch = DimProduct(diag.shape(), 0, static_cast<int>(dims.size()));
  dims.push_back(num_rows);
  dims.push_back(num_cols);
  TFHOST_ASSIGN_OR_RETURN(Shape shape, OutputShape(ctx, dims, "output"));
  Tensor out(diag.dtype(), shape);
  // An empty output (a batch of 0 matrices of 2^40 x 2^40): nothing to place,
  // and num_rows * num_cols below would overflow.
  if (out.NumElements() == 0) {
    ctx.set_output(0, std::move(out));
    return OkStatus();
  }
  FillWithScalar(out, padding);
  const int64_t per_diag = b.NumDiags() * b.max_len, per_matrix = num_rows * num_cols;
  for (int64_t i = 0; i < batch; ++i) {
    ForEachBandElement(b, [&](int64_t r, int64_t c, int64_t l, int64_t n) {
      CopyElements(diag, i * per_diag + l * b.max_len + n, out, i * per_matrix + r * num_cols + c, 1);
    });
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

// MatrixDiagPart / V2 / V3: matrices -> diagonals.
Status MatrixDiagPart(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  TFHOST_RETURN_IF_ERROR(CheckMovable(ctx, in.dtype()));
  if (in.rank() < 2) return ctx.Error("input must have rank >= 2, got " + in.shape().ToString());
  Band b;
  b.rows = in.dim(in.rank() - 2);
  b.cols = in.dim(in.rank() - 1);
  Tensor padding(in.dtype(), Shape());
  if (ctx.num_inputs() > 1) {
    TFHOST_ASSIGN_OR_RETURN(auto k, ReadK(ctx, 1));
    b.lower = k.first;
    b.upper = k.second;
    if (ctx.input(2).NumElements() != 1 || ctx.input(2).dtype() != in.dtype()) {
      return ctx.Error("padding_value must be one element of the input's dtype");
    }
    padding = ctx.input(2);
    TFHOST_RETURN_IF_ERROR(ReadAlign(ctx, &b));
  }
  if ((b.rows > 0 && b.lower <= -b.rows) || (b.cols > 0 && b.upper >= b.cols)) {
    return ctx.Error("k = (" + std::to_string(b.lower) + ", " + std::to_string(b.upper) + ") is outside a " +
                     std::to_string(b.rows) + "x" + std::to_string(b.cols) + " matrix");
  }
  b.max_len = std::max<int64_t>(0, std::min(b.rows + std::min<int64_t>(b.upper, 0), b.cols - std::max<int64_t>(b.lower, 0)));
  std::vector<int64_t> dims(in.shape().dims().begin(), in.shape().dims().end() - 2);
  const int64_t batch = DimProduct(in.shape(), 0, in.rank() - 2);
  if (b.lower != b.upper) dims.push_back(b.NumDiags());
  dims.push_back(b.max_len);
  TFHOST_ASSIGN_OR_RETURN(Shape shape, OutputShape(ctx, dims, "output"));
  Tensor out(in.dtype(), shape);
  // No diagonals to fill (a huge batch of empty matrices, or no matrices of
  // 2^40 x 2^40): nothing to visit, and rows * cols below would overflow.
  // A non-empty output has rows, columns and a batch, so both products fit.
  if (out.NumElements() == 0) {
    ctx.set_output(0, std::move(out));
    return OkStatus();
  }
  FillWithScalar(out, padding);
  const int64_t per_diag = b.NumDiags() * b.max_len, per_matrix = b.rows * b.cols;
  for (int64_t i = 0; i < batch; ++i) {
    ForEachBandElement(b, [&](int64_t r, int64_t c, int64_t l, int64_t n) {
      CopyElements(in, i * per_matrix + r * b.cols + c, out, i * per_diag + l * b.max_len + n, 1);
    });
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

// MatrixSetDiag / V2 / V3: the input with its band replaced.
Status MatrixSetDiag(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  const Tensor& diag = ctx.input(1);
  TFHOST_RETURN_IF_ERROR(CheckMovable(ctx, in.dtype()));
  if (in.rank() < 2) return ctx.Error("input must have rank >= 2, got " + in.shape().ToString());
  if (diag.dtype() != in.dtype()) return ctx.Error("diagonal must have the input's dtype");
  Band b;
  b.rows = in.dim(in.rank() - 2);
  b.cols = in.dim(in.rank() - 1);
  if (ctx.num_inputs() > 2) {
    TFHOST_ASSIGN_OR_RETURN(auto k, ReadK(ctx, 2));
    b.lower = k.first;
    b.upper = k.second;
    TFHOST_RETURN_IF_ERROR(ReadAlign(ctx, &b));
  }
  b.max_len = std::max<int64_t>(0, std::min(b.rows + std::min<int64_t>(b.upper, 0), b.cols - std::max<int64_t>(b.lower, 0)));
  std::vector<int64_t> want(in.shape().dims().begin(), in.shape().dims().end() - 2);
  if (b.lower != b.upper) want.push_back(b.NumDiags());
  want.push_back(b.max_len);
  if (diag.shape() != Shape(want)) {
    return ctx.Error("diagonal must have shape " + Shape(want).ToString() + ", got " + diag.shape().ToString());
  }
  Tensor out(in.dtype(), in.shape());
  CopyElements(in, 0, out, 0, in.NumElements());
  // An empty diagonal (no matrices of 2^40 x 2^40, or empty ones): nothing to
  // place, and rows * cols below would overflow. A non-empty one means
  // rows, columns and a batch, so both products fit.
  if (diag.NumElements() == 0) {
    ctx.set_output(0, std::move(out));
    return OkStatus();
  }
  const int64_t batch = DimProduct(in.shape(), 0, in.rank() - 2);
  const int64_t per_diag = b.NumDiags() * b.max_len, per_matrix = b.rows * b.cols;
  for (int64_t i = 0; i < batch; ++i) {
    ForEachBandElement(b, [&](int64_t r, int64_t c, int64_t l, int64_t n) {
      CopyElements(diag, i * per_diag + l * b.max_len + n, out, i * per_matrix + r * b.cols + c, 1);
    });
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterMatrixDiagOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("MatrixDiag").Input("diagonal: T").Output("output: T").Attr("T: type"),
                  MatrixDiag);
  for (const char* name : {"MatrixDiagV2", "MatrixDiagV3"}) {
    ir::OpDefBuilder b(name);
    b.Input("diagonal: T").Input("k: int32").Input("num_rows: int32").Input("num_cols: int32").Input("padding_value: T")
        .Output("output: T").Attr("T: type");
    if (std::string(name) == "MatrixDiagV3") b.Attr("align: {'LEFT_RIGHT', 'RIGHT_LEFT', 'LEFT_LEFT', 'RIGHT_RIGHT'} = 'RIGHT_LEFT'");
    registry.Register(b, MatrixDiag);
  }
  registry.Register(ir::OpDefBuilder("MatrixDiagPart").Input("input: T").Output("diagonal: T").Attr("T: type"),
                  MatrixDiagPart);
  for (const char* name : {"MatrixDiagPartV2", "MatrixDiagPartV3"}) {
    ir::OpDefBuilder b(name);
    b.Input("input: T").Input("k: int32").Input("padding_value: T").Output("diagonal: T").Attr("T: type");
    if (std::string(name) == "MatrixDiagPartV3") b.Attr("align: {'LEFT_RIGHT', 'RIGHT_LEFT', 'LEFT_LEFT', 'RIGHT_RIGHT'} = 'RIGHT_LEFT'");
    registry.Register(b, MatrixDiagPart);
  }
  registry.Register(ir::OpDefBuilder("MatrixSetDiag").Input("input: T").Input("diagonal: T").Output("output: T").Attr("T: type"),
                    MatrixSetDiag);
  for (const char* name : {"MatrixSetDiagV2", "MatrixSetDiagV3"}) {
    ir::OpDefBuilder b(name);
    b.Input("input: T").Input("diagonal: T").Input("k: int32").Output("output: T").Attr("T: type");
    if (std::string(name) == "MatrixSetDiagV3") b.Attr("align: {'LEFT_RIGHT', 'RIGHT_LEFT', 'LEFT_LEFT', 'RIGHT_RIGHT'} = 'RIGHT_LEFT'");
    registry.Register(b, MatrixSetDiag);
  }
}

}  // namespace tfhost::ops::array
