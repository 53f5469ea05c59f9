// `tfhost predict MODEL --input FILES... --output PREFIX`: offline batch
// prediction over TFRecord / JSON Lines files (docs/predict.md). The work
// itself is data::predict::RunPredict; this file parses the command line,
// loads the model and adapts its signature to the library.
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iostream>

#include "cli/cli.h"
#include "cli/command_util.h"
#include "cli/gpu_memory_flags.h"
#include "cli/trace_flag.h"
#include "data/predict/predict.h"

namespace tfhost::cli {
namespace {

namespace dp = data::predict;
using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

// `--input a b c` -> `--input a --input b --input c`, so FlagParser's
// repeated flag takes FILES... as the synopsis writes them.
std::vector<std::string> ExpandInputLists(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (size_t i = 0; i < args.size(); ++i) {
    out.push_back(args[i]);
    if (args[i] != "--input" && args[i] != "-i") continue;
    out.back() = "--input";
    bool first = true;
    while (i + 1 < args.size() && (first || args[i + 1].empty() || args[i + 1][0] != '-')) {
      if (!first) out.push_back("--input");
      out.push_back(args[++i]);
      first = false;
    }
  }
  return out;
}

std::vector<std::string> SplitList(const std::string& s) { return SplitTags(s); }

dp::SignatureInfo ToSignatureInfo(const runtime::Signature& s) {
  dp::SignatureInfo info;
  info.name = s.name;
  info.method_name = s.method_name;
  auto convert = [&](const runtime::TensorSpec& t) {
    dp::TensorInfo ti;
    ti.key = t.key;
    ti.tensor_name = t.tensor_name;
    ti.dtype = t.dtype;
    ti.shape = t.shape;
    ti.has_default = s.defaults.count(t.key) > 0;
    return ti;
  };
  for (const auto& t : s.inputs) info.inputs.push_back(convert(t));
  for (const auto& t : s.outputs) info.outputs.push_back(convert(t));
  return info;
}

void JsonString(JsonWriter& w, const std::string& s) { w.String(s.data(), static_cast<rapidjson::SizeType>(s.size())); }

std::string Percent(double share) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f%%", 100 * share);
  return buf;
}

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", digits, v);
  return buf;
}

}  // namespace

int PredictCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const std::string cmd = "predict";
  std::string path, signature = "serving_default", tags = "serve", output, format = "tfrecord", shard = "0/1";
  std::string outputs, keep, feed = "auto", output_compression = "none", input_compression = "auto", device = "cpu";
  std::string trace_path;
  std::vector<std::string> inputs;
  int batch = 64, threads = 0, parse_threads = 1, prefetch = 8;
  bool json = false, quiet = false, overwrite = false, no_sync = false;
  ModelLimitFlags limits;
  int max_decompressed_mb = kDefaultMaxDecompressedMb;
  FlagParser flags(
      "tfhost predict MODEL --input FILES... --output PREFIX [flags]",
      "Runs a signature over every record of TFRecord (tf.Example) or JSON Lines files and writes one\n"
      "result Example per record, in input order, to PREFIX-<unit>-of-<units> (one output per input\n"
      "file, or per record shard). Finished outputs are skipped, so a killed job resumes where it was.\n"
      "Serialized Examples feed signatures that take them (classify/regress); otherwise features feed\n"
      "the signature's inputs by name. See docs/predict.md.");
  AddModelPathFlag(flags, &path);
  AddDeviceFlag(flags, &device);
  GpuMemoryFlags gpu_memory;
  AddGpuMemoryFlags(flags, &gpu_memory);
  flags.AddRepeated("input", &inputs, "FILES...", "input files (TFRecord, or .jsonl/.ndjson/.json); globs allowed");
  flags.AddString("output", &output, "PREFIX", "output path prefix (its directory is created)");
  AddSignatureAndTagFlags(flags, &signature, &tags);
  flags.AddString("format", &format, "F", "output format: tfrecord (default) or jsonl");
  flags.AddInt("batch", &batch, "N", "records per run of the model (default 64)");
  flags.AddString("shard", &shard, "i/n", "this machine's part of the job, 0 <= i < n (default 0/1)");
  flags.AddInt("threads", &threads, "N", "intra-op threads of the model (default 0: one per hardware thread)");
  flags.AddInt("parse-threads", &parse_threads, "N", "threads turning records into tensors (default 1)");
  flags.AddInt("prefetch", &prefetch, "N", "prepared batches kept ready for the model (default 8)");
  flags.AddString("feed", &feed, "MODE", "auto (default), examples (serialized tf.Example) or features");
  flags.AddString("outputs", &outputs, "K,K", "output keys to write (default: all of the signature's)");
  flags.AddString("keep", &keep, "F,F", "input features copied into each result (an id, say)");
  flags.AddString("output-compression", &output_compression, "C",
                  "TFRecord outputs: none (default), gzip (names end in .gz), zlib");
  flags.AddString("input-compression", &input_compression, "C", "auto (default: detected), none, gzip, zlib");
  flags.AddBool("overwrite", &overwrite, "redo outputs that already exist (default: skip them)");
  flags.AddBool("no-sync", &no_sync, "do not fsync outputs (scratch runs only)");
  flags.AddBool("json", &json, "print one JSON summary for scripts");
  flags.AddBool("quiet", &quiet, "no progress line");
  AddTraceFlag(flags, &trace_path);
  AddModelLimitFlags(flags, &limits);
  AddDecompressedLimitFlag(flags, &max_decompressed_mb);
  if (int code = ParseOrExit(flags, ExpandInputLists(args), cmd, out, err); code >= 0) return code;
  if (Status st = CheckModelLimitFlags(limits); !st.ok()) return ReportUsage(err, cmd, st.message());
  if (Status st = CheckDecompressedLimitFlag(max_decompressed_mb); !st.ok()) return ReportUsage(err, cmd, st.message());

  dp::PredictOptions o;
  if (inputs.empty()) return ReportUsage(err, cmd, "no --input files given");
  if (output.empty()) return ReportUsage(err, cmd, "--output PREFIX is required");
  if (output.back() == '/') return ReportUsage(err, cmd, "--output is a prefix for file names, not a directory: '" + output + "'");
  if (batch < 1) return ReportUsage(err, cmd, "--batch must be at least 1");
  if (threads < 0) return ReportUsage(err, cmd, "--threads must be 0 or more");
  if (parse_threads < 1 || parse_threads > 256) return ReportUsage(err, cmd, "--parse-threads must be 1..256");
  if (prefetch < 1 || prefetch > 1024) return ReportUsage(err, cmd, "--prefetch must be 1..1024");
  auto fmt = dp::ParseOutputFormat(format);
  if (!fmt.ok()) return ReportUsage(err, cmd, fmt.status().message());
  auto sh = dp::ParseShardSpec(shard);
  if (!sh.ok()) return ReportUsage(err, cmd, sh.status().message());
  if (feed != "auto") {
    auto mode = dp::ParseFeedMode(feed);
    if (!mode.ok()) return ReportUsage(err, cmd, mode.status().message());
    o.feed_mode = *mode;
  }
  auto oc = data::ParseCompression(output_compression);
  if (!oc.ok()) return ReportUsage(err, cmd, oc.status().message());
  if (*oc != data::Compression::kNone && *fmt != dp::OutputFormat::kTFRecord) {
    return ReportUsage(err, cmd, "--output-compression applies to TFRecord outputs only");
  }
  if (input_compression != "auto") {
    auto ic = data::ParseCompression(input_compression);
    if (!ic.ok()) return ReportUsage(err, cmd, ic.status().message());
    o.reader.compression = *ic;
  }
  auto files = ExpandFileArguments(inputs);
  if (!files.ok()) return ReportFailure(err, cmd, files.status());

  o.inputs = std::move(*files);
  o.output_prefix = output;
  o.output_format = *fmt;
  o.output_compression = *oc;
  o.shard = *sh;
  o.batch_size = batch;
  o.parse_threads = parse_threads;
  o.prefetch_batches = prefetch;
  o.feed.outputs = SplitList(outputs);
  o.feed.keep_features = SplitList(keep);
  o.overwrite = overwrite;
  o.sync = !no_sync;
  o.reader.max_decompressed_bytes = DecompressedLimitBytes(max_decompressed_mb);

  auto backends = ApplyDeviceFlags(device, gpu_memory, cmd.c_str(), err);
  if (!backends.ok()) return ReportFlagStatus(err, cmd, backends.status());
  auto tracer = CliTrace::Start(trace_path, "tfhost predict");
  if (!tracer.ok()) return ReportFailure(err, cmd, tracer.status());
  CliLoad load;
  load.tags = tags;
  load.intra_op_threads = threads;
  load.backends = *backends;
  load.limits = limits;
  auto model_or = LoadModelForCli(path, load);
  if (!model_or.ok()) return ReportFailure(err, cmd, model_or.status());
  runtime::Model& model = **model_or;
  auto sig = model.FindSignature(signature);
  if (!sig.ok()) return ReportFailure(err, cmd, sig.status());
  const dp::SignatureInfo info = ToSignatureInfo(**sig);
  const std::vector<std::string> fetch = o.feed.outputs;
  dp::RunFn run = [&](const std::map<std::string, Tensor>& in) { return model.RunSignature(signature, in, fetch); };

  const bool show_progress = !json && !quiet && &out == &std::cout && ::isatty(STDOUT_FILENO);
  auto last = std::chrono::steady_clock::now();
  bool shown = false;
  if (show_progress) {
    o.on_progress = [&](const dp::PredictStats& s) {
      auto now = std::chrono::steady_clock::now();
      if (now - last < std::chrono::milliseconds(250)) return;
      last = now;
      shown = true;
      std::cerr << "\r\033[K" << s.records << " records, " << s.units_written << "/" << (s.shard_units - s.units_skipped)
                << " outputs, " << static_cast<int64_t>(s.records_per_second()) << " records/s, engine busy "
                << Percent(s.engine_busy_share()) << std::flush;
    };
  }
  auto stats = dp::RunPredict(info, run, o);
  if (shown) std::cerr << "\r\033[K" << std::flush;
  if (!stats.ok()) return ReportFailure(err, cmd, stats.status());
  if (Status st = FinishTrace(*tracer, err); !st.ok()) return ReportFailure(err, cmd, st);

  if (json) {
    rapidjson::StringBuffer sb;
    JsonWriter w(sb);
    w.StartObject();
    w.Key("model");
    JsonString(w, path);
    w.Key("signature");
    JsonString(w, signature);
    w.Key("feed");
    w.String(dp::FeedModeName(stats->feed_mode));
    w.Key("records");
    w.Int64(stats->records);
    w.Key("batches");
    w.Int64(stats->batches);
    w.Key("seconds");
    w.Double(stats->wall_seconds);
    w.Key("records_per_second");
    w.Double(stats->records_per_second());
    w.Key("engine_busy_share");
    w.Double(stats->engine_busy_share());
    w.Key("engine_input_wait_share");
    w.Double(stats->engine_input_wait_share());
    w.Key("engine_busy_seconds");
    w.Double(stats->engine_busy_seconds);
    w.Key("engine_input_wait_seconds");
    w.Double(stats->engine_input_wait_seconds);
    w.Key("engine_output_wait_seconds");
    w.Double(stats->engine_output_wait_seconds);
    w.Key("first_batch_wait_seconds");
    w.Double(stats->first_batch_wait_seconds);
    w.Key("reader_cpu_seconds");
    w.Double(stats->reader_cpu_seconds);
    w.Key("parse_cpu_seconds");
    w.Double(stats->parse_cpu_seconds);
    w.Key("writer_cpu_seconds");
    w.Double(stats->writer_cpu_seconds);
    w.Key("units_total");
    w.Int64(stats->total_units);
    w.Key("units_this_shard");
    w.Int64(stats->shard_units);
    w.Key("units_skipped");
    w.Int64(stats->units_skipped);
    w.Key("units_written");
    w.Int64(stats->units_written);
    w.Key("stale_temporaries_removed");
    w.Int64(stats->stale_temporaries_removed);
    w.Key("outputs_written");
    w.StartArray();
    for (const auto& p : stats->outputs_written) JsonString(w, p);
    w.EndArray();
    w.Key("outputs_skipped");
    w.StartArray();
    for (const auto& p : stats->outputs_skipped) JsonString(w, p);
    w.EndArray();
    w.EndObject();
    out << sb.GetString() << "\n";
    return kExitOk;
  }
  out << "predicted " << stats->records << " records (" << dp::FeedModeName(stats->feed_mode) << " -> '" << signature
      << "') into " << stats->units_written << " output(s)";
  if (stats->units_skipped > 0) out << "; " << stats->units_skipped << " output(s) already done, skipped";
  out << "\n";
  if (stats->records > 0) {
    out << Fixed(stats->wall_seconds, 3) << " s, " << Fixed(stats->records_per_second(), 0)
        << " records/s; engine busy " << Percent(stats->engine_busy_share()) << ", waited for input "
        << Percent(stats->engine_input_wait_share()) << " (" << Fixed(stats->first_batch_wait_seconds, 3)
        << " s of it for the first batch), for output " << Fixed(stats->engine_output_wait_seconds, 3) << " s\n";
    out << "CPU beside the engine: reading " << Fixed(stats->reader_cpu_seconds, 3) << " s, parsing "
        << Fixed(stats->parse_cpu_seconds, 3) << " s, writing " << Fixed(stats->writer_cpu_seconds, 3) << " s\n";
  }
  return kExitOk;
}

}  // namespace tfhost::cli
