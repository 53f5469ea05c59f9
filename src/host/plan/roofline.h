// The roofline projection `tfhost plan` makes for one device: a batch takes
//   overhead + host-to-device transfer + max(FLOPs / peak, bytes / bandwidth) / efficiency
// where FLOPs and bytes come from the model's graph (ModelCost) at the
// precision asked for, peak and bandwidth from the catalog (or this machine's
// measurement), and efficiency is the fraction of the roofline the software
// reaches. For accelerators, which tfhost cannot time here, that is the
// model, with an assumed efficiency labelled as such. On this machine, where
// `bench` times the model at two or more batch sizes, Calibrate fits
//   overhead + FLOPs / (peak x compute efficiency) + bytes / (bandwidth x memory efficiency)
// instead: the CPU runs the graph's ops one after another, each bound by one
// term or the other, so the terms add rather than overlap, and one
// efficiency cannot describe both a memory-bound small batch and a
// compute-bound large one.
//
// Why a roofline with one efficiency: it is the simplest model whose inputs
// are all published or measured, and its error can be checked against
// published results (mlperf_check_test.cc); finer models (per-op
// efficiencies, cache effects) need measurements on the target device.
//
// Thread-safety: plain values and pure functions.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace tfhost::host::plan {

// The efficiency assumed for an accelerator when none could be measured.
// Not a measurement: it is the fraction of dense peak that, with this
// roofline, projects ResNet-50 and BERT-large on H100 within 2x of MLPerf
// Inference's published per-GPU offline results (mlperf_check_test.cc says
// how far each is; docs/plan.md).
inline constexpr double kAssumedAcceleratorEfficiency = 0.6;

// Bytes per element at a precision ("fp32" 4, "tf32" 4, "fp16"/"bf16" 2,
// "fp8"/"int8" 1); 0 for an unknown name.
double BytesPerElement(const std::string& precision);

// What one run of the model costs, as linear functions of the batch size b
// (fixed + per_item * b), measured on the graph as stored (normally fp32).
struct ModelCost {
  double flops_fixed = 0, flops_per_item = 0;            // forward FLOPs (2 x multiply-adds)
  double weight_bytes = 0;                                // variables/constants, as stored
  double peak_act_fixed = 0, peak_act_per_item = 0;      // most activation bytes alive at once
  double traffic_fixed = 0, traffic_per_item = 0;        // activation bytes written by one run
  double input_bytes_per_item = 0;                        // what is copied to the device per item
  double stored_bytes_per_element = 4;                    // element size of the graph's tensors

  double Flops(double batch) const { return flops_fixed + flops_per_item * batch; }
  double PeakActivationBytes(double batch) const { return peak_act_fixed + peak_act_per_item * batch; }
  double TrafficBytes(double batch) const { return traffic_fixed + traffic_per_item * batch; }
};

// The linear function through (b1, v1) and (b2, v2), as {fixed, per_item};
// with b1 == b2, {0, v1 / b1}. A negative fixed part (rounding in the
// counts) is folded into per_item.
std::pair<double, double> LinearThrough(double b1, double v1, double b2, double v2);

// One device's roofline: FLOP/s at the precision, memory bandwidth (0 = not
// known: compute alone), host link (0 = none: the model runs on the host).
struct DeviceRoof {
  double peak_flops = 0;
  double memory_bandwidth_bps = 0;
  double host_link_bps = 0;
};

// How the software's time relates to the roofline's terms.
struct Efficiency {
  double compute = 1;     // fraction of peak FLOP/s reached; 0: the term adds no time
  double memory = 1;      // fraction of the memory bandwidth reached; 0: the term adds no time
  bool additive = false;  // time = compute + memory terms (calibrated here), not their max
  static Efficiency Roofline(double e) { return Efficiency{e, e, false}; }
};

struct Projection {
  int batch = 0;
  double compute_s = 0;   // FLOPs / peak (efficiency 1)
  double memory_s = 0;    // (weights + 2 x activation traffic) / bandwidth (efficiency 1)
  double transfer_s = 0;  // inputs over the host link
  double overhead_s = 0;  // per-run fixed time (calibrated on this machine; 0 elsewhere)
  double batch_s = 0;     // the projected time of one run of `batch` items
  double items_per_s = 0;
  bool memory_bound = false;
};

// The projection of one run of `batch` items at `precision` (scales bytes
// from the stored element size) with the given efficiency.
Projection Project(const ModelCost& cost, const DeviceRoof& roof, const Efficiency& efficiency, double overhead_s,
                   int batch, const std::string& precision);

// A measured run time at a batch size (bench's p50).
struct CalibrationPoint {
  int batch = 0;
  double seconds = 0;
};

struct Calibration {
  Efficiency efficiency;  // additive, memory 1; compute 0 when the FLOPs add no time
  double overhead_s = 0;  // per-run time that does not grow with the batch
  // Set when the fit had to leave a term out (one batch size, or times that
  // did not grow with the work), so the figures are read for what they are.
  std::string note;
};

// Fits seconds = overhead + FLOPs/peak / compute efficiency + bytes/bandwidth
// by least squares over the points (overhead >= 0; memory efficiency 1, the
// bandwidth being measured here). One batch size, or times that do not grow
// with the FLOPs: no overhead, and `note` says so. FailedPrecondition when
// the model has no roofline time at all (no FLOPs counted, no bytes).
StatusOr<Calibration> Calibrate(const ModelCost& cost, const DeviceRoof& local, const std::string& precision,
                                const std::vector<CalibrationPoint>& points);

}  // namespace tfhost::host::plan
