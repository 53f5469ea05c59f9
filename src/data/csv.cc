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

}  // namespace

StatusOr<std::vector<FeatureKind>> InferCsvKinds(const std::string& path, const KindSchema* schema) {
  TFHOST_ASSIGN_OR_RETURN(auto reader, CsvReader::Open(path));
  TFHOST_ASSIGN_OR_RETURN(std::vector<std::string> header, ReadHeader(*reader, path));
  size_t n = header.size();
  std::vector<bool> can_int(n, true), can_float(n, true), fixed(n, false);
  std::vector<FeatureKind> kinds(n, FeatureKind::kBytes);
  for (size_t i = 0; i < n; ++i) {
    if (schema && schema->count(header[i])) {
      kinds[i] = schema->at(header[i]);
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
      if (fixed[i] || (row[i].text.empty() && !row[i].quoted)) continue;
      if (row[i].quoted && row[i].text.empty()) {
        can_int[i] = can_float[i] = false;
        continue;
      }
      if (can_int[i] && !IsInt(row[i].text)) can_int[i] = false;
      if (can_float[i] && !can_int[i] && !IsFloat(row[i].text)) can_float[i] = false;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    if (fixed[i]) continue;
    kinds[i] = can_int[i] ? FeatureKind::kInt64 : can_float[i] ? FeatureKind::kFloat : FeatureKind::kBytes;
  }
  // A column with no values at all stays bytes: it never becomes a feature.
  return kinds;
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
        if (!ParseInt64Text(cell.text, &v)) {
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
