#include "ops/parsing/parse_example.h"

#include <string_view>
#include <unordered_map>

#include "ops/parsing/example_decoder.h"

namespace tfhost::ops {
namespace {

using parsing::DecodedFeature;
using parsing::FeatureKind;
using parsing::FeatureValues;

// Guards allocations whose size comes from attrs (dense_shapes) times batch.
constexpr int64_t kMaxOutputElements = int64_t{1} << 32;

// TensorFlow's DataTypeString spelling, which its parsing errors use.
const char* TfTypeName(DType d) {
  switch (d) {
    case DType::kFloat: return "float";
    case DType::kInt64: return "int64";
    case DType::kString: return "string";
    default: return "invalid";
  }
}
const char* KindTypeName(FeatureKind k) {
  switch (k) {
    case FeatureKind::kFloat: return "float";
    case FeatureKind::kInt64: return "int64";
    case FeatureKind::kBytes: return "string";
    case FeatureKind::kNone: break;
  }
  return "none";
}
// An empty Feature (no kind set) is an empty list of any type.
bool KindMatches(FeatureKind k, DType d) {
  switch (k) {
    case FeatureKind::kNone: return true;
    case FeatureKind::kFloat: return d == DType::kFloat;
    case FeatureKind::kInt64: return d == DType::kInt64;
    case FeatureKind::kBytes: return d == DType::kString;
  }
  return false;
}
bool IsParsableType(DType d) {
  return d == DType::kFloat || d == DType::kInt64 || d == DType::kString;
}

struct DenseSpec {
  std::string key;
  DType dtype = DType::kInvalid;
  bool variable_length = false;
  std::vector<int64_t> shape;  // as declared; shape[0] == -1 when variable_length
  int64_t stride = 1;          // values per row (variable) or per example (fixed)
  Tensor default_value;
};
struct VarSpec {
  std::string key;
  DType dtype = DType::kInvalid;
  DType split_dtype = DType::kInt64;  // ragged only
};
struct ParseSpec {
  std::vector<DenseSpec> dense;
  std::vector<VarSpec> sparse;
  std::vector<VarSpec> ragged;
};

// Values gathered for one sparse, ragged or variable-length dense feature.
struct VarAccum {
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string_view> strings;  // views into the serialized inputs
  std::vector<int64_t> row_counts;        // values contributed by each example
  int64_t size(DType d) const {
    return d == DType::kFloat ? static_cast<int64_t>(floats.size())
           : d == DType::kInt64 ? static_cast<int64_t>(ints.size())
                                : static_cast<int64_t>(strings.size());
  }
  Status Append(const FeatureValues& v, DType d) {
    if (d == DType::kFloat) return v.AppendFloats(&floats);
    if (d == DType::kInt64) return v.AppendInt64s(&ints);
    return v.AppendBytes(&strings);
  }
  // Copies values [begin, begin + n) into `out` at element `at`.
  void CopyTo(DType d, int64_t begin, int64_t n, Tensor* out, int64_t at) const {
    for (int64_t k = 0; k < n; ++k) {
      if (d == DType::kFloat) out->data<float>()[at + k] = floats[begin + k];
      else if (d == DType::kInt64) out->data<int64_t>()[at + k] = ints[begin + k];
      else out->strings()[at + k].assign(strings[begin + k]);
    }
  }
};

// Fills out[at, at + n) with element 0 of `fill`, or zero/"" when it is empty.
void FillWith(const Tensor& fill, int64_t n, Tensor* out, int64_t at) {
  bool has = fill.valid() && fill.NumElements() > 0;
  for (int64_t k = 0; k < n; ++k) {
    switch (out->dtype()) {
      case DType::kFloat: out->data<float>()[at + k] = has ? fill.data<float>()[0] : 0.0f; break;
      case DType::kInt64: out->data<int64_t>()[at + k] = has ? fill.data<int64_t>()[0] : 0; break;
      default: out->strings()[at + k] = has ? fill.strings()[0] : std::string(); break;
    }
  }
}

void CopyDefault(const Tensor& def, Tensor* out, int64_t at) {
  int64_t n = def.NumElements();
  for (int64_t k = 0; k < n; ++k) {
    switch (out->dtype()) {
      case DType::kFloat: out->data<float>()[at + k] = def.data<float>()[k]; break;
      case DType::kInt64: out->data<int64_t>()[at + k] = def.data<int64_t>()[k]; break;
      default: out->strings()[at + k] = def.strings()[k]; break;
    }
  }
}

struct ParseOutputs {
  std::vector<Tensor> sparse_indices, sparse_values, sparse_shapes;
  std::vector<Tensor> dense_values;
  std::vector<Tensor> ragged_values, ragged_splits;
};

Status ValidateSpec(const KernelContext& ctx, ParseSpec* spec) {
  for (auto& d : spec->dense) {
    if (!IsParsableType(d.dtype)) {
      return ctx.Error("dense feature '" + d.key + "' has unsupported type " + DTypeName(d.dtype) +
                       "; expected float, int64 or string");
    }
    d.variable_length = !d.shape.empty() && d.shape[0] == -1;
    d.stride = 1;
    for (size_t i = d.variable_length ? 1 : 0; i < d.shape.size(); ++i) {
      if (d.shape[i] < 0) {
        return ctx.Error("dense feature '" + d.key +
                         "': dense_shapes may only leave the first dimension unknown");
      }
      if (d.shape[i] > 0 && d.stride > kMaxOutputElements / d.shape[i]) {
        return ctx.Error("dense feature '" + d.key + "': dense shape is too large");
      }
      d.stride *= d.shape[i];
    }
    if (d.default_value.dtype() != d.dtype) {
      return ctx.Error("dense_defaults for '" + d.key + "' must be " + TfTypeName(d.dtype) +
                       ", got " + DTypeName(d.default_value.dtype()));
    }
    int64_t n = d.default_value.NumElements();
    if (d.variable_length ? n > 1 : (n != 0 && n != d.stride)) {
      return ctx.Error("dense_defaults for '" + d.key + "' has " + std::to_string(n) +
                       " values; expected 0 (required)" +
                       (d.variable_length ? " or 1 (padding value)"
                                          : " or " + std::to_string(d.stride)));
    }
  }
  for (auto* list : {&spec->sparse, &spec->ragged}) {
    for (const auto& v : *list) {
      if (!IsParsableType(v.dtype)) {
        return ctx.Error("feature '" + v.key + "' has unsupported type " + DTypeName(v.dtype) +
                         "; expected float, int64 or string");
      }
    }
  }
  for (const auto& r : spec->ragged) {
    if (r.split_dtype != DType::kInt32 && r.split_dtype != DType::kInt64) {
      return ctx.Error("ragged_split_types must be int32 or int64");
    }
  }
  return OkStatus();
}

// Parses `batch` serialized examples. `names` holds batch names or none.
Status ParseBatch(const KernelContext& ctx, const ParseSpec& spec, const std::string* serialized,
                  int64_t batch, const std::string* names, ParseOutputs* out) {
  const size_t nd = spec.dense.size(), ns = spec.sparse.size(), nr = spec.ragged.size();
  enum Kind : uint8_t { kDense, kSparse, kRagged };
  struct Target { Kind kind; uint32_t index; };
  std::unordered_map<std::string_view, std::vector<Target>> targets;
  for (size_t i = 0; i < nd; ++i) targets[spec.dense[i].key].push_back({kDense, uint32_t(i)});
  for (size_t i = 0; i < ns; ++i) targets[spec.sparse[i].key].push_back({kSparse, uint32_t(i)});
  for (size_t i = 0; i < nr; ++i) targets[spec.ragged[i].key].push_back({kRagged, uint32_t(i)});

  auto prefix = [&](int64_t b, const std::string& key) {
    return "Name: " + (names ? names[b] : std::string("<unknown>")) + ", Key: " + key +
           ", Index: " + std::to_string(b) + ".  ";
  };

  // Fixed-length dense outputs are written in place.
  out->dense_values.assign(nd, Tensor());
  for (size_t i = 0; i < nd; ++i) {
    const DenseSpec& d = spec.dense[i];
    if (d.variable_length) continue;
    std::vector<int64_t> dims{batch};
    dims.insert(dims.end(), d.shape.begin(), d.shape.end());
    auto shape = MakeShape(dims, "dense output '" + d.key + "'", kMaxOutputElements);
    if (!shape.ok()) return ctx.Error(shape.status().message());
    out->dense_values[i] = Tensor(d.dtype, *shape);
  }
  std::vector<VarAccum> dense_var(nd), sparse(ns), ragged(nr);

  std::vector<DecodedFeature> features;
  std::vector<const FeatureValues*> found_dense(nd), found_sparse(ns), found_ragged(nr);
  for (int64_t b = 0; b < batch; ++b) {
    Status s = parsing::DecodeExample(serialized[b], b, &features);
    if (!s.ok()) {
      return ctx.Error(s.message() + (names ? " (name '" + names[b] + "')" : std::string()));
    }
    std::fill(found_dense.begin(), found_dense.end(), nullptr);
    std::fill(found_sparse.begin(), found_sparse.end(), nullptr);
    std::fill(found_ragged.begin(), found_ragged.end(), nullptr);
    for (const DecodedFeature& f : features) {  // later entries win, as in a proto map
      auto it = targets.find(f.key);
      if (it == targets.end()) continue;
      for (const Target& t : it->second) {
        (t.kind == kDense ? found_dense : t.kind == kSparse ? found_sparse : found_ragged)[t.index] =
            &f.values;
      }
    }

    for (size_t i = 0; i < nd; ++i) {
      const DenseSpec& d = spec.dense[i];
      const FeatureValues* v = found_dense[i];
      if (v == nullptr) {
        if (d.variable_length) {
          dense_var[i].row_counts.push_back(0);
          continue;
        }
        if (d.default_value.NumElements() == 0) {
          return ctx.Error("Name: " + (names ? names[b] : std::string("<unknown>")) +
                           ", Feature: " + d.key + " (data type: " + TfTypeName(d.dtype) +
                           ") is required but could not be found.");
        }
        CopyDefault(d.default_value, &out->dense_values[i], b * d.stride);
        continue;
      }
      if (!KindMatches(v->kind(), d.dtype)) {
        return ctx.Error(prefix(b, d.key) + "Data types don't match. Data type: " +
                         KindTypeName(v->kind()) + " but expected type: " + TfTypeName(d.dtype));
      }
      auto count = v->Count();
      if (!count.ok()) {
        return ctx.Error(prefix(b, d.key) + "Can't parse serialized Example: " +
                         count.status().message());
      }
      if (d.variable_length) {
        if (d.stride == 0 ? *count != 0 : *count % d.stride != 0) {
          return ctx.Error(prefix(b, d.key) + "Number of " + TfTypeName(d.dtype) +
                           " values is not a multiple of stride length. Saw " +
                           std::to_string(*count) + " values but output shape is: " +
                           ir::PartialShape{false, d.shape}.ToString());
        }
        TFHOST_RETURN_IF_ERROR(dense_var[i].Append(*v, d.dtype));
        dense_var[i].row_counts.push_back(d.stride == 0 ? 0 : *count / d.stride);
        continue;
      }
      if (*count != d.stride) {
        return ctx.Error(prefix(b, d.key) + "Can't parse serialized Example: number of " +
                         TfTypeName(d.dtype) + " values != expected. Values size: " +
                         std::to_string(*count) + " but output shape: " +
                         Shape(d.shape).ToString());
      }
      Tensor& t = out->dense_values[i];
      Status cs = d.dtype == DType::kFloat ? v->CopyFloats(t.data<float>() + b * d.stride, d.stride)
                  : d.dtype == DType::kInt64
                      ? v->CopyInt64s(t.data<int64_t>() + b * d.stride, d.stride)
                      : v->CopyBytes(t.strings() + b * d.stride, d.stride);
      if (!cs.ok()) return ctx.Error(prefix(b, d.key) + cs.message());
    }

    auto gather = [&](const std::vector<VarSpec>& specs, const std::vector<const FeatureValues*>& found,
                      std::vector<VarAccum>& accums) -> Status {
      for (size_t i = 0; i < specs.size(); ++i) {
        VarAccum& acc = accums[i];
        const FeatureValues* v = found[i];
        if (v == nullptr) {
          acc.row_counts.push_back(0);
          continue;
        }
        if (!KindMatches(v->kind(), specs[i].dtype)) {
          return ctx.Error(prefix(b, specs[i].key) + "Data types don't match. Expected type: " +
                           TfTypeName(specs[i].dtype) + ", Actual type: " + KindTypeName(v->kind()));
        }
        int64_t before = acc.size(specs[i].dtype);
        Status as = acc.Append(*v, specs[i].dtype);
        if (!as.ok()) {
          return ctx.Error(prefix(b, specs[i].key) + "Can't parse serialized Example: " + as.message());
        }
        acc.row_counts.push_back(acc.size(specs[i].dtype) - before);
      }
      return OkStatus();
    };
    TFHOST_RETURN_IF_ERROR(gather(spec.sparse, found_sparse, sparse));
    TFHOST_RETURN_IF_ERROR(gather(spec.ragged, found_ragged, ragged));
  }

  // Variable-length dense: [batch, max_rows] + shape[1:], padded.
  for (size_t i = 0; i < nd; ++i) {
    const DenseSpec& d = spec.dense[i];
    if (!d.variable_length) continue;
    const VarAccum& acc = dense_var[i];
    int64_t max_rows = 0;
    for (int64_t r : acc.row_counts) max_rows = std::max(max_rows, r);
    std::vector<int64_t> dims{batch, max_rows};
    dims.insert(dims.end(), d.shape.begin() + 1, d.shape.end());
    auto shape = MakeShape(dims, "dense output '" + d.key + "'", kMaxOutputElements);
    if (!shape.ok()) return ctx.Error(shape.status().message());
    Tensor t(d.dtype, *shape);
    int64_t src = 0, per_example = max_rows * d.stride;
    for (int64_t b = 0; b < batch; ++b) {
      int64_t n = acc.row_counts[b] * d.stride;
      acc.CopyTo(d.dtype, src, n, &t, b * per_example);
      FillWith(d.default_value, per_example - n, &t, b * per_example + n);
      src += n;
    }
    out->dense_values[i] = std::move(t);
  }

  for (size_t i = 0; i < ns; ++i) {
    const VarAccum& acc = sparse[i];
    DType dt = spec.sparse[i].dtype;
    int64_t total = acc.size(dt), max_count = 0;
    Tensor indices(DType::kInt64, Shape({total, 2}));
    Tensor values(dt, Shape({total}));
    int64_t k = 0;
    for (int64_t b = 0; b < batch; ++b) {
      max_count = std::max(max_count, acc.row_counts[b]);
      for (int64_t j = 0; j < acc.row_counts[b]; ++j, ++k) {
        indices.data<int64_t>()[2 * k] = b;
        indices.data<int64_t>()[2 * k + 1] = j;
      }
    }
    acc.CopyTo(dt, 0, total, &values, 0);
    out->sparse_indices.push_back(std::move(indices));
    out->sparse_values.push_back(std::move(values));
    out->sparse_shapes.push_back(Tensor::FromVector<int64_t>({batch, max_count}));
  }

  for (size_t i = 0; i < nr; ++i) {
    const VarAccum& acc = ragged[i];
    DType dt = spec.ragged[i].dtype;
    int64_t total = acc.size(dt);
    Tensor values(dt, Shape({total}));
    acc.CopyTo(dt, 0, total, &values, 0);
    Tensor splits(spec.ragged[i].split_dtype, Shape({batch + 1}));
    int64_t at = 0;
    for (int64_t b = 0; b <= batch; ++b) {
      if (splits.dtype() == DType::kInt32) splits.data<int32_t>()[b] = static_cast<int32_t>(at);
      else splits.data<int64_t>()[b] = at;
      if (b < batch) at += acc.row_counts[b];
    }
    if (splits.dtype() == DType::kInt32 && at > INT32_MAX) {
      return ctx.Error("ragged feature '" + spec.ragged[i].key + "' has too many values for int32 row_splits");
    }
    out->ragged_values.push_back(std::move(values));
    out->ragged_splits.push_back(std::move(splits));
  }
  return OkStatus();
}

// For a scalar `serialized`: drop the batch dimension from every output.
Status DropBatchDim(ParseOutputs* out) {
  for (auto& t : out->dense_values) {
    std::vector<int64_t> dims(t.shape().dims().begin() + 1, t.shape().dims().end());
    TFHOST_ASSIGN_OR_RETURN(t, t.Reshaped(Shape(dims)));
  }
  for (size_t i = 0; i < out->sparse_indices.size(); ++i) {
    const Tensor& two = out->sparse_indices[i];
    int64_t n = two.dim(0);
    Tensor one(DType::kInt64, Shape({n, 1}));
    for (int64_t k = 0; k < n; ++k) one.data<int64_t>()[k] = two.data<int64_t>()[2 * k + 1];
    out->sparse_indices[i] = std::move(one);
    out->sparse_shapes[i] = Tensor::FromVector<int64_t>({out->sparse_shapes[i].data<int64_t>()[1]});
  }
  return OkStatus();
}

void SetOutputs(KernelContext& ctx, ParseOutputs& out, bool with_ragged) {
  int k = 0;
  for (auto* list : {&out.sparse_indices, &out.sparse_values, &out.sparse_shapes, &out.dense_values}) {
    for (auto& t : *list) ctx.set_output(k++, std::move(t));
  }
  if (!with_ragged) return;
  for (auto& t : out.ragged_values) ctx.set_output(k++, std::move(t));
  for (auto& t : out.ragged_splits) ctx.set_output(k++, std::move(t));
}

// Reads the keys from a string tensor that must hold exactly `n` of them.
StatusOr<std::vector<std::string>> KeysFrom(const KernelContext& ctx, int input, size_t n,
                                            const char* what) {
  const Tensor& t = ctx.input(input);
  if (t.dtype() != DType::kString || t.rank() > 1 || t.NumElements() != static_cast<int64_t>(n)) {
    return ctx.Error(std::string(what) + " must be a string vector of " + std::to_string(n) +
                     " keys, got " + t.DebugString(0));
  }
  return std::vector<std::string>(t.strings(), t.strings() + n);
}

Status CheckInputCount(const KernelContext& ctx, int expected) {
  if (ctx.num_inputs() != expected) {
    return ctx.Error("expected " + std::to_string(expected) + " inputs, got " +
                     std::to_string(ctx.num_inputs()));
  }
  return OkStatus();
}

// Reads Tdense / dense_shapes and the dense_defaults inputs starting at `first_default`.
Status ReadDenseSpecs(const KernelContext& ctx, const std::vector<std::string>& keys,
                      int first_default, ParseSpec* spec) {
  TFHOST_ASSIGN_OR_RETURN(auto tdense, ctx.Attr<std::vector<DType>>("Tdense"));
  TFHOST_ASSIGN_OR_RETURN(auto shapes, ctx.Attr<std::vector<ir::PartialShape>>("dense_shapes"));
  if (tdense.size() != keys.size() || shapes.size() != keys.size()) {
    return ctx.Error("Tdense (" + std::to_string(tdense.size()) + "), dense_shapes (" +
                     std::to_string(shapes.size()) + ") and dense_keys (" +
                     std::to_string(keys.size()) + ") must have the same length");
  }
  for (size_t i = 0; i < keys.size(); ++i) {
    if (shapes[i].unknown_rank) return ctx.Error("dense_shapes[" + std::to_string(i) + "] has unknown rank");
    DenseSpec d;
    d.key = keys[i];
    d.dtype = tdense[i];
    d.shape = shapes[i].dims;
    d.default_value = ctx.input(first_default + static_cast<int>(i));
    spec->dense.push_back(std::move(d));
  }
  return OkStatus();
}

Status AddVarSpecs(const KernelContext& ctx, const std::vector<std::string>& keys,
                   const std::vector<DType>& types, const char* what, std::vector<VarSpec>* out) {
  if (keys.size() != types.size()) {
    return ctx.Error(std::string(what) + ": " + std::to_string(keys.size()) + " keys but " +
                     std::to_string(types.size()) + " types");
  }
  for (size_t i = 0; i < keys.size(); ++i) out->push_back({keys[i], types[i], DType::kInt64});
  return OkStatus();
}

// Checks `serialized` and `names`; returns the batch size (1 for a scalar).
StatusOr<int64_t> CheckBatch(const KernelContext& ctx, bool allow_scalar, const std::string** names) {
  const Tensor& ser = ctx.input(0);
  if (ser.dtype() != DType::kString || ser.rank() > 1 || (!allow_scalar && ser.rank() != 1)) {
    return ctx.Error(std::string("serialized must be a string ") +
                     (allow_scalar ? "scalar or vector" : "vector") + ", got " + ser.DebugString(0));
  }
  int64_t batch = ser.rank() == 0 ? 1 : ser.dim(0);
  *names = nullptr;
  if (names != nullptr && ctx.num_inputs() > 1) {
    const Tensor& n = ctx.input(1);
    if (n.dtype() != DType::kString || n.rank() > 1 ||
        (n.NumElements() != 0 && n.NumElements() != batch)) {
      return ctx.Error("names must be empty or hold one string per serialized example, got " +
                       n.DebugString(0));
    }
    if (n.NumElements() > 0) *names = n.strings();
  }
  return batch;
}

Status ParseExampleV1(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(int64_t nsparse, ctx.Attr<int64_t>("Nsparse"));
  TFHOST_ASSIGN_OR_RETURN(int64_t ndense, ctx.Attr<int64_t>("Ndense"));
  TFHOST_ASSIGN_OR_RETURN(auto sparse_types, ctx.Attr<std::vector<DType>>("sparse_types"));
  if (nsparse < 0 || ndense < 0 || nsparse > 1 << 16 || ndense > 1 << 16) {
    return ctx.Error("Nsparse and Ndense must be in [0, 65536]");
  }
  TFHOST_RETURN_IF_ERROR(CheckInputCount(ctx, static_cast<int>(2 + nsparse + 2 * ndense)));
  const std::string* names;
  TFHOST_ASSIGN_OR_RETURN(int64_t batch, CheckBatch(ctx, false, &names));
  std::vector<std::string> sparse_keys, dense_keys;
  for (int i = 0; i < nsparse; ++i) {
    TFHOST_ASSIGN_OR_RETURN(auto k, KeysFrom(ctx, 2 + i, 1, "sparse_keys"));
    sparse_keys.push_back(k[0]);
  }
  for (int i = 0; i < ndense; ++i) {
    TFHOST_ASSIGN_OR_RETURN(auto k, KeysFrom(ctx, 2 + nsparse + i, 1, "dense_keys"));
    dense_keys.push_back(k[0]);
  }
  ParseSpec spec;
  TFHOST_RETURN_IF_ERROR(AddVarSpecs(ctx, sparse_keys, sparse_types, "sparse_keys", &spec.sparse));
  TFHOST_RETURN_IF_ERROR(ReadDenseSpecs(ctx, dense_keys, static_cast<int>(2 + nsparse + ndense), &spec));
  TFHOST_RETURN_IF_ERROR(ValidateSpec(ctx, &spec));
  ParseOutputs out;
  TFHOST_RETURN_IF_ERROR(ParseBatch(ctx, spec, ctx.input(0).strings(), batch, names, &out));
  SetOutputs(ctx, out, false);
  return OkStatus();
}

Status ParseExampleV2(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(int64_t num_sparse, ctx.Attr<int64_t>("num_sparse"));
  TFHOST_ASSIGN_OR_RETURN(auto sparse_types, ctx.Attr<std::vector<DType>>("sparse_types"));
  TFHOST_ASSIGN_OR_RETURN(auto tdense, ctx.Attr<std::vector<DType>>("Tdense"));
  TFHOST_ASSIGN_OR_RETURN(auto ragged_types, ctx.Attr<std::vector<DType>>("ragged_value_types"));
  TFHOST_ASSIGN_OR_RETURN(auto split_types, ctx.Attr<std::vector<DType>>("ragged_split_types"));
  if (num_sparse != static_cast<int64_t>(sparse_types.size()) ||
      ragged_types.size() != split_types.size()) {
    return ctx.Error("num_sparse must equal len(sparse_types) and ragged_value_types must match "
                     "ragged_split_types in length");
  }
  TFHOST_RETURN_IF_ERROR(CheckInputCount(ctx, static_cast<int>(5 + tdense.size())));
  const std::string* names;
  TFHOST_ASSIGN_OR_RETURN(int64_t batch, CheckBatch(ctx, true, &names));
  TFHOST_ASSIGN_OR_RETURN(auto sparse_keys, KeysFrom(ctx, 2, sparse_types.size(), "sparse_keys"));
  TFHOST_ASSIGN_OR_RETURN(auto dense_keys, KeysFrom(ctx, 3, tdense.size(), "dense_keys"));
  TFHOST_ASSIGN_OR_RETURN(auto ragged_keys, KeysFrom(ctx, 4, ragged_types.size(), "ragged_keys"));
  ParseSpec spec;
  TFHOST_RETURN_IF_ERROR(AddVarSpecs(ctx, sparse_keys, sparse_types, "sparse_keys", &spec.sparse));
  TFHOST_RETURN_IF_ERROR(AddVarSpecs(ctx, ragged_keys, ragged_types, "ragged_keys", &spec.ragged));
  for (size_t i = 0; i < split_types.size(); ++i) spec.ragged[i].split_dtype = split_types[i];
  TFHOST_RETURN_IF_ERROR(ReadDenseSpecs(ctx, dense_keys, 5, &spec));
  TFHOST_RETURN_IF_ERROR(ValidateSpec(ctx, &spec));
  ParseOutputs out;
  TFHOST_RETURN_IF_ERROR(ParseBatch(ctx, spec, ctx.input(0).strings(), batch, names, &out));
  if (ctx.input(0).rank() == 0) TFHOST_RETURN_IF_ERROR(DropBatchDim(&out));
  SetOutputs(ctx, out, true);
  return OkStatus();
}

Status ParseSingleExample(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(int64_t num_sparse, ctx.Attr<int64_t>("num_sparse"));
  TFHOST_ASSIGN_OR_RETURN(auto sparse_keys, ctx.Attr<std::vector<std::string>>("sparse_keys"));
  TFHOST_ASSIGN_OR_RETURN(auto dense_keys, ctx.Attr<std::vector<std::string>>("dense_keys"));
  TFHOST_ASSIGN_OR_RETURN(auto sparse_types, ctx.Attr<std::vector<DType>>("sparse_types"));
  if (num_sparse != static_cast<int64_t>(sparse_keys.size())) {
    return ctx.Error("num_sparse must equal len(sparse_keys)");
  }
  TFHOST_RETURN_IF_ERROR(CheckInputCount(ctx, static_cast<int>(1 + dense_keys.size())));
  const Tensor& ser = ctx.input(0);
  if (ser.dtype() != DType::kString || ser.rank() != 0) {
    return ctx.Error("serialized must be a string scalar, got " + ser.DebugString(0));
  }
  ParseSpec spec;
  TFHOST_RETURN_IF_ERROR(AddVarSpecs(ctx, sparse_keys, sparse_types, "sparse_keys", &spec.sparse));
  TFHOST_RETURN_IF_ERROR(ReadDenseSpecs(ctx, dense_keys, 1, &spec));
  TFHOST_RETURN_IF_ERROR(ValidateSpec(ctx, &spec));
  ParseOutputs out;
  TFHOST_RETURN_IF_ERROR(ParseBatch(ctx, spec, ser.strings(), 1, nullptr, &out));
  TFHOST_RETURN_IF_ERROR(DropBatchDim(&out));
  SetOutputs(ctx, out, false);
  return OkStatus();
}

}  // namespace

void RegisterParseExampleOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("ParseExample")
                        .Input("serialized: string")
                        .Input("names: string")
                        .Input("sparse_keys: Nsparse * string")
                        .Input("dense_keys: Ndense * string")
                        .Input("dense_defaults: Tdense")
                        .Output("sparse_indices: Nsparse * int64")
                        .Output("sparse_values: sparse_types")
                        .Output("sparse_shapes: Nsparse * int64")
                        .Output("dense_values: Tdense")
                        .Attr("Nsparse: int >= 0")
                        .Attr("Ndense: int >= 0")
                        .Attr("sparse_types: list({float,int64,string}) >= 0")
                        .Attr("Tdense: list({float,int64,string}) >= 0")
                        .Attr("dense_shapes: list(shape) >= 0"),
                    ParseExampleV1);
  registry.Register(ir::OpDefBuilder("ParseExampleV2")
                        .Input("serialized: string")
                        .Input("names: string")
                        .Input("sparse_keys: string")
                        .Input("dense_keys: string")
                        .Input("ragged_keys: string")
                        .Input("dense_defaults: Tdense")
                        .Output("sparse_indices: num_sparse * int64")
                        .Output("sparse_values: sparse_types")
                        .Output("sparse_shapes: num_sparse * int64")
                        .Output("dense_values: Tdense")
                        .Output("ragged_values: ragged_value_types")
                        .Output("ragged_row_splits: ragged_split_types")
                        .Attr("Tdense: list({float,int64,string}) >= 0")
                        .Attr("num_sparse: int >= 0")
                        .Attr("sparse_types: list({float,int64,string}) >= 0")
                        .Attr("ragged_value_types: list({float,int64,string}) >= 0")
                        .Attr("ragged_split_types: list({int32,int64}) >= 0")
                        .Attr("dense_shapes: list(shape) >= 0"),
                    ParseExampleV2);
  registry.Register(ir::OpDefBuilder("ParseSingleExample")
                        .Input("serialized: string")
                        .Input("dense_defaults: Tdense")
                        .Output("sparse_indices: num_sparse * int64")
                        .Output("sparse_values: sparse_types")
                        .Output("sparse_shapes: num_sparse * int64")
                        .Output("dense_values: Tdense")
                        .Attr("num_sparse: int >= 0")
                        .Attr("sparse_keys: list(string) >= 0")
                        .Attr("dense_keys: list(string) >= 0")
                        .Attr("sparse_types: list({float,int64,string}) >= 0")
                        .Attr("Tdense: list({float,int64,string}) >= 0")
                        .Attr("dense_shapes: list(shape) >= 0"),
                    ParseSingleExample);
}

}  // namespace tfhost::ops
