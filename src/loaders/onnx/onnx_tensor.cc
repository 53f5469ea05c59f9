#include "loaders/onnx/onnx_tensor.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>

namespace tfhost::loaders::onnx {

namespace {

namespace fs = std::filesystem;
using ::onnx::TensorProto;

constexpr const char* kTypeNames[] = {"UNDEFINED", "FLOAT",  "UINT8",  "INT8",   "UINT16",    "INT16",
                                      "INT32",     "INT64",  "STRING", "BOOL",   "FLOAT16",   "DOUBLE",
                                      "UINT32",    "UINT64", "COMPLEX64", "COMPLEX128", "BFLOAT16",
                                      "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2", "FLOAT8E5M2FNUZ",
                                      "UINT4", "INT4", "FLOAT4E2M1", "FLOAT8E8M0", "UINT2", "INT2"};

// The number of elements `dims` describe, refusing negative dimensions and
// products past 2^62 (no real tensor comes near; a corrupt file can).
StatusOr<int64_t> ElementCount(const TensorProto& proto, const std::string& where) {
  int64_t n = 1;
  for (int64_t d : proto.dims()) {
    if (d < 0) return InvalidArgument(where + " has a negative dimension " + std::to_string(d));
    if (d != 0 && n > (int64_t{1} << 62) / d) return InvalidArgument(where + " has more than 2^62 elements");
    n *= d;
  }
  return n;
}

// Copies `count` typed values into `out`, converting each to T.
template <typename T, typename Field>
void CopyTyped(const Field& field, Tensor* out) {
  T* dst = out->data<T>();
  int64_t i = 0;
  for (auto v : field) dst[i++] = static_cast<T>(v);
}

// Elements stored in the typed field that ONNX assigns to `dtype` (see
// onnx.proto): the field's length must match the element count.
Status DecodeTyped(const TensorProto& proto, DType dtype, int64_t n, Tensor* out, const std::string& where) {
  auto check = [&](int64_t have, const char* field, int64_t per_element = 1) -> Status {
    if (have != n * per_element) {
      return InvalidArgument(where + " holds " + std::to_string(have) + " values in " + field + "; its dims " +
                             "need " + std::to_string(n * per_element));
    }
    return OkStatus();
  };
  switch (dtype) {
    case DType::kFloat:
      TFHOST_RETURN_IF_ERROR(check(proto.float_data_size(), "float_data"));
      CopyTyped<float>(proto.float_data(), out);
      return OkStatus();
    case DType::kComplex64:
      TFHOST_RETURN_IF_ERROR(check(proto.float_data_size(), "float_data", 2));
      std::memcpy(out->raw_data(), proto.float_data().data(), out->ByteSize());
      return OkStatus();
    case DType::kDouble:
      TFHOST_RETURN_IF_ERROR(check(proto.double_data_size(), "double_data"));
      CopyTyped<double>(proto.double_data(), out);
      return OkStatus();
    case DType::kComplex128:
      TFHOST_RETURN_IF_ERROR(check(proto.double_data_size(), "double_data", 2));
      std::memcpy(out->raw_data(), proto.double_data().data(), out->ByteSize());
      return OkStatus();
    case DType::kInt64:
      TFHOST_RETURN_IF_ERROR(check(proto.int64_data_size(), "int64_data"));
      CopyTyped<int64_t>(proto.int64_data(), out);
      return OkStatus();
    case DType::kUInt32:
      TFHOST_RETURN_IF_ERROR(check(proto.uint64_data_size(), "uint64_data"));
      CopyTyped<uint32_t>(proto.uint64_data(), out);
      return OkStatus();
    case DType::kUInt64:
      TFHOST_RETURN_IF_ERROR(check(proto.uint64_data_size(), "uint64_data"));
      CopyTyped<uint64_t>(proto.uint64_data(), out);
      return OkStatus();
    case DType::kString:
      TFHOST_RETURN_IF_ERROR(check(proto.string_data_size(), "string_data"));
      for (int64_t i = 0; i < n; ++i) out->strings()[i] = proto.string_data(static_cast<int>(i));
      return OkStatus();
    default:
      break;
  }
  // Everything narrower than 32 bits travels in int32_data, one element per
  // entry (float16 and bfloat16 as their bit patterns).
  TFHOST_RETURN_IF_ERROR(check(proto.int32_data_size(), "int32_data"));
  switch (dtype) {
    case DType::kInt32: CopyTyped<int32_t>(proto.int32_data(), out); break;
    case DType::kInt16: CopyTyped<int16_t>(proto.int32_data(), out); break;
    case DType::kInt8: CopyTyped<int8_t>(proto.int32_data(), out); break;
    case DType::kUInt16: CopyTyped<uint16_t>(proto.int32_data(), out); break;
    case DType::kUInt8: CopyTyped<uint8_t>(proto.int32_data(), out); break;
    case DType::kBool: CopyTyped<bool>(proto.int32_data(), out); break;
    case DType::kHalf:
    case DType::kBFloat16: CopyTyped<uint16_t>(proto.int32_data(), out); break;
    default: return Internal(where + ": no typed field for " + DTypeName(dtype));
  }
  return OkStatus();
}

// The external bytes of `proto`: "location" relative to `model_dir`,
// "offset" and "length" in bytes (length defaults to what the dims need).
StatusOr<std::string> ReadExternal(const TensorProto& proto, const std::string& model_dir, size_t want,
                                   const std::string& where) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const auto& entry : proto.external_data()) {
    auto parse = [&](int64_t* v) -> Status {
      const std::string& s = entry.value();
      char* end = nullptr;
      errno = 0;
      long long x = std::strtoll(s.c_str(), &end, 10);
      if (s.empty() || *end != '\0' || errno != 0 || x < 0) {
        return InvalidArgument(where + ": external_data '" + entry.key() + "' is '" + s +
                               "'; expected a non-negative integer");
      }
      *v = x;
      return OkStatus();
    };
    if (entry.key() == "location") location = entry.value();
    if (entry.key() == "offset") {
      TFHOST_RETURN_IF_ERROR(parse(&offset));
    }
    if (entry.key() == "length") {
      TFHOST_RETURN_IF_ERROR(parse(&length));
    }
  }
  if (location.empty()) return InvalidArgument(where + " is stored externally but external_data has no 'location'");
  if (length >= 0 && static_cast<uint64_t>(length) != want) {
    return InvalidArgument(where + ": external_data length is " + std::to_string(length) + " bytes; its dims and " +
                           "type need " + std::to_string(want));
  }
  TFHOST_ASSIGN_OR_RETURN(std::string path, ResolveExternalPath(model_dir, location, where));
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec) return NotFound(where + ": external data file " + path + " cannot be read: " + ec.message());
  if (static_cast<uint64_t>(offset) > size || size - offset < want) {
    return DataLoss(where + ": external data file " + path + " has " + std::to_string(size) + " bytes; the tensor " +
                    "needs " + std::to_string(want) + " from offset " + std::to_string(offset));
  }
  std::ifstream in(path, std::ios::binary);
  std::string bytes(want, '\0');
  in.seekg(offset);
  if (!in.read(bytes.data(), static_cast<std::streamsize>(want))) {
    return DataLoss(where + ": reading " + std::to_string(want) + " bytes at offset " + std::to_string(offset) +
                    " of " + path + " failed");
  }
  return bytes;
}

}  // namespace

DType DTypeFromOnnx(int32_t elem_type) {
  switch (elem_type) {
    case TensorProto::FLOAT: return DType::kFloat;
    case TensorProto::UINT8: return DType::kUInt8;
    case TensorProto::INT8: return DType::kInt8;
    case TensorProto::UINT16: return DType::kUInt16;
    case TensorProto::INT16: return DType::kInt16;
    case TensorProto::INT32: return DType::kInt32;
    case TensorProto::INT64: return DType::kInt64;
    case TensorProto::STRING: return DType::kString;
    case TensorProto::BOOL: return DType::kBool;
    case TensorProto::FLOAT16: return DType::kHalf;
    case TensorProto::DOUBLE: return DType::kDouble;
    case TensorProto::UINT32: return DType::kUInt32;
    case TensorProto::UINT64: return DType::kUInt64;
    case TensorProto::COMPLEX64: return DType::kComplex64;
    case TensorProto::COMPLEX128: return DType::kComplex128;
    case TensorProto::BFLOAT16: return DType::kBFloat16;
    default: return DType::kInvalid;
  }
}

std::string OnnxTypeName(int32_t elem_type) {
  if (elem_type >= 0 && elem_type < static_cast<int32_t>(std::size(kTypeNames))) return kTypeNames[elem_type];
  return "type " + std::to_string(elem_type);
}

StatusOr<std::string> ResolveExternalPath(const std::string& dir, const std::string& location,
                                          const std::string& where) {
  const fs::path rel(location);
  if (rel.is_absolute() || location.empty()) {
    return InvalidArgument(where + ": external data location '" + location +
                           "' must be a relative path inside the model's folder");
  }
  std::error_code ec;
  const fs::path base = fs::weakly_canonical(fs::absolute(dir.empty() ? "." : dir, ec), ec);
  const fs::path full = fs::weakly_canonical(base / rel, ec);
  if (ec) return InvalidArgument(where + ": external data location '" + location + "' cannot be resolved");
  // Component-wise prefix test, so "/models/a" does not contain "/models/ab".
  auto b = base.begin(), f = full.begin();
  for (; b != base.end() && !b->empty(); ++b, ++f) {
    if (f == full.end() || *f != *b) {
      return InvalidArgument(where + ": external data location '" + location + "' leads outside the model's " +
                             "folder " + base.string() + " (to " + full.string() + ")");
    }
  }
  return full.string();
}

StatusOr<Tensor> DecodeTensor(const TensorProto& proto, const std::string& model_dir, const std::string& where) {
  const DType dtype = DTypeFromOnnx(proto.data_type());
  if (dtype == DType::kInvalid) {
    return Unimplemented(where + " has data_type " + OnnxTypeName(proto.data_type()) +
                         ", which tfhost has no type for");
  }
  if (proto.has_segment()) return Unimplemented(where + " is a segment of a larger tensor, which tfhost does not read");
  TFHOST_ASSIGN_OR_RETURN(int64_t n, ElementCount(proto, where));
  std::vector<int64_t> dims(proto.dims().begin(), proto.dims().end());
  const bool external = proto.data_location() == TensorProto::EXTERNAL;
  if (dtype == DType::kString) {
    if (external || proto.has_raw_data()) {
      return Unimplemented(where + " is a STRING tensor in raw or external data; tfhost reads string_data only");
    }
    Tensor out(dtype, Shape(dims));
    TFHOST_RETURN_IF_ERROR(DecodeTyped(proto, dtype, n, &out, where));
    return out;
  }
  const size_t want = static_cast<size_t>(n) * DTypeSize(dtype);
  if (n > 0 && want / n != DTypeSize(dtype)) return InvalidArgument(where + " is too large");
  if (external || proto.has_raw_data()) {
    std::string external_bytes;
    if (external) {
      TFHOST_ASSIGN_OR_RETURN(external_bytes, ReadExternal(proto, model_dir, want, where));
    }
    const std::string& bytes = external ? external_bytes : proto.raw_data();
    if (bytes.size() != want) {
      return InvalidArgument(where + " has " + std::to_string(bytes.size()) + " bytes of raw_data; its dims " +
                             Shape(dims).ToString() + " and type " + OnnxTypeName(proto.data_type()) + " need " +
                             std::to_string(want));
    }
    Tensor out = Tensor::Uninitialized(dtype, Shape(dims));
    if (want > 0) std::memcpy(out.raw_data(), bytes.data(), want);
    if (dtype == DType::kBool) {
      // Any non-zero byte is true; a bool must hold 0 or 1.
      for (int64_t i = 0; i < n; ++i) out.data<bool>()[i] = bytes[i] != 0;
    }
    return out;
  }
  Tensor out(dtype, Shape(dims));
  TFHOST_RETURN_IF_ERROR(DecodeTyped(proto, dtype, n, &out, where));
  return out;
}

}  // namespace tfhost::loaders::onnx
