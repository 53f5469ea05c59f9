// CSV <-> Example conversion for `tfhost data convert` (RFC 4180: ',' between
// fields, '"' quotes with "" inside, LF or CRLF; quoted fields may span
// lines). The first row is the header of feature names.
//
// CSV -> Example: a column's kind comes from the schema, else is inferred
// over the whole file (int64 if every non-empty cell is an integer, float if
// every one is a number, else bytes). An unquoted empty cell is an absent
// feature; a quoted empty cell ("") is a present empty string.
// Example -> CSV: one cell per feature holding exactly one value; floats are
// printed shortest-round-trip with a '.' so they read back as floats.
// Records with lists or SequenceExamples cannot be CSV (use JSON Lines).
#pragma once

#include <cstdint>
#include <istream>
#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "data/example.h"
#include "data/example_json.h"

namespace tfhost::data {

struct CsvField {
  std::string text;
  bool quoted = false;
};

class CsvReader {
 public:
  static StatusOr<std::unique_ptr<CsvReader>> Open(const std::string& path);
  explicit CsvReader(std::unique_ptr<std::istream> in, std::string name);

  // Next row; false at end of input. Errors name the file and line.
  StatusOr<bool> Next(std::vector<CsvField>* row);
  // 1-based line where the last row returned started.
  int64_t line() const { return row_line_; }

 private:
  std::unique_ptr<std::istream> in_;
  std::string name_;
  int64_t line_ = 1;
  int64_t row_line_ = 0;
};

// Infers kinds for `header` columns over every row of `path` (schema
// entries win and skip inference for their column).
StatusOr<std::vector<FeatureKind>> InferCsvKinds(const std::string& path, const KindSchema* schema);

// Converts one data row (`line` for errors).
StatusOr<Example> CsvRowToExample(const std::vector<std::string>& header, const std::vector<FeatureKind>& kinds,
                                  const std::vector<CsvField>& row, const std::string& file, int64_t line);

// Quotes a cell when it must be (separator, quote, CR/LF, empty string).
std::string CsvCell(std::string_view text);

// One CSV cell for a feature (empty for absent); errors for lists.
StatusOr<std::string> FeatureToCsvCell(const Feature* feature, const std::string& name, int64_t record_index);

}  // namespace tfhost::data
