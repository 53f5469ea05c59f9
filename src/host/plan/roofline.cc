// Roofline projection and its calibration from measured run times.
#include "host/plan/roofline.h"

#include <algorithm>
#include <cmath>

namespace tfhost::host::plan {

namespace {

// The roofline's two terms for one run, efficiency 1.
void Terms(const ModelCost& cost, const DeviceRoof& roof, double batch, const std::string& precision,
           double* compute_s, double* memory_s) {
  double scale = BytesPerElement(precision) / cost.stored_bytes_per_element;
  *compute_s = roof.peak_flops > 0 ? cost.Flops(batch) / roof.peak_flops : 0;
  // Activations are written once and read (at least) once; weights read once per run.
  double bytes = scale * (cost.weight_bytes + 2 * cost.TrafficBytes(batch));
  *memory_s = roof.memory_bandwidth_bps > 0 ? bytes / roof.memory_bandwidth_bps : 0;
}

}  // namespace

double BytesPerElement(const std::string& precision) {
  if (precision == "fp32" || precision == "tf32") return 4;
  if (precision == "fp16" || precision == "bf16") return 2;
  if (precision == "fp8" || precision == "int8") return 1;
  return 0;
}

std::pair<double, double> LinearThrough(double b1, double v1, double b2, double v2) {
  if (b1 == b2 || b1 <= 0 || b2 <= 0) return {0, b1 > 0 ? v1 / b1 : 0};
  double per_item = (v2 - v1) / (b2 - b1);
  double fixed = v1 - per_item * b1;
  if (fixed < 0 || per_item < 0) return {0, std::max(v1 / b1, v2 / b2)};
  return {fixed, per_item};
}

Projection Project(const ModelCost& cost, const DeviceRoof& roof, const Efficiency& efficiency, double overhead_s,
                   int batch, const std::string& precision) {
  Projection p;
  p.batch = batch;
  Terms(cost, roof, batch, precision, &p.compute_s, &p.memory_s);
  p.memory_bound = p.memory_s > p.compute_s;
  double c = efficiency.compute > 0 ? p.compute_s / efficiency.compute : 0;
  double m = efficiency.memory > 0 ? p.memory_s / efficiency.memory : 0;
  // Inputs cross the link as fed, whatever precision the device computes in.
  p.transfer_s = roof.host_link_bps > 0 ? cost.input_bytes_per_item * batch / roof.host_link_bps : 0;
  p.overhead_s = overhead_s;
  p.batch_s = overhead_s + p.transfer_s + (efficiency.additive ? c + m : std::max(c, m));
  p.items_per_s = p.batch_s > 0 ? batch / p.batch_s : 0;
  return p;
}

StatusOr<Calibration> Calibrate(const ModelCost& cost, const DeviceRoof& local, const std::string& precision,
                                const std::vector<CalibrationPoint>& points) {
  if (points.empty()) return InvalidArgument("calibration needs at least one measured batch");
  // Memory time is taken at the bandwidth measured here (efficiency 1): with
  // costs linear in the batch, a fixed overhead, weight traffic and
  // activation traffic cannot all be told apart from timings, and the
  // bandwidth is the one of them measured directly.
  std::vector<double> x, y;
  double max_memory = 0;
  for (const CalibrationPoint& p : points) {
    if (p.batch < 1 || !(p.seconds > 0)) {
      return InvalidArgument("calibration point batch " + std::to_string(p.batch) + ": expected batch >= 1 and a time > 0");
    }
    double c = 0, m = 0;
    Terms(cost, local, p.batch, precision, &c, &m);
    x.push_back(c);
    y.push_back(p.seconds - m);
    max_memory = std::max(max_memory, m);
  }
  if (*std::max_element(x.begin(), x.end()) <= 0) {
    if (max_memory <= 0) {
      return FailedPrecondition("calibration: the model's roofline time is 0 (no FLOPs counted and no bytes moved); "
                                "nothing to calibrate against");
    }
    double mean = 0;
    for (double v : y) mean += v;
    mean /= static_cast<double>(y.size());
    Calibration cal;
    cal.efficiency = Efficiency{0, 1, true};
    cal.overhead_s = std::max(0.0, mean);
    cal.note = "no FLOPs counted: the fit has memory time and a per-run overhead only";
    return cal;
  }
  // y = overhead + k * x, k = 1 / compute efficiency.
  const double n = static_cast<double>(x.size());
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sx += x[i];
    sy += y[i];
    sxx += x[i] * x[i];
    sxy += x[i] * y[i];
  }
  const double denom = n * sxx - sx * sx;
  double k = 0, overhead = 0;
  std::string note;
  if (x.size() >= 2 && denom > 1e-12 * n * sxx) {
    k = (n * sxy - sx * sy) / denom;
    overhead = (sy - k * sx) / n;
    if (!(k > 0)) {
      note = "the measured times did not grow with the batch's FLOPs (fixed costs and timing noise hide them)";
    }
  } else {
    note = "one batch size: all of the time beyond memory is put on the FLOPs, none on a per-run overhead";
  }
  if (!(k > 0) || overhead < 0) {
    overhead = 0;
    k = sxy / sxx;  // through the origin
  }
  Calibration cal;
  cal.efficiency.additive = true;
  cal.efficiency.memory = 1;
  if (k > 0 && std::isfinite(k)) {
    cal.efficiency.compute = 1 / k;
  } else {
    // Memory time alone explains the timings.
    cal.efficiency.compute = 0;
    overhead = std::max(0.0, sy / n);
    note = "the memory time at the measured bandwidth explains the timings; the FLOPs add no time here";
  }
  cal.overhead_s = overhead;
  cal.note = note;
  return cal;
}

}  // namespace tfhost::host::plan
