// The JSON rendering of a plan (--json): every figure the text shows, with
// the efficiency behind each projection and the source of each price.
#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include "host/plan/plan_report.h"

namespace tfhost::host::plan {

std::string FormatPlanJson(const PlanReport& r) {
  rapidjson::StringBuffer buffer;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buffer);
  w.SetIndent(' ', 2);
  auto num = [&w](const char* k, double v) {
    w.Key(k);
    w.Double(v);
  };
  auto str = [&w](const char* k, const std::string& v) {
    w.Key(k);
    w.String(v.c_str());
  };
  auto opt = [&](const char* k, const std::optional<double>& v) {
    w.Key(k);
    if (v) {
      w.Double(*v);
    } else {
      w.Null();
    }
  };
  auto host = [&](const HostCheck& h) {
    w.Key("host");
    w.StartObject();
    w.Key("judged");
    w.Bool(h.judged);
    if (h.judged) {
      num("ram_per_gpu_memory", h.ram_ratio);
      w.Key("ram_ok");
      w.Bool(h.ram_ok);
      num("link_needed_bytes_per_s", h.link_needed_bps);
      num("link_bytes_per_s", h.link_bps);
      w.Key("link_ok");
      w.Bool(h.link_ok);
      w.Key("feed_judged");
      w.Bool(h.feed_judged);
      if (h.feed_judged) {
        num("feed_items_per_s", h.feed_items_per_s);
        w.Key("feed_ok");
        w.Bool(h.feed_ok);
      }
    }
    w.EndObject();
  };
  auto projection = [&](const Projection& p) {
    w.StartObject();
    w.Key("batch");
    w.Int(p.batch);
    num("batch_s", p.batch_s);
    num("items_per_s", p.items_per_s);
    num("compute_s", p.compute_s);
    num("memory_s", p.memory_s);
    num("transfer_s", p.transfer_s);
    num("overhead_s", p.overhead_s);
    w.Key("memory_bound");
    w.Bool(p.memory_bound);
    w.EndObject();
  };
  w.StartObject();
  str("model", r.model);
  str("signature", r.signature);
  str("mode", r.training ? "training" : "serving");
  str("precision", r.precision);
  str("catalog", r.catalog_path);
  w.Key("model_cost");
  w.StartObject();
  num("flops_per_item", r.cost.flops_per_item);
  num("flops_fixed", r.cost.flops_fixed);
  num("weight_bytes", r.cost.weight_bytes);
  num("peak_activation_bytes_per_item", r.cost.peak_act_per_item);
  num("activation_bytes_written_per_item", r.cost.traffic_per_item);
  num("input_bytes_per_item", r.cost.input_bytes_per_item);
  str("note", r.cost_note);
  w.EndObject();
  w.Key("this_machine");
  w.StartObject();
  w.Key("measured");
  w.Bool(r.local.measured);
  if (!r.local.measured) {
    str("why_not", r.local.why_not);
  } else {
    w.Key("threads");
    w.Int(r.local.roof.threads);
    num("peak_flops", r.local.roof.peak_flops);
    num("memory_bytes_per_s", r.local.roof.bandwidth_bps);
    str("isa", r.local.roof.isa);
    num("compute_efficiency", r.local.calibration.efficiency.compute);
    num("memory_efficiency", r.local.calibration.efficiency.memory);
    num("overhead_s", r.local.calibration.overhead_s);
    if (!r.local.calibration.note.empty()) str("calibration_note", r.local.calibration.note);
    w.Key("calibration");
    w.StartArray();
    for (const MeasuredPoint& p : r.local.points) {
      w.StartObject();
      w.Key("batch");
      w.Int(p.batch);
      num("measured_s", p.measured_s);
      num("projected_s", p.projected_s);
      w.EndObject();
    }
    w.EndArray();
    w.Key("projections");
    w.StartArray();
    for (const Projection& p : r.local.projections) projection(p);
    w.EndArray();
  }
  w.EndObject();
  w.Key("accelerator_efficiency");
  w.StartObject();
  num("value", r.efficiencies.accelerator);
  str("basis", r.efficiencies.accelerator_basis);
  w.EndObject();
  if (r.training) {
    w.Key("workload");
    w.StartObject();
    num("records", r.train.records);
    num("epochs", r.train.epochs);
    w.Key("step_batch");
    w.Int(r.train.step_batch);
    w.EndObject();
  } else {
    w.Key("workload");
    w.StartObject();
    num("qps", r.serving.qps);
    num("p99_ms", r.serving.p99_ms);
    w.EndObject();
  }
  w.Key("instances");
  w.StartArray();
  auto common = [&](const std::string& name) {
    const InstanceType* t = FindInstance(r, name);
    str("name", name);
    if (!t) return;
    str("instance_type", t->instance_type);
    str("device", DeviceText(*t));
    w.Key("devices");
    w.Int(t->compute.count);
    opt("on_demand_usd_per_hour", t->on_demand ? std::optional<double>(t->on_demand->usd_per_hour) : std::nullopt);
    if (t->on_demand) {
      str("price_source", t->on_demand->source);
      str("price_date", t->on_demand->date);
    } else {
      str("price_note", t->price_note);
    }
    if (!t->spot) str("spot_note", t->spot_note);
  };
  // Both plan kinds state the calibration they were projected with.
  auto efficiency = [&](const auto& e, const std::string& basis) {
    num("compute_efficiency", e.compute);
    num("memory_efficiency", e.memory);
    w.Key("efficiency_additive");
    w.Bool(e.additive);
    str("efficiency_basis", basis);
  };
  for (const ServingPlan& p : r.serving_plans) {
    w.StartObject();
    common(p.name);
    if (!p.skip_reason.empty()) {
      str("not_projected", p.skip_reason);
      w.EndObject();
      continue;
    }
    efficiency(p.efficiency, p.efficiency_basis);
    w.Key("batches");
    w.StartArray();
    for (const BatchOption& b : p.options) {
      w.StartObject();
      w.Key("batch");
      w.Int(b.batch);
      num("memory_needed_bytes", b.memory_needed_bytes);
      w.Key("fits");
      w.Bool(b.fits);
      w.Key("instances");
      w.Int(b.instances);
      num("fill_ms", b.fill_ms);
      num("p99_ms", b.p99_ms);
      w.Key("meets_p99");
      w.Bool(b.meets_p99);
      w.Key("projection");
      projection(b.projection);
      w.EndObject();
    }
    w.EndArray();
    w.Key("chosen_batch");
    if (p.chosen >= 0) {
      w.Int(p.options[p.chosen].batch);
    } else {
      w.Null();
    }
    num("instance_items_per_s", p.instance_items_per_s);
    w.Key("instances_needed");
    w.Int(p.instances);
    opt("usd_per_hour", p.usd_per_hour);
    opt("usd_per_million_inferences", p.usd_per_million);
    opt("spot_usd_per_hour", p.spot_usd_per_hour);
    opt("spot_savings", p.spot_savings);
    host(p.host);
    w.EndObject();
  }
  for (const TrainingPlan& p : r.training_plans) {
    w.StartObject();
    common(p.name);
    if (!p.skip_reason.empty()) {
      str("not_projected", p.skip_reason);
      w.EndObject();
      continue;
    }
    efficiency(p.efficiency, p.efficiency_basis);
    num("memory_needed_bytes", p.memory_needed_bytes);
    w.Key("fits");
    w.Bool(p.fits);
    w.Key("step");
    projection(p.step);
    num("instance_items_per_s", p.instance_items_per_s);
    num("run_hours", p.run_hours);
    opt("usd_per_run", p.usd_per_run);
    opt("spot_usd_per_run", p.spot_usd_per_run);
    host(p.host);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize()) + "\n";
}

}  // namespace tfhost::host::plan
