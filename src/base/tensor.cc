#include "base/tensor.h"

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <sstream>

#include "base/allocator.h"
#include "base/buffer_pool.h"

namespace tfhost {

// Owns the element storage of one or more Tensors. Fixed-size host elements
// live in the same block as this header (kHeaderBytes before the data), which
// comes from a BufferPool or the system; strings and variants are arrays
// owned through an ordinary heap header, and so is memory from an Allocator
// (pinned host or device memory, Tensor::Allocate).
class TensorBuffer {
 public:
  static constexpr size_t kHeaderBytes = 64;  // keeps the data 64-byte aligned

  static TensorBuffer* FromAllocator(Allocator* allocator, void* data, size_t bytes) {
    auto* header = new TensorBuffer();
    header->storage_ = Storage::kAllocator;
    header->space_ = allocator->space();
    header->owner_ = allocator;
    header->data_ = data;
    header->bytes_ = bytes;
    return header;
  }

  static TensorBuffer* Create(DType dtype, int64_t n, bool zero_fill) {
    if (IsStringLike(dtype) || dtype == DType::kVariant) {
      const BufferPool* pool = BufferPool::Current();
      const size_t element = IsStringLike(dtype) ? sizeof(std::string) : sizeof(VariantPtr);
      if (pool != nullptr && pool->max_in_use_bytes() > 0 &&
          static_cast<uint64_t>(n) > static_cast<uint64_t>(pool->max_in_use_bytes()) / element) {
        throw std::bad_alloc();
      }
      return new TensorBuffer(dtype, n);
    }
    const size_t bytes = static_cast<size_t>(n) * DTypeSize(dtype);
    const size_t block_bytes = kHeaderBytes + bytes;
    BufferPool* pool = BufferPool::Current();
    void* block;
    size_t capacity = 0;
    std::shared_ptr<BufferPool> owner;
    if (pool != nullptr) {
      block = pool->Allocate(block_bytes, &capacity);
      owner = pool->shared_from_this();
    } else {
      block = std::aligned_alloc(64, (block_bytes + 63) / 64 * 64);
      if (block == nullptr) throw std::bad_alloc();
    }
    auto* header = new (block) TensorBuffer();
    header->data_ = static_cast<char*>(block) + kHeaderBytes;
    header->bytes_ = bytes;
    header->capacity_ = capacity;
    header->pool_ = std::move(owner);
    header->storage_ = Storage::kBlock;
    if (zero_fill && bytes > 0) std::memset(header->data_, 0, bytes);
    return header;
  }

  void Ref() { refs_.fetch_add(1, std::memory_order_relaxed); }
  void Unref() {
    if (refs_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
    if (storage_ == Storage::kAllocator) {
      static_cast<Allocator*>(owner_)->Deallocate(data_, bytes_);
      delete this;
      return;
    }
    if (storage_ != Storage::kBlock) {
      delete this;
      return;
    }
    std::shared_ptr<BufferPool> pool = std::move(pool_);
    const size_t block_bytes = kHeaderBytes + bytes_;
    const size_t capacity = capacity_;
    this->~TensorBuffer();
    void* block = this;
    if (pool) {
      pool->Release(block, block_bytes, capacity);
    } else {
      std::free(block);
    }
  }
  bool RefCountIsOne() const { return refs_.load(std::memory_order_acquire) == 1; }
  bool FromPool() const { return pool_ != nullptr; }
  void* data() { return data_; }
  MemorySpace space() const { return space_; }
  Allocator* allocator() const { return storage_ == Storage::kAllocator ? static_cast<Allocator*>(owner_) : nullptr; }

 private:
  TensorBuffer() = default;
  TensorBuffer(DType dtype, int64_t n) {
    if (IsStringLike(dtype)) {
      storage_ = Storage::kStrings;
      data_ = new std::string[n > 0 ? n : 1];
    } else {
      storage_ = Storage::kVariants;
      data_ = new VariantPtr[n > 0 ? n : 1];
    }
  }
  ~TensorBuffer() {
    if (storage_ == Storage::kStrings) delete[] static_cast<std::string*>(data_);
    if (storage_ == Storage::kVariants) delete[] static_cast<VariantPtr*>(data_);
  }
  TensorBuffer(const TensorBuffer&) = delete;
  TensorBuffer& operator=(const TensorBuffer&) = delete;

  // kBlock: header and data in one block; kStrings/kVariants: data_ is a
  // new[]'d array; kAllocator: data_ came from owner_ (an Allocator).
  enum class Storage : uint8_t { kBlock, kStrings, kVariants, kAllocator };

  std::atomic<int> refs_{1};
  Storage storage_ = Storage::kBlock;
  MemorySpace space_;
  void* data_ = nullptr;
  size_t bytes_ = 0;
  size_t capacity_ = 0;  // of the pool block
  void* owner_ = nullptr;
  std::shared_ptr<BufferPool> pool_;
};
static_assert(sizeof(TensorBuffer) <= TensorBuffer::kHeaderBytes, "the header must fit before the data");

Tensor::Tensor(DType dtype, Shape shape) : Tensor(dtype, std::move(shape), true) {}

namespace {

// The element count of `shape`, or -1 when it does not fit in int64 (a
// kernel may compute such a shape from hostile inputs, e.g. the product of
// [2^40, 0] and [0, 2^40]).
int64_t CheckedElements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape.dims()) {
    if (d < 0 || __builtin_mul_overflow(n, d, &n)) return -1;
  }
  return n;
}

}  // namespace

Tensor::Tensor(DType dtype, Shape shape, bool zero_fill) : dtype_(dtype), shape_(std::move(shape)) {
  const int64_t n = CheckedElements(shape_);
  // Past what any memory holds: the same failure as a refused allocation,
  // which the kernel contract reports as ResourceExhausted naming the node.
  if (n < 0 || static_cast<uint64_t>(n) > std::numeric_limits<size_t>::max() / 16) throw std::bad_alloc();
  buffer_ = TensorBuffer::Create(dtype, n, zero_fill);
}

Tensor Tensor::Uninitialized(DType dtype, Shape shape) { return Tensor(dtype, std::move(shape), false); }

StatusOr<Tensor> Tensor::Allocate(DType dtype, Shape shape, Allocator* allocator) {
  if (allocator == nullptr) return Uninitialized(dtype, std::move(shape));
  if (IsStringLike(dtype) || dtype == DType::kVariant || dtype == DType::kResource) {
    return InvalidArgument("a " + DTypeName(dtype) + " tensor cannot live in " + allocator->space().ToString() +
                           " (" + allocator->name() + "): only fixed-size dtypes can");
  }
  const int64_t n = CheckedElements(shape);
  if (n < 0 || static_cast<uint64_t>(n) > std::numeric_limits<size_t>::max() / 16) {
    return ResourceExhausted("a tensor of shape " + shape.ToString() + " has more elements than memory can hold");
  }
  const size_t bytes = static_cast<size_t>(n) * DTypeSize(dtype);
  StatusOr<void*> data = allocator->Allocate(bytes);
  if (!data.ok()) return data.status();
  Tensor t;
  t.dtype_ = dtype;
  t.shape_ = std::move(shape);
  t.buffer_ = TensorBuffer::FromAllocator(allocator, *data, bytes);
  return t;
}

MemorySpace Tensor::memory_space() const {
  return buffer_ != nullptr ? buffer_->space() : MemorySpace::Host();
}

Allocator* Tensor::allocator() const { return buffer_ != nullptr ? buffer_->allocator() : nullptr; }

Tensor& Tensor::operator=(const Tensor& other) {
  if (this != &other) {
    if (other.buffer_ != nullptr) other.buffer_->Ref();
    Unref();
    dtype_ = other.dtype_;
    shape_ = other.shape_;
    buffer_ = other.buffer_;
  }
  return *this;
}

Tensor& Tensor::operator=(Tensor&& other) noexcept {
  if (this != &other) {
    Unref();
    dtype_ = other.dtype_;
    shape_ = std::move(other.shape_);
    buffer_ = other.buffer_;
    other.buffer_ = nullptr;
  }
  return *this;
}

void Tensor::Ref() const {
  if (buffer_ != nullptr) buffer_->Ref();
}

void Tensor::Unref() {
  if (buffer_ != nullptr) {
    TensorBuffer* b = buffer_;
    buffer_ = nullptr;
    b->Unref();
  }
}

bool Tensor::RefCountIsOne() const { return buffer_ != nullptr && buffer_->RefCountIsOne(); }

bool Tensor::FromPool() const { return buffer_ != nullptr && buffer_->FromPool(); }

Tensor Tensor::StringScalar(std::string value) {
  Tensor t(DType::kString, Shape());
  t.strings()[0] = std::move(value);
  return t;
}

Tensor Tensor::VariantScalar(VariantPtr value) {
  Tensor t(DType::kVariant, Shape());
  t.variants()[0] = std::move(value);
  return t;
}

size_t Tensor::ByteSize() const {
  return static_cast<size_t>(NumElements()) * DTypeSize(dtype_);
}

void* Tensor::raw_data() { return buffer_ ? buffer_->data() : nullptr; }
const void* Tensor::raw_data() const { return buffer_ ? buffer_->data() : nullptr; }

StatusOr<Tensor> Tensor::Reshaped(const Shape& shape) const {
  if (shape.num_elements() != NumElements()) {
    return InvalidArgument("cannot reshape a tensor with " + std::to_string(NumElements()) +
                           " elements to shape " + shape.ToString());
  }
  Tensor t = *this;
  t.shape_ = shape;
  return t;
}

Tensor Tensor::Clone() const {
  if (!valid()) return Tensor();
  if (Allocator* a = allocator(); a != nullptr) {
    StatusOr<Tensor> t = Allocate(dtype_, shape_, a);
    if (!t.ok() || !a->CopyWithin(t->raw_data(), raw_data(), ByteSize()).ok()) return Tensor();
    return *std::move(t);
  }
  Tensor t = IsStringLike(dtype_) || dtype_ == DType::kVariant ? Tensor(dtype_, shape_)
                                                                : Tensor::Uninitialized(dtype_, shape_);
  if (IsStringLike(dtype_)) {
    for (int64_t i = 0; i < NumElements(); ++i) t.strings()[i] = strings()[i];
  } else if (dtype_ == DType::kVariant) {
    for (int64_t i = 0; i < NumElements(); ++i) t.variants()[i] = variants()[i];
  } else {
    std::memcpy(t.raw_data(), raw_data(), ByteSize());
  }
  return t;
}

std::vector<double> Tensor::ToDoubleVector() const {
  if (!memory_space().host_accessible()) return {};
  std::vector<double> out(NumElements());
  if (dtype_ == DType::kHalf) {
    for (int64_t i = 0; i < NumElements(); ++i) out[i] = HalfToFloat(data<uint16_t>()[i]);
    return out;
  }
  if (dtype_ == DType::kBFloat16) {
    for (int64_t i = 0; i < NumElements(); ++i) out[i] = BFloat16ToFloat(data<uint16_t>()[i]);
    return out;
  }
  TFHOST_SWITCH_REAL_TYPES(dtype_, {
    for (int64_t i = 0; i < NumElements(); ++i) out[i] = static_cast<double>(data<T>()[i]);
  }, { out.assign(NumElements(), 0.0); });
  return out;
}

StatusOr<std::vector<int64_t>> Tensor::ToInt64Vector() const {
  if (!memory_space().host_accessible()) {
    return FailedPrecondition("the tensor is in " + memory_space().ToString() + ", not readable on the host");
  }
  std::vector<int64_t> out(NumElements());
  switch (dtype_) {
    case DType::kInt32:
      for (int64_t i = 0; i < NumElements(); ++i) out[i] = data<int32_t>()[i];
      return out;
    case DType::kInt64:
      for (int64_t i = 0; i < NumElements(); ++i) out[i] = data<int64_t>()[i];
      return out;
    case DType::kInt16:
      for (int64_t i = 0; i < NumElements(); ++i) out[i] = data<int16_t>()[i];
      return out;
    case DType::kInt8:
      for (int64_t i = 0; i < NumElements(); ++i) out[i] = data<int8_t>()[i];
      return out;
    case DType::kUInt8:
      for (int64_t i = 0; i < NumElements(); ++i) out[i] = data<uint8_t>()[i];
      return out;
    default:
      return InvalidArgument("expected an integer tensor, got " + DTypeName(dtype_));
  }
}

std::string Tensor::DebugString(int max_values) const {
  if (!valid()) return "<invalid tensor>";
  std::ostringstream os;
  if (!memory_space().host_accessible()) {
    os << DTypeShortName(dtype_) << shape_.ToString() << " in " << memory_space().ToString();
    return os.str();
  }
  os << DTypeShortName(dtype_) << shape_.ToString() << " {";
  int64_t n = std::min<int64_t>(NumElements(), max_values);
  std::vector<double> values;
  if (!IsStringLike(dtype_) && dtype_ != DType::kVariant) values = ToDoubleVector();
  for (int64_t i = 0; i < n; ++i) {
    if (i) os << ", ";
    if (dtype_ == DType::kVariant) {
      os << (variants()[i] ? variants()[i]->DebugString() : std::string("<empty variant>"));
    } else if (IsStringLike(dtype_)) {
      os << '"' << strings()[i] << '"';
    } else {
      os << values[i];
    }
  }
  if (NumElements() > n) os << ", ...";
  os << "}";
  return os.str();
}

bool TensorsEqual(const Tensor& a, const Tensor& b) {
  if (a.dtype() != b.dtype() || a.shape() != b.shape()) return false;
  if (!a.memory_space().host_accessible() || !b.memory_space().host_accessible()) return false;
  if (IsStringLike(a.dtype())) {
    for (int64_t i = 0; i < a.NumElements(); ++i) {
      if (a.strings()[i] != b.strings()[i]) return false;
    }
    return true;
  }
  if (a.dtype() == DType::kVariant) {
    for (int64_t i = 0; i < a.NumElements(); ++i) {
      if (a.variants()[i] != b.variants()[i]) return false;
    }
    return true;
  }
  if (a.dtype() == DType::kFloat || a.dtype() == DType::kDouble) {
    auto va = a.ToDoubleVector(), vb = b.ToDoubleVector();
    for (size_t i = 0; i < va.size(); ++i) {
      if (std::isnan(va[i]) && std::isnan(vb[i])) continue;
      if (va[i] != vb[i]) return false;
    }
    return true;
  }
  return std::memcmp(a.raw_data(), b.raw_data(), a.ByteSize()) == 0;
}

}  // namespace tfhost
