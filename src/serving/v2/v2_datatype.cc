#include "serving/v2/v2_datatype.h"

#include <bit>
#include <cstring>
#include <limits>

namespace tfhost::serving::v2 {

namespace {

struct DatatypeEntry {
  DType dtype;
  std::string_view name;
};

constexpr DatatypeEntry kDatatypes[] = {
    {DType::kBool, "BOOL"},     {DType::kUInt8, "UINT8"},    {DType::kUInt16, "UINT16"},
    {DType::kUInt32, "UINT32"}, {DType::kUInt64, "UINT64"},  {DType::kInt8, "INT8"},
    {DType::kInt16, "INT16"},   {DType::kInt32, "INT32"},    {DType::kInt64, "INT64"},
    {DType::kHalf, "FP16"},     {DType::kBFloat16, "BF16"},  {DType::kFloat, "FP32"},
    {DType::kDouble, "FP64"},   {DType::kString, "BYTES"},
};

uint32_t ReadLittleEndian32(const char* p) {
  const auto* b = reinterpret_cast<const unsigned char*>(p);
  return static_cast<uint32_t>(b[0]) | static_cast<uint32_t>(b[1]) << 8 | static_cast<uint32_t>(b[2]) << 16 |
         static_cast<uint32_t>(b[3]) << 24;
}

void AppendLittleEndian32(uint32_t v, std::string* out) {
  char b[4] = {static_cast<char>(v & 0xff), static_cast<char>((v >> 8) & 0xff), static_cast<char>((v >> 16) & 0xff),
               static_cast<char>((v >> 24) & 0xff)};
  out->append(b, 4);
}

static_assert(std::endian::native == std::endian::little,
              "the binary tensor form is little-endian and is copied as is; a big-endian host needs byte swaps");

}  // namespace

std::optional<std::string_view> DatatypeName(DType dtype) {
  for (const auto& e : kDatatypes) {
    if (e.dtype == dtype) return e.name;
  }
  return std::nullopt;
}

std::optional<DType> DatatypeFromName(std::string_view name) {
  for (const auto& e : kDatatypes) {
    if (e.name == name) return e.dtype;
  }
  return std::nullopt;
}

std::string DatatypeForMessage(DType dtype) {
  auto name = DatatypeName(dtype);
  return name ? std::string(*name) : DTypeName(dtype);
}

const char* AllDatatypeNames() {
  return "BOOL, UINT8, UINT16, UINT32, UINT64, INT8, INT16, INT32, INT64, FP16, BF16, FP32, FP64, BYTES";
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "," : "") + std::to_string(shape[i]);
  return s + "]";
}

StatusOr<int64_t> ElementCount(const std::vector<int64_t>& shape, const std::string& what) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) {
      return InvalidArgument(what + ": shape " + ShapeText(shape) + " has a negative dimension (expected sizes >= 0)");
    }
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d) {
      return InvalidArgument(what + ": shape " + ShapeText(shape) + " has more elements than fit in int64");
    }
    n *= d;
  }
  return n;
}

StatusOr<Tensor> TensorFromBinary(std::string_view bytes, DType dtype, const std::vector<int64_t>& shape,
                                  const std::string& what) {
  TFHOST_ASSIGN_OR_RETURN(int64_t count, ElementCount(shape, what));
  const std::string datatype = DatatypeForMessage(dtype);
  if (dtype == DType::kString) {
    // Counted before anything is allocated, so that a huge shape with a
    // short body costs nothing.
    if (static_cast<uint64_t>(count) > bytes.size() / 4) {
      return InvalidArgument(what + ": shape " + ShapeText(shape) + " of BYTES needs " + std::to_string(count) +
                             " length-prefixed elements (at least " + std::to_string(count) +
                             " * 4 bytes) but the binary data holds " + std::to_string(bytes.size()) + " bytes");
    }
    Tensor t(DType::kString, Shape(shape));
    size_t pos = 0;
    for (int64_t i = 0; i < count; ++i) {
      if (bytes.size() - pos < 4) {
        return InvalidArgument(what + ": BYTES element " + std::to_string(i) + " of " + std::to_string(count) +
                               " has no 4-byte length prefix: the binary data ends at byte " +
                               std::to_string(bytes.size()));
      }
      uint32_t len = ReadLittleEndian32(bytes.data() + pos);
      pos += 4;
      if (len > bytes.size() - pos) {
        return InvalidArgument(what + ": BYTES element " + std::to_string(i) + " declares " + std::to_string(len) +
                               " bytes but only " + std::to_string(bytes.size() - pos) + " remain in the binary data");
      }
      t.strings()[i].assign(bytes.data() + pos, len);
      pos += len;
    }
    if (pos != bytes.size()) {
      return InvalidArgument(what + ": the binary data holds " + std::to_string(bytes.size()) + " bytes but the " +
                             std::to_string(count) + " BYTES element(s) of shape " + ShapeText(shape) + " use " +
                             std::to_string(pos));
    }
    return t;
  }
  if (!DatatypeName(dtype)) {
    return InvalidArgument(what + ": datatype " + datatype + " cannot be carried in binary form");
  }
  const size_t element = DTypeSize(dtype);
  if (static_cast<uint64_t>(count) > std::numeric_limits<uint64_t>::max() / element ||
      static_cast<uint64_t>(count) * element != bytes.size()) {
    return InvalidArgument(what + ": shape " + ShapeText(shape) + " of " + datatype + " needs " +
                           std::to_string(static_cast<uint64_t>(count) * element) + " bytes (" +
                           std::to_string(count) + " x " + std::to_string(element) +
                           ") but the binary data holds " + std::to_string(bytes.size()));
  }
  Tensor t = Tensor::Uninitialized(dtype, Shape(shape));
  if (dtype == DType::kBool) {
    // Any byte other than 0 or 1 would be a bool with an undefined value.
    bool* out = t.data<bool>();
    for (size_t i = 0; i < bytes.size(); ++i) out[i] = bytes[i] != 0;
  } else if (!bytes.empty()) {
    std::memcpy(t.raw_data(), bytes.data(), bytes.size());
  }
  return t;
}

size_t BinaryByteSize(const Tensor& tensor) {
  if (tensor.dtype() != DType::kString) return tensor.ByteSize();
  size_t n = 0;
  for (int64_t i = 0; i < tensor.NumElements(); ++i) n += 4 + tensor.strings()[i].size();
  return n;
}

void AppendBinary(const Tensor& tensor, std::string* out) {
  if (tensor.dtype() == DType::kString) {
    out->reserve(out->size() + BinaryByteSize(tensor));
    for (int64_t i = 0; i < tensor.NumElements(); ++i) {
      const std::string& s = tensor.strings()[i];
      AppendLittleEndian32(static_cast<uint32_t>(s.size()), out);
      out->append(s);
    }
    return;
  }
  if (tensor.dtype() == DType::kBool) {
    const bool* in = tensor.data<bool>();
    for (int64_t i = 0; i < tensor.NumElements(); ++i) out->push_back(in[i] ? 1 : 0);
    return;
  }
  out->append(static_cast<const char*>(tensor.raw_data()), tensor.ByteSize());
}

}  // namespace tfhost::serving::v2
