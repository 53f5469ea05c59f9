// The text rendering of a plan, and the HTML page built around it.
#include "host/plan/plan_report.h"

#include <algorithm>
#include <cstdio>
#include <sstream>

#include "host/advise/svg_chart.h"

namespace tfhost::host::plan {

namespace {

std::string Fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), format, v);
  return buf;
}

std::string Verdict(bool ok) { return ok ? "ok" : "FAIL"; }

// "compute 0.49 of peak, memory 0.93 of bandwidth" (calibrated) or "0.600" (roofline).
std::string EfficiencyText(const Efficiency& e) {
  if (!e.additive) return Fmt("%.3f", e.compute);
  auto part = [](double v, const char* what) {
    return v > 0 ? Fmt("%.3f", v) + " of " + what : std::string("no time for ") + what;
  };
  return "compute " + part(e.compute, "peak") + ", memory " + part(e.memory, "bandwidth") + ", added";
}

void ModelLines(const PlanReport& r, std::ostream& o) {
  const ModelCost& c = r.cost;
  o << "model: " << Fmt("%.4g", c.flops_per_item / 1e9) << " GFLOP/item";
  if (c.flops_fixed > 0) o << " + " << Fmt("%.4g", c.flops_fixed / 1e9) << " GFLOP/run";
  o << "; weights " << HumanBytes(c.weight_bytes) << "; activations " << HumanBytes(c.peak_act_per_item)
    << "/item at peak, " << HumanBytes(c.traffic_per_item) << "/item written; input " << HumanBytes(c.input_bytes_per_item)
    << "/item\n";
  if (!r.cost_note.empty()) o << "  (" << r.cost_note << ")\n";
}

void LocalLines(const PlanReport& r, std::ostream& o) {
  const LocalSummary& l = r.local;
  if (!l.measured) {
    o << "this machine: not measured (" << l.why_not << "); CPU types are not projected\n";
    return;
  }
  o << "this machine: " << l.roof.threads << " thread(s), measured peak " << Fmt("%.1f", l.roof.peak_flops / 1e9)
    << " GFLOP/s fp32 (" << l.roof.isa << " FMA loop), memory " << Fmt("%.1f", l.roof.bandwidth_bps / 1e9)
    << " GB/s\n";
  o << "  calibrated from bench here: " << EfficiencyText(l.calibration.efficiency) << ", overhead "
    << Fmt("%.3f", l.calibration.overhead_s * 1e3) << " ms per run\n";
  if (!l.calibration.note.empty()) o << "  note: " << l.calibration.note << "\n";
  o << "  batch  measured_ms  projected_ms\n";
  for (const MeasuredPoint& p : l.points) {
    char line[96];
    std::snprintf(line, sizeof(line), "  %5d  %11.3f  %12.3f\n", p.batch, p.measured_s * 1e3, p.projected_s * 1e3);
    o << line;
  }
  for (const Projection& p : l.projections) {
    o << "  projected here at batch " << p.batch << ": " << Fmt("%.3f", p.batch_s * 1e3) << " ms per run, "
      << Fmt("%.1f", p.items_per_s) << " items/s\n";
  }
}

std::string Money(const std::optional<double>& v) { return v ? Fmt("%.4g", *v) : std::string("-"); }

void HostLine(const HostCheck& h, std::ostream& o) {
  if (!h.judged) return;
  o << "    host: RAM " << Fmt("%.2f", h.ram_ratio) << "x GPU memory (rule >= " << Fmt("%.1f", kHostRamPerGpuMemory)
    << "x): " << Verdict(h.ram_ok) << "; inputs need " << Fmt("%.3g", h.link_needed_bps / 1e9)
    << " GB/s per GPU of " << Fmt("%.3g", h.link_bps / 1e9) << " GB/s host link: " << Verdict(h.link_ok);
  if (h.feed_judged) {
    o << "; input preparation " << Fmt("%.0f", h.feed_items_per_s) << " items/s on all vCPUs: " << Verdict(h.feed_ok);
  } else {
    o << "; input preparation not judged (give --feed-rate from `tfhost data bench`)";
  }
  o << "\n";
}

// The device column of a table row: 30 characters at most.
std::string DeviceColumn(const PlanReport& r, const std::string& name) {
  const InstanceType* t = FindInstance(r, name);
  std::string device = t ? DeviceText(*t) : "";
  return device.size() > 30 ? device.substr(0, 30) : device;
}

// The row of an instance type the plan could not project, saying why.
std::string SkippedRow(const std::string& name, const std::string& device, const std::string& reason) {
  char line[256];
  std::snprintf(line, sizeof(line), "%-20s %-30s not projected: %s\n", name.c_str(), device.c_str(), reason.c_str());
  return line;
}

void ServingLines(const PlanReport& r, std::ostream& o) {
  char line[256];
  std::snprintf(line, sizeof(line), "%-20s %-30s %5s %4s %8s %12s %5s %10s %10s\n", "instance", "device", "batch",
                "fits", "p99_ms", "items/s/inst", "inst", "$/h", "$/M_inf");
  o << line;
  for (const ServingPlan& p : r.serving_plans) {
    const std::string device = DeviceColumn(r, p.name);
    if (!p.skip_reason.empty()) {
      o << SkippedRow(p.name, device, p.skip_reason);
      continue;
    }
    if (p.chosen < 0) {
      std::string why = "no batch size fits in memory and meets p99";
      for (const BatchOption& b : p.options) {
        if (b.fits) why = "no batch size that fits meets p99 (smallest projected p99 " + Fmt("%.3g", b.p99_ms) + " ms)";
        if (b.fits) break;
      }
      std::snprintf(line, sizeof(line), "%-20s %-30s %s\n", p.name.c_str(), device.c_str(), why.c_str());
      o << line;
      continue;
    }
    const BatchOption& b = p.options[p.chosen];
    std::snprintf(line, sizeof(line), "%-20s %-30s %5d %4s %8.3f %12.1f %5d %10s %10s\n", p.name.c_str(),
                  device.c_str(), b.batch, "yes", b.p99_ms, p.instance_items_per_s, p.instances,
                  Money(p.usd_per_hour).c_str(), Money(p.usd_per_million).c_str());
    o << line;
  }
  o << "\n";
  for (const ServingPlan& p : r.serving_plans) {
    const InstanceType* t = FindInstance(r, p.name);
    if (!t || !p.skip_reason.empty()) continue;
    o << "  " << p.name << ": efficiency " << EfficiencyText(p.efficiency)
      << (t->compute.accelerator ? " (accelerators, above)" : " (CPU types, above)");
    if (p.chosen >= 0) {
      const Projection& pr = p.options[p.chosen].projection;
      o << "; " << (pr.memory_bound ? "memory-bound" : "compute-bound") << " at batch " << pr.batch << ", needs "
        << HumanBytes(p.options[p.chosen].memory_needed_bytes) << " per device";
    }
    o << "\n";
    if (!t->on_demand) o << "    price: " << t->price_note << "\n";
    if (p.spot_usd_per_hour) {
      o << "    spot: $" << Fmt("%.4g", *p.spot_usd_per_hour) << "/h";
      if (p.spot_savings) o << ", " << Fmt("%.0f", *p.spot_savings * 100) << "% below on-demand";
      o << "; spot capacity can be reclaimed at short notice (AWS gives 2 minutes), so run spare replicas or fall "
           "back to on-demand\n";
    } else {
      o << "    spot: " << t->spot_note << "\n";
    }
    HostLine(p.host, o);
  }
}

void TrainingLines(const PlanReport& r, std::ostream& o) {
  char line[256];
  std::snprintf(line, sizeof(line), "%-20s %-30s %4s %10s %12s %10s %10s %10s\n", "instance", "device", "fits",
                "step_ms", "items/s/inst", "hours", "$/run", "spot$/run");
  o << line;
  for (const TrainingPlan& p : r.training_plans) {
    const std::string device = DeviceColumn(r, p.name);
    if (!p.skip_reason.empty()) {
      o << SkippedRow(p.name, device, p.skip_reason);
      continue;
    }
    std::snprintf(line, sizeof(line), "%-20s %-30s %4s %10.3f %12.1f %10.3g %10s %10s\n", p.name.c_str(),
                  device.c_str(), p.fits ? "yes" : "no", p.step.batch_s * 1e3, p.instance_items_per_s, p.run_hours,
                  Money(p.usd_per_run).c_str(), Money(p.spot_usd_per_run).c_str());
    o << line;
  }
  o << "\n";
  for (const TrainingPlan& p : r.training_plans) {
    const InstanceType* t = FindInstance(r, p.name);
    if (!t || !p.skip_reason.empty()) continue;
    o << "  " << p.name << ": efficiency " << EfficiencyText(p.efficiency)
      << (t->compute.accelerator ? " (accelerators, above)" : " (CPU types, above)") << "; needs "
      << HumanBytes(p.memory_needed_bytes) << " per device at step batch " << r.train.step_batch << "\n";
    if (!t->on_demand) o << "    price: " << t->price_note << "\n";
    if (!t->spot) o << "    spot: " << t->spot_note << "\n";
    if (t->spot) {
      o << "    spot: a reclaimed instance loses the work since the last checkpoint; checkpoint often and budget "
           "for restarts\n";
    }
    HostLine(p.host, o);
  }
}

}  // namespace

const InstanceType* FindInstance(const PlanReport& r, const std::string& name) {
  for (const InstanceType& t : r.instances) {
    if (t.name == name) return &t;
  }
  return nullptr;
}

std::string DeviceText(const InstanceType& t) {
  if (t.compute.accelerator) return std::to_string(t.compute.count) + "x " + t.compute.model;
  return t.compute.model;
}

std::string HumanBytes(double bytes) {
  if (bytes >= 1024.0 * 1024 * 1024) return Fmt("%.2f GiB", bytes / (1024.0 * 1024 * 1024));
  if (bytes >= 1024.0 * 1024) return Fmt("%.1f MiB", bytes / (1024.0 * 1024));
  if (bytes >= 1024.0) return Fmt("%.1f KiB", bytes / 1024.0);
  return Fmt("%.0f B", bytes);
}

std::string FormatPlanText(const PlanReport& r) {
  std::ostringstream o;
  o << "tfhost plan: " << r.model << " (signature " << r.signature << "), ";
  if (r.training) {
    o << "training " << Fmt("%.4g", r.train.records) << " records x " << Fmt("%g", r.train.epochs)
      << " epochs, step batch " << r.train.step_batch << " per device";
  } else {
    o << "serving " << Fmt("%g", r.serving.qps) << " QPS at p99 <= " << Fmt("%g", r.serving.p99_ms) << " ms";
  }
  o << ", " << r.precision << "\n";
  ModelLines(r, o);
  LocalLines(r, o);
  o << "accelerators: efficiency " << Fmt("%.3f", r.efficiencies.accelerator) << " ("
    << r.efficiencies.accelerator_basis << ")\n";
  if (r.local.measured) {
    o << "CPU types: the efficiencies fitted here, each capped at 1 (" << r.efficiencies.cpu_basis
      << "); every type adds the " << Fmt("%.3f", r.efficiencies.cpu_overhead_s * 1e3)
      << " ms per-run overhead measured here\n";
  }
  o << "catalog: " << r.catalog_path << "\n\n";
  if (r.training) {
    TrainingLines(r, o);
  } else {
    ServingLines(r, o);
  }
  o << "\nProjections: accelerators max(FLOPs / peak, bytes / bandwidth) / efficiency; CPUs the fit calibrated "
       "here (FLOP time and memory time added); both plus the per-run overhead and input copies. Estimates to "
       "within about 2x, not measurements (docs/plan.md).\n";
  return o.str();
}

std::string PlanHtml(const PlanReport& r) {
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>tfhost plan: "
    << HtmlEscape(r.model) << "</title>\n"
    << HtmlReportStyle() << "</head><body>\n<h1>tfhost plan &mdash; " << HtmlEscape(r.model) << "</h1>\n";
  // The text report carries every figure and note; the page shows it whole
  // and adds the charts (drawn with the advise report's chart code), so the
  // two cannot disagree.
  o << "<pre>" << HtmlEscape(FormatPlanText(r)) << "</pre>\n";
  if (!r.training) {
    std::vector<ChartSeries> rate, p99;
    double rate_max = 0, p99_max = 0;
    for (const ServingPlan& p : r.serving_plans) {
      if (!p.skip_reason.empty() || p.options.empty()) continue;
      ChartSeries a{p.name, {}}, b{p.name, {}};
      for (const BatchOption& opt : p.options) {
        a.points.push_back({static_cast<double>(opt.batch), opt.projection.items_per_s});
        b.points.push_back({static_cast<double>(opt.batch), opt.p99_ms});
        rate_max = std::max(rate_max, opt.projection.items_per_s);
        p99_max = std::max(p99_max, opt.p99_ms);
      }
      rate.push_back(std::move(a));
      p99.push_back(std::move(b));
    }
    if (r.local.measured && !r.local.projections.empty()) {
      ChartSeries a{"this machine", {}}, b{"this machine", {}};
      for (const Projection& p : r.local.projections) {
        a.points.push_back({static_cast<double>(p.batch), p.items_per_s});
        b.points.push_back({static_cast<double>(p.batch), 2 * p.batch_s * 1e3});
        rate_max = std::max(rate_max, p.items_per_s);
        p99_max = std::max(p99_max, 2 * p.batch_s * 1e3);
      }
      rate.push_back(std::move(a));
      p99.push_back(std::move(b));
    }
    if (!rate.empty()) {
      o << "<h2>Projections by batch size</h2>\n"
        << SvgLineChart("Projected throughput per device", rate, rate_max * 1.05, "items/s", "batch")
        << SvgLineChart("Projected p99 latency", p99, std::max(p99_max, r.serving.p99_ms) * 1.05, "ms", "batch");
      if (r.serving.p99_ms > 0) o << "<p>p99 target: " << Fmt("%g", r.serving.p99_ms) << " ms.</p>\n";
    }
  }
  o << "</body></html>\n";
  return o.str();
}

}  // namespace tfhost::host::plan
