// SparseCross, SparseCrossV2 and SparseCrossHashed: the feature crosses of
// Estimator crossed_column / tf.sparse.cross / Keras HashedCrossing.
//
// Inputs are 2-D SparseTensors (indices [nnz, 2], values, dense_shape [2])
// followed by dense [batch, k] tensors; each input is a "column", sparse ones
// first then dense, in input order. For each batch row the crosses are every
// combination of one feature per column, the LAST column varying fastest;
// a row where any column has no features gets none. Output is a SparseTensor
// [batch, max crosses per row] whose row b holds its crosses at 0..n-1.
//
//   String crosses: features joined with "_X_" (SparseCrossV2: `sep`), int64
//     features written in decimal.
//   Hashed crosses: h = key; for each column: h = FingerprintCat64(h, f),
//     f = Fingerprint64(string feature) or the int64 feature's bits; the
//     result is h % num_buckets, or h % INT64_MAX when num_buckets is 0.
//     SparseCross takes the key from hash_key (Python's default 0xDECAFCAFFE).
//     SparseCrossHashed has no key: h starts as the first column's feature
//     hash and the others are concatenated onto it (both forms reproduce the
//     values TensorFlow's own sparse_cross_op_test.py pins, see
//     sparse_cross_test.cc); with strong_hash it hashes string features with
//     SipHash-2-4 keyed by `salt`.
//   FingerprintCat64(a, b) is TensorFlow's fingerprint concatenation:
//     kMul = 0xc6a4a7935bd1e995; r = a ^ kMul; r ^= ShiftMix(b * kMul) * kMul;
//     r *= kMul; r = ShiftMix(r) * kMul; r = ShiftMix(r), ShiftMix(v) = v ^ v >> 47.
#include <algorithm>
#include <limits>

#include "ops/op_registry.h"
#include "ops/sparse/sparse_ops.h"
#include "ops/string/string_ops.h"

namespace tfhost::ops::sparse {

uint64_t FingerprintCat64(uint64_t fp1, uint64_t fp2) {
  constexpr uint64_t kMul = 0xc6a4a7935bd1e995ULL;
  auto shift_mix = [](uint64_t v) { return v ^ (v >> 47); };
  uint64_t result = fp1 ^ kMul;
  result ^= shift_mix(fp2 * kMul) * kMul;
  result *= kMul;
  result = shift_mix(result) * kMul;
  return shift_mix(result);
}

namespace {

// Most crosses one call may produce: a product of feature counts explodes
// quickly, and the inputs are untrusted.
constexpr int64_t kMaxCrosses = int64_t{1} << 26;

// One column: per batch row, the positions of its features in `values`.
struct Column {
  const Tensor* values = nullptr;
  std::vector<std::vector<int64_t>> rows;  // positions, per batch row
};

enum class Mode { kString, kHashed };

struct CrossSpec {
  Mode mode = Mode::kString;
  std::string sep = "_X_";
  uint64_t key = 0;
  int64_t num_buckets = 0;
  bool strong = false;
  // SparseCrossHashed: start from the first feature's hash instead of `key`.
  bool seed_with_first = false;
  uint64_t salt0 = 0, salt1 = 0;
};

std::string FeatureString(const Column& c, int64_t pos) {
  if (c.values->dtype() == DType::kString) return c.values->strings()[pos];
  return std::to_string(c.values->data<int64_t>()[pos]);
}

uint64_t FeatureHash(const Column& c, int64_t pos, const CrossSpec& spec) {
  if (c.values->dtype() == DType::kString) {
    const std::string& s = c.values->strings()[pos];
    return spec.strong ? string_internal::SipHash24(spec.salt0, spec.salt1, s) : string_internal::Fingerprint64(s);
  }
  return static_cast<uint64_t>(c.values->data<int64_t>()[pos]);
}

Status CheckFeatureDType(const KernelContext& ctx, const Tensor& t, const std::string& what) {
  if (t.dtype() != DType::kString && t.dtype() != DType::kInt64) {
    return ctx.Error(what + " must be int64 or string, got " + DTypeShortName(t.dtype()));
  }
  return OkStatus();
}

// Reads the N sparse and the dense inputs into columns; `first_extra` is the
// index of the first input after them.
StatusOr<std::vector<Column>> ReadColumns(const KernelContext& ctx, int64_t* batch_size, int* first_extra) {
  TFHOST_ASSIGN_OR_RETURN(int64_t n, ctx.Attr<int64_t>("N"));
  TFHOST_ASSIGN_OR_RETURN(std::vector<DType> sparse_types, ctx.AttrOr<std::vector<DType>>("sparse_types", {}));
  TFHOST_ASSIGN_OR_RETURN(std::vector<DType> dense_types, ctx.AttrOr<std::vector<DType>>("dense_types", {}));
  if (n < 0 || static_cast<int64_t>(sparse_types.size()) != n) {
    return ctx.Error("N = " + std::to_string(n) + " but sparse_types has " + std::to_string(sparse_types.size()) +
                     " entries");
  }
  const int num_dense = static_cast<int>(dense_types.size());
  const int sparse_n = static_cast<int>(n);
  if (ctx.num_inputs() < 3 * sparse_n + num_dense) {
    return ctx.Error("expected " + std::to_string(3 * sparse_n + num_dense) + " crossed inputs, got " +
                     std::to_string(ctx.num_inputs()));
  }
  *first_extra = 3 * sparse_n + num_dense;
  if (sparse_n + num_dense == 0) return ctx.Error("at least one input to cross is required");
  int64_t batch = -1;
  auto agree = [&](int64_t b, const std::string& what) -> Status {
    if (batch >= 0 && b != batch) {
      return ctx.Error("Expected batch size " + std::to_string(batch) + ", got " + std::to_string(b) + " in " + what);
    }
    batch = b;
    return OkStatus();
  };
  for (int i = 0; i < sparse_n; ++i) {
    const Tensor& shape = ctx.input(2 * sparse_n + i);
    if (shape.rank() != 1 || shape.dtype() != DType::kInt64) {
      return ctx.Error("Input shapes should be a vector: shapes[" + std::to_string(i) + "] is " +
                       shape.shape().ToString());
    }
    if (shape.dim(0) != 2) {
      return ctx.Error("Expected D2 of index to be 2: sparse input " + std::to_string(i) + " has rank " +
                       std::to_string(shape.dim(0)) + ", only 2-D inputs can be crossed");
    }
    TFHOST_RETURN_IF_ERROR(agree(shape.data<int64_t>()[0], "sparse input " + std::to_string(i)));
  }
  for (int i = 0; i < num_dense; ++i) {
    const Tensor& d = ctx.input(3 * sparse_n + i);
    if (d.rank() != 2) {
      return ctx.Error("Dense inputs should be a matrix: dense input " + std::to_string(i) + " is " +
                       d.shape().ToString());
    }
    TFHOST_RETURN_IF_ERROR(CheckFeatureDType(ctx, d, "dense input " + std::to_string(i)));
    TFHOST_RETURN_IF_ERROR(agree(d.dim(0), "dense input " + std::to_string(i)));
  }
  if (batch < 0 || batch > kMaxCrosses) {
    return ctx.Error("batch size " + std::to_string(batch) + " is invalid");
  }
  *batch_size = batch;
  std::vector<Column> columns;
  for (int i = 0; i < sparse_n; ++i) {
    const Tensor& indices = ctx.input(i);
    const Tensor& values = ctx.input(sparse_n + i);
    if (indices.rank() != 2 || indices.dtype() != DType::kInt64) {
      return ctx.Error("Input indices should be a matrix: indices[" + std::to_string(i) + "] is " +
                       indices.shape().ToString());
    }
    if (values.rank() != 1) {
      return ctx.Error("Input values should be a vector: values[" + std::to_string(i) + "] is " +
                       values.shape().ToString());
    }
    TFHOST_RETURN_IF_ERROR(CheckFeatureDType(ctx, values, "values[" + std::to_string(i) + "]"));
    if (indices.dim(1) != 2 || indices.dim(0) != values.dim(0)) {
      return ctx.Error("sparse input " + std::to_string(i) + " has indices " + indices.shape().ToString() +
                       " and values " + values.shape().ToString() + "; expected [nnz, 2] and [nnz]");
    }
    Column c;
    c.values = &values;
    c.rows.resize(batch);
    const int64_t* idx = indices.data<int64_t>();
    for (int64_t k = 0; k < indices.dim(0); ++k) {
      const int64_t row = idx[2 * k];
      if (row < 0 || row >= batch) {
        return ctx.Error("indices[" + std::to_string(i) + "][" + std::to_string(k) + "] has row " +
                         std::to_string(row) + ", outside the batch of " + std::to_string(batch));
      }
      c.rows[row].push_back(k);
    }
    columns.push_back(std::move(c));
  }
  for (int i = 0; i < num_dense; ++i) {
    const Tensor& d = ctx.input(3 * sparse_n + i);
    Column c;
    c.values = &d;
    c.rows.resize(batch);
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t j = 0; j < d.dim(1); ++j) c.rows[b].push_back(b * d.dim(1) + j);
    }
    columns.push_back(std::move(c));
  }
  return columns;
}

Status Cross(KernelContext& ctx, const std::vector<Column>& columns, int64_t batch, const CrossSpec& spec) {
  // Count first, so the outputs are allocated once and bounded.
  std::vector<int64_t> per_row(batch, 1);
  int64_t total = 0, widest = 0;
  for (int64_t b = 0; b < batch; ++b) {
    for (const Column& c : columns) {
      const int64_t k = static_cast<int64_t>(c.rows[b].size());
      if (k == 0) {
        per_row[b] = 0;
        break;
      }
      if (per_row[b] > kMaxCrosses / k) return ctx.Error("row " + std::to_string(b) + " has too many crosses");
      per_row[b] *= k;
    }
    total += per_row[b];
    widest = std::max(widest, per_row[b]);
    if (total > kMaxCrosses) return ctx.Error("the inputs produce more than " + std::to_string(kMaxCrosses) + " crosses");
  }
  Tensor indices(DType::kInt64, Shape({total, 2}));
  Tensor values(spec.mode == Mode::kString ? DType::kString : DType::kInt64, Shape({total}));
  Tensor shape = Tensor::FromVector<int64_t>({batch, widest});
  int64_t out = 0;
  std::vector<size_t> pick(columns.size());
  for (int64_t b = 0; b < batch; ++b) {
    if (per_row[b] == 0) continue;
    std::fill(pick.begin(), pick.end(), 0);
    for (int64_t j = 0; j < per_row[b]; ++j, ++out) {
      indices.data<int64_t>()[2 * out] = b;
      indices.data<int64_t>()[2 * out + 1] = j;
      if (spec.mode == Mode::kString) {
        std::string s;
        for (size_t c = 0; c < columns.size(); ++c) {
          if (c > 0) s += spec.sep;
          s += FeatureString(columns[c], columns[c].rows[b][pick[c]]);
        }
        values.strings()[out] = std::move(s);
      } else {
        uint64_t h = spec.key;
        for (size_t c = 0; c < columns.size(); ++c) {
          const uint64_t f = FeatureHash(columns[c], columns[c].rows[b][pick[c]], spec);
          h = (c == 0 && spec.seed_with_first) ? f : FingerprintCat64(h, f);
        }
        const uint64_t mod = spec.num_buckets > 0 ? static_cast<uint64_t>(spec.num_buckets)
                                                  : static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
        values.data<int64_t>()[out] = static_cast<int64_t>(h % mod);
      }
      // Next combination: the last column varies fastest.
      for (size_t c = columns.size(); c-- > 0;) {
        if (++pick[c] < columns[c].rows[b].size()) break;
        pick[c] = 0;
      }
    }
  }
  ctx.set_output(0, std::move(indices));
  ctx.set_output(1, std::move(values));
  ctx.set_output(2, std::move(shape));
  return OkStatus();
}

Status SparseCross(KernelContext& ctx) {
  int64_t batch = 0;
  int extra = 0;
  TFHOST_ASSIGN_OR_RETURN(std::vector<Column> columns, ReadColumns(ctx, &batch, &extra));
  CrossSpec spec;
  TFHOST_ASSIGN_OR_RETURN(bool hashed, ctx.Attr<bool>("hashed_output"));
  TFHOST_ASSIGN_OR_RETURN(DType out_type, ctx.Attr<DType>("out_type"));
  if (hashed != (out_type == DType::kInt64)) {
    return ctx.Error("hashed_output " + std::string(hashed ? "true" : "false") + " needs out_type " +
                     (hashed ? "int64" : "string") + ", got " + DTypeShortName(out_type));
  }
  if (hashed) {
    spec.mode = Mode::kHashed;
    TFHOST_ASSIGN_OR_RETURN(int64_t key, ctx.Attr<int64_t>("hash_key"));
    TFHOST_ASSIGN_OR_RETURN(spec.num_buckets, ctx.Attr<int64_t>("num_buckets"));
    if (spec.num_buckets < 0) return ctx.Error("num_buckets must be >= 0, got " + std::to_string(spec.num_buckets));
    spec.key = static_cast<uint64_t>(key);
  }
  return Cross(ctx, columns, batch, spec);
}

Status SparseCrossV2(KernelContext& ctx) {
  int64_t batch = 0;
  int extra = 0;
  TFHOST_ASSIGN_OR_RETURN(std::vector<Column> columns, ReadColumns(ctx, &batch, &extra));
  const Tensor& sep = ctx.input(extra);
  if (sep.rank() != 0 || sep.dtype() != DType::kString) return ctx.Error("sep must be a string scalar");
  CrossSpec spec;
  spec.sep = sep.strings()[0];
  return Cross(ctx, columns, batch, spec);
}

Status SparseCrossHashed(KernelContext& ctx) {
  int64_t batch = 0;
  int extra = 0;
  TFHOST_ASSIGN_OR_RETURN(std::vector<Column> columns, ReadColumns(ctx, &batch, &extra));
  const Tensor& buckets = ctx.input(extra);
  const Tensor& strong = ctx.input(extra + 1);
  const Tensor& salt = ctx.input(extra + 2);
  if (buckets.NumElements() != 1 || buckets.dtype() != DType::kInt64) {
    return ctx.Error("num_buckets must be an int64 scalar");
  }
  if (strong.NumElements() != 1 || strong.dtype() != DType::kBool) return ctx.Error("strong_hash must be a bool scalar");
  if (salt.rank() != 1 || salt.dtype() != DType::kInt64 || salt.dim(0) != 2) {
    return ctx.Error("salt must be an int64 vector of 2 (the SipHash key), got " + salt.shape().ToString());
  }
  CrossSpec spec;
  spec.mode = Mode::kHashed;
  spec.seed_with_first = true;
  spec.num_buckets = buckets.data<int64_t>()[0];
  if (spec.num_buckets < 0) return ctx.Error("num_buckets must be >= 0, got " + std::to_string(spec.num_buckets));
  spec.strong = strong.data<bool>()[0];
  spec.salt0 = static_cast<uint64_t>(salt.data<int64_t>()[0]);
  spec.salt1 = static_cast<uint64_t>(salt.data<int64_t>()[1]);
  return Cross(ctx, columns, batch, spec);
}

}  // namespace

void RegisterSparseCrossOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("SparseCross")
                        .Input("indices: N * int64")
                        .Input("values: sparse_types")
                        .Input("shapes: N * int64")
                        .Input("dense_inputs: dense_types")
                        .Output("output_indices: int64")
                        .Output("output_values: out_type")
                        .Output("output_shape: int64")
                        .Attr("N: int >= 0")
                        .Attr("hashed_output: bool")
                        .Attr("num_buckets: int >= 0")
                        .Attr("hash_key: int")
                        .Attr("sparse_types: list({int64, string}) >= 0")
                        .Attr("dense_types: list({int64, string}) >= 0")
                        .Attr("out_type: {int64, string}")
                        .Attr("internal_type: {int64, string}"),
                    SparseCross);
  registry.Register(ir::OpDefBuilder("SparseCrossV2")
                        .Input("indices: N * int64")
                        .Input("values: sparse_types")
                        .Input("shapes: N * int64")
                        .Input("dense_inputs: dense_types")
                        .Input("sep: string")
                        .Output("output_indices: int64")
                        .Output("output_values: string")
                        .Output("output_shape: int64")
                        .Attr("N: int >= 0")
                        .Attr("sparse_types: list({int64, string}) >= 0")
                        .Attr("dense_types: list({int64, string}) >= 0"),
                    SparseCrossV2);
  registry.Register(ir::OpDefBuilder("SparseCrossHashed")
                        .Input("indices: N * int64")
                        .Input("values: sparse_types")
                        .Input("shapes: N * int64")
                        .Input("dense_inputs: dense_types")
                        .Input("num_buckets: int64")
                        .Input("strong_hash: bool")
                        .Input("salt: int64")
                        .Output("output_indices: int64")
                        .Output("output_values: int64")
                        .Output("output_shape: int64")
                        .Attr("N: int >= 0")
                        .Attr("sparse_types: list({int64, string}) >= 0")
                        .Attr("dense_types: list({int64, string}) >= 0"),
                    SparseCrossHashed);
}

}  // namespace tfhost::ops::sparse
