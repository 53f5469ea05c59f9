#include "base/tensor.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <sstream>

namespace tfhost {

// Owns the element storage of one or more Tensors.
class TensorBuffer {
 public:
  TensorBuffer(DType dtype, int64_t n) : dtype_(dtype), n_(n) {
    if (IsStringLike(dtype)) {
      strings_ = new std::string[n > 0 ? n : 1];
      data_ = strings_;
    } else if (dtype == DType::kVariant) {
      variants_ = new VariantPtr[n > 0 ? n : 1];
      data_ = variants_;
    } else {
      bytes_ = static_cast<size_t>(n) * DTypeSize(dtype);
      size_t alloc = ((bytes_ + 63) / 64) * 64;
      if (alloc == 0) alloc = 64;
      data_ = std::aligned_alloc(64, alloc);
      if (data_ == nullptr) throw std::bad_alloc();
      std::memset(data_, 0, alloc);
    }
  }
  ~TensorBuffer() {
    if (strings_) {
      delete[] strings_;
    } else if (variants_) {
      delete[] variants_;
    } else {
      std::free(data_);
    }
  }
  TensorBuffer(const TensorBuffer&) = delete;
  TensorBuffer& operator=(const TensorBuffer&) = delete;

  void* data() { return data_; }
  size_t bytes() const { return bytes_; }

 private:
  DType dtype_;
  int64_t n_;
  void* data_ = nullptr;
  std::string* strings_ = nullptr;
  VariantPtr* variants_ = nullptr;
  size_t bytes_ = 0;
};

Tensor::Tensor(DType dtype, Shape shape)
    : dtype_(dtype), shape_(std::move(shape)),
      buffer_(std::make_shared<TensorBuffer>(dtype, shape_.num_elements())) {}

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
  Tensor t(dtype_, shape_);
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
