// What `tfhost plan` found, and its three renderings: a text table (the
// default), JSON (--json) and a self-contained HTML page with charts
// (--html, drawn with the advise report's SVG chart code). Every projected
// figure is printed beside the efficiency it rests on and where that
// efficiency came from, and every missing price says why it is missing.
//
// Thread-safety: plain values and pure functions.
#pragma once

#include <string>
#include <vector>

#include "host/plan/instance_catalog.h"
#include "host/plan/local_peak.h"
#include "host/plan/roofline.h"
#include "host/plan/sizing.h"

namespace tfhost::host::plan {

// One batch size timed here by `bench`, and what the calibrated model says.
struct MeasuredPoint {
  int batch = 0;
  double measured_s = 0;   // bench's p50
  double projected_s = 0;  // the calibrated projection for this machine
};

struct LocalSummary {
  bool measured = false;
  std::string why_not;           // when not measured
  LocalRoof roof;
  Calibration calibration;
  std::vector<MeasuredPoint> points;
  std::vector<Projection> projections;  // this machine at the workload's batch sizes
};

struct PlanReport {
  std::string model, signature;
  bool training = false;
  std::string precision = "fp32";
  ModelCost cost;
  std::string cost_note;  // how the FLOPs and bytes were counted
  LocalSummary local;
  Efficiencies efficiencies;
  std::string catalog_path;
  std::vector<InstanceType> instances;
  ServingWorkload serving;
  TrainingWorkload train;
  std::vector<ServingPlan> serving_plans;
  std::vector<TrainingPlan> training_plans;
};

std::string FormatPlanText(const PlanReport& report);
std::string FormatPlanJson(const PlanReport& report);
std::string PlanHtml(const PlanReport& report);

// The catalog entry of a plan row; null when the name is not in the report.
const InstanceType* FindInstance(const PlanReport& report, const std::string& name);

// "8x NVIDIA H100 SXM5 80 GB", or the CPU model.
std::string DeviceText(const InstanceType& type);

// "1.5 GiB", "12.0 MiB", "512 B".
std::string HumanBytes(double bytes);

}  // namespace tfhost::host::plan
