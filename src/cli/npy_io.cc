#include "cli/npy_io.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "base/file_util.h"

namespace tfhost::cli {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicLen = 6;
// Longest 'S<n>' element accepted; keeps n * count away from overflow.
constexpr int64_t kMaxStringItemBytes = int64_t{1} << 30;

// A value of the header's Python dict literal: the header only ever holds
// strings, booleans and tuples of integers.
struct PyValue {
  enum Kind { kString, kBool, kTuple } kind = kString;
  std::string str;
  bool boolean = false;
  std::vector<int64_t> ints;
};

// A tiny recursive-descent parser for the header dict, e.g.
// "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }". Every
// failure says where in the header it happened.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& where) : s_(text), where_(where) {}

  Status Parse(std::map<std::string, PyValue>* out) {
    SkipSpace();
    if (!Consume('{')) return Error("expected '{' opening the header dict");
    while (true) {
      SkipSpace();
      if (Consume('}')) break;
      std::string key;
      TFHOST_RETURN_IF_ERROR(ParseString(&key));
      SkipSpace();
      if (!Consume(':')) return Error("expected ':' after key '" + key + "'");
      SkipSpace();
      PyValue value;
      TFHOST_RETURN_IF_ERROR(ParseValue(&value));
      if (out->count(key)) return Error("duplicate key '" + key + "'");
      (*out)[key] = std::move(value);
      SkipSpace();
      if (Consume(',')) continue;
      SkipSpace();
      if (Consume('}')) break;
      return Error("expected ',' or '}' after the value of '" + key + "'");
    }
    SkipSpace();
    if (pos_ != s_.size()) return Error("unexpected text after the header dict");
    return OkStatus();
  }

 private:
  Status Error(const std::string& what) const {
    return InvalidArgument(where_ + ": malformed .npy header at offset " + std::to_string(pos_) + ": " + what);
  }
  void SkipSpace() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r')) {
      ++pos_;
    }
  }
  bool Consume(char c) {
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool ConsumeWord(std::string_view word) {
    if (s_.substr(pos_, word.size()) == word) {
      pos_ += word.size();
      return true;
    }
    return false;
  }
  Status ParseString(std::string* out) {
    if (pos_ >= s_.size() || (s_[pos_] != '\'' && s_[pos_] != '"')) return Error("expected a quoted string");
    char quote = s_[pos_++];
    while (pos_ < s_.size() && s_[pos_] != quote) {
      // NumPy's header strings never need escapes; refusing them keeps the
      // parser honest instead of half-supporting Python's escape rules.
      if (s_[pos_] == '\\') return Error("escape sequences are not supported in header strings");
      out->push_back(s_[pos_++]);
    }
    if (!Consume(quote)) return Error("unterminated string");
    return OkStatus();
  }
  Status ParseInt(int64_t* out) {
    size_t start = pos_;
    int64_t v = 0;
    while (pos_ < s_.size() && s_[pos_] >= '0' && s_[pos_] <= '9') {
      int digit = s_[pos_] - '0';
      if (v > (INT64_MAX - digit) / 10) return Error("dimension too large");
      v = v * 10 + digit;
      ++pos_;
    }
    if (pos_ == start) return Error("expected a non-negative integer");
    Consume('L');  // Python 2 long literals, as old NumPy wrote them
    *out = v;
    return OkStatus();
  }
  Status ParseValue(PyValue* out) {
    if (pos_ < s_.size() && (s_[pos_] == '\'' || s_[pos_] == '"')) {
      out->kind = PyValue::kString;
      return ParseString(&out->str);
    }
    if (ConsumeWord("True")) {
      out->kind = PyValue::kBool;
      out->boolean = true;
      return OkStatus();
    }
    if (ConsumeWord("False")) {
      out->kind = PyValue::kBool;
      out->boolean = false;
      return OkStatus();
    }
    if (Consume('(')) {
      out->kind = PyValue::kTuple;
      while (true) {
        SkipSpace();
        if (Consume(')')) return OkStatus();
        if (out->ints.size() >= 64) return Error("too many dimensions (more than 64)");
        int64_t v;
        TFHOST_RETURN_IF_ERROR(ParseInt(&v));
        out->ints.push_back(v);
        SkipSpace();
        if (Consume(',')) continue;
        SkipSpace();
        if (Consume(')')) return OkStatus();
        return Error("expected ',' or ')' in the shape tuple");
      }
    }
    if (pos_ < s_.size() && s_[pos_] == '[') return Error("structured dtypes (a list descr) are not supported");
    return Error("expected a string, True, False or a tuple");
  }

  std::string_view s_;
  const std::string& where_;
  size_t pos_ = 0;
};

struct NpyType {
  DType dtype = DType::kInvalid;
  int64_t item_size = 0;  // bytes per element in the file
};

StatusOr<NpyType> ParseDescr(const std::string& descr, const std::string& where) {
  auto bad = [&](const std::string& why) {
    return InvalidArgument(where + ": unsupported .npy dtype '" + descr + "': " + why +
                           "; expected little-endian ('<' or '|') f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8 b1 or S<n>");
  };
  if (descr.size() < 3) return bad("too short");
  char order = descr[0];
  if (order == '>') return bad("big-endian data");
  if (order != '<' && order != '|') return bad("byte order must be '<' or '|'");
  std::string code = descr.substr(1);
  static const std::map<std::string, DType> kCodes = {
      {"f2", DType::kHalf},  {"f4", DType::kFloat},  {"f8", DType::kDouble}, {"i1", DType::kInt8},
      {"i2", DType::kInt16}, {"i4", DType::kInt32},  {"i8", DType::kInt64},  {"u1", DType::kUInt8},
      {"u2", DType::kUInt16}, {"u4", DType::kUInt32}, {"u8", DType::kUInt64}, {"b1", DType::kBool},
  };
  auto it = kCodes.find(code);
  if (it != kCodes.end()) return NpyType{it->second, static_cast<int64_t>(DTypeSize(it->second))};
  if (code[0] == 'S') {
    int64_t n = 0;
    for (size_t i = 1; i < code.size(); ++i) {
      if (code[i] < '0' || code[i] > '9') return bad("string length is not a number");
      n = n * 10 + (code[i] - '0');
      if (n > kMaxStringItemBytes) return bad("string length over 1 GiB");
    }
    if (n <= 0) return bad("string length must be at least 1");
    return NpyType{DType::kString, n};
  }
  if (code[0] == 'U') return bad("unicode strings are not supported; save byte strings (dtype 'S') instead");
  return bad("unknown type code");
}

uint32_t ReadLe(std::string_view bytes, size_t offset, int width) {
  uint32_t v = 0;
  for (int i = 0; i < width; ++i) v |= static_cast<uint32_t>(static_cast<uint8_t>(bytes[offset + i])) << (8 * i);
  return v;
}

std::string ShapeTuple(const Shape& shape) {
  std::string s = "(";
  for (int i = 0; i < shape.rank(); ++i) {
    if (i > 0) s += ", ";
    s += std::to_string(shape.dim(i));
  }
  if (shape.rank() == 1) s += ",";
  return s + ")";
}

}  // namespace

std::string NpyDescr(DType dtype) {
  switch (dtype) {
    case DType::kHalf: return "<f2";
    case DType::kFloat: return "<f4";
    case DType::kDouble: return "<f8";
    case DType::kInt8: return "|i1";
    case DType::kInt16: return "<i2";
    case DType::kInt32: return "<i4";
    case DType::kInt64: return "<i8";
    case DType::kUInt8: return "|u1";
    case DType::kUInt16: return "<u2";
    case DType::kUInt32: return "<u4";
    case DType::kUInt64: return "<u8";
    case DType::kBool: return "|b1";
    default: return "";
  }
}

StatusOr<Tensor> ParseNpy(std::string_view bytes, const std::string& where) {
  if (bytes.size() < kMagicLen + 2 || bytes.substr(0, kMagicLen) != std::string_view(kMagic, kMagicLen)) {
    return InvalidArgument(where + ": not a .npy file: expected the magic bytes \\x93NUMPY at the start");
  }
  int major = static_cast<uint8_t>(bytes[6]);
  int minor = static_cast<uint8_t>(bytes[7]);
  if ((major != 1 && major != 2 && major != 3) || minor != 0) {
    return InvalidArgument(where + ": unsupported .npy format version " + std::to_string(major) + "." +
                           std::to_string(minor) + "; expected 1.0, 2.0 or 3.0");
  }
  int len_width = major == 1 ? 2 : 4;
  size_t header_start = 8 + len_width;
  if (bytes.size() < header_start) {
    return InvalidArgument(where + ": truncated .npy file: the header length field is cut off");
  }
  uint32_t header_len = ReadLe(bytes, 8, len_width);
  if (header_len > kMaxNpyHeaderBytes) {
    return InvalidArgument(where + ": .npy header length " + std::to_string(header_len) +
                           " is over the limit of " + std::to_string(kMaxNpyHeaderBytes) + " bytes");
  }
  if (bytes.size() - header_start < header_len) {
    return InvalidArgument(where + ": truncated .npy file: header says " + std::to_string(header_len) +
                           " bytes, only " + std::to_string(bytes.size() - header_start) + " present");
  }
  std::string_view header = bytes.substr(header_start, header_len);
  std::map<std::string, PyValue> dict;
  TFHOST_RETURN_IF_ERROR(HeaderParser(header, where).Parse(&dict));

  auto field = [&](const std::string& key, PyValue::Kind kind, const char* kind_name) -> StatusOr<const PyValue*> {
    auto it = dict.find(key);
    if (it == dict.end()) return InvalidArgument(where + ": .npy header has no '" + key + "' entry");
    if (it->second.kind != kind) {
      return InvalidArgument(where + ": .npy header entry '" + key + "' must be " + kind_name);
    }
    return &it->second;
  };
  for (const auto& [key, value] : dict) {
    if (key != "descr" && key != "fortran_order" && key != "shape") {
      return InvalidArgument(where + ": unexpected .npy header key '" + key +
                             "'; expected only 'descr', 'fortran_order' and 'shape'");
    }
  }
  TFHOST_ASSIGN_OR_RETURN(const PyValue* descr, field("descr", PyValue::kString, "a string"));
  TFHOST_ASSIGN_OR_RETURN(const PyValue* fortran, field("fortran_order", PyValue::kBool, "True or False"));
  TFHOST_ASSIGN_OR_RETURN(const PyValue* shape_value, field("shape", PyValue::kTuple, "a tuple of integers"));
  if (fortran->boolean) {
    return InvalidArgument(where + ": Fortran-order (column-major) arrays are not supported; expected C order "
                           "(save with np.ascontiguousarray(a))");
  }
  TFHOST_ASSIGN_OR_RETURN(NpyType type, ParseDescr(descr->str, where));
  TFHOST_ASSIGN_OR_RETURN(Shape shape, MakeShape(shape_value->ints, where + ": .npy shape"));

  std::string_view data = bytes.substr(header_start + header_len);
  int64_t count = shape.num_elements();
  // Compare sizes by division so a huge shape cannot overflow the product.
  bool size_ok = type.item_size > 0 &&
                 (count == 0 ? data.empty()
                             : (data.size() % type.item_size == 0 &&
                                static_cast<int64_t>(data.size() / type.item_size) == count));
  if (!size_ok) {
    return InvalidArgument(where + ": .npy data is " + std::to_string(data.size()) + " bytes, expected " +
                           std::to_string(count) + " elements of " + std::to_string(type.item_size) +
                           " bytes for shape " + shape.ToString() + " and dtype '" + descr->str + "'");
  }

  Tensor tensor(type.dtype, shape);
  if (type.dtype == DType::kString) {
    std::string* out = tensor.strings();
    for (int64_t i = 0; i < count; ++i) {
      std::string_view item = data.substr(i * type.item_size, type.item_size);
      size_t end = item.find_last_not_of('\0');
      out[i] = end == std::string_view::npos ? std::string() : std::string(item.substr(0, end + 1));
    }
  } else if (type.dtype == DType::kBool) {
    bool* out = tensor.data<bool>();
    for (int64_t i = 0; i < count; ++i) out[i] = data[i] != 0;
  } else if (count > 0) {
    // Little-endian file, little-endian host (tfhost targets x86-64/aarch64).
    std::memcpy(tensor.raw_data(), data.data(), data.size());
  }
  return tensor;
}

StatusOr<Tensor> ReadNpyFile(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return NotFound("input file " + path + " does not exist");
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot open " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return DataLoss("error reading " + path);
  return ParseNpy(ss.str(), path);
}

StatusOr<std::string> EncodeNpy(const Tensor& input, std::string* note) {
  if (!input.valid()) return InvalidArgument("cannot write an invalid (empty) tensor as .npy");
  Tensor tensor = input;
  if (tensor.dtype() == DType::kBFloat16) {
    Tensor f(DType::kFloat, tensor.shape());
    const uint16_t* src = tensor.data<uint16_t>();
    float* dst = f.data<float>();
    for (int64_t i = 0; i < tensor.NumElements(); ++i) dst[i] = BFloat16ToFloat(src[i]);
    tensor = f;
    if (note) *note = "bfloat16 has no NumPy type code; written as float32 (exact)";
  }
  std::string descr;
  int64_t string_width = 0;
  if (tensor.dtype() == DType::kString) {
    for (int64_t i = 0; i < tensor.NumElements(); ++i) {
      string_width = std::max<int64_t>(string_width, tensor.strings()[i].size());
    }
    string_width = std::max<int64_t>(string_width, 1);
    descr = "|S" + std::to_string(string_width);
  } else {
    descr = NpyDescr(tensor.dtype());
    if (descr.empty()) {
      return Unimplemented("cannot write a " + DTypeShortName(tensor.dtype()) +
                           " tensor as .npy: tfhost writes float, int, uint, bool and byte-string types only");
    }
  }
  std::string dict = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + ShapeTuple(tensor.shape()) +
                     ", }";
  // Pad with spaces and a final newline so the data starts 64-byte aligned.
  int major = 1;
  size_t prefix = kMagicLen + 2 + 2;
  size_t total = prefix + dict.size() + 1;
  if ((total + 63) / 64 * 64 - prefix > 65535) {
    major = 2;
    prefix = kMagicLen + 2 + 4;
    total = prefix + dict.size() + 1;
  }
  size_t padded = (total + 63) / 64 * 64;
  dict.append(padded - total, ' ');
  dict.push_back('\n');
  uint32_t header_len = static_cast<uint32_t>(dict.size());

  std::string out(kMagic, kMagicLen);
  out.push_back(static_cast<char>(major));
  out.push_back(0);
  for (int i = 0; i < (major == 1 ? 2 : 4); ++i) out.push_back(static_cast<char>((header_len >> (8 * i)) & 0xff));
  out += dict;
  if (tensor.dtype() == DType::kString) {
    for (int64_t i = 0; i < tensor.NumElements(); ++i) {
      const std::string& s = tensor.strings()[i];
      out += s;
      out.append(string_width - s.size(), '\0');
    }
  } else if (tensor.dtype() == DType::kBool) {
    for (int64_t i = 0; i < tensor.NumElements(); ++i) out.push_back(tensor.data<bool>()[i] ? 1 : 0);
  } else {
    out.append(static_cast<const char*>(tensor.raw_data()), tensor.ByteSize());
  }
  return out;
}

Status WriteNpyFile(const std::string& path, const Tensor& tensor, std::string* note) {
  TFHOST_ASSIGN_OR_RETURN(std::string bytes, EncodeNpy(tensor, note));
  TFHOST_RETURN_IF_ERROR(CreateParentDirectories(path));
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return Unavailable("cannot create " + tmp);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    out.close();
    if (!out) {
      std::error_code ec;
      std::filesystem::remove(tmp, ec);
      return DataLoss("error writing " + tmp);
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return Unavailable("cannot rename " + tmp + " to " + path + ": " + ec.message());
  }
  return OkStatus();
}

}  // namespace tfhost::cli
