// Reading a vocabulary text file into table entries, the way TensorFlow's
// InitializeTableFromTextFileV2 does: one entry per line, key and value each
// taken from a column (split on a one-character delimiter), the whole line
// (index -2) or the line number plus `offset` (index -1).
//
// The file is untrusted: every problem is a Status naming the file and the
// 1-based line (an empty line, a missing column, a token that is not a
// number of the table's dtype, fewer lines than vocab_size).
#pragma once

#include <cstdint>
#include <string>
#include <utility>

#include "base/tensor.h"

namespace tfhost::ops::lookup {

inline constexpr int64_t kLineNumberIndex = -1;
inline constexpr int64_t kWholeLineIndex = -2;

struct TextFileTableSpec {
  std::string filename;
  int64_t key_index = kWholeLineIndex;
  int64_t value_index = kLineNumberIndex;
  int64_t vocab_size = -1;  // -1: all lines; else exactly the first vocab_size lines
  char delimiter = '\t';
  int64_t offset = 0;  // added to line numbers used as keys or values
  DType key_dtype = DType::kString;
  DType value_dtype = DType::kInt64;
};

// Checks that the indices suit the dtypes (line numbers need int64; whole
// lines need string or an integer type), without touching the file.
Status CheckTextFileTableSpec(const TextFileTableSpec& spec);

// The entries of the file as 1-D keys and values tensors of equal length.
StatusOr<std::pair<Tensor, Tensor>> ReadTextFileTable(const TextFileTableSpec& spec);

}  // namespace tfhost::ops::lookup
