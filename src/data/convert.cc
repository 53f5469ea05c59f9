#include "data/convert.h"

#include <fcntl.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <set>

#include "base/file_util.h"
#include "data/csv.h"
#include "data/schema.h"

namespace tfhost::data {
namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A text output published atomically, like TFRecordWriter's files.
class AtomicTextFile {
 public:
  static StatusOr<std::unique_ptr<AtomicTextFile>> Create(const std::string& path) {
    TFHOST_RETURN_IF_ERROR(CreateParentDirectories(path));
    size_t slash = path.rfind('/');
    std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
    std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    std::string temp = dir + "." + base + ".tmp-XXXXXX";
    int fd = ::mkstemp(temp.data());
    if (fd < 0) return Unavailable("cannot create a temporary file for '" + path + "': " + std::strerror(errno));
    ::fchmod(fd, 0644);
    FILE* f = ::fdopen(fd, "w");
    if (!f) {
      ::close(fd);
      ::unlink(temp.c_str());
      return Unavailable("fdopen failed for '" + path + "'");
    }
    return std::unique_ptr<AtomicTextFile>(new AtomicTextFile(path, temp, f));
  }
  ~AtomicTextFile() {
    if (file_) {
      std::fclose(file_);
      ::unlink(temp_.c_str());
    }
  }
  void Write(std::string_view s) { std::fwrite(s.data(), 1, s.size(), file_); }
  Status Close() {
    bool ok = std::fflush(file_) == 0 && ::fsync(::fileno(file_)) == 0;
    ok = (std::fclose(file_) == 0) && ok;
    file_ = nullptr;
    if (!ok || ::rename(temp_.c_str(), path_.c_str()) != 0) {
      ::unlink(temp_.c_str());
      return Unavailable("writing '" + path_ + "' failed: " + std::strerror(errno));
    }
    return OkStatus();
  }

 private:
  AtomicTextFile(std::string path, std::string temp, FILE* f) : path_(std::move(path)), temp_(std::move(temp)), file_(f) {}
  std::string path_, temp_;
  FILE* file_;
};

// Round-robin sharded TFRecord output.
class ShardedWriter {
 public:
  static StatusOr<std::unique_ptr<ShardedWriter>> Create(const std::string& prefix, int shards, Compression c) {
    if (shards < 1 || shards > 100000) {
      return InvalidArgument("--shards must be between 1 and 100000, got " + std::to_string(shards));
    }
    auto w = std::unique_ptr<ShardedWriter>(new ShardedWriter());
    TFRecordWriterOptions options;
    options.compression = c;
    for (int i = 0; i < shards; ++i) {
      std::string name = ShardName(prefix, i, shards, c);
      TFHOST_ASSIGN_OR_RETURN(auto writer, TFRecordWriter::Create(name, options));
      w->writers_.push_back(std::move(writer));
      w->names_.push_back(name);
    }
    return w;
  }
  Status Write(std::string_view record) {
    TFHOST_RETURN_IF_ERROR(writers_[next_]->Write(record));
    next_ = (next_ + 1) % writers_.size();
    ++records_;
    return OkStatus();
  }
  Status Close() {
    for (auto& w : writers_) TFHOST_RETURN_IF_ERROR(w->Close());
    return OkStatus();
  }
  int64_t records() const { return records_; }
  const std::vector<std::string>& names() const { return names_; }

 private:
  std::vector<std::unique_ptr<TFRecordWriter>> writers_;
  std::vector<std::string> names_;
  size_t next_ = 0;
  int64_t records_ = 0;
};

Status CsvToRecords(const std::string& path, const KindSchema* schema, ShardedWriter& out, const ProgressFn& progress,
                    std::vector<std::string>* warnings) {
  TFHOST_ASSIGN_OR_RETURN(CsvKinds inferred, InferCsvKinds(path, schema));
  const std::vector<FeatureKind>& kinds = inferred.kinds;
  warnings->insert(warnings->end(), inferred.warnings.begin(), inferred.warnings.end());
  TFHOST_ASSIGN_OR_RETURN(auto reader, CsvReader::Open(path));
  std::vector<CsvField> row;
  TFHOST_ASSIGN_OR_RETURN(bool got, reader->Next(&row));
  std::vector<std::string> header;
  for (auto& f : row) header.push_back(f.text);
  if (!got || header.size() != kinds.size()) return Internal("CSV header changed between passes in '" + path + "'");
  std::set<std::string> seen;
  for (const auto& h : header) {
    if (!seen.insert(h).second) return InvalidArgument("CSV file '" + path + "' names column '" + h + "' twice");
  }
  while (true) {
    TFHOST_ASSIGN_OR_RETURN(got, reader->Next(&row));
    if (!got) break;
    if (row.size() == 1 && row[0].text.empty() && !row[0].quoted) continue;
    TFHOST_ASSIGN_OR_RETURN(Example ex, CsvRowToExample(header, kinds, row, path, reader->line()));
    TFHOST_RETURN_IF_ERROR(out.Write(EncodeExample(ex)));
    if (progress && out.records() % 4096 == 0) progress(out.records());
  }
  return OkStatus();
}

Status JsonlToRecords(const std::string& path, const KindSchema* schema, ShardedWriter& out,
                      const ProgressFn& progress) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot open JSON Lines file '" + path + "'");
  std::string line;
  int64_t line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    auto record = RecordFromJson(line, schema);
    if (!record.ok()) return record.status().WithContext(path + ":" + std::to_string(line_no));
    TFHOST_RETURN_IF_ERROR(out.Write(record->is_sequence ? EncodeSequenceExample(record->sequence)
                                                         : EncodeExample(record->example)));
    if (progress && out.records() % 4096 == 0) progress(out.records());
  }
  return OkStatus();
}

// Calls fn(index, bytes) for every record of every input.
template <typename Fn>
Status ForEachRecord(const std::vector<std::string>& inputs, const TFRecordReaderOptions& options, Fn fn) {
  int64_t index = 0;
  for (const std::string& path : inputs) {
    TFHOST_ASSIGN_OR_RETURN(auto reader, TFRecordReader::Open(path, options));
    std::string_view record;
    while (true) {
      TFHOST_ASSIGN_OR_RETURN(bool got, reader->ReadView(&record));
      if (!got) break;
      Status s = fn(index, record);
      if (!s.ok()) return s.WithContext(path + " record " + std::to_string(reader->records_read() - 1));
      ++index;
    }
  }
  return OkStatus();
}

}  // namespace

std::string ShardName(const std::string& prefix, int index, int count, Compression compression) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "-%05d-of-%05d", index, count);
  std::string name = prefix + buf;
  if (compression == Compression::kGzip) name += ".gz";
  return name;
}

std::optional<TextFormat> TextFormatForPath(const std::string& path) {
  std::string p;
  for (char c : path) p.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (EndsWith(p, ".csv")) return TextFormat::kCsv;
  if (EndsWith(p, ".jsonl") || EndsWith(p, ".ndjson") || EndsWith(p, ".json")) return TextFormat::kJsonl;
  return std::nullopt;
}

StatusOr<ConvertStats> ConvertToTFRecords(const std::vector<std::string>& inputs, const std::string& prefix,
                                          const ToTFRecordOptions& options) {
  if (inputs.empty()) return InvalidArgument("no input files");
  for (const std::string& in : inputs) {
    if (!TextFormatForPath(in)) {
      return InvalidArgument("cannot tell the format of '" + in + "': expected .csv, .jsonl, .ndjson or .json");
    }
  }
  TFHOST_ASSIGN_OR_RETURN(auto out, ShardedWriter::Create(prefix, options.shards, options.compression));
  ConvertStats stats;
  for (const std::string& in : inputs) {
    if (*TextFormatForPath(in) == TextFormat::kCsv) {
      TFHOST_RETURN_IF_ERROR(CsvToRecords(in, options.schema, *out, options.progress, &stats.warnings));
    } else {
      TFHOST_RETURN_IF_ERROR(JsonlToRecords(in, options.schema, *out, options.progress));
    }
  }
  TFHOST_RETURN_IF_ERROR(out->Close());
  stats.records = out->records();
  stats.outputs = out->names();
  return stats;
}

StatusOr<ConvertStats> ConvertFromTFRecords(const std::vector<std::string>& inputs, const std::string& out_path,
                                            TextFormat format, const FromTFRecordOptions& options) {
  if (inputs.empty()) return InvalidArgument("no input files");
  ConvertStats stats;
  TFHOST_ASSIGN_OR_RETURN(auto out, AtomicTextFile::Create(out_path));
  std::string line;
  if (format == TextFormat::kJsonl) {
    TFHOST_RETURN_IF_ERROR(ForEachRecord(inputs, options.reader, [&](int64_t index, std::string_view bytes) {
      if (HasFeatureLists(bytes)) {
        TFHOST_ASSIGN_OR_RETURN(SequenceExample se, DecodeSequenceExample(bytes, index));
        line = SequenceExampleToJson(se);
      } else {
        TFHOST_ASSIGN_OR_RETURN(Example ex, DecodeExample(bytes, index));
        line = ExampleToJson(ex);
      }
      line.push_back('\n');
      out->Write(line);
      ++stats.records;
      if (options.progress && stats.records % 4096 == 0) options.progress(stats.records);
      return OkStatus();
    }));
    TFHOST_RETURN_IF_ERROR(out->Close());
    stats.outputs.push_back(out_path);
    return stats;
  }
  // CSV: a first pass finds the columns and their kinds.
  SchemaBuilder schema;
  TFHOST_RETURN_IF_ERROR(ForEachRecord(inputs, options.reader, [&](int64_t index, std::string_view bytes) {
    if (HasFeatureLists(bytes)) {
      return InvalidArgument("record " + std::to_string(index) +
                             " is a SequenceExample; CSV cannot hold feature lists (convert to JSON Lines)");
    }
    return schema.Add(bytes, index);
  }));
  Schema s = schema.Build();
  std::vector<std::string> columns;
  rapidjson::StringBuffer kinds_buf;
  rapidjson::Writer<rapidjson::StringBuffer> kinds_writer(kinds_buf);
  kinds_writer.StartObject();
  for (const auto& f : s.features) {
    if (f.mixed_kinds) {
      return InvalidArgument("feature '" + f.name + "' has different kinds in different records; CSV columns have one");
    }
    columns.push_back(f.name);
    if (f.kind == FeatureKind::kNone) continue;
    kinds_writer.Key(f.name.data(), static_cast<rapidjson::SizeType>(f.name.size()));
    kinds_writer.String(ops::parsing::FeatureKindName(f.kind));
  }
  kinds_writer.EndObject();
  std::string kinds_json = std::string(kinds_buf.GetString()) + "\n";
  for (size_t i = 0; i < columns.size(); ++i) {
    if (i) line.push_back(',');
    line += CsvCell(columns[i]);
  }
  line += "\n";
  out->Write(line);
  TFHOST_RETURN_IF_ERROR(ForEachRecord(inputs, options.reader, [&](int64_t index, std::string_view bytes) {
    TFHOST_ASSIGN_OR_RETURN(Example ex, DecodeExample(bytes, index));
    line.clear();
    for (size_t i = 0; i < columns.size(); ++i) {
      auto it = ex.features.find(columns[i]);
      TFHOST_ASSIGN_OR_RETURN(std::string cell,
                              FeatureToCsvCell(it == ex.features.end() ? nullptr : &it->second, columns[i], index));
      if (i) line.push_back(',');
      line += cell;
    }
    line.push_back('\n');
    out->Write(line);
    ++stats.records;
    if (options.progress && stats.records % 4096 == 0) options.progress(stats.records);
    return OkStatus();
  }));
  TFHOST_RETURN_IF_ERROR(out->Close());
  TFHOST_ASSIGN_OR_RETURN(auto schema_file, AtomicTextFile::Create(out_path + ".schema.json"));
  schema_file->Write(kinds_json);
  TFHOST_RETURN_IF_ERROR(schema_file->Close());
  stats.outputs = {out_path, out_path + ".schema.json"};
  return stats;
}

}  // namespace tfhost::data
