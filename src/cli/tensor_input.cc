#include "cli/tensor_input.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <vector>

#include "base/base64.h"
#include "cli/npy_io.h"

namespace tfhost::cli {

namespace {

constexpr int kMaxJsonRank = 32;

StatusOr<std::string> ReadFileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot open input file " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return DataLoss("error reading " + path);
  return ss.str();
}

// --input values take either alphabet, padded or not: they are typed by
// hand as often as pasted.
StatusOr<std::string> DecodeB64Input(const std::string& in, const std::string& where) {
  auto bytes = Base64Decode(in, {Base64Alphabet::kEither, /*padding=*/false});
  if (!bytes.ok()) return InvalidArgument(where + ": " + bytes.status().message() + " in \"b64\" value");
  return bytes;
}

bool IsB64Object(const rapidjson::Value& v) {
  return v.IsObject() && v.MemberCount() == 1 && v.HasMember("b64") && v["b64"].IsString();
}

std::string PositionString(const std::vector<int64_t>& index) {
  std::string s;
  for (int64_t i : index) s += "[" + std::to_string(i) + "]";
  return s.empty() ? "the top level" : s;
}

// Flattens nested lists, checking that every list at depth d has dims[d]
// entries and every leaf sits at depth rank.
Status Flatten(const rapidjson::Value& v, const std::vector<int64_t>& dims, std::vector<int64_t>* index,
               std::vector<const rapidjson::Value*>* leaves, const std::string& where) {
  size_t depth = index->size();
  if (depth == dims.size()) {
    if (v.IsArray()) {
      return InvalidArgument(where + ": ragged list at " + PositionString(*index) + ": expected a value, got a list");
    }
    leaves->push_back(&v);
    return OkStatus();
  }
  if (!v.IsArray()) {
    return InvalidArgument(where + ": ragged list at " + PositionString(*index) + ": expected a list of " +
                           std::to_string(dims[depth]) + " entries, got a single value");
  }
  if (static_cast<int64_t>(v.Size()) != dims[depth]) {
    return InvalidArgument(where + ": ragged list at " + PositionString(*index) + ": expected " +
                           std::to_string(dims[depth]) + " entries, got " + std::to_string(v.Size()));
  }
  for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
    index->push_back(i);
    TFHOST_RETURN_IF_ERROR(Flatten(v[i], dims, index, leaves, where));
    index->pop_back();
  }
  return OkStatus();
}

template <typename T>
Status StoreInteger(const rapidjson::Value& v, T* out, DType dtype, const std::string& where, int64_t i) {
  auto range_error = [&]() {
    return InvalidArgument(where + ": element " + std::to_string(i) + " is out of range for " +
                           DTypeShortName(dtype));
  };
  if (v.IsInt64()) {
    int64_t x = v.GetInt64();
    if constexpr (std::is_signed_v<T>) {
      if (x < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
          x > static_cast<int64_t>(std::numeric_limits<T>::max())) {
        return range_error();
      }
    } else {
      if (x < 0 || static_cast<uint64_t>(x) > static_cast<uint64_t>(std::numeric_limits<T>::max())) {
        return range_error();
      }
    }
    *out = static_cast<T>(x);
    return OkStatus();
  }
  if (v.IsUint64()) {
    if (v.GetUint64() > static_cast<uint64_t>(std::numeric_limits<T>::max())) return range_error();
    *out = static_cast<T>(v.GetUint64());
    return OkStatus();
  }
  return InvalidArgument(where + ": element " + std::to_string(i) + " must be an integer for " +
                         DTypeShortName(dtype) + " input");
}

}  // namespace

StatusOr<InputFlag> ParseInputFlag(const std::string& flag) {
  size_t eq = flag.find('=');
  if (eq == std::string::npos || eq == 0) {
    return InvalidArgument("--input '" + flag + "' must look like KEY=FILE.npy, KEY=@FILE or KEY=<json>");
  }
  InputFlag input;
  input.key = flag.substr(0, eq);
  std::string value = flag.substr(eq + 1);
  if (!value.empty() && value[0] == '@') {
    input.kind = InputFlag::Kind::kFileBytes;
    input.value = value.substr(1);
  } else if (value.size() > 4 && value.compare(value.size() - 4, 4, ".npy") == 0) {
    input.kind = InputFlag::Kind::kNpyFile;
    input.value = value;
  } else {
    input.kind = InputFlag::Kind::kJson;
    input.value = value;
  }
  return input;
}

StatusOr<Tensor> LoadInput(const InputFlag& input, DType dtype) {
  switch (input.kind) {
    case InputFlag::Kind::kNpyFile: {
      auto t = ReadNpyFile(input.value);
      if (!t.ok()) return t.status().WithContext("input '" + input.key + "'");
      return t;
    }
    case InputFlag::Kind::kFileBytes: {
      auto bytes = ReadFileBytes(input.value);
      if (!bytes.ok()) return bytes.status().WithContext("input '" + input.key + "'");
      return Tensor::StringScalar(std::move(*bytes));
    }
    case InputFlag::Kind::kJson:
      return TensorFromJson(input.value, dtype, "input '" + input.key + "'");
  }
  return Internal("unhandled input kind");
}

StatusOr<Tensor> TensorFromJson(std::string_view json, DType dtype, const std::string& where) {
  rapidjson::Document doc;
  // Iterative parsing: deeply nested input must not exhaust the stack.
  doc.Parse<rapidjson::kParseIterativeFlag | rapidjson::kParseNanAndInfFlag>(json.data(), json.size());
  if (doc.HasParseError()) {
    return InvalidArgument(where + ": not a .npy path, @FILE or valid JSON (" +
                           rapidjson::GetParseError_En(doc.GetParseError()) + " at offset " +
                           std::to_string(doc.GetErrorOffset()) + ")");
  }
  std::vector<int64_t> dims;
  const rapidjson::Value* probe = &doc;
  while (probe->IsArray()) {
    if (dims.size() >= kMaxJsonRank) {
      return InvalidArgument(where + ": lists nested deeper than " + std::to_string(kMaxJsonRank) + " levels");
    }
    dims.push_back(probe->Size());
    if (probe->Size() == 0) break;
    probe = &(*probe)[0];
  }
  std::vector<const rapidjson::Value*> leaves;
  std::vector<int64_t> index;
  TFHOST_RETURN_IF_ERROR(Flatten(doc, dims, &index, &leaves, where));

  if (dtype == DType::kInvalid) {
    bool all_bool = !leaves.empty(), any_string = false, all_int = true;
    for (const auto* v : leaves) {
      all_bool = all_bool && v->IsBool();
      any_string = any_string || v->IsString() || IsB64Object(*v);
      all_int = all_int && (v->IsInt64() || v->IsUint64());
    }
    if (all_bool) {
      dtype = DType::kBool;
    } else if (any_string) {
      dtype = DType::kString;
    } else if (all_int && !leaves.empty()) {
      dtype = DType::kInt64;
    } else {
      dtype = DType::kFloat;
    }
  }
  Tensor tensor(dtype, Shape(dims));
  for (int64_t i = 0; i < static_cast<int64_t>(leaves.size()); ++i) {
    const rapidjson::Value& v = *leaves[i];
    auto type_error = [&](const char* want) {
      return InvalidArgument(where + ": element " + std::to_string(i) + " must be " + want + " for " +
                             DTypeShortName(dtype) + " input");
    };
    switch (dtype) {
      case DType::kString:
        if (v.IsString()) {
          tensor.strings()[i].assign(v.GetString(), v.GetStringLength());
        } else if (IsB64Object(v)) {
          TFHOST_ASSIGN_OR_RETURN(tensor.strings()[i], DecodeB64Input(v["b64"].GetString(), where));
        } else {
          return type_error("a string or {\"b64\": ...}");
        }
        break;
      case DType::kBool:
        if (!v.IsBool()) return type_error("true or false");
        tensor.data<bool>()[i] = v.GetBool();
        break;
      case DType::kFloat:
      case DType::kDouble:
      case DType::kHalf:
      case DType::kBFloat16: {
        if (!v.IsNumber()) return type_error("a number");
        double x = v.GetDouble();
        if (dtype == DType::kFloat) tensor.data<float>()[i] = static_cast<float>(x);
        if (dtype == DType::kDouble) tensor.data<double>()[i] = x;
        if (dtype == DType::kHalf) tensor.data<uint16_t>()[i] = FloatToHalf(static_cast<float>(x));
        if (dtype == DType::kBFloat16) tensor.data<uint16_t>()[i] = FloatToBFloat16(static_cast<float>(x));
        break;
      }
      case DType::kInt8: TFHOST_RETURN_IF_ERROR(StoreInteger(v, tensor.data<int8_t>() + i, dtype, where, i)); break;
      case DType::kInt16: TFHOST_RETURN_IF_ERROR(StoreInteger(v, tensor.data<int16_t>() + i, dtype, where, i)); break;
      case DType::kInt32: TFHOST_RETURN_IF_ERROR(StoreInteger(v, tensor.data<int32_t>() + i, dtype, where, i)); break;
      case DType::kInt64: TFHOST_RETURN_IF_ERROR(StoreInteger(v, tensor.data<int64_t>() + i, dtype, where, i)); break;
      case DType::kUInt8: TFHOST_RETURN_IF_ERROR(StoreInteger(v, tensor.data<uint8_t>() + i, dtype, where, i)); break;
      case DType::kUInt16: TFHOST_RETURN_IF_ERROR(StoreInteger(v, tensor.data<uint16_t>() + i, dtype, where, i)); break;
      case DType::kUInt32: TFHOST_RETURN_IF_ERROR(StoreInteger(v, tensor.data<uint32_t>() + i, dtype, where, i)); break;
      case DType::kUInt64: TFHOST_RETURN_IF_ERROR(StoreInteger(v, tensor.data<uint64_t>() + i, dtype, where, i)); break;
      default:
        return InvalidArgument(where + ": JSON values cannot be converted to " + DTypeShortName(dtype));
    }
  }
  return tensor;
}

std::string SummarizeTensor(const Tensor& tensor, int max_values) {
  if (!tensor.valid()) return "<invalid tensor>";
  std::string out = DTypeShortName(tensor.dtype()) + tensor.shape().ToString() + " {";
  int64_t n = std::min<int64_t>(tensor.NumElements(), max_values);
  char buf[64];
  for (int64_t i = 0; i < n; ++i) {
    if (i > 0) out += ", ";
    if (tensor.dtype() == DType::kString) {
      const std::string& s = tensor.strings()[i];
      out += '"';
      for (size_t c = 0; c < s.size() && c < 40; ++c) {
        unsigned char ch = static_cast<unsigned char>(s[c]);
        if (ch >= 32 && ch < 127 && ch != '"' && ch != '\\') {
          out.push_back(static_cast<char>(ch));
        } else {
          std::snprintf(buf, sizeof(buf), "\\x%02x", ch);
          out += buf;
        }
      }
      if (s.size() > 40) out += "...(" + std::to_string(s.size()) + " bytes)";
      out += '"';
    } else if (tensor.dtype() == DType::kBool) {
      out += tensor.data<bool>()[i] ? "true" : "false";
    } else if (IsFloatingPoint(tensor.dtype()) || tensor.dtype() == DType::kHalf ||
               tensor.dtype() == DType::kBFloat16) {
      double x = 0;
      switch (tensor.dtype()) {
        case DType::kFloat: x = tensor.data<float>()[i]; break;
        case DType::kDouble: x = tensor.data<double>()[i]; break;
        case DType::kHalf: x = HalfToFloat(tensor.data<uint16_t>()[i]); break;
        case DType::kBFloat16: x = BFloat16ToFloat(tensor.data<uint16_t>()[i]); break;
        default: break;
      }
      std::snprintf(buf, sizeof(buf), "%.6g", x);
      out += buf;
    } else if (IsInteger(tensor.dtype())) {
      TFHOST_SWITCH_REAL_TYPES(tensor.dtype(), {
        if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
          out += std::to_string(static_cast<long long>(tensor.data<T>()[i]));
        } else if constexpr (std::is_integral_v<T>) {
          out += std::to_string(static_cast<unsigned long long>(tensor.data<T>()[i]));
        }
      }, { out += "?"; })
    } else {
      out += "?";
    }
  }
  if (tensor.NumElements() > n) out += ", ...";
  return out + "}";
}

}  // namespace tfhost::cli
