#include "data/csv.h"

#include <fstream>

namespace tfhost::data {

StatusOr<std::unique_ptr<CsvReader>> CsvReader::Open(const std::string& path) {
  auto in = std::make_unique<std::ifstream>(path, std::ios::binary);
  if (!*in) return NotFound("cannot open CSV file '" + path + "'");
  return std::make_unique<CsvReader>(std::move(in), path);
}

CsvReader::CsvReader(std::unique_ptr<std::istream> in, std::string name) : in_(std::move(in)), name_(std::move(name)) {}

StatusOr<bool> CsvReader::Next(std::vector<CsvField>* row) {
  row->clear();
  std::istream& in = *in_;
  int c = in.get();
  if (c == EOF) return false;
  row_line_ = line_;
  CsvField field;
  bool in_quotes = false, after_quote = false;
  // A cell larger than this is not a CSV we should hold in memory.
  constexpr size_t kMaxField = size_t{64} << 20;
  while (true) {
    if (c == EOF) {
      if (in_quotes) {
        return InvalidArgument(name_ + ":" + std::to_string(row_line_) + ": the file ends inside a quoted field");
      }
      row->push_back(std::move(field));
      return true;
    }
    char ch = static_cast<char>(c);
    if (in_quotes) {
      if (ch == '"') {
        if (in.peek() == '"') {
          in.get();
          field.text.push_back('"');
        } else {
          in_quotes = false;
          after_quote = true;
        }
      } else {
        if (ch == '\n') ++line_;
        field.text.push_back(ch);
      }
    } else if (ch == ',') {
      row->push_back(std::move(field));
      field = CsvField();
      after_quote = false;
    } else if (ch == '\n' || ch == '\r') {
      if (ch == '\r' && in.peek() == '\n') in.get();
      ++line_;
      row->push_back(std::move(field));
      return true;
    } else if (ch == '"' && field.text.empty() && !field.quoted) {
      in_quotes = true;
      field.quoted = true;
    } else {
      if (after_quote) {
        return InvalidArgument(name_ + ":" + std::to_string(line_) + ": text after a closing quote");
      }
      field.text.push_back(ch);
    }
    if (field.text.size() > kMaxField) {
      return InvalidArgument(name_ + ":" + std::to_string(row_line_) + ": a field is larger than 64 MiB");
    }
    c = in.get();
  }
}

namespace {

bool IsInt(const std::string& s) {
  int64_t v;
  return ParseInt64Text(s, &v);
}
bool IsFloat(const std::string& s) {
  float v;
  return ParseFloatText(s, &v);
}

// Whether float32 holds `v` exactly. Beyond 2^24 only some integers are
// floats; IDs such as census tracts (17031832200) are not.
bool FloatHoldsExactly(int64_t v, float* stored) {
  *stored = static_cast<float>(v);
  // The float can round up to 2^63, which no int64 equals (and casting it back
  // would be undefined).
  if (*stored >= 9.223372036854775808e18f) return false;
  return static_cast<int64_t>(*stored) == v;
}

StatusOr<std::vector<std::string>> ReadHeader(CsvReader& reader, const std::string& path) {
  std::vector<CsvField> row;
  TFHOST_ASSIGN_OR_RETURN(bool got, reader.Next(&row));
  if (!got) return InvalidArgument("CSV file '" + path + "' is empty; expected a header row");
  std::vector<std::string> header;
  for (auto& f : row) {
    if (f.text.empty()) return InvalidArgument("CSV file '" + path + "' has an empty column name in its header");
    header.push_back(f.text);
  }
  return header;
}

// What one pass learns about a column.
struct ColumnFacts {
  bool can_int = true;       // every cell is an int64 as written
  bool can_float = true;     // every cell is a number
  bool integral = true;      // every cell is an integer, maybe with a zero fraction ("180.0")
  bool inexact = false;      // some integral cell is beyond what float32 holds exactly
  int64_t inexact_value = 0;  // the first such cell, its line and what float32 makes of it
  int64_t inexact_line = 0;
  float inexact_stored = 0;
};

void Observe(ColumnFacts& c, const std::string& text, int64_t line) {
  if (c.can_int && !IsInt(text)) c.can_int = false;
  if (c.can_float && !c.can_int && !IsFloat(text)) c.can_float = false;
  if (c.inexact && !c.integral) return;  // nothing more to learn
  int64_t v;
  // Checked past the first fraction too: a float32 column still rounds the
  // whole numbers after it, and the warning names the first.
  bool whole = ParseIntegralText(text, &v);
  if (!whole) c.integral = false;
  float stored;
  if (whole && !c.inexact && !FloatHoldsExactly(v, &stored)) {
    c.inexact = true;
    c.inexact_value = v;
    c.inexact_line = line;
    c.inexact_stored = stored;
  }
}

std::string StoredText(float f) {
  // Integral floats below 2^63 print as integers, like the value they replace.
  if (f > -9.223372036854775808e18f && f < 9.223372036854775808e18f) {
    return std::to_string(static_cast<int64_t>(f));
  }
  return FormatFloat(f);
}

}  // namespace

bool ParseIntegralText(std::string_view text, int64_t* out) {
  if (ParseInt64Text(text, out)) return true;
  size_t dot = text.find('.');
  if (dot == std::string_view::npos) return false;
  std::string_view whole = text.substr(0, dot), fraction = text.substr(dot + 1);
  if (whole.empty() || whole == "-" || whole == "+") return false;
  if (fraction.find_first_not_of('0') != std::string_view::npos) return false;
  return ParseInt64Text(whole, out);
}

StatusOr<CsvKinds> InferCsvKinds(const std::string& path, const KindSchema* schema) {
  TFHOST_ASSIGN_OR_RETURN(auto reader, CsvReader::Open(path));
  TFHOST_ASSIGN_OR_RETURN(std::vector<std::string> header, ReadHeader(*reader, path));
  size_t n = header.size();
  std::vector<ColumnFacts> facts(n);
  std::vector<bool> fixed(n, false);
  CsvKinds result;
  result.kinds.assign(n, FeatureKind::kBytes);
  for (size_t i = 0; i < n; ++i) {
    if (schema && schema->count(header[i])) {
      result.kinds[i] = schema->at(header[i]);
      fixed[i] = true;
    }
  }
  std::vector<CsvField> row;
  while (true) {
    TFHOST_ASSIGN_OR_RETURN(bool got, reader->Next(&row));
    if (!got) break;
    if (row.size() == 1 && row[0].text.empty() && !row[0].quoted) continue;  // blank line
    if (row.size() != n) {
      return InvalidArgument(path + ":" + std::to_string(reader->line()) + ": " + std::to_string(row.size()) +
                             " fields, the header has " + std::to_string(n));
    }
    for (size_t i = 0; i < n; ++i) {
      // A schema's kind is not inferred, but a float32 one is still checked
      // so that the user hears which integers it rounds.
      if (fixed[i] && result.kinds[i] != FeatureKind::kFloat) continue;
      if (row[i].text.empty() && !row[i].quoted) continue;
      if (row[i].quoted && row[i].text.empty()) {
        facts[i].can_int = facts[i].can_float = facts[i].integral = false;
        continue;
      }
      Observe(facts[i], row[i].text, reader->line());
    }
  }
  for (size_t i = 0; i < n; ++i) {
    const ColumnFacts& c = facts[i];
    auto rounded = [&](const std::string& why, const std::string& advice) {
      return path + ":" + std::to_string(c.inexact_line) + ": column '" + header[i] + "' is float32 " + why +
             ", and float32 cannot hold " + std::to_string(c.inexact_value) + " exactly (stored as " +
             StoredText(c.inexact_stored) + "); " + advice;
    };
    if (fixed[i]) {
      if (result.kinds[i] == FeatureKind::kFloat && c.inexact) {
        result.warnings.push_back(rounded("by the schema", "use int64"));
      }
      continue;
    }
    // Integers float32 would round (IDs, timestamps in ms) stay int64 even
    // when written as "17031832200.0"; small whole numbers written with a
    // fraction stay float, as the file suggests.
    if (c.can_int || (c.integral && c.inexact)) {
      result.kinds[i] = FeatureKind::kInt64;
    } else if (c.can_float) {
      result.kinds[i] = FeatureKind::kFloat;
      // int64 cannot hold the column's fractions either; only the user knows
      // which loss to prefer.
      if (c.inexact) {
        result.warnings.push_back(
            rounded("(it also holds fractions)", "give it \"bytes\" in --schema to keep the text"));
      }
    } else {
      result.kinds[i] = FeatureKind::kBytes;
    }
  }
  // A column with no values at all gets some kind, but never becomes a feature.
  return result;
}

StatusOr<Example> CsvRowToExample(const std::vector<std::string>& header, const std::vector<FeatureKind>& kinds,
                                  const std::vector<CsvField>& row, const std::string& file, int64_t line) {
  if (row.size() != header.size()) {
    return InvalidArgument(file + ":" + std::to_string(line) + ": " + std::to_string(row.size()) +
                           " fields, the header has " + std::to_string(header.size()));
  }
  Example ex;
  for (size_t i = 0; i < row.size(); ++i) {
    const CsvField& cell = row[i];
    if (cell.text.empty() && !cell.quoted) continue;  // absent
    Feature f;
    f.kind = kinds[i];
    switch (kinds[i]) {
      case FeatureKind::kInt64: {
        int64_t v;
        if (!ParseIntegralText(cell.text, &v)) {
          return InvalidArgument(file + ":" + std::to_string(line) + ": column '" + header[i] + "': '" + cell.text +
                                 "' is not an int64");
        }
        f.int64s.push_back(v);
        break;
      }
      case FeatureKind::kFloat: {
        float v;
        if (!ParseFloatText(cell.text, &v)) {
          return InvalidArgument(file + ":" + std::to_string(line) + ": column '" + header[i] + "': '" + cell.text +
                                 "' is not a float32");
        }
        f.floats.push_back(v);
        break;
      }
      default:
        f.kind = FeatureKind::kBytes;
        f.bytes.push_back(cell.text);
    }
    ex.features[header[i]] = std::move(f);
  }
  return ex;
}

std::string CsvCell(std::string_view text) {
  if (!text.empty() && text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
  return out;
}

StatusOr<std::string> FeatureToCsvCell(const Feature* f, const std::string& name, int64_t record_index) {
  if (f == nullptr) return std::string();
  if (f->size() != 1) {
    return InvalidArgument("record " + std::to_string(record_index) + ", feature '" + name + "' holds " +
                           std::to_string(f->size()) +
                           " values; a CSV cell holds exactly one (convert to JSON Lines instead)");
  }
  switch (f->kind) {
    case FeatureKind::kInt64: return std::to_string(f->int64s[0]);
    case FeatureKind::kFloat: return FormatFloat(f->floats[0]);
    case FeatureKind::kBytes: return CsvCell(f->bytes[0]);
    case FeatureKind::kNone: break;
  }
  return std::string();
}

}  // namespace tfhost::data
