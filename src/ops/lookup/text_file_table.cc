#include "ops/lookup/text_file_table.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string_view>
#include <tuple>
#include <vector>

namespace tfhost::ops::lookup {
namespace {

bool IsIntegerDType(DType d) { return d == DType::kInt32 || d == DType::kInt64; }

std::string_view TrimSpace(std::string_view s) {
  const char* kSpace = " \t\n\r\f\v";
  size_t b = s.find_first_not_of(kSpace);
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(kSpace);
  return s.substr(b, e - b + 1);
}

// A quoted excerpt of a line for error messages.
std::string Excerpt(std::string_view line) {
  constexpr size_t kMax = 80;
  std::string s(line.substr(0, kMax));
  return "\"" + s + (line.size() > kMax ? "...\"" : "\"");
}

// One column of the table being built, in the dtype it will have.
class Column {
 public:
  explicit Column(DType dtype) : dtype_(dtype) {}

  void AddLineNumber(int64_t n) { ints_.push_back(n); }

  // Parses `token` (surrounding whitespace allowed for numbers, as in TF).
  // Returns an empty string on success, else what is wrong with the token.
  std::string Add(std::string_view token) {
    if (dtype_ == DType::kString) {
      strings_.emplace_back(token);
      return {};
    }
    std::string_view t = TrimSpace(token);
    if (!t.empty() && t.front() == '+') t.remove_prefix(1);
    const char* end = t.data() + t.size();
    if (IsIntegerDType(dtype_)) {
      int64_t v = 0;
      auto [ptr, ec] = std::from_chars(t.data(), end, v);
      bool fits = dtype_ == DType::kInt64 ||
                  (v >= std::numeric_limits<int32_t>::min() && v <= std::numeric_limits<int32_t>::max());
      if (t.empty() || ec != std::errc() || ptr != end || !fits) return "is not a valid " + DTypeShortName(dtype_);
      ints_.push_back(v);
      return {};
    }
    // Out-of-range numbers overflow to +-inf like strtod; any other failure is bad input.
    auto bad = [&](std::errc ec, const char* ptr) {
      return t.empty() || (ec != std::errc() && ec != std::errc::result_out_of_range) || ptr != end;
    };
    if (dtype_ == DType::kFloat) {
      float v = 0;
      auto [ptr, ec] = std::from_chars(t.data(), end, v);
      if (bad(ec, ptr)) return "is not a valid float32";
      floats_.push_back(v);
    } else {
      double v = 0;
      auto [ptr, ec] = std::from_chars(t.data(), end, v);
      if (bad(ec, ptr)) return "is not a valid float64";
      doubles_.push_back(v);
    }
    return {};
  }

  Tensor Finish() const {
    int64_t n = static_cast<int64_t>(dtype_ == DType::kString ? strings_.size()
                                     : dtype_ == DType::kFloat ? floats_.size()
                                     : dtype_ == DType::kDouble ? doubles_.size()
                                                                : ints_.size());
    Tensor t(dtype_, Shape({n}));
    for (int64_t i = 0; i < n; ++i) {
      switch (dtype_) {
        case DType::kString: t.strings()[i] = strings_[i]; break;
        case DType::kFloat: t.data<float>()[i] = floats_[i]; break;
        case DType::kDouble: t.data<double>()[i] = doubles_[i]; break;
        case DType::kInt32: t.data<int32_t>()[i] = static_cast<int32_t>(ints_[i]); break;
        default: t.data<int64_t>()[i] = ints_[i]; break;
      }
    }
    return t;
  }

 private:
  DType dtype_;
  std::vector<int64_t> ints_;
  std::vector<float> floats_;
  std::vector<double> doubles_;
  std::vector<std::string> strings_;
};

Status CheckIndex(int64_t index, DType dtype, const char* what) {
  const std::string attr = std::string(what) + "_index";
  if (index < kWholeLineIndex) {
    return InvalidArgument(attr + " must be >= -2 (-1: line number, -2: whole line), got " + std::to_string(index));
  }
  if (index == kLineNumberIndex && dtype != DType::kInt64) {
    return InvalidArgument(attr + " -1 (line number) needs int64 table " + what + "s, not " + DTypeShortName(dtype));
  }
  if (index == kWholeLineIndex && dtype != DType::kString && !IsIntegerDType(dtype)) {
    return InvalidArgument(attr + " -2 (whole line) needs string or integer table " + what + "s, not " +
                           DTypeShortName(dtype));
  }
  if (dtype != DType::kString && !IsIntegerDType(dtype) && dtype != DType::kFloat && dtype != DType::kDouble) {
    return InvalidArgument("cannot read table " + std::string(what) + "s of dtype " + DTypeShortName(dtype) +
                           " from a text file (string, int32, int64, float and double can be)");
  }
  return OkStatus();
}

}  // namespace

Status CheckTextFileTableSpec(const TextFileTableSpec& spec) {
  TFHOST_RETURN_IF_ERROR(CheckIndex(spec.key_index, spec.key_dtype, "key"));
  TFHOST_RETURN_IF_ERROR(CheckIndex(spec.value_index, spec.value_dtype, "value"));
  if (spec.vocab_size < -1) {
    return InvalidArgument("vocab_size must be -1 (unknown) or >= 0, got " + std::to_string(spec.vocab_size));
  }
  return OkStatus();
}

StatusOr<std::pair<Tensor, Tensor>> ReadTextFileTable(const TextFileTableSpec& spec) {
  TFHOST_RETURN_IF_ERROR(CheckTextFileTableSpec(spec));
  std::error_code ec;
  if (std::filesystem::is_directory(spec.filename, ec)) {
    return InvalidArgument("vocabulary file " + spec.filename + " is a directory");
  }
  std::ifstream in(spec.filename, std::ios::binary);
  if (!in) {
    return NotFound("cannot open vocabulary file " + spec.filename + ": " + std::strerror(errno));
  }
  const bool split = spec.key_index >= 0 || spec.value_index >= 0;
  const size_t needed_columns = static_cast<size_t>(std::max(spec.key_index, spec.value_index) + 1);
  Column keys(spec.key_dtype), values(spec.value_dtype);
  std::vector<std::string_view> columns;
  std::string line;
  int64_t count = 0;
  while ((spec.vocab_size < 0 || count < spec.vocab_size) && std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();  // CRLF files
    const std::string where = spec.filename + " line " + std::to_string(count + 1);
    if (line.empty()) {
      return InvalidArgument(where + " is empty; every line of a vocabulary file must hold an entry");
    }
    columns.clear();
    if (split) {
      size_t start = 0;
      while (true) {
        size_t pos = line.find(spec.delimiter, start);
        columns.emplace_back(std::string_view(line).substr(start, pos == std::string::npos ? pos : pos - start));
        if (pos == std::string::npos) break;
        start = pos + 1;
      }
      if (columns.size() < needed_columns) {
        return InvalidArgument(where + " has " + std::to_string(columns.size()) + " column(s) separated by " +
                               (spec.delimiter == '\t' ? std::string("'\\t'") : "'" + std::string(1, spec.delimiter) + "'") +
                               ", but key_index " + std::to_string(spec.key_index) + " and value_index " +
                               std::to_string(spec.value_index) + " need " + std::to_string(needed_columns) + ": " +
                               Excerpt(line));
      }
    }
    for (auto [index, column, what] : {std::tuple{spec.key_index, &keys, "key"},
                                       std::tuple{spec.value_index, &values, "value"}}) {
      if (index == kLineNumberIndex) {
        column->AddLineNumber(count + spec.offset);
        continue;
      }
      std::string_view token = index == kWholeLineIndex ? std::string_view(line) : columns[index];
      std::string problem = column->Add(token);
      if (!problem.empty()) {
        return InvalidArgument(where + ": " + what + " " + Excerpt(token) + " " + problem);
      }
    }
    ++count;
  }
  if (in.bad()) return DataLoss("error reading vocabulary file " + spec.filename);
  if (spec.vocab_size >= 0 && count < spec.vocab_size) {
    return InvalidArgument("vocabulary file " + spec.filename + " has " + std::to_string(count) +
                           " lines but vocab_size is " + std::to_string(spec.vocab_size));
  }
  return std::make_pair(keys.Finish(), values.Finish());
}

}  // namespace tfhost::ops::lookup
