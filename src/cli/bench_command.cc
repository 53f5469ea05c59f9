// `tfhost bench PATH [--batch 1,8] [--threads 1,2] [--runs N] [--warmup N]`:
// latency percentiles and throughput of one signature over a sweep of batch
// sizes and intra-op thread counts, as a table or JSON (llama-bench style).
// Inputs are synthesized from the signature: the leading -1 dim becomes the
// batch size; other unknown dims need --shape. Values are seeded uniform
// [0, 1) floats (small non-negative integers for integer inputs), so runs
// are reproducible.
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <random>

#include "cli/cli.h"
#include "cli/command_util.h"

namespace tfhost::cli {

namespace {

struct BenchResult {
  int batch = 0;
  int threads = 0;
  int runs = 0;
  double min_ms = 0, p50_ms = 0, p90_ms = 0, p99_ms = 0, mean_ms = 0, items_per_s = 0;
};

// Nearest-rank percentile of sorted values.
double Percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * static_cast<double>(sorted.size())));
  return sorted[std::clamp<size_t>(rank, 1, sorted.size()) - 1];
}

StatusOr<std::map<std::string, std::vector<int64_t>>> ParseShapeFlags(const std::vector<std::string>& flags) {
  std::map<std::string, std::vector<int64_t>> shapes;
  for (const auto& f : flags) {
    size_t eq = f.find('=');
    if (eq == std::string::npos || eq == 0) {
      return InvalidArgument("--shape '" + f + "' must look like KEY=d1,d2,... (use -1 for the batch dim)");
    }
    std::vector<int64_t> dims;
    std::string rest = f.substr(eq + 1);
    if (!rest.empty()) {
      auto list = ParseIntList(rest, "shape", -1, 1 << 24);
      if (!list.ok()) return list.status();
      dims.assign(list->begin(), list->end());
    }
    shapes[f.substr(0, eq)] = std::move(dims);
  }
  return shapes;
}

// Builds one input tensor for `spec` at `batch`; sets *batched when the
// batch size went into the shape.
StatusOr<Tensor> SynthesizeInput(const runtime::TensorSpec& spec, int batch,
                                 const std::map<std::string, std::vector<int64_t>>& shapes, std::mt19937& rng,
                                 bool* batched) {
  std::vector<int64_t> dims;
  auto override_it = shapes.find(spec.key);
  if (override_it != shapes.end()) {
    dims = override_it->second;
  } else if (spec.shape.unknown_rank) {
    return InvalidArgument("input '" + spec.key + "' has an unknown shape; give it with --shape " + spec.key +
                           "=d1,d2,... (-1 for the batch dim)");
  } else {
    dims = spec.shape.dims;
  }
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] >= 0) continue;
    if (i == 0) {
      dims[i] = batch;
      *batched = true;
      continue;
    }
    std::string shape = "[";
    for (size_t j = 0; j < dims.size(); ++j) shape += (j ? "," : "") + std::to_string(j == 0 && *batched ? -1 : dims[j]);
    return InvalidArgument("input '" + spec.key + "' has unknown dim " + std::to_string(i) + " in shape " + shape +
                           "]; give the full shape with --shape " + spec.key + "=d1,d2,... (-1 for the batch dim)");
  }
  TFHOST_ASSIGN_OR_RETURN(Shape shape, MakeShape(dims, "input '" + spec.key + "'", int64_t{1} << 31));
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

void PrintTable(const std::vector<BenchResult>& results, std::ostream& out) {
  char line[160];
  std::snprintf(line, sizeof(line), "%6s %8s %6s %10s %10s %10s %10s %14s\n", "batch", "threads", "runs", "p50_ms",
                "p90_ms", "p99_ms", "mean_ms", "items/s");
  out << line;
  for (const auto& r : results) {
    std::snprintf(line, sizeof(line), "%6d %8d %6d %10.3f %10.3f %10.3f %10.3f %14.1f\n", r.batch, r.threads, r.runs,
                  r.p50_ms, r.p90_ms, r.p99_ms, r.mean_ms, r.items_per_s);
    out << line;
  }
}

std::string ToJson(const std::string& path, const std::string& signature, const std::vector<BenchResult>& results) {
  rapidjson::StringBuffer buffer;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buffer);
  w.SetIndent(' ', 2);
  w.StartObject();
  w.Key("model");
  w.String(path.c_str());
  w.Key("signature");
  w.String(signature.c_str());
  w.Key("results");
  w.StartArray();
  auto int_field = [&w](const char* key, int value) {
    w.Key(key);
    w.Int(value);
  };
  auto double_field = [&w](const char* key, double value) {
    w.Key(key);
    w.Double(value);
  };
  for (const auto& r : results) {
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
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace

int BenchCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (!args.empty() && args[0] == "allreduce") {
    return BenchAllreduceCommand(std::vector<std::string>(args.begin() + 1, args.end()), out, err);
  }
  std::string path, tags = "serve", signature_name = "serving_default", batch_flag = "1", threads_flag = "1";
  std::vector<std::string> shape_flags;
  int runs = 100, warmup = 10, seed = 1;
  bool json = false;
  FlagParser flags("tfhost bench PATH [flags]",
                   "Measures latency (p50/p90/p99) and throughput of a signature for every combination of\n"
                   "--batch and --threads. The model is loaded once per thread count; inputs are seeded\n"
                   "random values shaped from the signature (leading -1 = batch size).");
  AddModelPathFlag(flags, &path);
  flags.AddString("batch", &batch_flag, "B1,B2", "batch sizes to sweep (default: 1)");
  flags.AddString("threads", &threads_flag, "T1,T2", "intra-op thread counts to sweep (default: 1)");
  flags.AddInt("runs", &runs, "N", "timed runs per setting (default: 100)");
  flags.AddInt("warmup", &warmup, "N", "untimed runs first (default: 10)");
  flags.AddRepeated("shape", &shape_flags, "KEY=d1,d2", "shape of an input whose signature shape is not enough");
  AddSignatureAndTagFlags(flags, &signature_name, &tags);
  flags.AddInt("seed", &seed, "N", "random seed for the inputs (default: 1)");
  flags.AddBool("json", &json, "print JSON instead of a table");
  if (int code = ParseOrExit(flags, args, "bench", out, err); code >= 0) return code;
  auto batches = ParseIntList(batch_flag, "batch", 1, 1 << 20);
  if (!batches.ok()) return ReportUsage(err, "bench", batches.status().message());
  auto thread_counts = ParseIntList(threads_flag, "threads", 0, 1024);
  if (!thread_counts.ok()) return ReportUsage(err, "bench", thread_counts.status().message());
  if (runs < 1) return ReportUsage(err, "bench", "--runs must be at least 1");
  if (warmup < 0) return ReportUsage(err, "bench", "--warmup must be 0 or more");
  auto shapes = ParseShapeFlags(shape_flags);
  if (!shapes.ok()) return ReportUsage(err, "bench", shapes.status().message());

  std::vector<BenchResult> results;
  for (int threads : *thread_counts) {
    auto model_or = LoadModelForCli(path, tags, threads);
    if (!model_or.ok()) return ReportFailure(err, "bench", model_or.status());
    runtime::Model& model = **model_or;
    auto sig = model.FindSignature(signature_name);
    if (!sig.ok()) return ReportFailure(err, "bench", sig.status());
    for (const auto& [key, dims] : *shapes) {
      bool known = false;
      for (const auto& in : (*sig)->inputs) known = known || in.key == key;
      if (!known) {
        return ReportUsage(err, "bench", "--shape names '" + key + "', which is not an input of signature '" +
                                             signature_name + "'");
      }
    }
    for (int batch : *batches) {
      std::mt19937 rng(static_cast<uint32_t>(seed));
      std::map<std::string, Tensor> inputs;
      bool batched = false;
      for (const auto& spec : (*sig)->inputs) {
        auto t = SynthesizeInput(spec, batch, *shapes, rng, &batched);
        if (!t.ok()) return ReportFailure(err, "bench", t.status());
        inputs[spec.key] = std::move(*t);
      }
      // A signature whose every input has a fixed leading dim (TF.js models
      // often bake in batch 1) would otherwise run batch 1 in a row labelled
      // with the requested batch, a silently wrong figure.
      if (!batched && batch != 1) {
        std::string fixed;
        for (const auto& spec : (*sig)->inputs) {
          auto it = inputs.find(spec.key);
          fixed += (fixed.empty() ? "" : ", ") + spec.key + " [";
          for (int d = 0; d < it->second.shape().rank(); ++d) {
            fixed += (d ? "," : "") + std::to_string(it->second.shape().dim(d));
          }
          fixed += "]";
        }
        return ReportFailure(err, "bench",
                             InvalidArgument("--batch " + std::to_string(batch) + ": no input of signature '" +
                                             signature_name + "' has an unknown leading dim to take the batch " +
                                             "size (" + fixed + "); only --batch 1 can run this signature"));
      }
      for (int i = 0; i < warmup; ++i) {
        auto r = model.RunSignature(signature_name, inputs);
        if (!r.ok()) return ReportFailure(err, "bench", r.status());
      }
      std::vector<double> latencies;
      latencies.reserve(runs);
      auto start = std::chrono::steady_clock::now();
      for (int i = 0; i < runs; ++i) {
        auto t0 = std::chrono::steady_clock::now();
        auto r = model.RunSignature(signature_name, inputs);
        auto t1 = std::chrono::steady_clock::now();
        if (!r.ok()) return ReportFailure(err, "bench", r.status());
        latencies.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
      }
      double total_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      std::sort(latencies.begin(), latencies.end());
      BenchResult res;
      res.batch = batch;
      res.threads = threads;
      res.runs = runs;
      res.min_ms = latencies.front();
      res.p50_ms = Percentile(latencies, 50);
      res.p90_ms = Percentile(latencies, 90);
      res.p99_ms = Percentile(latencies, 99);
      double sum = 0;
      for (double l : latencies) sum += l;
      res.mean_ms = sum / runs;
      // Without a batch dim, batch is 1 (checked above): one item per run.
      res.items_per_s = total_s > 0 ? static_cast<double>(batch) * runs / total_s : 0;
      results.push_back(res);
    }
  }
  if (json) {
    out << ToJson(path, signature_name, results) << "\n";
  } else {
    out << "model: " << path << "  signature: " << signature_name << "  warm-up: " << warmup << "\n";
    PrintTable(results, out);
  }
  return kExitOk;
}

}  // namespace tfhost::cli
