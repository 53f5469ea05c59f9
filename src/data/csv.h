// CSV <-> Example conversion for `tfhost data convert` (RFC 4180: ',' between
// fields, '"' quotes with "" inside, LF or CRLF; quoted fields may span
// lines). The first row is the header of feature names.
//
// CSV -> Example: a column's kind comes from the schema, else is inferred
// over the whole file: int64 if every non-empty cell is an integer; also
// int64 if every one is a whole number, some written with a zero fraction
// ("17031832200.0"), and some is one float32 cannot hold exactly; float if
// every one is a number; else bytes. So "180.0" columns stay float, while IDs
// above 2^24 are not rounded. An unquoted empty cell is an absent feature; a
// quoted empty cell ("") is a present empty string.
// Example -> CSV: one cell per feature holding exactly one value; floats are
// printed shortest-round-trip with a '.' so they read back as floats.
// Records with lists or SequenceExamples cannot be CSV (use JSON Lines).
#pragma once

#include <cstdint>
#include <istream>
#include <memory>
#include <string>
#include <string_view>
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

struct CsvKinds {
  std::vector<FeatureKind> kinds;  // one per header column
  // "FILE:LINE: column 'c' is float32 by the schema, and float32 cannot hold
  // 17031832200 exactly (stored as 17031832576); use int64" for each column
  // the schema makes float32 that holds such a whole number (the first one);
  // likewise, with other advice, for an inferred float column whose
  // fractions rule out int64.
  std::vector<std::string> warnings;
};

// Infers kinds for `header` columns over every row of `path` (schema
// entries win and skip inference for their column).
StatusOr<CsvKinds> InferCsvKinds(const std::string& path, const KindSchema* schema);

// An int64 written as an integer or with a fraction of zeros ("180.0",
// "-7.", "17031832200.000"); false for anything else, or beyond int64.
bool ParseIntegralText(std::string_view text, int64_t* out);

// Converts one data row (`line` for errors). int64 cells may carry a zero
// fraction (ParseIntegralText).
StatusOr<Example> CsvRowToExample(const std::vector<std::string>& header, const std::vector<FeatureKind>& kinds,
                                  const std::vector<CsvField>& row, const std::string& file, int64_t line);

// Quotes a cell when it must be (separator, quote, CR/LF, empty string).
std::string CsvCell(std::string_view text);

// One CSV cell for a feature (empty for absent); errors for lists.
StatusOr<std::string> FeatureToCsvCell(const Feature* feature, const std::string& name, int64_t record_index);

}  // namespace tfhost::data
