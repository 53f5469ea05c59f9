#include "loaders/tflite/tflite_file.h"

#include <cstring>
#include <fstream>
#include <vector>

#include "base/shape.h"
#include "loaders/graph_to_session.h"

namespace tfhost::loaders::tflite {

namespace {

// flatbuffers' own ceiling on one buffer; data past it can only be reached
// through a Buffer's offset/size.
constexpr size_t kMaxFlatbufferBytes = FLATBUFFERS_MAX_BUFFER_SIZE - 1;
// Nesting of the schema is Model > SubGraph > Tensor > Quantization (about
// 6 levels); tables number a few per tensor and operator. Both bounds are
// far above real models and stop a hostile file from making the Verifier
// walk without end.
constexpr flatbuffers::uoffset_t kMaxDepth = 64;
constexpr flatbuffers::uoffset_t kMaxTables = 50'000'000;

}  // namespace

bool HasTfliteIdentifier(std::string_view bytes) {
  return bytes.size() >= 8 && std::memcmp(bytes.data() + 4, kTfliteIdentifier, 4) == 0;
}

bool IsTfliteFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char head[8];
  if (!in.read(head, sizeof(head))) return false;
  return HasTfliteIdentifier(std::string_view(head, sizeof(head)));
}

StatusOr<std::unique_ptr<TfliteFile>> ParseTfliteBytes(std::string path, std::string bytes) {
  if (!HasTfliteIdentifier(bytes)) {
    return InvalidArgument(path + " is not a TensorFlow Lite model: bytes 4..7 must be \"TFL3\" (" +
                           std::to_string(bytes.size()) + " bytes read)");
  }
  auto file = std::make_unique<TfliteFile>();
  file->path = std::move(path);
  file->bytes = std::move(bytes);
  const auto* data = reinterpret_cast<const uint8_t*>(file->bytes.data());
  flatbuffers::Verifier verifier(data, std::min(file->bytes.size(), kMaxFlatbufferBytes), kMaxDepth, kMaxTables);
  if (!fb::VerifyModelBuffer(verifier)) {
    return InvalidArgument(file->path + " is a corrupt or truncated TensorFlow Lite model (" +
                           std::to_string(file->bytes.size()) +
                           " bytes): its flatbuffer fails verification against the TFLite schema");
  }
  file->model = fb::GetModel(data);
  if (file->model->subgraphs() == nullptr || file->model->subgraphs()->size() == 0) {
    return InvalidArgument(file->path + " holds a TensorFlow Lite model without subgraphs; expected at least one");
  }
  return file;
}

StatusOr<std::unique_ptr<TfliteFile>> ReadTfliteFile(const std::string& path) {
  TFHOST_ASSIGN_OR_RETURN(std::string bytes, ReadFileToString(path));
  return ParseTfliteBytes(path, std::move(bytes));
}

StatusOr<std::string_view> BufferData(const TfliteFile& file, uint32_t index) {
  const auto* buffers = file.model->buffers();
  const std::string where = file.path + ": buffer " + std::to_string(index);
  if (buffers == nullptr || index >= buffers->size()) {
    return InvalidArgument(where + " does not exist; the model has " +
                           std::to_string(buffers ? buffers->size() : 0) + " buffers");
  }
  const fb::Buffer* buffer = buffers->Get(index);
  if (buffer == nullptr) return std::string_view();
  // An offset of 0 or 1 means "unset" in the format.
  if (buffer->offset() > 1) {
    const uint64_t offset = buffer->offset();
    const uint64_t size = buffer->size();
    if (offset > file.bytes.size() || size > file.bytes.size() - offset) {
      return InvalidArgument(where + " lies at bytes " + std::to_string(offset) + "+" + std::to_string(size) +
                             ", past the end of the file (" + std::to_string(file.bytes.size()) +
                             " bytes); the file is truncated");
    }
    return std::string_view(file.bytes.data() + offset, size);
  }
  if (buffer->data() == nullptr) return std::string_view();
  return std::string_view(reinterpret_cast<const char*>(buffer->data()->data()), buffer->data()->size());
}

DType DTypeOf(fb::TensorType type) {
  switch (type) {
    case fb::TensorType::FLOAT32: return DType::kFloat;
    case fb::TensorType::FLOAT16: return DType::kHalf;
    case fb::TensorType::INT32: return DType::kInt32;
    case fb::TensorType::UINT8: return DType::kUInt8;
    case fb::TensorType::INT64: return DType::kInt64;
    case fb::TensorType::BOOL: return DType::kBool;
    case fb::TensorType::INT16: return DType::kInt16;
    case fb::TensorType::COMPLEX64: return DType::kComplex64;
    case fb::TensorType::INT8: return DType::kInt8;
    case fb::TensorType::FLOAT64: return DType::kDouble;
    case fb::TensorType::COMPLEX128: return DType::kComplex128;
    case fb::TensorType::UINT64: return DType::kUInt64;
    case fb::TensorType::UINT32: return DType::kUInt32;
    case fb::TensorType::UINT16: return DType::kUInt16;
    default: return DType::kInvalid;
  }
}

const char* TensorTypeName(fb::TensorType type) {
  const char* name = fb::EnumNameTensorType(type);
  return name != nullptr && *name != '\0' ? name : "UNKNOWN_TYPE";
}

namespace {

// TFLite packs a STRING tensor as int32 count, count + 1 int32 offsets from
// the start of the buffer (the last is the buffer's end), then the bytes.
StatusOr<Tensor> DecodeStrings(std::string_view data, const Shape& shape, const std::string& where) {
  auto read_int = [&](size_t i) {
    int32_t v;
    std::memcpy(&v, data.data() + 4 * i, 4);
    return v;
  };
  if (data.size() < 4) return InvalidArgument(where + " is a STRING constant whose buffer has no string count");
  const int64_t count = read_int(0);
  if (count != shape.num_elements()) {
    return InvalidArgument(where + " is a STRING constant of shape " + shape.ToString() + " whose buffer holds " +
                           std::to_string(count) + " strings");
  }
  if (data.size() < 4 * (static_cast<size_t>(count) + 2)) {
    return InvalidArgument(where + " is a STRING constant whose buffer is too short for its " +
                           std::to_string(count) + " offsets");
  }
  Tensor value(DType::kString, shape);
  for (int64_t i = 0; i < count; ++i) {
    const int64_t begin = read_int(1 + i), end = read_int(2 + i);
    if (begin < 4 * (count + 2) || end < begin || end > static_cast<int64_t>(data.size())) {
      return InvalidArgument(where + " is a STRING constant whose string " + std::to_string(i) + " lies at bytes " +
                             std::to_string(begin) + ".." + std::to_string(end) + ", outside its " +
                             std::to_string(data.size()) + "-byte buffer");
    }
    value.strings()[i] = std::string(data.substr(begin, end - begin));
  }
  return value;
}

}  // namespace

StatusOr<Tensor> DecodeConstant(const TfliteFile& file, const fb::Tensor& tensor, const std::string& where) {
  const DType dtype = tensor.type() == fb::TensorType::STRING ? DType::kString : DTypeOf(tensor.type());
  if (dtype == DType::kInvalid) {
    return Unimplemented(where + " is a constant of type " + TensorTypeName(tensor.type()) +
                         ", which tfhost cannot read");
  }
  if (tensor.sparsity() != nullptr) {
    return Unimplemented(where + " is a sparse constant (SparsityParameters); tfhost reads dense constants only");
  }
  std::vector<int64_t> dims;
  if (tensor.shape() != nullptr) {
    for (int32_t d : *tensor.shape()) dims.push_back(d);
  }
  auto shape = MakeShape(dims, where, int64_t{1} << 40);
  if (!shape.ok()) return shape.status();
  TFHOST_ASSIGN_OR_RETURN(std::string_view data, BufferData(file, tensor.buffer()));
  if (dtype == DType::kString) return DecodeStrings(data, *shape, where);
  const uint64_t expected = static_cast<uint64_t>(shape->num_elements()) * DTypeSize(dtype);
  if (data.size() != expected) {
    return InvalidArgument(where + " has shape " + shape->ToString() + " of " + TensorTypeName(tensor.type()) +
                           ", which needs " + std::to_string(expected) + " bytes, but its buffer " +
                           std::to_string(tensor.buffer()) + " holds " + std::to_string(data.size()));
  }
  Tensor value(dtype, *shape);
  if (!data.empty()) std::memcpy(value.raw_data(), data.data(), data.size());
  return value;
}

}  // namespace tfhost::loaders::tflite
