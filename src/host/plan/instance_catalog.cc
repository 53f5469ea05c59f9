// Strict parsing of the instance catalog: every field is checked for type and
// range, and every error names file, entry and field with what was expected,
// because the file is meant to be edited by hand.
#include "host/plan/instance_catalog.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace tfhost::host::plan {

namespace {

constexpr char kFileName[] = "instance_catalog.json";
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// Error context for one entry: "FILE: entry N (NAME)".
struct Where {
  std::string file;
  size_t index = 0;
  std::string name;
  Status Error(const std::string& field, const std::string& expected) const {
    std::string entry = "entry " + std::to_string(index + 1) + (name.empty() ? "" : " (" + name + ")");
    return InvalidArgument(file + ": " + entry + ": field '" + field + "': " + expected);
  }
};

StatusOr<std::string> String(const rapidjson::Value& o, const char* key, const std::string& path, const Where& w,
                             bool required) {
  auto it = o.FindMember(key);
  if (it == o.MemberEnd()) {
    if (required) return w.Error(path, "missing; expected a non-empty string");
    return std::string();
  }
  if (!it->value.IsString() || it->value.GetStringLength() == 0) return w.Error(path, "expected a non-empty string");
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

// A required number > 0 (or >= 0 when zero_ok), finite.
StatusOr<double> Positive(const rapidjson::Value& o, const char* key, const std::string& path, const Where& w) {
  auto it = o.FindMember(key);
  if (it == o.MemberEnd()) return w.Error(path, "missing; expected a number > 0");
  if (!it->value.IsNumber() || !std::isfinite(it->value.GetDouble()) || !(it->value.GetDouble() > 0)) {
    return w.Error(path, "expected a number > 0");
  }
  return it->value.GetDouble();
}

Status CheckDate(const std::string& date, const std::string& path, const Where& w) {
  static const std::regex kDate(R"(\d{4}-\d{2}-\d{2})");
  if (!std::regex_match(date, kDate)) return w.Error(path, "expected a date YYYY-MM-DD, got '" + date + "'");
  return OkStatus();
}

StatusOr<PriceFigure> ParsePrice(const rapidjson::Value& v, const std::string& path, const char* amount_key,
                                 const Where& w) {
  if (!v.IsObject()) return w.Error(path, "expected an object {\"" + std::string(amount_key) + "\", \"source\", \"date\"}");
  PriceFigure p;
  TFHOST_ASSIGN_OR_RETURN(p.usd_per_hour, Positive(v, amount_key, path + "." + amount_key, w));
  TFHOST_ASSIGN_OR_RETURN(p.source, String(v, "source", path + ".source", w, true));
  TFHOST_ASSIGN_OR_RETURN(p.date, String(v, "date", path + ".date", w, true));
  TFHOST_RETURN_IF_ERROR(CheckDate(p.date, path + ".date", w));
  return p;
}

StatusOr<ComputeSpec> ParseCompute(const rapidjson::Value& v, bool accelerator, const Where& w) {
  const std::string base = accelerator ? "accelerator" : "cpu";
  if (!v.IsObject()) return w.Error(base, "expected an object");
  ComputeSpec c;
  c.accelerator = accelerator;
  TFHOST_ASSIGN_OR_RETURN(c.model, String(v, "model", base + ".model", w, true));
  TFHOST_ASSIGN_OR_RETURN(c.source, String(v, "source", base + ".source", w, true));
  TFHOST_ASSIGN_OR_RETURN(c.source_date, String(v, "source_date", base + ".source_date", w, true));
  TFHOST_RETURN_IF_ERROR(CheckDate(c.source_date, base + ".source_date", w));
  if (accelerator) {
    auto count = v.FindMember("count");
    if (count == v.MemberEnd() || !count->value.IsInt() || count->value.GetInt() < 1) {
      return w.Error(base + ".count", "expected an integer >= 1 (GPUs per instance)");
    }
    c.count = count->value.GetInt();
    TFHOST_ASSIGN_OR_RETURN(double gib, Positive(v, "memory_gib", base + ".memory_gib", w));
    c.memory_bytes = gib * kGiB;
    TFHOST_ASSIGN_OR_RETURN(double bw, Positive(v, "memory_bandwidth_gbps", base + ".memory_bandwidth_gbps", w));
    c.memory_bandwidth_bps = bw * 1e9;
    TFHOST_ASSIGN_OR_RETURN(double link, Positive(v, "host_link_gbps", base + ".host_link_gbps", w));
    c.host_link_bps = link * 1e9;
    TFHOST_ASSIGN_OR_RETURN(c.interconnect, String(v, "interconnect", base + ".interconnect", w, true));
  } else {
    auto cores = v.FindMember("cores");
    if (cores == v.MemberEnd() || !cores->value.IsInt() || cores->value.GetInt() < 1) {
      return w.Error(base + ".cores", "expected an integer >= 1 (physical cores)");
    }
    c.cores = cores->value.GetInt();
    if (v.HasMember("memory_bandwidth_gbps")) {
      TFHOST_ASSIGN_OR_RETURN(double bw, Positive(v, "memory_bandwidth_gbps", base + ".memory_bandwidth_gbps", w));
      c.memory_bandwidth_bps = bw * 1e9;
    }
  }
  auto peaks = v.FindMember("peak_tflops");
  if (peaks == v.MemberEnd() || !peaks->value.IsObject() || peaks->value.MemberCount() == 0) {
    return w.Error(base + ".peak_tflops", "expected an object of precision -> TFLOP/s, e.g. {\"fp32\": 67}");
  }
  const std::vector<std::string>& known = PrecisionNames();
  for (auto m = peaks->value.MemberBegin(); m != peaks->value.MemberEnd(); ++m) {
    std::string precision = m->name.GetString();
    std::string path = base + ".peak_tflops." + precision;
    if (std::find(known.begin(), known.end(), precision) == known.end()) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      return w.Error(path, "unknown precision; expected one of " + list);
    }
    if (!m->value.IsNumber() || !std::isfinite(m->value.GetDouble()) || !(m->value.GetDouble() > 0)) {
      return w.Error(path, "expected a number > 0 (TFLOP/s, dense)");
    }
    c.peak_flops[precision] = m->value.GetDouble() * 1e12;
  }
  return c;
}

StatusOr<InstanceType> ParseEntry(const rapidjson::Value& v, const Where& where) {
  Where w = where;
  if (!v.IsObject()) return w.Error("(entry)", "expected an object");
  InstanceType t;
  TFHOST_ASSIGN_OR_RETURN(t.name, String(v, "name", "name", w, true));
  w.name = t.name;
  TFHOST_ASSIGN_OR_RETURN(t.provider, String(v, "provider", "provider", w, true));
  TFHOST_ASSIGN_OR_RETURN(t.instance_type, String(v, "instance_type", "instance_type", w, true));
  TFHOST_ASSIGN_OR_RETURN(t.region, String(v, "region", "region", w, false));
  auto vcpus = v.FindMember("vcpus");
  if (vcpus == v.MemberEnd() || !vcpus->value.IsInt() || vcpus->value.GetInt() < 1) {
    return w.Error("vcpus", "expected an integer >= 1");
  }
  t.vcpus = vcpus->value.GetInt();
  TFHOST_ASSIGN_OR_RETURN(double ram_gib, Positive(v, "ram_gib", "ram_gib", w));
  t.ram_bytes = ram_gib * kGiB;
  const bool has_gpu = v.HasMember("accelerator"), has_cpu = v.HasMember("cpu");
  if (has_gpu == has_cpu) return w.Error("accelerator/cpu", "expected exactly one of 'accelerator' and 'cpu'");
  TFHOST_ASSIGN_OR_RETURN(t.compute, ParseCompute(has_gpu ? v["accelerator"] : v["cpu"], has_gpu, w));
  if (v.HasMember("price")) {
    TFHOST_ASSIGN_OR_RETURN(t.on_demand, ParsePrice(v["price"], "price", "on_demand_usd_per_hour", w));
  } else {
    TFHOST_ASSIGN_OR_RETURN(t.price_note, String(v, "price_note", "price_note", w, false));
    if (t.price_note.empty()) return w.Error("price", "missing; give 'price' or a 'price_note' saying why there is none");
  }
  if (v.HasMember("spot")) {
    TFHOST_ASSIGN_OR_RETURN(t.spot, ParsePrice(v["spot"], "spot", "usd_per_hour", w));
  } else {
    TFHOST_ASSIGN_OR_RETURN(t.spot_note, String(v, "spot_note", "spot_note", w, false));
    if (t.spot_note.empty()) return w.Error("spot", "missing; give 'spot' or a 'spot_note' saying why there is none");
  }
  return t;
}

}  // namespace

const std::vector<std::string>& PrecisionNames() {
  static const std::vector<std::string> names = {"fp32", "tf32", "fp16", "bf16", "fp8", "int8"};
  return names;
}

StatusOr<InstanceCatalog> ParseInstanceCatalog(const std::string& text, const std::string& file) {
  rapidjson::Document d;
  d.Parse(text.c_str(), text.size());
  if (d.HasParseError()) {
    return InvalidArgument(file + ": not valid JSON at offset " + std::to_string(d.GetErrorOffset()) + ": " +
                           rapidjson::GetParseError_En(d.GetParseError()));
  }
  if (!d.IsObject() || !d.HasMember("instances") || !d["instances"].IsArray()) {
    return InvalidArgument(file + ": expected an object with an array 'instances'");
  }
  InstanceCatalog catalog;
  catalog.path = file;
  if (d.HasMember("note") && d["note"].IsString()) catalog.note = d["note"].GetString();
  std::set<std::string> names;
  const auto& entries = d["instances"].GetArray();
  if (entries.Size() == 0) return InvalidArgument(file + ": 'instances' is empty; expected at least one entry");
  for (rapidjson::SizeType i = 0; i < entries.Size(); ++i) {
    TFHOST_ASSIGN_OR_RETURN(InstanceType t, ParseEntry(entries[i], Where{file, i, ""}));
    if (!names.insert(t.name).second) {
      return Where{file, i, t.name}.Error("name", "duplicate; expected names unique in the catalog");
    }
    catalog.instances.push_back(std::move(t));
  }
  return catalog;
}

StatusOr<InstanceCatalog> LoadInstanceCatalog(const std::string& path) {
  std::ifstream in(path);
  if (!in) return NotFound("cannot read the instance catalog " + path);
  std::stringstream s;
  s << in.rdbuf();
  return ParseInstanceCatalog(s.str(), path);
}

// Finding the shipped catalog. `make install` and `make dist` put it in
// <prefix>/share/tfhost/ beside bin/ (cmake/install.cmake); a build tree has a
// copy in <build>/share/tfhost/ (src/host/CMakeLists.txt); a binary run from
// anywhere else still finds the copy in the source tree it was built from. The
// installed copy comes first so an installed tfhost never reads a stale
// source checkout.

std::vector<std::string> DefaultCatalogPaths(const std::string& exe_dir, const std::string& source_dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> paths;
  if (!exe_dir.empty()) {
    paths.push_back((fs::path(exe_dir) / ".." / "share" / "tfhost" / kFileName).lexically_normal().string());
    paths.push_back((fs::path(exe_dir) / "share" / "tfhost" / kFileName).lexically_normal().string());
  }
  if (!source_dir.empty()) {
    paths.push_back((fs::path(source_dir) / "src" / "host" / "data" / kFileName).lexically_normal().string());
  }
  return paths;
}

StatusOr<std::string> FindDefaultCatalog(const std::string& exe_dir, const std::string& source_dir) {
  std::string tried;
  for (const std::string& p : DefaultCatalogPaths(exe_dir, source_dir)) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(p, ec)) return p;
    tried += (tried.empty() ? "" : ", ") + p;
  }
  return NotFound("no instance catalog found (looked in " + (tried.empty() ? std::string("nowhere") : tried) +
                  "); give one with --catalog FILE");
}

}  // namespace tfhost::host::plan
