// Tensor: a dtype, a shape and a reference-counted buffer. Copies share the
// buffer (cheap); Clone() makes a deep copy. Fixed-size elements are stored
// row-major, little-endian, 64-byte aligned; strings (and resource handles) as
// an array of std::string.
//
// Memory: a fixed-size tensor's buffer is one block (a small header followed by
// the data) taken from the BufferPool current on the allocating thread
// (base/buffer_pool.h; a Session makes its pool current during runs), else
// from the system allocator; it goes back where it came from when the last
// Tensor sharing it is destroyed. The reference count is kept in the block
// (no separate control block), so creating a tensor inside a warm run
// allocates nothing from the system.
//
// Memory spaces: Tensor::Allocate takes the buffer from an Allocator
// (base/allocator.h) instead: pinned host or device memory, which goes back
// to that allocator. memory_space() says where the bytes are; CPU code reads
// only tensors whose space is host_accessible() (the runtime's placement
// inserts copies so that kernels see their backend's space). On a device
// tensor Clone copies within the device; ToDoubleVector, ToInt64Vector,
// DebugString and TensorsEqual do not read its values.
//
// Thread-safety: a Tensor is a value; sharing one buffer across threads is safe
// for reads. Kernels write only into tensors they allocated themselves, or into
// an input they took (KernelContext::TakeInput) while RefCountIsOne().
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/dtype.h"
#include "base/memory_space.h"
#include "base/shape.h"

namespace tfhost {

class Allocator;
class TensorBuffer;

// The value held by one element of a DT_VARIANT tensor (a TensorList, say).
// Values are immutable once shared: ops that "modify" a variant build a new
// value, so tensors that share one stay unaffected.
class VariantValue {
 public:
  virtual ~VariantValue() = default;
  virtual std::string TypeName() const = 0;
  virtual std::string DebugString() const = 0;
};
using VariantPtr = std::shared_ptr<const VariantValue>;

class Tensor {
 public:
  Tensor() = default;  // an invalid (empty) tensor; valid() is false
  // Allocates a zero-filled tensor (empty strings for string types).
  Tensor(DType dtype, Shape shape);
  // Like Tensor(dtype, shape) but leaves fixed-size elements unset, for
  // kernels that write every element (saves a pass over memory). Strings and
  // variants are still default-constructed.
  static Tensor Uninitialized(DType dtype, Shape shape);
  // An uninitialized fixed-size tensor in `allocator`'s memory (host memory
  // from the current pool when null). Fails with the allocator's
  // ResourceExhausted, or InvalidArgument for strings/variants/resources.
  static StatusOr<Tensor> Allocate(DType dtype, Shape shape, Allocator* allocator);
  ~Tensor() { Unref(); }
  Tensor(const Tensor& other) : dtype_(other.dtype_), shape_(other.shape_), buffer_(other.buffer_) { Ref(); }
  Tensor(Tensor&& other) noexcept
      : dtype_(other.dtype_), shape_(std::move(other.shape_)), buffer_(other.buffer_) {
    other.buffer_ = nullptr;
  }
  Tensor& operator=(const Tensor& other);
  Tensor& operator=(Tensor&& other) noexcept;

  template <typename T>
  static Tensor Scalar(T value) {
    Tensor t(DTypeOf<T>::value, Shape());
    *t.data<T>() = std::move(value);
    return t;
  }
  static Tensor StringScalar(std::string value);
  template <typename T>
  static Tensor FromVector(const std::vector<T>& values, Shape shape) {
    Tensor t(DTypeOf<T>::value, std::move(shape));
    for (size_t i = 0; i < values.size() && i < static_cast<size_t>(t.NumElements()); ++i) {
      t.data<T>()[i] = values[i];
    }
    return t;
  }
  template <typename T>
  static Tensor FromVector(const std::vector<T>& values) {
    return FromVector(values, Shape({static_cast<int64_t>(values.size())}));
  }

  bool valid() const { return buffer_ != nullptr; }
  // Host for every tensor not made by Allocate with an allocator.
  MemorySpace memory_space() const;
  // The allocator the buffer came from, or null (host memory, pool or system).
  Allocator* allocator() const;
  DType dtype() const { return dtype_; }
  const Shape& shape() const { return shape_; }
  int rank() const { return shape_.rank(); }
  int64_t dim(int i) const { return shape_.dim(i); }
  int64_t NumElements() const { return shape_.num_elements(); }
  // Bytes of element data (NumElements() * DTypeSize) for fixed-size types.
  size_t ByteSize() const;

  void* raw_data();
  const void* raw_data() const;
  template <typename T> T* data() { return static_cast<T*>(raw_data()); }
  template <typename T> const T* data() const { return static_cast<const T*>(raw_data()); }
  std::string* strings() { return data<std::string>(); }
  const std::string* strings() const { return data<std::string>(); }
  // Elements of a DT_VARIANT tensor (null until set).
  VariantPtr* variants() { return data<VariantPtr>(); }
  const VariantPtr* variants() const { return data<VariantPtr>(); }
  static Tensor VariantScalar(VariantPtr value);

  // A tensor with the same buffer and a new shape of equal element count.
  StatusOr<Tensor> Reshaped(const Shape& shape) const;
  // A deep copy with its own buffer.
  Tensor Clone() const;
  // Whether two tensors share one buffer.
  bool SharesBufferWith(const Tensor& other) const { return buffer_ == other.buffer_; }
  // Whether this tensor is the only owner of its buffer (so it may be reused).
  bool RefCountIsOne() const;
  // Whether the buffer came from a BufferPool (tests and statistics).
  bool FromPool() const;

  // Elements as double / int64 regardless of the numeric dtype (for
  // shape-like inputs and tests). Fails for strings.
  StatusOr<std::vector<int64_t>> ToInt64Vector() const;
  std::vector<double> ToDoubleVector() const;
  // "float32[2,3] {1, 2, 3, ...}" with at most `max_values` values.
  std::string DebugString(int max_values = 8) const;

 private:
  Tensor(DType dtype, Shape shape, bool zero_fill);
  void Ref() const;
  void Unref();

  DType dtype_ = DType::kInvalid;
  Shape shape_;
  TensorBuffer* buffer_ = nullptr;  // intrusively reference-counted
};

// Element-wise equality of dtype, shape and values (bitwise for floats except
// that NaN equals NaN), for tests.
bool TensorsEqual(const Tensor& a, const Tensor& b);

}  // namespace tfhost
