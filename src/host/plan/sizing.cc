// Serving and training sizing on one instance type.
#include "host/plan/sizing.h"

#include <algorithm>
#include <cmath>

namespace tfhost::host::plan {

namespace {

DeviceRoof RoofOf(const ComputeSpec& c, const std::string& precision) {
  DeviceRoof r;
  auto it = c.peak_flops.find(precision);
  r.peak_flops = it == c.peak_flops.end() ? 0 : it->second;
  r.memory_bandwidth_bps = c.memory_bandwidth_bps;
  r.host_link_bps = c.accelerator ? c.host_link_bps : 0;
  return r;
}

// Memory one device has for the model: GPU memory less the workspace, or
// host RAM for CPU types.
double UsableMemory(const InstanceType& t) {
  double total = t.compute.accelerator ? t.compute.memory_bytes : t.ram_bytes;
  return total * (1 - kWorkspaceFraction);
}

// Common checks; returns the reason not to project, or "".
std::string SkipReason(const InstanceType& t, const std::string& precision, const Efficiencies& eff) {
  if (!t.compute.peak_flops.count(precision)) {
    return "no published " + precision + " peak for " + t.compute.model;
  }
  if (!t.compute.accelerator && !eff.cpu_calibrated) return "no CPU calibration (plan ran with --no-measure)";
  return "";
}

void EfficiencyFor(const InstanceType& t, const Efficiencies& eff, Efficiency* e, std::string* basis,
                   double* overhead) {
  *overhead = eff.cpu_overhead_s;
  if (t.compute.accelerator) {
    *e = Efficiency::Roofline(eff.accelerator);
    *basis = eff.accelerator_basis;
    return;
  }
  // Calibrated here. More than 1 (caches beating the measured bandwidth, a
  // measured peak below the vendor's) would project past the published
  // hardware, and a term the fit found no time for is taken at full speed:
  // both are capped at 1.
  e->additive = true;
  e->compute = eff.cpu.compute > 0 ? std::min(1.0, eff.cpu.compute) : 1.0;
  e->memory = eff.cpu.memory > 0 ? std::min(1.0, eff.cpu.memory) : 1.0;
  *basis = eff.cpu_basis;
}

// Items per second the device computes, copies aside: the rate the data path
// must sustain so the device never waits (the projection itself includes the
// copies, so judging the link by it would always pass).
double ComputeRate(const Projection& p) {
  double busy = p.batch_s - p.transfer_s;
  return busy > 0 ? p.batch / busy : 0;
}

HostCheck CheckHost(const InstanceType& t, double device_items_per_s, double input_bytes_per_item,
                    double feed_items_per_vcpu_s) {
  HostCheck h;
  if (!t.compute.accelerator) return h;
  h.judged = true;
  double gpu_memory = t.compute.memory_bytes * t.compute.count;
  h.ram_ratio = gpu_memory > 0 ? t.ram_bytes / gpu_memory : 0;
  h.ram_ok = h.ram_ratio >= kHostRamPerGpuMemory;
  h.link_needed_bps = device_items_per_s * input_bytes_per_item;
  h.link_bps = t.compute.host_link_bps;
  h.link_ok = h.link_needed_bps <= h.link_bps;
  if (feed_items_per_vcpu_s > 0) {
    h.feed_judged = true;
    h.feed_items_per_s = feed_items_per_vcpu_s * t.vcpus;
    h.feed_ok = h.feed_items_per_s >= device_items_per_s * t.compute.count;
  }
  return h;
}

}  // namespace

ServingPlan PlanServing(const InstanceType& type, const ModelCost& cost, const ServingWorkload& load,
                        const Efficiencies& eff) {
  ServingPlan plan;
  plan.name = type.name;
  plan.skip_reason = SkipReason(type, load.precision, eff);
  if (!plan.skip_reason.empty()) return plan;
  double overhead = 0;
  EfficiencyFor(type, eff, &plan.efficiency, &plan.efficiency_basis, &overhead);
  const DeviceRoof roof = RoofOf(type.compute, load.precision);
  const double scale = BytesPerElement(load.precision) / cost.stored_bytes_per_element;
  for (int batch : load.batches) {
    BatchOption o;
    o.batch = batch;
    o.memory_needed_bytes = scale * (cost.weight_bytes + cost.PeakActivationBytes(batch));
    o.fits = o.memory_needed_bytes <= UsableMemory(type);
    o.projection = Project(cost, roof, plan.efficiency, overhead, batch, load.precision);
    const double devices_rate = o.projection.items_per_s * type.compute.count;
    if (load.qps > 0 && devices_rate > 0) {
      o.instances = static_cast<int>(std::ceil(load.qps / (devices_rate * kTargetUtilization)));
      const double per_device_qps = load.qps / (o.instances * type.compute.count);
      o.fill_ms = (batch - 1) / per_device_qps * 1e3;
    } else {
      o.instances = 1;
    }
    o.p99_ms = o.fill_ms + kP99BatchTimes * o.projection.batch_s * 1e3;
    o.meets_p99 = load.p99_ms <= 0 || o.p99_ms <= load.p99_ms;
    plan.options.push_back(o);
  }
  for (size_t i = 0; i < plan.options.size(); ++i) {
    const BatchOption& o = plan.options[i];
    if (!o.fits || !o.meets_p99) continue;
    if (plan.chosen < 0) {
      plan.chosen = static_cast<int>(i);
      continue;
    }
    const BatchOption& best = plan.options[plan.chosen];
    if (o.instances < best.instances ||
        (o.instances == best.instances && o.projection.items_per_s > best.projection.items_per_s)) {
      plan.chosen = static_cast<int>(i);
    }
  }
  if (plan.chosen < 0) return plan;
  const BatchOption& best = plan.options[plan.chosen];
  plan.instance_items_per_s = best.projection.items_per_s * type.compute.count;
  double usable = plan.instance_items_per_s * kTargetUtilization;
  plan.instances = best.instances;
  const double served_per_hour = (load.qps > 0 ? load.qps : usable) * 3600;
  if (type.on_demand) {
    plan.usd_per_hour = plan.instances * type.on_demand->usd_per_hour;
    plan.usd_per_million = *plan.usd_per_hour / served_per_hour * 1e6;
  }
  if (type.spot) {
    plan.spot_usd_per_hour = plan.instances * type.spot->usd_per_hour;
    if (type.on_demand) plan.spot_savings = 1 - type.spot->usd_per_hour / type.on_demand->usd_per_hour;
  }
  plan.host = CheckHost(type, ComputeRate(best.projection), cost.input_bytes_per_item, load.feed_items_per_vcpu_s);
  return plan;
}

TrainingPlan PlanTraining(const InstanceType& type, const ModelCost& cost, const TrainingWorkload& load,
                          const Efficiencies& eff) {
  TrainingPlan plan;
  plan.name = type.name;
  plan.skip_reason = SkipReason(type, load.precision, eff);
  if (!plan.skip_reason.empty()) return plan;
  double overhead = 0;
  EfficiencyFor(type, eff, &plan.efficiency, &plan.efficiency_basis, &overhead);
  // A training step as a forward run: 3x the FLOPs; weights, gradients and
  // optimizer state read and written; every activation kept for backward
  // and its gradient written once.
  ModelCost step = cost;
  step.flops_fixed *= kTrainingFlopsFactor;
  step.flops_per_item *= kTrainingFlopsFactor;
  step.weight_bytes *= kTrainingWeightCopies;
  step.traffic_fixed *= 2;
  step.traffic_per_item *= 2;
  const double scale = BytesPerElement(load.precision) / cost.stored_bytes_per_element;
  plan.memory_needed_bytes = scale * (cost.weight_bytes * kTrainingWeightCopies + cost.TrafficBytes(load.step_batch));
  plan.fits = plan.memory_needed_bytes <= UsableMemory(type);
  plan.step = Project(step, RoofOf(type.compute, load.precision), plan.efficiency, overhead, load.step_batch,
                      load.precision);
  plan.instance_items_per_s = plan.step.items_per_s * type.compute.count;
  if (plan.instance_items_per_s > 0) {
    plan.run_hours = load.records * load.epochs / plan.instance_items_per_s / 3600;
  }
  if (type.on_demand) plan.usd_per_run = plan.run_hours * type.on_demand->usd_per_hour;
  if (type.spot) plan.spot_usd_per_run = plan.run_hours * type.spot->usd_per_hour;
  plan.host = CheckHost(type, ComputeRate(plan.step), cost.input_bytes_per_item, load.feed_items_per_vcpu_s);
  return plan;
}

}  // namespace tfhost::host::plan
