// `tfhost data inspect|head|verify|convert|bench`: TFRecord files of
// tf.train.Example / SequenceExample from the command line (docs/data.md).
//
// FILES... are any number of paths (a quoted glob such as 'data/*.gz' is
// expanded here too). Long work shows a progress line on stderr only when
// stdout is a terminal; --quiet silences it and --json prints one JSON
// document for scripts.
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>

#include "cli/cli.h"
#include "cli/command_util.h"
#include "cli/limit_flags.h"
#include "cli/prediction_log_inspect.h"
#include "data/convert.h"
#include "data/example.h"
#include "data/example_json.h"
#include "data/image_folder.h"
#include "data/schema.h"
#include "data/tfrecord_reader.h"
#include "data/throughput.h"

namespace tfhost::cli {
namespace {

using data::TFRecordReader;
using data::TFRecordReaderOptions;
using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

// Splits FILES... from flags. `value_flags` take a value (as "--f v" or
// "--f=v"); everything else starting with '-' is a boolean flag.
void SplitFiles(const std::vector<std::string>& args, const std::set<std::string>& value_flags,
                std::vector<std::string>* files, std::vector<std::string>* flag_args) {
  bool flags_done = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (!flags_done && a == "--") {
      flags_done = true;
      continue;
    }
    if (flags_done || a.size() < 2 || a[0] != '-') {
      files->push_back(a);
      continue;
    }
    flag_args->push_back(a);
    std::string name = a.substr(a[1] == '-' ? 2 : 1);
    if (name.find('=') == std::string::npos && value_flags.count(name) && i + 1 < args.size()) {
      flag_args->push_back(args[++i]);
    }
  }
}

// Progress on stderr, only for a terminal stdout and not under --quiet/--json.
class Progress {
 public:
  Progress(std::ostream& out, bool enabled)
      : enabled_(enabled && &out == &std::cout && ::isatty(STDOUT_FILENO)), start_(Clock::now()), last_(start_) {}
  void Update(const std::string& what) {
    if (!enabled_) return;
    auto now = Clock::now();
    if (now - last_ < std::chrono::milliseconds(250)) return;
    last_ = now;
    std::cerr << "\r\033[K" << what << std::flush;
    shown_ = true;
  }
  void Done() {
    if (shown_) std::cerr << "\r\033[K" << std::flush;
  }

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_;
  Clock::time_point start_, last_;
  bool shown_ = false;
};

std::string HumanBytes(double b) {
  const char* units[] = {"B", "KB", "MB", "GB", "TB"};
  int u = 0;
  while (b >= 1000 && u < 4) {
    b /= 1000;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), u == 0 ? "%.0f %s" : "%.1f %s", b, units[u]);
  return buf;
}

void JsonString(JsonWriter& w, const std::string& s) { w.String(s.data(), static_cast<rapidjson::SizeType>(s.size())); }

StatusOr<TFRecordReaderOptions> ReaderOptions(const std::string& compression, int max_decompressed_mb) {
  TFRecordReaderOptions options;
  TFHOST_RETURN_IF_ERROR(CheckDecompressedLimitFlag(max_decompressed_mb));
  options.max_decompressed_bytes = DecompressedLimitBytes(max_decompressed_mb);
  if (!compression.empty() && compression != "auto") {
    TFHOST_ASSIGN_OR_RETURN(data::Compression c, data::ParseCompression(compression));
    options.compression = c;
  }
  return options;
}

// Common shape of every subcommand: flags, FILES..., then the work.
struct Parsed {
  std::vector<std::string> files;
  int exit_code = -1;  // >= 0: return it now
};

Parsed ParseCommand(FlagParser& flags, const std::vector<std::string>& args, const std::set<std::string>& value_flags,
                    const std::string& command, bool need_files, std::ostream& out, std::ostream& err) {
  Parsed p;
  std::vector<std::string> raw_files, flag_args;
  SplitFiles(args, value_flags, &raw_files, &flag_args);
  p.exit_code = ParseOrExit(flags, flag_args, command, out, err);
  if (p.exit_code >= 0) return p;
  if (need_files && raw_files.empty()) {
    p.exit_code = ReportUsage(err, command, "no input files given");
    return p;
  }
  auto expanded = ExpandFileArguments(raw_files);
  if (!expanded.ok()) {
    p.exit_code = ReportFailure(err, command, expanded.status());
    return p;
  }
  p.files = std::move(*expanded);
  return p;
}

// --- inspect ------------------------------------------------------------------

int Inspect(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const std::string cmd = "data inspect";
  FlagParser flags("tfhost data inspect FILES... [flags]",
                   "Counts records and bytes per TFRecord file and infers the feature schema of their\n"
                   "tf.train.Example / SequenceExample records (kind, presence, values per record, range).\n"
                   "Files of tensorflow.serving.PredictionLog (request logs, warm-up files) are summarised\n"
                   "per log type and per model, version and signature instead.");
  bool json = false, quiet = false;
  std::string compression;
  flags.AddBool("json", &json, "print one JSON document");
  flags.AddBool("quiet", &quiet, "no progress line");
  flags.AddString("compression", &compression, "C", "auto (default: from magic/extension), none, zlib or gzip");
  int max_decompressed_mb = kDefaultMaxDecompressedMb;
  AddDecompressedLimitFlag(flags, &max_decompressed_mb);
  Parsed p = ParseCommand(flags, args, {"compression", "max_decompressed_mb"}, cmd, true, out, err);
  if (p.exit_code >= 0) return p.exit_code;
  auto options = ReaderOptions(compression, max_decompressed_mb);
  if (!options.ok()) return ReportUsage(err, cmd, options.status().message());

  struct FileInfo {
    std::string path, compression;
    int64_t records = 0;
    uint64_t file_bytes = 0, record_bytes = 0;
  };
  std::vector<FileInfo> infos;
  data::SchemaBuilder schema;
  // Request logs and warm-up files hold PredictionLogs, not Examples; the
  // first record decides for all.
  std::optional<bool> prediction_logs;
  PredictionLogSummary logs;
  Progress progress(out, !json && !quiet);
  int64_t index = 0;
  for (const std::string& path : p.files) {
    auto reader = TFRecordReader::Open(path, *options);
    if (!reader.ok()) return ReportFailure(err, cmd, reader.status());
    FileInfo info;
    info.path = path;
    info.compression = data::CompressionName((*reader)->compression());
    std::string_view record;
    while (true) {
      auto got = (*reader)->ReadView(&record);
      if (!got.ok()) return ReportFailure(err, cmd, got.status());
      if (!*got) break;
      ++info.records;
      info.record_bytes += record.size();
      if (!prediction_logs) prediction_logs = LooksLikePredictionLog(record);
      Status s = *prediction_logs ? logs.Add(record, index++) : schema.Add(record, index++);
      if (!s.ok()) return ReportFailure(err, cmd, s.WithContext(path + " record " + std::to_string(info.records - 1)));
      if (info.records % 1024 == 0) progress.Update(path + ": " + std::to_string(info.records) + " records");
    }
    info.file_bytes = (*reader)->raw_bytes_consumed();
    infos.push_back(info);
  }
  progress.Done();
  data::Schema s = schema.Build();
  int64_t records = 0;
  uint64_t file_bytes = 0, record_bytes = 0;
  for (const auto& i : infos) {
    records += i.records;
    file_bytes += i.file_bytes;
    record_bytes += i.record_bytes;
  }
  if (json) {
    rapidjson::StringBuffer buf;
    JsonWriter w(buf);
    w.StartObject();
    w.Key("files");
    w.StartArray();
    for (const auto& i : infos) {
      w.StartObject();
      w.Key("path");
      JsonString(w, i.path);
      w.Key("compression");
      JsonString(w, i.compression);
      w.Key("records");
      w.Int64(i.records);
      w.Key("file_bytes");
      w.Uint64(i.file_bytes);
      w.Key("record_bytes");
      w.Uint64(i.record_bytes);
      w.EndObject();
    }
    w.EndArray();
    w.Key("records");
    w.Int64(records);
    w.Key("file_bytes");
    w.Uint64(file_bytes);
    w.Key("record_bytes");
    w.Uint64(record_bytes);
    w.Key(prediction_logs.value_or(false) ? "prediction_logs" : "schema");
    std::string schema_json = prediction_logs.value_or(false) ? logs.ToJson() : s.ToJson();
    w.RawValue(schema_json.data(), schema_json.size(), rapidjson::kObjectType);
    w.EndObject();
    out << buf.GetString() << "\n";
    return kExitOk;
  }
  for (const auto& i : infos) {
    out << i.path << "  " << i.compression << "  " << HumanBytes(static_cast<double>(i.file_bytes)) << "  "
        << i.records << " records  " << HumanBytes(static_cast<double>(i.record_bytes)) << " of records\n";
  }
  out << "total: " << infos.size() << " file(s), " << records << " records, "
      << HumanBytes(static_cast<double>(file_bytes)) << " on disk, " << HumanBytes(static_cast<double>(record_bytes))
      << " of records; kind " << (prediction_logs.value_or(false) ? "PredictionLog" : data::RecordKindName(s.kind))
      << "\n\n";
  if (prediction_logs.value_or(false)) {
    logs.Print(out);
    return kExitOk;
  }
  size_t width = 7;
  for (const auto& f : s.features) width = std::max(width, f.name.size() + (f.sequence ? 2 : 0));
  char line[512];
  std::snprintf(line, sizeof(line), "%-*s  %-6s  %8s  %-13s  %s\n", static_cast<int>(width), "feature", "kind",
                "presence", "values/record", "range");
  out << line;
  for (const auto& f : s.features) {
    std::string name = f.sequence ? f.name + " []" : f.name;
    std::string kind = ops::parsing::FeatureKindName(f.kind);
    if (f.mixed_kinds) kind += "*";
    std::string counts = std::to_string(f.min_values) + ".." + std::to_string(f.max_values);
    std::string range;
    if (f.has_range && f.int_range) {
      // Whole int64s in full: ids and timestamps are unreadable as 1.70318e+10.
      range = "[" + std::to_string(f.min_int) + ", " + std::to_string(f.max_int) + "]";
    } else if (f.has_range) {
      char r[96];
      std::snprintf(r, sizeof(r), "[%.6g, %.6g]", f.min_value, f.max_value);
      range = r;
    }
    if (f.sequence) range += " steps " + std::to_string(f.min_steps) + ".." + std::to_string(f.max_steps);
    double presence = s.records ? 100.0 * static_cast<double>(f.present) / static_cast<double>(s.records) : 0;
    std::snprintf(line, sizeof(line), "%-*s  %-6s  %7.1f%%  %-13s  %s", static_cast<int>(width), name.c_str(),
                  kind.c_str(), presence, counts.c_str(), range.c_str());
    // Rows without a range would end in padding, which editors strip from
    // pasted output (docs/data.md is compared with this output).
    std::string row = line;
    row.erase(row.find_last_not_of(' ') + 1);
    out << row << "\n";
  }
  if (std::any_of(s.features.begin(), s.features.end(), [](const auto& f) { return f.mixed_kinds; })) {
    out << "(* the feature has different kinds in different records)\n";
  }
  return kExitOk;
}

// --- head ---------------------------------------------------------------------

int Head(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const std::string cmd = "data head";
  FlagParser flags("tfhost data head FILES... [-n N] [--json]",
                   "Prints the first N records decoded as Examples / SequenceExamples (PredictionLogs, as\n"
                   "request logs and warm-up files hold, as their protobuf JSON).");
  int n = 5;
  bool json = false;
  std::string compression;
  flags.AddInt("n", &n, "N", "records to print across all files (default 5)");
  flags.AddBool("json", &json, "one JSON object per line, in the lossless form `convert` reads back");
  flags.AddString("compression", &compression, "C", "auto (default), none, zlib or gzip");
  int max_decompressed_mb = kDefaultMaxDecompressedMb;
  AddDecompressedLimitFlag(flags, &max_decompressed_mb);
  Parsed p = ParseCommand(flags, args, {"n", "compression", "max_decompressed_mb"}, cmd, true, out, err);
  if (p.exit_code >= 0) return p.exit_code;
  if (n < 0) return ReportUsage(err, cmd, "-n must be >= 0");
  auto options = ReaderOptions(compression, max_decompressed_mb);
  if (!options.ok()) return ReportUsage(err, cmd, options.status().message());
  int printed = 0;
  for (const std::string& path : p.files) {
    if (printed >= n) break;
    auto reader = TFRecordReader::Open(path, *options);
    if (!reader.ok()) return ReportFailure(err, cmd, reader.status());
    std::string_view record;
    while (printed < n) {
      auto got = (*reader)->ReadView(&record);
      if (!got.ok()) return ReportFailure(err, cmd, got.status());
      if (!*got) break;
      int64_t index = (*reader)->records_read() - 1;
      std::string text;
      if (LooksLikePredictionLog(record)) {
        auto log = PredictionLogToJson(record, index);
        if (!log.ok()) return ReportFailure(err, cmd, log.status().WithContext(path));
        text = *log;
      } else if (data::HasFeatureLists(record)) {
        auto se = data::DecodeSequenceExample(record, index);
        if (!se.ok()) return ReportFailure(err, cmd, se.status().WithContext(path));
        text = data::SequenceExampleToJson(*se);
      } else {
        auto ex = data::DecodeExample(record, index);
        if (!ex.ok()) return ReportFailure(err, cmd, ex.status().WithContext(path));
        text = data::ExampleToJson(*ex);
      }
      if (json) {
        out << text << "\n";
      } else {
        out << "# " << path << " record " << index << " (" << record.size() << " bytes)\n" << text << "\n";
      }
      ++printed;
    }
  }
  return kExitOk;
}

// --- verify -------------------------------------------------------------------

int Verify(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const std::string cmd = "data verify";
  FlagParser flags("tfhost data verify FILES... [flags]",
                   "Checks every length and data CRC (and the compressed stream) of every record.\n"
                   "Exits 1 and lists each bad record (file, byte offset, record index) when any fail.");
  bool json = false, quiet = false;
  std::string compression;
  flags.AddBool("json", &json, "print one JSON document");
  flags.AddBool("quiet", &quiet, "only the summary and problems");
  flags.AddString("compression", &compression, "C", "auto (default), none, zlib or gzip");
  int max_decompressed_mb = kDefaultMaxDecompressedMb;
  AddDecompressedLimitFlag(flags, &max_decompressed_mb);
  Parsed p = ParseCommand(flags, args, {"compression", "max_decompressed_mb"}, cmd, true, out, err);
  if (p.exit_code >= 0) return p.exit_code;
  auto options = ReaderOptions(compression, max_decompressed_mb);
  if (!options.ok()) return ReportUsage(err, cmd, options.status().message());
  options->policy = data::CorruptionPolicy::kSkip;  // keep going to list every bad record

  rapidjson::StringBuffer buf;
  JsonWriter w(buf);
  w.StartObject();
  w.Key("files");
  w.StartArray();
  Progress progress(out, !json && !quiet);
  int64_t total_records = 0, total_bad = 0;
  bool any_error = false;
  for (const std::string& path : p.files) {
    auto reader = TFRecordReader::Open(path, *options);
    std::string open_error;
    int64_t records = 0;
    std::vector<data::Corruption> bad;
    int64_t bad_count = 0;
    if (!reader.ok()) {
      open_error = reader.status().message();
    } else {
      std::string_view record;
      while (true) {
        auto got = (*reader)->ReadView(&record);
        if (!got.ok()) {
          open_error = got.status().message();
          break;
        }
        if (!*got) break;
        if (++records % 4096 == 0) progress.Update(path + ": " + std::to_string(records) + " records");
      }
      bad = (*reader)->corruptions();
      bad_count = (*reader)->corruption_count();
    }
    total_records += records;
    total_bad += bad_count;
    any_error = any_error || !open_error.empty() || bad_count > 0;
    progress.Done();
    if (json) {
      w.StartObject();
      w.Key("path");
      JsonString(w, path);
      w.Key("records");
      w.Int64(records);
      w.Key("ok");
      w.Bool(open_error.empty() && bad_count == 0);
      if (!open_error.empty()) {
        w.Key("error");
        JsonString(w, open_error);
      }
      w.Key("corruptions");
      w.StartArray();
      for (const auto& c : bad) {
        w.StartObject();
        w.Key("offset");
        w.Uint64(c.offset);
        w.Key("record_index");
        w.Int64(c.record_index);
        w.Key("skipped_bytes");
        w.Uint64(c.skipped_bytes);
        w.Key("what");
        JsonString(w, c.what);
        w.EndObject();
      }
      w.EndArray();
      w.EndObject();
      continue;
    }
    if (!open_error.empty()) {
      out << "FAIL " << path << ": " << open_error << "\n";
    } else if (bad_count > 0) {
      out << "FAIL " << path << ": " << bad_count << " corrupt region(s), " << records << " good records\n";
      for (const auto& c : bad) out << "  " << c.ToString() << " [" << c.skipped_bytes << " bytes skipped]\n";
      if (bad_count > static_cast<int64_t>(bad.size())) out << "  ... and " << bad_count - bad.size() << " more\n";
    } else if (!quiet) {
      out << "ok   " << path << ": " << records << " records\n";
    }
  }
  w.EndArray();
  w.Key("records");
  w.Int64(total_records);
  w.Key("corruptions");
  w.Int64(total_bad);
  w.Key("ok");
  w.Bool(!any_error);
  w.EndObject();
  if (json) {
    out << buf.GetString() << "\n";
  } else {
    out << (any_error ? "FAILED: " : "OK: ") << p.files.size() << " file(s), " << total_records << " good records, "
        << total_bad << " corrupt region(s)\n";
  }
  return any_error ? kExitFailure : kExitOk;
}

// --- convert ------------------------------------------------------------------

int Convert(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const std::string cmd = "data convert";
  FlagParser flags(
      "tfhost data convert INPUTS... --out PREFIX|FILE [flags]",
      "CSV (header row) and JSON Lines -> sharded TFRecords PREFIX-00000-of-0000N (.gz added for gzip) of\n"
      "tf.train.Example (SequenceExample for JSON lines with feature_lists); or TFRecords -> one JSON Lines\n"
      "or CSV file. Missing folders above the outputs are created.\n"
      "The direction follows the inputs: .csv/.jsonl/.ndjson/.json files are text, anything else TFRecord.\n"
      "CSV: kinds inferred per column (int64, float, bytes) unless --schema names them; empty cells are\n"
      "absent features. CSV output also writes FILE.schema.json for the way back.\n"
      "A directory input is an image folder (one subfolder per class) -> Examples with image/encoded,\n"
      "image/format, image/class/label, image/class/text, image/filename, image/height, image/width;\n"
      "--format images writes such TFRecords back into the folder --out.");
  std::string out_path, compression = "none", schema_path, format, in_compression;
  int shards = 1;
  bool quiet = false, json = false;
  flags.AddString("out", &out_path, "PATH", "output prefix (to TFRecord) or file (to text)");
  flags.AddInt("shards", &shards, "N", "TFRecord shards to write (default 1)");
  flags.AddString("compression", &compression, "C", "TFRecord output compression: none (default), gzip or zlib");
  flags.AddString("schema", &schema_path, "FILE", "JSON kinds {\"name\": \"int64|float|bytes\"} or inspect --json output");
  flags.AddString("format", &format, "F",
                  "output format from TFRecords: jsonl, csv or images (default: from --out's extension)");
  flags.AddString("input-compression", &in_compression, "C", "TFRecord input compression: auto (default), none, zlib, gzip");
  flags.AddBool("quiet", &quiet, "no progress line");
  flags.AddBool("json", &json, "print the result as JSON");
  int max_decompressed_mb = kDefaultMaxDecompressedMb;
  AddDecompressedLimitFlag(flags, &max_decompressed_mb);
  Parsed p = ParseCommand(
      flags, args, {"out", "shards", "compression", "schema", "format", "input-compression", "max_decompressed_mb"},
      cmd, true, out, err);
  if (p.exit_code >= 0) return p.exit_code;
  if (out_path.empty()) return ReportUsage(err, cmd, "--out is required");
  size_t dirs = 0;
  for (const auto& f : p.files) dirs += data::IsDirectory(f);
  if (dirs > 0) {
    if (dirs != p.files.size() || dirs > 1) {
      return ReportUsage(err, cmd, "an image folder is converted on its own: pass one directory and nothing else");
    }
    data::ImageFolderOptions options;
    options.shards = shards;
    auto c = data::ParseCompression(compression);
    if (!c.ok()) return ReportUsage(err, cmd, c.status().message());
    options.compression = *c;
    auto stats = data::ImageFolderToTFRecords(p.files[0], out_path, options);
    if (!stats.ok()) return ReportFailure(err, cmd, stats.status());
    if (json) {
      rapidjson::StringBuffer buf;
      JsonWriter w(buf);
      w.StartObject();
      w.Key("records");
      w.Int64(stats->records);
      w.Key("classes");
      w.StartArray();
      for (const auto& c : stats->classes) JsonString(w, c);
      w.EndArray();
      w.Key("outputs");
      w.StartArray();
      for (const auto& o : stats->outputs) JsonString(w, o);
      w.EndArray();
      w.Key("skipped");
      w.StartArray();
      for (const auto& o : stats->skipped) JsonString(w, o);
      w.EndArray();
      w.EndObject();
      out << buf.GetString() << "\n";
    } else if (!quiet) {
      out << "wrote " << stats->records << " images of " << stats->classes.size() << " classes to";
      for (const auto& o : stats->outputs) out << " " << o;
      out << "\n";
      if (!stats->skipped.empty()) out << "skipped " << stats->skipped.size() << " entries that are not images\n";
    }
    return kExitOk;
  }
  if (format == "images") {
    auto reader = ReaderOptions(in_compression, max_decompressed_mb);
    if (!reader.ok()) return ReportUsage(err, cmd, reader.status().message());
    auto n = data::TFRecordsToImageFolder(p.files, out_path, *reader);
    if (!n.ok()) return ReportFailure(err, cmd, n.status());
    if (json) {
      out << "{\"records\":" << *n << "}\n";
    } else if (!quiet) {
      out << "wrote " << *n << " images under " << out_path << "\n";
    }
    return kExitOk;
  }
  size_t text_inputs = 0;
  for (const auto& f : p.files) text_inputs += data::TextFormatForPath(f).has_value();
  if (text_inputs != 0 && text_inputs != p.files.size()) {
    return ReportUsage(err, cmd, "inputs mix text (.csv/.jsonl) and TFRecord files; convert them separately");
  }
  Progress progress(out, !quiet && !json);
  auto on_progress = [&](int64_t n) { progress.Update(std::to_string(n) + " records"); };
  StatusOr<data::ConvertStats> stats = Status(StatusCode::kInternal, "unset");
  if (text_inputs > 0) {
    data::ToTFRecordOptions options;
    options.shards = shards;
    auto c = data::ParseCompression(compression);
    if (!c.ok()) return ReportUsage(err, cmd, c.status().message());
    options.compression = *c;
    data::KindSchema kinds;
    if (!schema_path.empty()) {
      std::ifstream f(schema_path, std::ios::binary);
      if (!f) return ReportFailure(err, cmd, NotFound("cannot open schema file '" + schema_path + "'"));
      std::string text((std::istreambuf_iterator<char>(f)), {});
      auto parsed = data::ParseSchemaKinds(text);
      if (!parsed.ok()) return ReportFailure(err, cmd, parsed.status().WithContext(schema_path));
      kinds = *parsed;
      options.schema = &kinds;
    }
    options.progress = on_progress;
    stats = data::ConvertToTFRecords(p.files, out_path, options);
  } else {
    std::optional<data::TextFormat> fmt;
    if (format == "jsonl" || format == "json") {
      fmt = data::TextFormat::kJsonl;
    } else if (format == "csv") {
      fmt = data::TextFormat::kCsv;
    } else if (!format.empty()) {
      return ReportUsage(err, cmd, "--format must be jsonl or csv, got '" + format + "'");
    } else {
      fmt = data::TextFormatForPath(out_path);
      if (!fmt) return ReportUsage(err, cmd, "cannot tell the output format from '" + out_path + "'; pass --format");
    }
    data::FromTFRecordOptions options;
    auto reader = ReaderOptions(in_compression, max_decompressed_mb);
    if (!reader.ok()) return ReportUsage(err, cmd, reader.status().message());
    options.reader = *reader;
    options.progress = on_progress;
    stats = data::ConvertFromTFRecords(p.files, out_path, *fmt, options);
  }
  progress.Done();
  if (!stats.ok()) return ReportFailure(err, cmd, stats.status());
  // Not silenced by --quiet or --json: they say the output lost information.
  for (const auto& warning : stats->warnings) err << "tfhost " << cmd << ": warning: " << warning << "\n";
  if (json) {
    rapidjson::StringBuffer buf;
    JsonWriter w(buf);
    w.StartObject();
    w.Key("records");
    w.Int64(stats->records);
    w.Key("outputs");
    w.StartArray();
    for (const auto& o : stats->outputs) JsonString(w, o);
    w.EndArray();
    w.Key("warnings");
    w.StartArray();
    for (const auto& warning : stats->warnings) JsonString(w, warning);
    w.EndArray();
    w.EndObject();
    out << buf.GetString() << "\n";
  } else if (!quiet) {
    out << "wrote " << stats->records << " records to";
    for (const auto& o : stats->outputs) out << " " << o;
    out << "\n";
  }
  return kExitOk;
}

// --- bench --------------------------------------------------------------------

int Bench(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const std::string cmd = "data bench";
  FlagParser flags("tfhost data bench FILES... [--threads N] [--repeat R] [--json]",
                   "Measures records/s and MB/s for read+verify and read+verify+parse next to the raw read\n"
                   "bandwidth of the same files in the same run, and the fast Example decoder against\n"
                   "libprotobuf's parse of the same records in memory. Each figure is the best of R rounds;\n"
                   "each round runs every mode once, so load that comes and goes hits all modes alike.\n"
                   "read+verify (read-ahead) adds one helper thread per reading thread that read()s ahead\n"
                   "while the reader checks CRCs; CPU columns count every thread of the process.");
  int threads = 1, repeat = 3;
  bool json = false;
  flags.AddInt("threads", &threads, "N", "threads; each reads whole files (default 1)");
  flags.AddInt("repeat", &repeat, "R", "rounds, each running every mode once; best kept (default 3)");
  flags.AddBool("json", &json, "print JSON");
  Parsed p = ParseCommand(flags, args, {"threads", "repeat"}, cmd, true, out, err);
  if (p.exit_code >= 0) return p.exit_code;
  if (threads < 1 || threads > 1024) return ReportUsage(err, cmd, "--threads must be in 1..1024");
  if (repeat < 1 || repeat > 1000) return ReportUsage(err, cmd, "--repeat must be in 1..1000");
  data::BenchOptions options;
  options.threads = threads;
  options.repeat = repeat;
  // One untimed pass brings the files into the page cache.
  if (auto warm = data::MeasureThroughput(p.files, data::BenchMode::kRawRead, {1, 1}); !warm.ok()) {
    return ReportFailure(err, cmd, warm.status());
  }
  // Rounds alternate the modes, so ratios hold while load comes and goes.
  // Read-ahead comes last so that results[0..5] keep their meaning.
  auto measured = data::MeasureInterleaved(
      p.files,
      {data::BenchMode::kRawRead, data::BenchMode::kReadVerify, data::BenchMode::kReadVerifyMmap,
       data::BenchMode::kReadParse, data::BenchMode::kDecodeFast, data::BenchMode::kDecodeProtobuf,
       data::BenchMode::kReadVerifyReadAhead},
      options);
  if (!measured.ok()) return ReportFailure(err, cmd, measured.status());
  const std::vector<data::ThroughputResult>& results = *measured;
  double raw = results[0].file_mb_per_s();
  double raw_cpu = results[0].cpu_file_mb_per_s();
  double fast = results[4].records_per_s(), proto = results[5].records_per_s();
  if (json) {
    rapidjson::StringBuffer buf;
    JsonWriter w(buf);
    w.StartObject();
    w.Key("files");
    w.Int(static_cast<int>(p.files.size()));
    w.Key("threads");
    w.Int(threads);
    w.Key("results");
    w.StartArray();
    for (const auto& r : results) {
      w.StartObject();
      w.Key("mode");
      w.String(data::BenchModeName(r.mode));
      w.Key("records");
      w.Int64(r.records);
      w.Key("seconds");
      w.Double(r.seconds);
      w.Key("records_per_s");
      w.Double(r.records_per_s());
      w.Key("file_mb_per_s");
      w.Double(r.file_mb_per_s());
      w.Key("record_mb_per_s");
      w.Double(r.record_mb_per_s());
      w.Key("cpu_seconds");
      w.Double(r.cpu_seconds);
      w.Key("cpu_file_mb_per_s");
      w.Double(r.cpu_file_mb_per_s());
      w.Key("reader_cpu_file_mb_per_s");
      w.Double(r.reader_cpu_file_mb_per_s());
      w.EndObject();
    }
    w.EndArray();
    w.Key("verify_vs_raw");
    w.Double(raw > 0 ? results[1].file_mb_per_s() / raw : 0);
    w.Key("verify_mmap_vs_raw");
    w.Double(raw > 0 ? results[2].file_mb_per_s() / raw : 0);
    w.Key("verify_vs_raw_cpu");
    w.Double(raw_cpu > 0 ? results[1].cpu_file_mb_per_s() / raw_cpu : 0);
    w.Key("verify_read_ahead_vs_raw");
    w.Double(raw > 0 ? results[6].file_mb_per_s() / raw : 0);
    w.Key("verify_read_ahead_vs_raw_cpu");
    w.Double(raw_cpu > 0 ? results[6].cpu_file_mb_per_s() / raw_cpu : 0);
    w.Key("fast_decoder_vs_libprotobuf");
    w.Double(proto > 0 ? fast / proto : 0);
    w.EndObject();
    out << buf.GetString() << "\n";
    return kExitOk;
  }
  out << p.files.size() << " file(s), " << results[1].records << " records, "
      << HumanBytes(static_cast<double>(results[0].file_bytes)) << " on disk, "
      << HumanBytes(static_cast<double>(results[1].record_bytes)) << " of records; threads " << threads
      << ", best of " << repeat << "\n";
  char line[256];
  std::snprintf(line, sizeof(line), "%-32s %14s %12s %14s %10s %14s %12s\n", "mode", "records/s", "file MB/s",
                "record MB/s", "vs raw", "file MB/CPU-s", "vs raw CPU");
  out << line;
  for (const auto& r : results) {
    bool file_based = r.mode != data::BenchMode::kDecodeFast && r.mode != data::BenchMode::kDecodeProtobuf;
    std::string ratio = "";
    if (file_based && raw > 0) {
      char b[32];
      std::snprintf(b, sizeof(b), "%.0f%%", 100.0 * r.file_mb_per_s() / raw);
      ratio = b;
    }
    std::string cpu_ratio = "";
    if (file_based && raw_cpu > 0) {
      char b[32];
      std::snprintf(b, sizeof(b), "%.0f%%", 100.0 * r.cpu_file_mb_per_s() / raw_cpu);
      cpu_ratio = b;
    }
    std::string rps = r.mode == data::BenchMode::kRawRead ? "-" : std::to_string(static_cast<int64_t>(r.records_per_s()));
    std::snprintf(line, sizeof(line), "%-32s %14s %12.1f %14.1f %10s %14.1f %12s\n", data::BenchModeName(r.mode),
                  rps.c_str(), file_based ? r.file_mb_per_s() : 0.0, r.record_mb_per_s(), ratio.c_str(),
                  file_based ? r.cpu_file_mb_per_s() : 0.0, cpu_ratio.c_str());
    out << line;
  }
  std::snprintf(line, sizeof(line), "fast decoder vs libprotobuf: %.2fx\n", proto > 0 ? fast / proto : 0.0);
  out << line;
  // The wall-time ceiling of read-ahead where every helper has a free core:
  // the verifying threads' own CPU time.
  std::snprintf(line, sizeof(line),
                "read-ahead: verifying threads alone %.1f file MB/CPU-s, %.0f%% of raw read (its wall ceiling with a "
                "free core per helper)\n",
                results[6].reader_cpu_file_mb_per_s(),
                raw_cpu > 0 ? 100.0 * results[6].reader_cpu_file_mb_per_s() / raw_cpu : 0.0);
  out << line;
  return kExitOk;
}

std::string DataHelp() {
  return "Usage: tfhost data <inspect|head|verify|convert|bench> [args]\n\n"
         "TFRecord files of tf.train.Example / SequenceExample (uncompressed, GZIP or ZLIB).\n\n"
         "  inspect FILES...        record counts, sizes and the inferred feature schema\n"
         "  head FILES... [-n N]    the first records as JSON\n"
         "  verify FILES...         check every CRC; exit 1 listing bad records\n"
         "  convert INPUTS... --out P  CSV/JSON Lines <-> sharded TFRecords\n"
         "  bench FILES...          read/verify/parse throughput vs raw read bandwidth\n"
         "  cache warm|status|evict local cache of S3 / network datasets (docs/data_cache.md)\n\n"
         "Run 'tfhost data <subcommand> --help' for its flags.\n";
}

}  // namespace

// `tfhost data cache ...` (data_cache_command.cc).
int DataCacheCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

int DataCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty()) {
    err << DataHelp();
    return kExitUsage;
  }
  const std::string& sub = args[0];
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (sub == "--help" || sub == "-h" || sub == "help") {
    out << DataHelp();
    return kExitOk;
  }
  if (sub == "inspect") return Inspect(rest, out, err);
  if (sub == "head") return Head(rest, out, err);
  if (sub == "verify") return Verify(rest, out, err);
  if (sub == "convert") return Convert(rest, out, err);
  if (sub == "bench") return Bench(rest, out, err);
  if (sub == "cache") return DataCacheCommand(rest, out, err);
  err << "tfhost data: unknown subcommand '" << sub << "'\n" << DataHelp();
  return kExitUsage;
}

}  // namespace tfhost::cli
