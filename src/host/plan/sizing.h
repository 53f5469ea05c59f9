// Sizing one instance type for a workload: does the model fit, which batch
// size serves the p99 target fastest, how many instances the QPS needs, what
// that costs on demand and on spot, and the host rules (RAM at least 1.5x the
// GPU memory; a host link that carries the inputs at the projected rate;
// vCPUs that can prepare them, when their rate was measured). Training:
// time and cost of the whole run. Every assumption is a named constant here
// so the report, the docs and the tests quote the same figures.
//
// Thread-safety: plain values and pure functions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "host/plan/instance_catalog.h"
#include "host/plan/roofline.h"

namespace tfhost::host::plan {

// Serving runs replicas at this utilisation at most, so a burst does not
// build an unbounded queue (at 70% an M/D/1 queue waits about one service
// time on average).
inline constexpr double kTargetUtilization = 0.7;
// p99 latency = the wait for a batch to fill at the per-device arrival rate
// ((batch - 1) / rate) + this many batch times: a request may arrive just
// after a batch started, wait for it, then run in its own.
inline constexpr double kP99BatchTimes = 2.0;
// Device memory kept back for the runtime (CUDA context, cuBLAS/cuDNN
// workspaces, allocator fragmentation).
inline constexpr double kWorkspaceFraction = 0.10;
// The sizing rule for hosts: RAM at least this many times the GPUs' memory
// (pinned staging buffers, the input pipeline, checkpoints).
inline constexpr double kHostRamPerGpuMemory = 1.5;
// Training: backward costs about twice the forward pass.
inline constexpr double kTrainingFlopsFactor = 3.0;
// Training keeps weights, gradients and two Adam moments.
inline constexpr double kTrainingWeightCopies = 4.0;

// How efficient the software is on each kind of device, and why we think so.
struct Efficiencies {
  double accelerator = kAssumedAcceleratorEfficiency;
  std::string accelerator_basis = "assumed (no accelerator measured here)";
  bool cpu_calibrated = false;  // false: CPU types are not projected
  Efficiency cpu;               // fitted here (additive), see Calibrate
  // Per-run time measured here that does not grow with the batch: tfhost's
  // executor dispatching the graph's nodes on the host, which it does for
  // any device, so it is added for every type (GPU kernel-launch latency is
  // not in it).
  double cpu_overhead_s = 0;
  std::string cpu_basis;
};

struct ServingWorkload {
  double qps = 0;
  double p99_ms = 0;
  std::vector<int> batches;
  std::string precision = "fp32";
  double feed_items_per_vcpu_s = 0;  // input preparation rate per vCPU; 0 = not measured
};

struct TrainingWorkload {
  double records = 0;
  double epochs = 1;
  int step_batch = 32;  // per device
  std::string precision = "fp32";
  double feed_items_per_vcpu_s = 0;
};

struct HostCheck {
  bool judged = false;          // GPU types only
  double ram_ratio = 0;         // host RAM / total GPU memory
  bool ram_ok = true;
  double link_needed_bps = 0;   // per device, inputs at the planned rate
  double link_bps = 0;
  bool link_ok = true;
  bool feed_judged = false;
  double feed_items_per_s = 0;  // vCPUs x measured rate
  bool feed_ok = true;
};

struct BatchOption {
  int batch = 0;
  double memory_needed_bytes = 0;  // per device
  bool fits = false;
  Projection projection;
  int instances = 0;      // to serve the QPS at this batch size
  double fill_ms = 0;     // waiting for the batch to fill at that many instances
  double p99_ms = 0;
  bool meets_p99 = false;
};

struct ServingPlan {
  std::string name;
  std::string skip_reason;  // non-empty: not projected (no peak at the precision, no calibration)
  Efficiency efficiency;
  std::string efficiency_basis;
  std::vector<BatchOption> options;
  int chosen = -1;  // index into options: fits, meets p99, fewest instances, then fastest; -1: none
  double instance_items_per_s = 0;      // all devices, at the chosen batch, full load
  int instances = 0;
  std::optional<double> usd_per_hour;   // all instances, on demand
  std::optional<double> usd_per_million;
  std::optional<double> spot_usd_per_hour;
  std::optional<double> spot_savings;   // fraction of the on-demand cost
  HostCheck host;
};

ServingPlan PlanServing(const InstanceType& type, const ModelCost& cost, const ServingWorkload& load,
                        const Efficiencies& eff);

struct TrainingPlan {
  std::string name;
  std::string skip_reason;
  Efficiency efficiency;
  std::string efficiency_basis;
  double memory_needed_bytes = 0;  // per device at step_batch
  bool fits = false;
  Projection step;                 // one step on one device
  double instance_items_per_s = 0;
  double run_hours = 0;
  std::optional<double> usd_per_run;
  std::optional<double> spot_usd_per_run;
  HostCheck host;
};

TrainingPlan PlanTraining(const InstanceType& type, const ModelCost& cost, const TrainingWorkload& load,
                          const Efficiencies& eff);

}  // namespace tfhost::host::plan
