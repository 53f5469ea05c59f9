// `tfhost plan MODEL [--qps Q --p99-ms L --batch 1,8,32 | --records N
// --epochs E --step-batch B] [--catalog FILE] [--json | --html FILE]`: which
// machine, how many, at what cost. The model's FLOPs and bytes per item come
// from its graph (runtime/flop_count.h, the session's memory plan, the
// loader's variable bytes); this machine's peak and bandwidth are measured
// (host/plan/local_peak.h) and `bench` times the model here at two or more
// batch sizes (run in-process, its JSON read back), which calibrates the
// roofline's efficiency and per-run overhead. Each catalog instance type is
// then projected and sized (host/plan/sizing.h). Calibration is short: a few
// seconds at the default --calibration-runs.
#include <rapidjson/document.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "base/file_util.h"
#include "cli/cli.h"
#include "cli/command_util.h"
#include "host/plan/instance_catalog.h"
#include "host/plan/local_peak.h"
#include "host/plan/plan_report.h"
#include "host/plan/roofline.h"
#include "host/plan/sizing.h"
#include "runtime/flop_count.h"

#ifndef TFHOST_SOURCE_ROOT
#define TFHOST_SOURCE_ROOT ""
#endif

namespace tfhost::cli {

namespace {

namespace plan = host::plan;

std::string ExecutableDir() {
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::string() : exe.parent_path().string();
}

// A positive finite number from a flag, or an error naming the flag.
StatusOr<double> PositiveFlag(const std::string& text, const std::string& flag) {
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end == text.c_str() || *end != '\0' || !std::isfinite(v) || !(v > 0)) {
    return InvalidArgument("--" + flag + " must be a number > 0, not '" + text + "'");
  }
  return v;
}

// Zero-valued feeds of the signature's inputs at `batch`: only their shapes
// matter to the FLOP count and the memory plan.
StatusOr<runtime::NamedTensors> FeedsAt(const runtime::Signature& sig, int batch, const ShapeFlags& shapes,
                                        double* input_bytes) {
  runtime::NamedTensors feeds;
  *input_bytes = 0;
  for (const runtime::TensorSpec& spec : sig.inputs) {
    if (IsStringLike(spec.dtype)) {
      return InvalidArgument("input '" + spec.key + "' is a " + DTypeShortName(spec.dtype) +
                             " tensor; plan counts bytes of numeric inputs only (pick another --signature)");
    }
    bool batched = false;
    TFHOST_ASSIGN_OR_RETURN(Shape shape, InputShapeAtBatch(spec, batch, shapes, &batched));
    Tensor t(spec.dtype, shape);
    *input_bytes += static_cast<double>(t.ByteSize());
    feeds.emplace_back(spec.tensor_name, std::move(t));
  }
  return feeds;
}

// Bytes of the constants and variables the signature's outputs depend on:
// what a run reads as weights. The loader's variable_bytes counts every
// variable of the SavedModel (other signatures' too, and copies), which can
// be twice what a run touches.
double ReachableWeightBytes(const ir::Graph& graph, const std::vector<std::string>& fetches) {
  std::vector<int> stack;
  for (const std::string& f : fetches) {
    std::string name = f.substr(0, f.find(':'));
    int id = graph.FindNode(name);
    if (id >= 0) stack.push_back(id);
  }
  std::vector<bool> seen(graph.num_nodes(), false);
  double bytes = 0;
  while (!stack.empty()) {
    int id = stack.back();
    stack.pop_back();
    if (id < 0 || seen[id]) continue;
    seen[id] = true;
    const ir::Node& n = graph.node(id);
    const bool weight = n.op == "Const" || n.op == "ReadVariableOp" || n.op == "VariableV2";
    if (weight && !n.output_dtypes.empty() && !n.output_shapes.empty() && !n.output_shapes[0].unknown_rank &&
        !IsStringLike(n.output_dtypes[0])) {
      double elements = 1;
      bool known = true;
      for (int64_t d : n.output_shapes[0].dims) {
        if (d < 0) known = false;
        elements *= static_cast<double>(d);
      }
      if (known) bytes += elements * static_cast<double>(DTypeSize(n.output_dtypes[0]));
    }
    for (const ir::TensorRef& in : n.inputs) stack.push_back(in.node);
    // Control inputs order effects (variable initialisation); they move no weights.
  }
  return bytes;
}

struct CostAt {
  double flops = 0, peak = 0, traffic = 0, input = 0;
  std::string note;
};

StatusOr<CostAt> MeasureCostAt(runtime::Model& model, const runtime::Signature& sig, int batch, const ShapeFlags& shapes) {
  CostAt c;
  TFHOST_ASSIGN_OR_RETURN(runtime::NamedTensors feeds, FeedsAt(sig, batch, shapes, &c.input));
  std::vector<std::pair<std::string, const Tensor*>> fed;
  for (const auto& [name, t] : feeds) fed.emplace_back(name, &t);
  TFHOST_ASSIGN_OR_RETURN(runtime::FlopCount flops, runtime::CountFlopsForFeeds(model.session().graph(), fed));
  c.flops = flops.flops;
  if (!flops.unknown.empty()) {
    c.note = std::to_string(flops.unknown.size()) + " counted-op nodes with unknown shapes left out, e.g. " +
             flops.unknown[0];
  }
  std::vector<std::string> fetches;
  for (const runtime::TensorSpec& out : sig.outputs) fetches.push_back(out.tensor_name);
  TFHOST_ASSIGN_OR_RETURN(runtime::MemoryPlan mem, model.session().PlanMemory(feeds, fetches));
  c.peak = static_cast<double>(mem.peak_bytes);
  c.traffic = static_cast<double>(mem.total_bytes);
  if (mem.unknown_outputs > 0) {
    c.note += (c.note.empty() ? "" : "; ") + std::to_string(mem.unknown_outputs) +
              " outputs of unknown size left out of the memory plan";
  }
  return c;
}

// Times the model here with `tfhost bench` (in-process) and returns each
// batch's p50 in seconds.
StatusOr<std::vector<plan::CalibrationPoint>> BenchHere(const std::string& path, const std::string& signature,
                                                         const std::string& tags, const std::vector<int>& batches,
                                                         int threads, int runs,
                                                         const std::vector<std::string>& shape_flags) {
  std::string batch_list;
  for (int b : batches) batch_list += (batch_list.empty() ? "" : ",") + std::to_string(b);
  std::vector<std::string> args = {path,        "--batch",   batch_list, "--threads", std::to_string(threads),
                                   "--runs",    std::to_string(runs),    "--warmup",  std::to_string(std::max(2, runs / 5)),
                                   "--signature", signature, "--tag",     tags,       "--json"};
  for (const std::string& s : shape_flags) {
    args.push_back("--shape");
    args.push_back(s);
  }
  std::ostringstream out, err;
  if (int code = BenchCommand(args, out, err); code != kExitOk) {
    return FailedPrecondition("calibration with `tfhost bench` failed: " + err.str());
  }
  rapidjson::Document d;
  std::string text = out.str();
  d.Parse(text.c_str(), text.size());
  if (d.HasParseError() || !d.IsObject() || !d.HasMember("results") || !d["results"].IsArray()) {
    return Internal("calibration: could not read bench's JSON output");
  }
  std::vector<plan::CalibrationPoint> points;
  for (const auto& r : d["results"].GetArray()) {
    if (!r.HasMember("batch") || !r.HasMember("p50_ms")) continue;
    points.push_back({r["batch"].GetInt(), r["p50_ms"].GetDouble() / 1e3});
  }
  return points;
}

std::string JoinInts(const std::vector<int>& v) {
  std::string s;
  for (int x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
  return s;
}

}  // namespace

int PlanCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::string path, tags = "serve", signature = "serving_default";
  std::string qps_text, p99_text, batch_text = "1,8,32", records_text, dataset_bytes_text, epochs_text = "1";
  std::string step_batch_text = "32", precision = "fp32", catalog_path, only_text, calibration_text = "1,8,32";
  std::string efficiency_text, feed_text, html;
  std::vector<std::string> shape_flags;
  int threads = 1, calibration_runs = 20;
  bool json = false, no_measure = false;
  FlagParser flags("tfhost plan MODEL [flags]",
                   "Which machine, how many, at what cost: projects the model's throughput and latency on each\n"
                   "instance type of a catalog (a roofline of the graph's FLOPs and bytes, with an efficiency\n"
                   "calibrated by timing the model here with `bench`), and sizes a serving workload (--qps,\n"
                   "--p99-ms, --batch) or a training run (--records or --dataset-bytes, --epochs, --step-batch).");
  AddModelPathFlag(flags, &path);
  flags.AddString("qps", &qps_text, "Q", "serving: requests (items) per second to serve");
  flags.AddString("p99-ms", &p99_text, "MS", "serving: p99 latency target in milliseconds");
  flags.AddString("batch", &batch_text, "B1,B2", "serving: batch sizes to consider (default: 1,8,32)");
  flags.AddString("records", &records_text, "N", "training: records per epoch");
  flags.AddString("dataset-bytes", &dataset_bytes_text, "BYTES",
                  "training: dataset size; records = BYTES / the model's input bytes per item");
  flags.AddString("epochs", &epochs_text, "E", "training: epochs (default: 1)");
  flags.AddString("step-batch", &step_batch_text, "B", "training: batch per device per step (default: 32)");
  flags.AddString("precision", &precision, "fp32|tf32|fp16|bf16|fp8|int8",
                  "precision on the target devices (default: fp32); bytes scale with it, the graph is counted as stored");
  flags.AddString("catalog", &catalog_path, "FILE",
                  "instance catalog (JSON, docs/plan.md); default: the one installed with tfhost");
  flags.AddString("instances", &only_text, "N1,N2", "only these catalog entries (names)");
  flags.AddString("calibration-batches", &calibration_text, "B1,B2",
                  "batch sizes `bench` times here to calibrate; two or more also fit a per-run overhead "
                  "(default: 1,8,32)");
  flags.AddInt("calibration-runs", &calibration_runs, "N", "timed runs per calibration batch (default: 20)");
  flags.AddInt("threads", &threads, "T", "intra-op threads for the calibration runs (default: 1)");
  flags.AddBool("no-measure", &no_measure, "skip the measurement here (CPU types are then not projected)");
  flags.AddString("efficiency", &efficiency_text, "X",
                  "fraction of the roofline accelerators reach (default: 0.6, an assumption; docs/plan.md)");
  flags.AddString("feed-rate", &feed_text, "R",
                  "input items one vCPU prepares per second (`tfhost data bench`); checks the input pipeline");
  flags.AddRepeated("shape", &shape_flags, "KEY=d1,d2", "shape of an input whose signature shape is not enough");
  AddSignatureAndTagFlags(flags, &signature, &tags);
  flags.AddBool("json", &json, "print JSON instead of text");
  flags.AddString("html", &html, "FILE", "also write a self-contained HTML report with charts");
  if (int code = ParseOrExit(flags, args, "plan", out, err); code >= 0) return code;

  plan::PlanReport report;
  report.model = path;
  report.signature = signature;
  report.precision = precision;
  if (plan::BytesPerElement(precision) == 0) {
    return ReportUsage(err, "plan", "--precision must be one of fp32, tf32, fp16, bf16, fp8, int8, not '" + precision + "'");
  }
  report.training = !records_text.empty() || !dataset_bytes_text.empty();
  const bool serving_flags = !qps_text.empty() || !p99_text.empty();
  if (report.training && serving_flags) {
    return ReportUsage(err, "plan", "give a serving workload (--qps, --p99-ms) or a training one (--records or "
                                    "--dataset-bytes), not both");
  }
  if (!report.training && qps_text.empty()) {
    return ReportUsage(err, "plan", "give --qps (serving) or --records / --dataset-bytes (training)");
  }
  if (!records_text.empty() && !dataset_bytes_text.empty()) {
    return ReportUsage(err, "plan", "give --records or --dataset-bytes, not both");
  }
  auto batches = ParseIntList(batch_text, "batch", 1, 1 << 20);
  if (!batches.ok()) return ReportUsage(err, "plan", batches.status().message());
  auto calibration_batches = ParseIntList(calibration_text, "calibration-batches", 1, 1 << 20);
  if (!calibration_batches.ok()) return ReportUsage(err, "plan", calibration_batches.status().message());
  if (calibration_runs < 3) return ReportUsage(err, "plan", "--calibration-runs must be at least 3");
  if (threads < 1) return ReportUsage(err, "plan", "--threads must be at least 1");
  auto shapes = ParseShapeFlags(shape_flags);
  if (!shapes.ok()) return ReportUsage(err, "plan", shapes.status().message());
  double feed_rate = 0;
  if (!feed_text.empty()) {
    auto v = PositiveFlag(feed_text, "feed-rate");
    if (!v.ok()) return ReportUsage(err, "plan", v.status().message());
    feed_rate = *v;
  }
  if (!efficiency_text.empty()) {
    auto v = PositiveFlag(efficiency_text, "efficiency");
    if (!v.ok() || *v > 1) return ReportUsage(err, "plan", "--efficiency must be in (0, 1], not '" + efficiency_text + "'");
    report.efficiencies.accelerator = *v;
    report.efficiencies.accelerator_basis = "given with --efficiency";
  } else {
    report.efficiencies.accelerator_basis =
        "assumed, not measured: no accelerator was timed here; docs/plan.md says how far it lands from MLPerf";
  }
  if (report.training) {
    auto epochs = PositiveFlag(epochs_text, "epochs");
    if (!epochs.ok()) return ReportUsage(err, "plan", epochs.status().message());
    auto step = ParseIntList(step_batch_text, "step-batch", 1, 1 << 20);
    if (!step.ok() || step->size() != 1) return ReportUsage(err, "plan", "--step-batch must be one integer >= 1");
    report.train.epochs = *epochs;
    report.train.step_batch = (*step)[0];
    report.train.precision = precision;
    report.train.feed_items_per_vcpu_s = feed_rate;
  } else {
    auto qps = PositiveFlag(qps_text, "qps");
    if (!qps.ok()) return ReportUsage(err, "plan", qps.status().message());
    report.serving.qps = *qps;
    if (!p99_text.empty()) {
      auto p99 = PositiveFlag(p99_text, "p99-ms");
      if (!p99.ok()) return ReportUsage(err, "plan", p99.status().message());
      report.serving.p99_ms = *p99;
    }
    report.serving.batches = *batches;
    report.serving.precision = precision;
    report.serving.feed_items_per_vcpu_s = feed_rate;
  }

  // The catalog first: a bad one should fail before any timing.
  if (catalog_path.empty()) {
    auto found = plan::FindDefaultCatalog(ExecutableDir(), TFHOST_SOURCE_ROOT);
    if (!found.ok()) return ReportFailure(err, "plan", found.status());
    catalog_path = *found;
  }
  auto catalog = plan::LoadInstanceCatalog(catalog_path);
  if (!catalog.ok()) return ReportFailure(err, "plan", catalog.status());
  report.catalog_path = catalog_path;
  if (!only_text.empty()) {
    std::vector<std::string> wanted = SplitTags(only_text);
    for (const std::string& name : wanted) {
      bool known = std::any_of(catalog->instances.begin(), catalog->instances.end(),
                               [&](const plan::InstanceType& t) { return t.name == name; });
      if (!known) {
        return ReportUsage(err, "plan", "--instances names '" + name + "', which is not in the catalog " + catalog_path);
      }
    }
    for (const plan::InstanceType& t : catalog->instances) {
      if (std::find(wanted.begin(), wanted.end(), t.name) != wanted.end()) report.instances.push_back(t);
    }
  } else {
    report.instances = catalog->instances;
  }

  // The model's cost, from its graph at two batch sizes.
  CliLoad load;
  load.tags = tags;
  load.intra_op_threads = threads;
  auto model_or = LoadModelForCli(path, load);
  if (!model_or.ok()) return ReportFailure(err, "plan", model_or.status());
  runtime::Model& model = **model_or;
  auto sig = model.FindSignature(signature);
  if (!sig.ok()) return ReportFailure(err, "plan", sig.status());
  for (const auto& [key, dims] : *shapes) {
    bool known = std::any_of((*sig)->inputs.begin(), (*sig)->inputs.end(),
                             [&](const runtime::TensorSpec& s) { return s.key == key; });
    if (!known) return ReportUsage(err, "plan", "--shape names '" + key + "', which is not an input of signature '" + signature + "'");
  }
  int b_hi = 1;
  for (int b : *batches) b_hi = std::max(b_hi, b);
  for (int b : *calibration_batches) b_hi = std::max(b_hi, b);
  if (report.training) b_hi = std::max(b_hi, report.train.step_batch);
  b_hi = std::max(b_hi, 2);
  auto lo = MeasureCostAt(model, **sig, 1, *shapes);
  if (!lo.ok()) return ReportFailure(err, "plan", lo.status());
  auto hi = MeasureCostAt(model, **sig, b_hi, *shapes);
  if (!hi.ok()) return ReportFailure(err, "plan", hi.status());
  plan::ModelCost& cost = report.cost;
  std::tie(cost.flops_fixed, cost.flops_per_item) = plan::LinearThrough(1, lo->flops, b_hi, hi->flops);
  std::tie(cost.peak_act_fixed, cost.peak_act_per_item) = plan::LinearThrough(1, lo->peak, b_hi, hi->peak);
  std::tie(cost.traffic_fixed, cost.traffic_per_item) = plan::LinearThrough(1, lo->traffic, b_hi, hi->traffic);
  cost.input_bytes_per_item = hi->input / b_hi;
  {
    std::vector<std::string> fetches;
    for (const runtime::TensorSpec& o : (*sig)->outputs) fetches.push_back(o.tensor_name);
    cost.weight_bytes = ReachableWeightBytes(model.session().graph(), fetches);
    // Nothing reachable sized: fall back on what the loader counted.
    if (cost.weight_bytes <= 0) cost.weight_bytes = static_cast<double>(model.info().variable_bytes);
  }
  cost.stored_bytes_per_element = 4;
  report.cost_note = "FLOPs: runtime/flop_count.h, counted at batch 1 and " + std::to_string(b_hi) +
                     "; activations: the session's memory plan; weights: the constants and variables the outputs depend on";
  if (!hi->note.empty()) report.cost_note += "; " + hi->note;
  if (cost.flops_per_item <= 0 && cost.traffic_per_item <= 0) {
    return ReportFailure(err, "plan", FailedPrecondition("model " + path + ": no FLOPs counted and no activation "
                                                         "bytes planned for signature '" + signature +
                                                         "'; plan has nothing to project from"));
  }
  if (report.training) {
    if (!records_text.empty()) {
      auto r = PositiveFlag(records_text, "records");
      if (!r.ok()) return ReportUsage(err, "plan", r.status().message());
      report.train.records = *r;
    } else {
      auto bytes = PositiveFlag(dataset_bytes_text, "dataset-bytes");
      if (!bytes.ok()) return ReportUsage(err, "plan", bytes.status().message());
      if (!(cost.input_bytes_per_item > 0)) {
        return ReportUsage(err, "plan", "--dataset-bytes: the signature's inputs have no bytes to divide by; give --records");
      }
      report.train.records = std::ceil(*bytes / cost.input_bytes_per_item);
    }
  }
  model_or->reset();  // bench loads its own copy

  // This machine: its roofline measured, the model timed by bench, the fit.
  if (no_measure) {
    report.local.why_not = "--no-measure";
  } else {
    report.local.roof = plan::MeasureLocalRoof(threads, 1.0);
    plan::DeviceRoof local{report.local.roof.peak_flops, report.local.roof.bandwidth_bps, 0};
    auto points = BenchHere(path, signature, tags, *calibration_batches, threads, calibration_runs, shape_flags);
    if (!points.ok()) return ReportFailure(err, "plan", points.status());
    auto calibration = plan::Calibrate(cost, local, "fp32", *points);
    if (!calibration.ok()) return ReportFailure(err, "plan", calibration.status());
    report.local.measured = true;
    report.local.calibration = *calibration;
    for (const plan::CalibrationPoint& p : *points) {
      plan::Projection pr = plan::Project(cost, local, calibration->efficiency, calibration->overhead_s, p.batch, "fp32");
      report.local.points.push_back({p.batch, p.seconds, pr.batch_s});
    }
    std::vector<int> local_batches = report.training ? std::vector<int>{report.train.step_batch} : *batches;
    for (int b : local_batches) {
      report.local.projections.push_back(
          plan::Project(cost, local, calibration->efficiency, calibration->overhead_s, b, "fp32"));
    }
    report.efficiencies.cpu_calibrated = true;
    report.efficiencies.cpu = calibration->efficiency;
    report.efficiencies.cpu_overhead_s = calibration->overhead_s;
    char basis[200];
    std::snprintf(basis, sizeof(basis),
                  "calibrated here: bench p50 at batch %s, %d thread(s), against a measured %.1f GFLOP/s and %.1f GB/s",
                  JoinInts(*calibration_batches).c_str(), threads, report.local.roof.peak_flops / 1e9,
                  report.local.roof.bandwidth_bps / 1e9);
    report.efficiencies.cpu_basis = basis;
  }

  for (const plan::InstanceType& t : report.instances) {
    if (report.training) {
      report.training_plans.push_back(plan::PlanTraining(t, cost, report.train, report.efficiencies));
    } else {
      report.serving_plans.push_back(plan::PlanServing(t, cost, report.serving, report.efficiencies));
    }
  }
  if (!html.empty()) {
    if (Status dirs = CreateParentDirectories(html); !dirs.ok()) return ReportFailure(err, "plan", dirs);
    std::ofstream o(html);
    if (!o) return ReportFailure(err, "plan", NotFound("cannot write --html " + html));
    o << plan::PlanHtml(report);
  }
  if (json) {
    out << plan::FormatPlanJson(report);
  } else {
    out << plan::FormatPlanText(report);
    if (!html.empty()) out << "report: " << html << "\n";
  }
  return kExitOk;
}

}  // namespace tfhost::cli
