#include "data/predict/work_plan.h"

#include <dirent.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>

namespace tfhost::data::predict {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool ParseNonNegative(std::string_view text, int64_t* out) {
  if (text.empty() || text.size() > 12) return false;
  int64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *out = v;
  return true;
}

}  // namespace

InputFormat DetectInputFormat(std::string_view path) {
  for (std::string_view ext : {".jsonl", ".ndjson", ".json"}) {
    if (EndsWith(path, ext)) return InputFormat::kJsonl;
  }
  return InputFormat::kTFRecord;
}

const char* OutputFormatName(OutputFormat format) {
  return format == OutputFormat::kJsonl ? "jsonl" : "tfrecord";
}

StatusOr<OutputFormat> ParseOutputFormat(std::string_view name) {
  if (name == "tfrecord") return OutputFormat::kTFRecord;
  if (name == "jsonl") return OutputFormat::kJsonl;
  return InvalidArgument("unknown output format '" + std::string(name) + "' (expected tfrecord or jsonl)");
}

StatusOr<ShardSpec> ParseShardSpec(std::string_view text) {
  size_t slash = text.find('/');
  ShardSpec s;
  if (slash == std::string_view::npos || !ParseNonNegative(text.substr(0, slash), &s.index) ||
      !ParseNonNegative(text.substr(slash + 1), &s.count)) {
    return InvalidArgument("--shard '" + std::string(text) + "' is not of the form i/n (e.g. 3/10)");
  }
  if (s.count < 1 || s.index >= s.count) {
    return InvalidArgument("--shard '" + std::string(text) + "': need 0 <= i < n");
  }
  return s;
}

std::string OutputPath(const std::string& prefix, int64_t unit, int64_t total_units, OutputFormat format,
                       Compression compression) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "-%05lld-of-%05lld", static_cast<long long>(unit),
                static_cast<long long>(total_units));
  std::string path = prefix + buf;
  if (format == OutputFormat::kJsonl) return path + ".jsonl";
  if (compression == Compression::kGzip) path += ".gz";
  return path;
}

StatusOr<WorkPlan> PlanWork(const std::vector<std::string>& inputs, const ShardSpec& shard,
                            const std::string& output_prefix, OutputFormat format, Compression compression) {
  if (inputs.empty()) return InvalidArgument("no input files");
  if (shard.count < 1 || shard.index < 0 || shard.index >= shard.count) {
    return InvalidArgument("bad shard " + std::to_string(shard.index) + "/" + std::to_string(shard.count));
  }
  if (output_prefix.empty()) return InvalidArgument("empty output prefix");
  std::set<std::string> seen;
  for (const std::string& in : inputs) {
    if (!seen.insert(in).second) {
      return InvalidArgument("input file '" + in + "' is given twice; its records would be predicted twice");
    }
  }
  const int64_t files = static_cast<int64_t>(inputs.size());
  WorkPlan plan;
  const bool by_record = shard.count > 1 && files < shard.count;
  plan.total_units = by_record ? files * shard.count : files;
  for (int64_t f = 0; f < files; ++f) {
    WorkUnit u;
    u.input = inputs[f];
    u.input_format = DetectInputFormat(u.input);
    if (by_record) {
      u.unit = f * shard.count + shard.index;
      u.record_modulo = shard.count;
      u.record_remainder = shard.index;
    } else {
      if (f % shard.count != shard.index) continue;
      u.unit = f;
    }
    u.output = OutputPath(output_prefix, u.unit, plan.total_units, format, compression);
    plan.units.push_back(std::move(u));
  }
  return plan;
}

StatusOr<int> RemoveStaleTemporaries(const std::string& output) {
  size_t slash = output.rfind('/');
  std::string dir = slash == std::string::npos ? "." : output.substr(0, slash);
  if (dir.empty()) dir = "/";
  std::string base = slash == std::string::npos ? output : output.substr(slash + 1);
  // The writers' pattern: "." + base + ".tmp-" + six mkstemp characters.
  const std::string head = "." + base + ".tmp-";
  DIR* d = ::opendir(dir.c_str());
  if (d == nullptr) {
    if (errno == ENOENT) return 0;
    return Unavailable("cannot list '" + dir + "': " + std::strerror(errno));
  }
  int removed = 0;
  Status error;
  while (dirent* e = ::readdir(d)) {
    std::string_view name(e->d_name);
    if (name.size() != head.size() + 6 || name.substr(0, head.size()) != head) continue;
    std::string path = dir + "/" + std::string(name);
    if (::unlink(path.c_str()) == 0) {
      ++removed;
    } else if (errno != ENOENT && error.ok()) {
      error = Unavailable("cannot remove stale temporary '" + path + "': " + std::strerror(errno));
    }
  }
  ::closedir(d);
  if (!error.ok()) return error;
  return removed;
}

}  // namespace tfhost::data::predict
