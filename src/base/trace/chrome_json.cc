#include "base/trace/chrome_json.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "base/file_util.h"

namespace tfhost::trace {

namespace {

// Nanoseconds as microseconds with three decimals: exact, so that slices
// that nest in nanoseconds nest in the file too.
void AppendMicros(int64_t ns, std::string* out) {
  const bool negative = ns < 0;
  const uint64_t magnitude = negative ? static_cast<uint64_t>(-ns) : static_cast<uint64_t>(ns);
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%s%llu.%03llu", negative ? "-" : "",
                static_cast<unsigned long long>(magnitude / 1000), static_cast<unsigned long long>(magnitude % 1000));
  out->append(buf);
}

void AppendMetadata(const char* name, int pid, const uint32_t* tid, const std::string& args, std::string* out) {
  out->append("{\"ph\":\"M\",\"pid\":");
  out->append(std::to_string(pid));
  if (tid != nullptr) {
    out->append(",\"tid\":");
    out->append(std::to_string(*tid));
  }
  out->append(",\"name\":\"");
  out->append(name);
  out->append("\",\"args\":{");
  out->append(args);
  out->append("}},\n");
}

Status FileError(const std::string& path, const char* doing) {
  const int err = errno;
  std::string why = err != 0 ? std::strerror(err) : "unknown error";
  const StatusCode code = (err == EACCES || err == EPERM || err == EROFS) ? StatusCode::kPermissionDenied
                                                                          : StatusCode::kUnavailable;
  return Status(code, std::string("trace file '") + path + "': cannot " + doing + ": " + why);
}

}  // namespace

std::string ToChromeJson(const Trace& trace, const std::string& process_name) {
  const int pid = static_cast<int>(::getpid());
  std::string out;
  out.reserve(256 + trace.events.size() * 160);
  out.append("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
  std::string args;
  args.append("\"name\":");
  AppendJsonString(process_name, &args);
  AppendMetadata("process_name", pid, nullptr, args, &out);
  for (const auto& [tid, name] : trace.track_names) {
    args.clear();
    args.append("\"name\":");
    AppendJsonString(name, &args);
    AppendMetadata("thread_name", pid, &tid, args, &out);
    // Lanes sort after threads, each group by id.
    args = "\"sort_index\":" + std::to_string(static_cast<int64_t>(tid));
    AppendMetadata("thread_sort_index", pid, &tid, args, &out);
  }
  for (const Event& e : trace.events) {
    out.append("{\"ph\":\"X\",\"pid\":");
    out.append(std::to_string(pid));
    out.append(",\"tid\":");
    out.append(std::to_string(e.tid));
    out.append(",\"ts\":");
    AppendMicros(e.start_ns - trace.start_ns, &out);
    out.append(",\"dur\":");
    AppendMicros(e.duration_ns, &out);
    out.append(",\"name\":");
    AppendJsonString(e.name, &out);
    out.append(",\"cat\":");
    AppendJsonString(e.category, &out);
    out.append(",\"args\":{");
    out.append(e.args);
    out.append("}},\n");
  }
  // The last event's ",\n" is replaced: JSON allows no trailing comma.
  out.resize(out.size() - 2);
  out.append("\n],\"otherData\":{\"recorded_us\":");
  AppendMicros(trace.end_ns - trace.start_ns, &out);
  out.append(",\"slices\":");
  out.append(std::to_string(trace.events.size()));
  out.append(",\"dropped_slices\":");
  out.append(std::to_string(trace.dropped_events));
  out.append("}}\n");
  return out;
}

Status WriteChromeJson(const std::string& path, const Trace& trace, const std::string& process_name) {
  TFHOST_RETURN_IF_ERROR(CreateParentDirectories(path).WithContext("trace file '" + path + "'"));
  const std::string json = ToChromeJson(trace, process_name);
  errno = 0;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return FileError(path, "open it for writing");
  const size_t written = std::fwrite(json.data(), 1, json.size(), f);
  const bool write_failed = written != json.size();
  const int close_result = std::fclose(f);
  if (write_failed || close_result != 0) return FileError(path, "write it");
  return OkStatus();
}

Status CheckTraceFileWritable(const std::string& path) {
  if (path.empty()) return InvalidArgument("trace file: the path is empty");
  TFHOST_RETURN_IF_ERROR(CreateParentDirectories(path).WithContext("trace file '" + path + "'"));
  errno = 0;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return FileError(path, "open it for writing");
  std::fclose(f);
  return OkStatus();
}

}  // namespace tfhost::trace
