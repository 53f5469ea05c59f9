// The instance catalog `tfhost plan` sizes a model on: one entry per rentable
// machine type (GPU or CPU), with the vendor's published peak FLOP/s per
// precision, memory size and bandwidth, host link, vCPUs and RAM, and its
// on-demand and spot prices, each figure with its source and date. The catalog
// is a plain JSON file (src/host/data/instance_catalog.json, installed as
// share/tfhost/instance_catalog.json) that a user replaces with --catalog, so
// parsing is strict: a malformed entry is an error naming the file, the entry
// and the field, and what was expected, never a silently skipped row. A figure
// that is unknown is absent, and the entry must then say why (price_note,
// spot_note), so the report can say so too instead of inventing one.
//
// Thread-safety: plain values and pure functions.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace tfhost::host::plan {

// Precisions a catalog can give peaks for, in the order reports list them.
const std::vector<std::string>& PrecisionNames();

struct PriceFigure {
  double usd_per_hour = 0;
  std::string source;  // where the figure was published
  std::string date;    // YYYY-MM-DD it was read
};

// The compute part of an entry: per device (one GPU, or the whole CPU).
struct ComputeSpec {
  bool accelerator = false;  // "accelerator" (GPUs) rather than "cpu"
  std::string model;
  int count = 1;                     // devices per instance (GPUs); 1 for a CPU
  int cores = 0;                     // CPU entries: physical cores
  double memory_bytes = 0;           // per device; 0 for CPU entries (host RAM is the limit)
  double memory_bandwidth_bps = 0;   // bytes/s per device; 0 = not published
  double host_link_bps = 0;          // host-to-device bytes/s per device, one direction; 0 for CPUs
  std::string interconnect;
  std::map<std::string, double> peak_flops;  // precision -> FLOP/s per device (dense)
  std::string source, source_date;
};

struct InstanceType {
  std::string name;  // unique in the catalog, e.g. "aws-p5.48xlarge"
  std::string provider, instance_type, region;
  int vcpus = 0;
  double ram_bytes = 0;
  ComputeSpec compute;
  std::optional<PriceFigure> on_demand;
  std::string price_note;  // why on_demand is absent
  std::optional<PriceFigure> spot;
  std::string spot_note;   // why spot is absent
};

struct InstanceCatalog {
  std::string path;  // where it was read from (for reports)
  std::string note;
  std::vector<InstanceType> instances;
};

// Parses catalog JSON; `file` names it in errors ("catalog.json: entry 3
// (aws-p5.48xlarge): field 'accelerator.memory_bandwidth_gbps': expected a
// number > 0"). InvalidArgument on any malformed entry.
StatusOr<InstanceCatalog> ParseInstanceCatalog(const std::string& text, const std::string& file);

// Reads and parses `path`; NotFound when it cannot be read.
StatusOr<InstanceCatalog> LoadInstanceCatalog(const std::string& path);

// Where the shipped catalog is looked for, in order: beside the binary as
// installed (<exe dir>/../share/tfhost/instance_catalog.json), in a build
// tree (<exe dir>/share/tfhost/...), then in the source tree the binary was
// built from (`source_dir`/src/host/data/instance_catalog.json).
std::vector<std::string> DefaultCatalogPaths(const std::string& exe_dir, const std::string& source_dir);

// The first of DefaultCatalogPaths that exists; NotFound listing them all.
StatusOr<std::string> FindDefaultCatalog(const std::string& exe_dir, const std::string& source_dir);

}  // namespace tfhost::host::plan
