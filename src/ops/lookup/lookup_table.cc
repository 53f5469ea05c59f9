#include "ops/lookup/lookup_table.h"

#include <cstring>
#include <mutex>
#include <sstream>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace tfhost::ops::lookup {
namespace {

// Upper bound on the elements of one value and of one Find result.
constexpr int64_t kMaxElements = int64_t{1} << 31;

// std::vector<bool> packs bits; values are stored one byte each instead.
template <typename T>
struct Stored {
  using type = T;
};
template <>
struct Stored<bool> {
  using type = uint8_t;
};

// Bitwise for floating point, so a NaN value re-initializes as "the same".
template <typename T>
bool SameElement(const T& a, const T& b) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::memcmp(&a, &b, sizeof(T)) == 0;
  } else {
    return a == b;
  }
}

template <typename T>
std::string ElementString(const T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    constexpr size_t kMax = 64;
    return "'" + (v.size() > kMax ? v.substr(0, kMax) + "..." : v) + "'";
  } else if constexpr (std::is_same_v<T, bool>) {
    return v ? "true" : "false";
  } else if constexpr (std::is_floating_point_v<T>) {
    std::ostringstream s;
    s.precision(std::is_same_v<T, float> ? 9 : 17);
    s << v;
    return s.str();
  } else {
    return std::to_string(v);
  }
}

template <typename T>
std::string RowString(const T* row, int64_t width) {
  if (width == 1) return ElementString(row[0]);
  std::string s = "[";
  for (int64_t j = 0; j < width && j < 4; ++j) s += (j ? ", " : "") + ElementString(row[j]);
  return s + (width > 4 ? ", ...]" : "]");
}

template <typename K, typename V>
class TypedLookupTable final : public LookupTable {
  using S = typename Stored<V>::type;

 public:
  TypedLookupTable(Kind kind, DType key_dtype, DType value_dtype, Shape value_shape)
      : LookupTable(kind, key_dtype, value_dtype, std::move(value_shape)) {}

 protected:
  void FindLocked(const Tensor& keys, const Tensor& defaults, bool default_per_key, Tensor& out) const override {
    const K* k = keys.data<K>();
    const V* d = defaults.data<V>();
    V* o = out.data<V>();
    const int64_t n = keys.NumElements();
    const int64_t w = value_width_;
    for (int64_t i = 0; i < n; ++i) {
      auto it = index_.find(k[i]);
      if (it != index_.end()) {
        const S* src = values_.data() + it->second * w;
        for (int64_t j = 0; j < w; ++j) o[i * w + j] = static_cast<V>(src[j]);
      } else {
        const V* src = default_per_key ? d + i * w : d;
        for (int64_t j = 0; j < w; ++j) o[i * w + j] = src[j];
      }
    }
  }

  void InsertLocked(const Tensor& keys, const Tensor& values) override {
    const K* k = keys.data<K>();
    const V* v = values.data<V>();
    const int64_t n = keys.NumElements();
    const int64_t w = value_width_;
    for (int64_t i = 0; i < n; ++i) {
      auto [it, inserted] = index_.try_emplace(k[i], 0);
      if (inserted) {
        if (!free_rows_.empty()) {
          it->second = free_rows_.back();
          free_rows_.pop_back();
        } else {
          it->second = num_rows_++;
          values_.resize(static_cast<size_t>(num_rows_ * w));
        }
      }
      S* dst = values_.data() + it->second * w;
      for (int64_t j = 0; j < w; ++j) dst[j] = static_cast<S>(v[i * w + j]);
    }
  }

  // Removed rows are recycled by later inserts rather than compacted, so
  // row numbers held by the index never move.
  void RemoveLocked(const Tensor& keys) override {
    const K* k = keys.data<K>();
    const int64_t n = keys.NumElements();
    for (int64_t i = 0; i < n; ++i) {
      auto it = index_.find(k[i]);
      if (it == index_.end()) continue;
      S* row = values_.data() + it->second * value_width_;
      for (int64_t j = 0; j < value_width_; ++j) row[j] = S();  // frees string memory
      free_rows_.push_back(it->second);
      index_.erase(it);
    }
  }

  void ClearLocked() override {
    index_.clear();
    values_.clear();
    free_rows_.clear();
    num_rows_ = 0;
  }

  int64_t SizeLocked() const override { return static_cast<int64_t>(index_.size()); }

  std::pair<Tensor, Tensor> ExportLocked() const override {
    const int64_t n = static_cast<int64_t>(index_.size());
    const int64_t w = value_width_;
    std::vector<int64_t> value_dims = {n};
    for (int64_t d : value_shape_.dims()) value_dims.push_back(d);
    Tensor keys(key_dtype_, Shape({n}));
    Tensor values(value_dtype_, Shape(std::move(value_dims)));
    K* k = keys.data<K>();
    V* v = values.data<V>();
    int64_t i = 0;
    for (const auto& [key, row] : index_) {
      k[i] = key;
      const S* src = values_.data() + row * w;
      for (int64_t j = 0; j < w; ++j) v[i * w + j] = static_cast<V>(src[j]);
      ++i;
    }
    return {std::move(keys), std::move(values)};
  }

  int64_t FindDuplicateConflict(const Tensor& keys, const Tensor& values, std::string* detail) const override {
    const K* k = keys.data<K>();
    const V* v = values.data<V>();
    const int64_t n = keys.NumElements();
    const int64_t w = value_width_;
    std::unordered_map<K, int64_t> first;
    first.reserve(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      auto [it, inserted] = first.try_emplace(k[i], i);
      if (inserted) continue;
      const V* a = v + it->second * w;
      const V* b = v + i * w;
      for (int64_t j = 0; j < w; ++j) {
        if (!SameElement(a[j], b[j])) {
          *detail = "key " + ElementString(k[i]) + " maps to " + RowString(b, w) + " here but to " +
                    RowString(a, w) + " at entry " + std::to_string(it->second);
          return i;
        }
      }
    }
    return -1;
  }

  bool SameContentLocked(const Tensor& keys, const Tensor& values) const override {
    const K* k = keys.data<K>();
    const V* v = values.data<V>();
    const int64_t n = keys.NumElements();
    const int64_t w = value_width_;
    std::unordered_set<K> distinct;
    for (int64_t i = 0; i < n; ++i) {
      auto it = index_.find(k[i]);
      if (it == index_.end()) return false;
      const S* row = values_.data() + it->second * w;
      for (int64_t j = 0; j < w; ++j) {
        if (!SameElement(static_cast<V>(row[j]), v[i * w + j])) return false;
      }
      distinct.insert(k[i]);
    }
    return distinct.size() == index_.size();
  }

 private:
  std::unordered_map<K, int64_t> index_;  // key -> row in values_
  std::vector<S> values_;                 // num_rows_ rows of value_width_ elements
  std::vector<int64_t> free_rows_;        // rows of removed keys, reused first
  int64_t num_rows_ = 0;
};

template <typename K>
std::shared_ptr<LookupTable> MakeWithKey(LookupTable::Kind kind, DType key, DType value, Shape shape) {
  switch (value) {
    case DType::kInt32: return std::make_shared<TypedLookupTable<K, int32_t>>(kind, key, value, std::move(shape));
    case DType::kInt64: return std::make_shared<TypedLookupTable<K, int64_t>>(kind, key, value, std::move(shape));
    case DType::kFloat: return std::make_shared<TypedLookupTable<K, float>>(kind, key, value, std::move(shape));
    case DType::kDouble: return std::make_shared<TypedLookupTable<K, double>>(kind, key, value, std::move(shape));
    case DType::kBool: return std::make_shared<TypedLookupTable<K, bool>>(kind, key, value, std::move(shape));
    case DType::kString: return std::make_shared<TypedLookupTable<K, std::string>>(kind, key, value, std::move(shape));
    default: return nullptr;
  }
}

}  // namespace

bool LookupTable::IsSupportedKeyDType(DType dtype) {
  return dtype == DType::kInt32 || dtype == DType::kInt64 || dtype == DType::kString;
}

bool LookupTable::IsSupportedValueDType(DType dtype) {
  switch (dtype) {
    case DType::kInt32:
    case DType::kInt64:
    case DType::kFloat:
    case DType::kDouble:
    case DType::kBool:
    case DType::kString:
      return true;
    default:
      return false;
  }
}

StatusOr<std::shared_ptr<LookupTable>> LookupTable::Create(Kind kind, DType key_dtype, DType value_dtype,
                                                           Shape value_shape) {
  if (!IsSupportedKeyDType(key_dtype)) {
    return InvalidArgument("lookup tables support int32, int64 and string keys, not " + DTypeShortName(key_dtype));
  }
  if (!IsSupportedValueDType(value_dtype)) {
    return InvalidArgument("lookup tables support int32, int64, float, double, bool and string values, not " +
                           DTypeShortName(value_dtype));
  }
  int64_t width = 1;
  for (int64_t d : value_shape.dims()) {
    if (d < 0) return InvalidArgument("value_shape " + value_shape.ToString() + " must be fully defined");
    if (d > 0 && width > kMaxElements / d) {
      return InvalidArgument("value_shape " + value_shape.ToString() + " has more than " +
                             std::to_string(kMaxElements) + " elements");
    }
    width *= d;
  }
  std::shared_ptr<LookupTable> table;
  switch (key_dtype) {
    case DType::kInt32: table = MakeWithKey<int32_t>(kind, key_dtype, value_dtype, std::move(value_shape)); break;
    case DType::kInt64: table = MakeWithKey<int64_t>(kind, key_dtype, value_dtype, std::move(value_shape)); break;
    default: table = MakeWithKey<std::string>(kind, key_dtype, value_dtype, std::move(value_shape)); break;
  }
  return table;
}

LookupTable::LookupTable(Kind kind, DType key_dtype, DType value_dtype, Shape value_shape)
    : kind_(kind), key_dtype_(key_dtype), value_dtype_(value_dtype), value_shape_(std::move(value_shape)),
      value_width_(value_shape_.num_elements()), initialized_(kind == Kind::kMutable) {}

std::string LookupTable::Description() const {
  std::string s = DTypeShortName(key_dtype_) + " -> " + DTypeShortName(value_dtype_);
  if (!value_shape_.IsScalar()) s += value_shape_.ToString();
  return s + (kind_ == Kind::kHashTable ? " hash table" : " mutable hash table");
}

bool LookupTable::initialized() const {
  std::shared_lock lock(mu_);
  return initialized_;
}

int64_t LookupTable::Size() const {
  std::shared_lock lock(mu_);
  return SizeLocked();
}

Status LookupTable::CheckKeys(const Tensor& keys) const {
  if (!keys.valid() || keys.dtype() != key_dtype_) {
    return InvalidArgument("keys have dtype " + (keys.valid() ? DTypeShortName(keys.dtype()) : "<none>") +
                           " but the " + Description() + " has " + DTypeShortName(key_dtype_) + " keys");
  }
  return OkStatus();
}

Status LookupTable::CheckKeysAndValues(const Tensor& keys, const Tensor& values, const char* what) const {
  TFHOST_RETURN_IF_ERROR(CheckKeys(keys));
  if (!values.valid() || values.dtype() != value_dtype_) {
    return InvalidArgument(std::string(what) + " have dtype " +
                           (values.valid() ? DTypeShortName(values.dtype()) : "<none>") + " but the " +
                           Description() + " has " + DTypeShortName(value_dtype_) + " values");
  }
  std::vector<int64_t> expected = keys.shape().dims();
  for (int64_t d : value_shape_.dims()) expected.push_back(d);
  if (values.shape().dims() != expected) {
    return InvalidArgument(std::string(what) + " have shape " + values.shape().ToString() + " but keys of shape " +
                           keys.shape().ToString() + " need " + what + " of shape " +
                           Shape(std::move(expected)).ToString());
  }
  return OkStatus();
}

StatusOr<Tensor> LookupTable::Find(const Tensor& keys, const Tensor& default_value) const {
  TFHOST_RETURN_IF_ERROR(CheckKeys(keys));
  if (!default_value.valid() || default_value.dtype() != value_dtype_) {
    return InvalidArgument("default_value has dtype " +
                           (default_value.valid() ? DTypeShortName(default_value.dtype()) : "<none>") +
                           " but the " + Description() + " has " + DTypeShortName(value_dtype_) + " values");
  }
  std::vector<int64_t> out_dims = keys.shape().dims();
  for (int64_t d : value_shape_.dims()) out_dims.push_back(d);
  Shape out_shape(std::move(out_dims));
  // The model's value_shape multiplies the request's key count; bound what
  // one lookup may allocate.
  if (value_width_ > 0 && keys.NumElements() > kMaxElements / value_width_) {
    return InvalidArgument(std::to_string(keys.NumElements()) + " keys with values of shape " +
                           value_shape_.ToString() + " would need more than " + std::to_string(kMaxElements) +
                           " result elements");
  }
  bool per_key = false;
  if (default_value.shape() == out_shape && out_shape != value_shape_) {
    per_key = true;
  } else if (default_value.shape() != value_shape_) {
    return InvalidArgument("default_value has shape " + default_value.shape().ToString() + "; expected " +
                           value_shape_.ToString() + " (one default) or " + out_shape.ToString() +
                           " (one per key)");
  }
  Tensor out(value_dtype_, out_shape);
  std::shared_lock lock(mu_);
  if (!initialized_) {
    return FailedPrecondition("the " + Description() + " is not initialized (its initializer has not run)");
  }
  FindLocked(keys, default_value, per_key, out);
  return out;
}

Status LookupTable::Initialize(const Tensor& keys, const Tensor& values,
                               const std::function<std::string(int64_t)>& entry_name) {
  if (kind_ != Kind::kHashTable) {
    return InvalidArgument("a " + Description() + " is not initializable; insert into it instead");
  }
  TFHOST_RETURN_IF_ERROR(CheckKeys(keys));
  if (keys.rank() != 1) return InvalidArgument("keys must be a vector, got shape " + keys.shape().ToString());
  TFHOST_RETURN_IF_ERROR(CheckKeysAndValues(keys, values, "values"));
  std::string detail;
  int64_t clash = FindDuplicateConflict(keys, values, &detail);
  if (clash >= 0) return InvalidArgument(entry_name(clash) + ": " + detail + "; a hash table maps each key once");
  std::unique_lock lock(mu_);
  if (initialized_) {
    if (SameContentLocked(keys, values)) return OkStatus();
    return FailedPrecondition("the " + Description() + " was already initialized with different data");
  }
  InsertLocked(keys, values);
  initialized_ = true;
  return OkStatus();
}

Status LookupTable::Insert(const Tensor& keys, const Tensor& values) {
  if (kind_ != Kind::kMutable) {
    return Unimplemented("a " + Description() + " is read-only once initialized; only mutable tables accept inserts");
  }
  TFHOST_RETURN_IF_ERROR(CheckKeysAndValues(keys, values, "values"));
  std::unique_lock lock(mu_);
  InsertLocked(keys, values);
  return OkStatus();
}

Status LookupTable::Remove(const Tensor& keys) {
  if (kind_ != Kind::kMutable) {
    return Unimplemented("a " + Description() + " is read-only once initialized; only mutable tables remove keys");
  }
  TFHOST_RETURN_IF_ERROR(CheckKeys(keys));
  std::unique_lock lock(mu_);
  RemoveLocked(keys);
  return OkStatus();
}

Status LookupTable::Import(const Tensor& keys, const Tensor& values) {
  if (kind_ == Kind::kHashTable) {
    return Initialize(keys, values, [](int64_t i) { return "keys[" + std::to_string(i) + "]"; });
  }
  TFHOST_RETURN_IF_ERROR(CheckKeysAndValues(keys, values, "values"));
  std::unique_lock lock(mu_);
  ClearLocked();
  InsertLocked(keys, values);
  return OkStatus();
}

std::pair<Tensor, Tensor> LookupTable::Export() const {
  std::shared_lock lock(mu_);
  return ExportLocked();
}

}  // namespace tfhost::ops::lookup
