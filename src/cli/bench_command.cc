// `tfhost bench PATH [--batch 1,8] [--threads 1,2] [--runs N] [--warmup N]`:
// latency percentiles, throughput, achieved GFLOP/s and peak RSS of one
// signature over a sweep of batch sizes and intra-op thread counts, as a
// table or JSON (llama-bench style); with --cold also the cold start (model
// load and first run, timed apart).
//
// Inputs are given as for `tfhost run` (--input KEY=VALUE, --fetch NAME; the
// resolution code is shared, cli/command_util.h); every signature input not
// given is synthesized: the leading -1 dim becomes the batch size, other
// unknown dims need --shape. Synthesized values are seeded uniform [0, 1)
// floats (small non-negative integers for integer inputs), so runs are
// reproducible.
//
// FLOPs: runtime/flop_count.h (2 x multiply-adds of conv/matmul ops, from
// static shapes with the fed shapes substituted). Peak RSS: the kernel's
// high-water mark (VmHWM), reset before each model load where the kernel
// allows it (/proc/self/clear_refs), so each thread count's figure is its own.
//
// --profile: each node's kernel time over the timed runs, by op and backend
// and the slowest nodes (cli/bench_profile.h). --trace FILE: a timeline of
// the timed runs, one slice per node execution (cli/trace_flag.h).
#include <malloc.h>
#include <sys/resource.h>

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <thread>

#include "cli/bench_profile.h"
#include "cli/cli.h"
#include "cli/command_util.h"
#include "cli/gpu_memory_flags.h"
#include "cli/trace_flag.h"
#include "runtime/flop_count.h"

namespace tfhost::cli {

namespace {

using Clock = std::chrono::steady_clock;

double MsSince(Clock::time_point t0, Clock::time_point t1) {
  return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

struct BenchResult {
  int batch = 0;  // items per run
  int threads = 0;
  int runs = 0;
  double min_ms = 0, p50_ms = 0, p90_ms = 0, p99_ms = 0, mean_ms = 0, items_per_s = 0;
  double flops_per_run = -1;  // -1: not counted
  double gflops_per_s = -1;   // flops_per_run / p50
  double peak_gflops = 0;     // --peak-gflops x the threads this row could use; 0 = not given
  double cores_used = 0;      // process CPU time / wall time over the timed runs
  int64_t peak_rss_bytes = -1;
  std::optional<ProfileSummary> profile;  // --profile
};

// CPU seconds (user + system) this process has used so far.
double ProcessCpuSeconds() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  auto seconds = [](const timeval& tv) { return static_cast<double>(tv.tv_sec) + tv.tv_usec / 1e6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

struct ColdStart {
  double load_ms = 0, first_run_ms = 0;
  int threads = 0, batch = 0;
};

struct FlopSummary {
  double flops_per_run = -1;
  int64_t counted_nodes = 0;
  std::vector<std::string> unknown;
  std::string error;  // why nothing could be counted
};

// The peak resident set size since the last ResetPeakRss (VmHWM), in bytes;
// -1 when /proc is not readable.
int64_t PeakRssBytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::atoll(line.c_str() + 6) * 1024;
  }
  return -1;
}

// The process's peak RSS over its whole life (getrusage), in bytes.
int64_t ProcessPeakRssBytes() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return -1;
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;  // Linux reports KiB
}

// Returns freed heap to the kernel and resets VmHWM to the current RSS
// (Linux >= 4.0); false when the reset is not allowed.
bool ResetPeakRss() {
  malloc_trim(0);
  std::ofstream clear("/proc/self/clear_refs");
  if (!clear) return false;
  clear << "5";
  clear.flush();
  return static_cast<bool>(clear);
}

// Nearest-rank percentile of sorted values.
double Percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

// Builds one input tensor for `spec` at `batch`; sets *batched when the
// batch size went into the shape.
StatusOr<Tensor> SynthesizeInput(const runtime::TensorSpec& spec, int batch,
                                 const ShapeFlags& shapes, std::mt19937& rng,
                                 bool* batched) {
  TFHOST_ASSIGN_OR_RETURN(Shape shape, InputShapeAtBatch(spec, batch, shapes, batched));
  Tensor t(spec.dtype, shape);
  std::uniform_real_distribution<float> unit(0.f, 1.f);
  std::uniform_int_distribution<int> small(0, 9);
  int64_t n = t.NumElements();
  switch (spec.dtype) {
    case DType::kFloat: for (int64_t i = 0; i < n; ++i) t.data<float>()[i] = unit(rng); break;
    case DType::kDouble: for (int64_t i = 0; i < n; ++i) t.data<double>()[i] = unit(rng); break;
    case DType::kHalf: for (int64_t i = 0; i < n; ++i) t.data<uint16_t>()[i] = FloatToHalf(unit(rng)); break;
    case DType::kBFloat16:
      for (int64_t i = 0; i < n; ++i) t.data<uint16_t>()[i] = FloatToBFloat16(unit(rng));
      break;
    case DType::kBool: for (int64_t i = 0; i < n; ++i) t.data<bool>()[i] = small(rng) < 5; break;
    default: {
      bool done = false;
      TFHOST_SWITCH_REAL_TYPES(spec.dtype, {
        for (int64_t i = 0; i < n; ++i) t.data<T>()[i] = static_cast<T>(small(rng));
        done = true;
      }, {});
      if (!done) {
        return InvalidArgument("cannot synthesize values for input '" + spec.key + "' of dtype " +
                               DTypeShortName(spec.dtype) + "; bench needs numeric or bool inputs "
                               "(pick another --signature)");
      }
    }
  }
  return t;
}

void PrintTable(const std::vector<BenchResult>& results, double peak_gflops, std::ostream& out) {
  char line[256];
  std::snprintf(line, sizeof(line), "%6s %8s %6s %10s %10s %10s %10s %12s %6s %9s", "batch", "threads", "runs",
                "p50_ms", "p90_ms", "p99_ms", "mean_ms", "items/s", "cores", "GFLOP/s");
  out << line;
  if (peak_gflops > 0) out << "  of_peak";
  out << "  peak_RSS_MiB\n";
  for (const auto& r : results) {
    std::snprintf(line, sizeof(line), "%6d %8d %6d %10.3f %10.3f %10.3f %10.3f %12.1f %6.2f", r.batch, r.threads,
                  r.runs, r.p50_ms, r.p90_ms, r.p99_ms, r.mean_ms, r.items_per_s, r.cores_used);
    out << line;
    if (r.gflops_per_s >= 0) {
      std::snprintf(line, sizeof(line), " %9.2f", r.gflops_per_s);
    } else {
      std::snprintf(line, sizeof(line), " %9s", "-");
    }
    out << line;
    if (peak_gflops > 0) {
      if (r.gflops_per_s >= 0 && r.peak_gflops > 0) {
        std::snprintf(line, sizeof(line), "  %6.1f%%", 100.0 * r.gflops_per_s / r.peak_gflops);
      } else {
        std::snprintf(line, sizeof(line), "  %7s", "-");
      }
      out << line;
    }
    if (r.peak_rss_bytes >= 0) {
      std::snprintf(line, sizeof(line), "  %12.1f", static_cast<double>(r.peak_rss_bytes) / (1 << 20));
    } else {
      std::snprintf(line, sizeof(line), "  %12s", "-");
    }
    out << line << "\n";
  }
}

struct Report {
  std::string path, signature, kernels;
  int warmup = 0;
  int64_t weight_bytes = 0;
  double peak_gflops = 0;
  bool rss_reset = false;
  std::map<int, FlopSummary> flops;  // by batch
  std::optional<ColdStart> cold;
  std::vector<BenchResult> results;
};

constexpr const char* kFlopsSource =
    "static shape inference with the fed input shapes; 2 x multiply-adds of Conv2D, DepthwiseConv2dNative, "
    "Conv2DBackpropInput, MatMul, BatchMatMul, Einsum and their fused forms; element-wise ops count 0";

std::string ToJson(const Report& rep) {
  rapidjson::StringBuffer buffer;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buffer);
  w.SetIndent(' ', 2);
  auto int_field = [&w](const char* key, int64_t value) {
    w.Key(key);
    w.Int64(value);
  };
  auto double_field = [&w](const char* key, double value) {
    w.Key(key);
    w.Double(value);
  };
  auto string_field = [&w](const char* key, const std::string& value) {
    w.Key(key);
    w.String(value.c_str());
  };
  w.StartObject();
  string_field("model", rep.path);
  string_field("signature", rep.signature);
  string_field("kernels", rep.kernels);
  int_field("warmup", rep.warmup);
  // As the loader counts them: decoded TF.js weights, checkpoint variables,
  // GraphDef Consts.
  int_field("weight_bytes", rep.weight_bytes);
  int_field("process_peak_rss_bytes", ProcessPeakRssBytes());
  w.Key("peak_rss_per_setting");
  w.Bool(rep.rss_reset);
  string_field("flops_source", kFlopsSource);
  if (rep.peak_gflops > 0) double_field("peak_gflops_per_core", rep.peak_gflops);
  w.Key("flops");
  w.StartArray();
  for (const auto& [batch, f] : rep.flops) {
    w.StartObject();
    int_field("batch", batch);
    double_field("flops_per_run", f.flops_per_run);
    int_field("counted_nodes", f.counted_nodes);
    w.Key("uncounted_nodes");
    w.StartArray();
    for (const auto& n : f.unknown) w.String(n.c_str());
    w.EndArray();
    if (!f.error.empty()) string_field("error", f.error);
    w.EndObject();
  }
  w.EndArray();
  if (rep.cold) {
    w.Key("cold");
    w.StartObject();
    int_field("threads", rep.cold->threads);
    int_field("batch", rep.cold->batch);
    double_field("load_ms", rep.cold->load_ms);
    double_field("first_run_ms", rep.cold->first_run_ms);
    double_field("total_ms", rep.cold->load_ms + rep.cold->first_run_ms);
    w.EndObject();
  }
  w.Key("results");
  w.StartArray();
  for (const auto& r : rep.results) {
    w.StartObject();
    int_field("batch", r.batch);
    int_field("threads", r.threads);
    int_field("runs", r.runs);
    // The fastest run: on a shared, noisy machine the floor is the steadiest figure.
    double_field("min_ms", r.min_ms);
    double_field("p50_ms", r.p50_ms);
    double_field("p90_ms", r.p90_ms);
    double_field("p99_ms", r.p99_ms);
    double_field("mean_ms", r.mean_ms);
    double_field("items_per_s", r.items_per_s);
    // More than `threads` means some library ran its own threads.
    double_field("cpu_cores_used", r.cores_used);
    if (r.flops_per_run >= 0) {
      double_field("flops_per_run", r.flops_per_run);
      double_field("gflops_per_s", r.gflops_per_s);
      if (r.peak_gflops > 0) {
        double_field("peak_gflops", r.peak_gflops);
        double_field("fraction_of_peak", r.gflops_per_s / r.peak_gflops);
      }
    }
    int_field("peak_rss_bytes", r.peak_rss_bytes);
    if (r.profile) {
      w.Key("profile");
      WriteProfileJson(*r.profile, w);
    }
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

void PrintText(const Report& rep, std::ostream& out) {
  out << "model: " << rep.path << "  signature: " << rep.signature << "  kernels: " << rep.kernels
      << "  warm-up: " << rep.warmup << "\n";
  char line[256];
  if (rep.cold) {
    std::snprintf(line, sizeof(line),
                  "cold start (threads %d, batch %d): load %.1f ms + first run %.1f ms = %.1f ms\n",
                  rep.cold->threads, rep.cold->batch, rep.cold->load_ms, rep.cold->first_run_ms,
                  rep.cold->load_ms + rep.cold->first_run_ms);
    out << line;
  }
  for (const auto& [batch, f] : rep.flops) {
    if (f.flops_per_run >= 0) {
      std::snprintf(line, sizeof(line), "batch %d: %.4g GFLOP per run (%lld nodes counted", batch,
                    f.flops_per_run / 1e9, static_cast<long long>(f.counted_nodes));
      out << line;
      if (!f.unknown.empty()) out << "; " << f.unknown.size() << " with unknown shapes left out, e.g. " << f.unknown[0];
      out << ")\n";
    } else {
      out << "batch " << batch << ": FLOPs not counted (" << f.error << ")\n";
    }
  }
  PrintTable(rep.results, rep.peak_gflops, out);
  const double mib = 1 << 20;
  std::snprintf(line, sizeof(line),
                "weights %.1f MiB; peak RSS %.1f MiB (process); 2 x weights + 64 MiB = %.1f MiB\n",
                static_cast<double>(rep.weight_bytes) / mib, static_cast<double>(ProcessPeakRssBytes()) / mib,
                (2.0 * static_cast<double>(rep.weight_bytes) + 64 * mib) / mib);
  out << line;
  out << "GFLOP/s = FLOPs per run / p50 latency; FLOPs from " << kFlopsSource << ".\n";
  for (const auto& r : rep.results) {
    if (r.profile) PrintProfile(*r.profile, r.batch, r.threads, r.mean_ms, /*max_ops=*/15, out);
  }
}

// "x [1,3], y [2]": what is fed, by signature key (tensor name in direct mode).
std::string DescribeFeeds(const ResolvedRun& run) {
  std::string fixed;
  auto add = [&fixed](const std::string& name, const Tensor& t) {
    fixed += (fixed.empty() ? "" : ", ") + name + " [";
    for (int d = 0; d < t.shape().rank(); ++d) fixed += (d ? "," : "") + std::to_string(t.shape().dim(d));
    fixed += "]";
  };
  if (run.direct) {
    for (const auto& [name, t] : run.direct_feeds) add(name, t);
  } else {
    for (const auto& [key, t] : run.signature_feeds) add(key, t);
  }
  return fixed;
}

}  // namespace

int BenchCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (!args.empty() && args[0] == "allreduce") {
    return BenchAllreduceCommand(std::vector<std::string>(args.begin() + 1, args.end()), out, err);
  }
  std::string path, tags = "serve", signature_name = "serving_default", batch_flag = "1", threads_flag = "1";
  std::string kernels_flag = "fast", peak_flag, precision = "fp32", device = "cpu", trace_path;
  std::vector<std::string> shape_flags, input_flags, fetches;
  int runs = 100, warmup = 10, seed = 1;
  bool json = false, cold = false, profile = false;
  ModelLimitFlags limits;
  FlagParser flags("tfhost bench PATH [flags]",
                   "Measures latency (p50/p90/p99), throughput, GFLOP/s and peak RSS of a signature for every\n"
                   "combination of --batch and --threads. The model is loaded once per thread count. Inputs\n"
                   "are given as for `tfhost run` (--input, --fetch); the others are seeded random values\n"
                   "shaped from the signature (leading -1 = batch size).");
  AddModelPathFlag(flags, &path);
  flags.AddString("batch", &batch_flag, "B1,B2", "batch sizes to sweep (default: 1)");
  flags.AddString("threads", &threads_flag, "T1,T2", "intra-op thread counts to sweep (default: 1)");
  flags.AddInt("runs", &runs, "N", "timed runs per setting (default: 100)");
  flags.AddInt("warmup", &warmup, "N", "untimed runs first (default: 10)");
  flags.AddRepeated("input", &input_flags, "KEY=VALUE", "an input as for `tfhost run` (FILE.npy, @FILE, JSON)");
  flags.AddRepeated("fetch", &fetches, "NAME", "an output key or tensor name 'node:i' to fetch; repeatable");
  flags.AddRepeated("shape", &shape_flags, "KEY=d1,d2", "shape of an input whose signature shape is not enough");
  AddSignatureAndTagFlags(flags, &signature_name, &tags);
  AddKernelsFlag(flags, &kernels_flag);
  AddDeviceFlag(flags, &device);
  GpuMemoryFlags gpu_memory;
  AddGpuMemoryFlags(flags, &gpu_memory);
  AddPrecisionFlag(flags, &precision);
  flags.AddInt("seed", &seed, "N", "random seed for the synthesized inputs (default: 1)");
  flags.AddString("peak-gflops", &peak_flag, "X",
                   "peak GFLOP/s of one core (bench/fma_peak): adds % of X x the row's threads");
  flags.AddBool("cold", &cold, "time the first model load and the first run apart (run in a fresh process)");
  flags.AddBool("profile", &profile,
                "also time each node's kernel over the timed runs and show where the time goes, by op and "
                "backend and the slowest nodes (two clock reads per node)");
  flags.AddBool("json", &json, "print JSON instead of a table");
  AddTraceFlag(flags, &trace_path);
  AddModelLimitFlags(flags, &limits);
  if (int code = ParseOrExit(flags, args, "bench", out, err); code >= 0) return code;
  if (Status st = CheckModelLimitFlags(limits); !st.ok()) return ReportUsage(err, "bench", st.message());
  auto batches = ParseIntList(batch_flag, "batch", 1, 1 << 20);
  if (!batches.ok()) return ReportUsage(err, "bench", batches.status().message());
  auto thread_counts = ParseIntList(threads_flag, "threads", 0, 1024);
  if (!thread_counts.ok()) return ReportUsage(err, "bench", thread_counts.status().message());
  if (runs < 1) return ReportUsage(err, "bench", "--runs must be at least 1");
  if (warmup < 0) return ReportUsage(err, "bench", "--warmup must be 0 or more");
  auto shapes = ParseShapeFlags(shape_flags);
  if (!shapes.ok()) return ReportUsage(err, "bench", shapes.status().message());
  auto kernels = ParseKernelsFlag(kernels_flag);
  auto backends = ApplyDeviceFlags(device, gpu_memory, "bench", err);
  if (!backends.ok()) return ReportFlagStatus(err, "bench", backends.status());
  if (!kernels.ok()) return ReportUsage(err, "bench", kernels.status().message());
  if (Status st = CheckPrecisionFlag(precision); !st.ok()) return ReportUsage(err, "bench", st.message());
  NoteBf16Fallback(err, "bench", precision);
  auto inputs = ParseInputFlags(input_flags);
  if (!inputs.ok()) return ReportUsage(err, "bench", inputs.status().message());
  Report rep;
  if (!peak_flag.empty()) {
    char* end = nullptr;
    rep.peak_gflops = std::strtod(peak_flag.c_str(), &end);
    if (end == peak_flag.c_str() || *end != '\0' || !(rep.peak_gflops > 0) || !std::isfinite(rep.peak_gflops)) {
      return ReportUsage(err, "bench", "--peak-gflops must be a positive number, not '" + peak_flag + "'");
    }
  }
  // Only the timed runs are recorded: warm-up and cold runs stay out.
  auto tracer = CliTrace::Create(trace_path, "tfhost bench");
  if (!tracer.ok()) return ReportFailure(err, "bench", tracer.status());
  rep.path = path;
  rep.signature = signature_name;
  rep.kernels = backends::KernelChoiceName(*kernels);
  rep.warmup = warmup;

  for (int threads : *thread_counts) {
    rep.rss_reset = ResetPeakRss();
    const bool timing_cold = cold && !rep.cold.has_value();
    auto t_load = Clock::now();
    CliLoad load;
    load.tags = tags;
    load.intra_op_threads = threads;
    load.kernels = *kernels;
    load.backends = *backends;
    load.precision = precision;
    load.keep = NamesUsedDirectly(*inputs, fetches);
    load.limits = limits;
    auto model_or = LoadModelForCli(path, load);
    double load_ms = MsSince(t_load, Clock::now());
    if (!model_or.ok()) return ReportFailure(err, "bench", model_or.status());
    runtime::Model& model = **model_or;
    rep.weight_bytes = model.info().variable_bytes;
    auto sig = model.FindSignature(signature_name);
    for (const auto& [key, dims] : *shapes) {
      bool known = false;
      if (sig.ok()) {
        for (const auto& in : (*sig)->inputs) known = known || in.key == key;
      }
      if (!known) {
        return ReportUsage(err, "bench", "--shape names '" + key + "', which is not an input of signature '" +
                                             signature_name + "'");
      }
    }
    for (int batch : *batches) {
      std::mt19937 rng(static_cast<uint32_t>(seed));
      bool batched = false;
      InputFiller fill = [&](const runtime::TensorSpec& spec) {
        return SynthesizeInput(spec, batch, *shapes, rng, &batched);
      };
      auto run = ResolveRun(model, signature_name, *inputs, fetches, fill);
      if (!run.ok()) return ReportFailure(err, "bench", run.status());
      // A signature whose every input has a fixed leading dim (TF.js models
      // often bake in batch 1), or whose inputs are all given, would otherwise
      // run one fixed batch in a row labelled with the requested batch, a
      // silently wrong figure. Without a batch dim, one run is one item.
      int items = batched ? batch : 1;
      if (!batched && batch != 1) {
        return ReportFailure(
            err, "bench",
            InvalidArgument("--batch " + std::to_string(batch) + ": no synthesized input of signature '" +
                            signature_name + "' has an unknown leading dim to take the batch size (" +
                            DescribeFeeds(*run) + "); only --batch 1 can run this signature as fed"));
      }
      if (!rep.flops.count(items)) {
        FlopSummary summary;
        auto count = runtime::CountFlopsForFeeds(model.session().graph(), run->FedTensors());
        if (count.ok()) {
          summary.flops_per_run = count->flops;
          summary.counted_nodes = count->counted_nodes;
          summary.unknown = count->unknown;
        } else {
          summary.error = count.status().message();
        }
        rep.flops[items] = summary;
      }
      const FlopSummary& flop_summary = rep.flops[items];
      if (timing_cold && !rep.cold.has_value()) {
        auto t0 = Clock::now();
        auto r = run->Run(model);
        double first_ms = MsSince(t0, Clock::now());
        if (!r.ok()) return ReportFailure(err, "bench", r.status());
        rep.cold = ColdStart{load_ms, first_ms, threads, items};
      }
      for (int i = 0; i < warmup; ++i) {
        auto r = run->Run(model);
        if (!r.ok()) return ReportFailure(err, "bench", r.status());
      }
      std::optional<runtime::NodeProfile> node_profile;
      if (profile) {
        node_profile.emplace(model.session().graph().num_nodes());
        model.session().set_profile(&*node_profile);
      }
      std::vector<double> latencies;
      latencies.reserve(runs);
      if (*tracer) {
        if (Status st = (*tracer)->Resume(); !st.ok()) return ReportFailure(err, "bench", st);
      }
      double cpu_start = ProcessCpuSeconds();
      auto start = Clock::now();
      for (int i = 0; i < runs; ++i) {
        auto t0 = Clock::now();
        auto r = run->Run(model);
        auto t1 = Clock::now();
        if (!r.ok()) return ReportFailure(err, "bench", r.status());
        latencies.push_back(MsSince(t0, t1));
      }
      double total_s = std::chrono::duration<double>(Clock::now() - start).count();
      double cpu_s = ProcessCpuSeconds() - cpu_start;
      if (*tracer) (*tracer)->Pause();
      model.session().set_profile(nullptr);
      std::sort(latencies.begin(), latencies.end());
      BenchResult res;
      res.batch = items;
      res.threads = threads;
      res.runs = runs;
      res.min_ms = latencies.front();
      res.p50_ms = Percentile(latencies, 50);
      res.p90_ms = Percentile(latencies, 90);
      res.p99_ms = Percentile(latencies, 99);
      double sum = 0;
      for (double l : latencies) sum += l;
      res.mean_ms = sum / runs;
      res.items_per_s = total_s > 0 ? static_cast<double>(items) * runs / total_s : 0;
      res.cores_used = total_s > 0 ? cpu_s / total_s : 0;
      if (flop_summary.flops_per_run >= 0) {
        res.flops_per_run = flop_summary.flops_per_run;
        res.gflops_per_s = res.p50_ms > 0 ? res.flops_per_run / (res.p50_ms * 1e6) : 0;
      }
      if (rep.peak_gflops > 0) {
        // A row can use at most its thread count of cores (0 = all of them).
        int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
        res.peak_gflops = rep.peak_gflops * (threads > 0 ? std::min(threads, cores) : cores);
      }
      res.peak_rss_bytes = PeakRssBytes();
      if (node_profile) res.profile = SummarizeProfile(*node_profile, model.session(), runs);
      rep.results.push_back(res);
    }
  }
  if (Status st = FinishTrace(*tracer, err); !st.ok()) return ReportFailure(err, "bench", st);
  if (json) {
    out << ToJson(rep) << "\n";
  } else {
    PrintText(rep, out);
  }
  return kExitOk;
}

}  // namespace tfhost::cli
