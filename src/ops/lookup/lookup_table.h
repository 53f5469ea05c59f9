// Lookup tables: the state behind TensorFlow's HashTableV2 (a vocabulary
// filled once by an initializer, then read-only), MutableHashTableV2 and
// MutableHashTableOfTensorsV2 (filled and changed by insert/remove ops).
//
// A table is a Resource in the session's ResourceManager, named like a
// variable (VariableResourceName of the node that declares it); a DT_RESOURCE
// tensor holding that name is the table's handle. Tables outlive Session::Run,
// so the init op run at load time fills the table that serving runs read.
//
// Keys are scalars of int32, int64 or string; values are int32, int64, float,
// double, bool or string, each value a tensor of the table's `value_shape`
// (a scalar except for MutableHashTableOfTensorsV2).
//
// Thread-safety: all methods are thread-safe; readers (Find, Size, Export)
// share a lock, writers take it exclusively.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <shared_mutex>
#include <string>
#include <utility>

#include "base/tensor.h"
#include "ops/resource_manager.h"

namespace tfhost::ops::lookup {

class LookupTable : public Resource {
 public:
  enum class Kind {
    kHashTable,  // initialized once (InitializeTable*, Import), then immutable
    kMutable,    // starts empty and initialized; Insert/Remove/Import change it
  };

  // Whether TensorFlow's tables accept these dtypes as keys / values.
  static bool IsSupportedKeyDType(DType dtype);
  static bool IsSupportedValueDType(DType dtype);

  // A new empty table. Fails for unsupported dtypes or a value_shape with a
  // negative dim.
  static StatusOr<std::shared_ptr<LookupTable>> Create(Kind kind, DType key_dtype, DType value_dtype,
                                                       Shape value_shape);

  std::string TypeName() const override { return "LookupTable"; }
  Kind kind() const { return kind_; }
  DType key_dtype() const { return key_dtype_; }
  DType value_dtype() const { return value_dtype_; }
  const Shape& value_shape() const { return value_shape_; }
  // "string -> int64 hash table" for messages.
  std::string Description() const;

  bool initialized() const;
  int64_t Size() const;

  // Values for `keys` (key_dtype, any shape): a tensor of shape
  // keys.shape + value_shape. Missing keys take `default_value`, whose shape
  // is value_shape (one default for all) or keys.shape + value_shape (one per
  // key). FailedPrecondition for a hash table that is not initialized yet.
  StatusOr<Tensor> Find(const Tensor& keys, const Tensor& default_value) const;

  // Hash tables only: fills the table from 1-D `keys` and matching `values`.
  // A key listed twice must map to the same value. When the table is already
  // initialized this succeeds if the content would be the same and fails
  // (FailedPrecondition) otherwise, as TensorFlow does. `entry_name(i)` names
  // entry i in errors ("keys[3]", "vocab.txt line 4").
  Status Initialize(const Tensor& keys, const Tensor& values,
                    const std::function<std::string(int64_t)>& entry_name);

  // Mutable tables only: adds or overwrites; `values` has shape
  // keys.shape + value_shape.
  Status Insert(const Tensor& keys, const Tensor& values);
  // Mutable tables only: removes the keys that are present.
  Status Remove(const Tensor& keys);
  // Mutable tables: replaces the content. Hash tables: Initialize.
  Status Import(const Tensor& keys, const Tensor& values);
  // All entries, in no particular order: keys [n] and values [n] + value_shape.
  std::pair<Tensor, Tensor> Export() const;

 protected:
  LookupTable(Kind kind, DType key_dtype, DType value_dtype, Shape value_shape);

  // The typed storage (lookup_table.cc). Callers hold mu_ and have checked
  // dtypes and shapes. `out` has shape keys.shape + value_shape.
  virtual void FindLocked(const Tensor& keys, const Tensor& defaults, bool default_per_key, Tensor& out) const = 0;
  virtual void InsertLocked(const Tensor& keys, const Tensor& values) = 0;
  virtual void RemoveLocked(const Tensor& keys) = 0;
  virtual void ClearLocked() = 0;
  virtual int64_t SizeLocked() const = 0;
  virtual std::pair<Tensor, Tensor> ExportLocked() const = 0;
  // For 1-D keys/values: the first index whose key appeared earlier with
  // another value, or -1; `detail` then describes the clash.
  virtual int64_t FindDuplicateConflict(const Tensor& keys, const Tensor& values, std::string* detail) const = 0;
  // Whether the table holds exactly the entries of 1-D keys/values.
  virtual bool SameContentLocked(const Tensor& keys, const Tensor& values) const = 0;

  // Checks key dtype, and values' dtype and shape keys.shape + value_shape.
  Status CheckKeysAndValues(const Tensor& keys, const Tensor& values, const char* what) const;
  Status CheckKeys(const Tensor& keys) const;

  const Kind kind_;
  const DType key_dtype_;
  const DType value_dtype_;
  const Shape value_shape_;
  const int64_t value_width_;  // elements per value
  mutable std::shared_mutex mu_;
  bool initialized_ = false;  // guarded by mu_
};

}  // namespace tfhost::ops::lookup
