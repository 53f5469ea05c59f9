#include "cli/trace_flag.h"

#include <cstdio>
#include <map>

#include "base/trace/chrome_json.h"

namespace tfhost::cli {

void AddTraceFlag(FlagParser& flags, std::string* path) {
  flags.AddString("trace", path, "FILE",
                  "write a timeline of the run as Chrome trace-event JSON (open it in ui.perfetto.dev or "
                  "chrome://tracing; docs/trace.md)");
}

StatusOr<std::unique_ptr<CliTrace>> CliTrace::Create(const std::string& path, const std::string& command) {
  if (path.empty()) return std::unique_ptr<CliTrace>();
  TFHOST_RETURN_IF_ERROR(trace::CheckTraceFileWritable(path).WithContext("--trace"));
  return std::unique_ptr<CliTrace>(new CliTrace(path, command));
}

StatusOr<std::unique_ptr<CliTrace>> CliTrace::Start(const std::string& path, const std::string& command) {
  TFHOST_ASSIGN_OR_RETURN(std::unique_ptr<CliTrace> trace, Create(path, command));
  if (trace) {
    trace::SetThreadName(command);  // the command's own thread
    TFHOST_RETURN_IF_ERROR(trace->Resume());
  }
  return trace;
}

Status FinishTrace(const std::unique_ptr<CliTrace>& trace, std::ostream& err) {
  return trace ? trace->Finish(err) : OkStatus();
}

CliTrace::~CliTrace() {
  if (recording_) trace::Recorder::Global().Stop();
  if (!finished_) std::remove(path_.c_str());
}

Status CliTrace::Resume() {
  if (recording_) return OkStatus();
  TFHOST_RETURN_IF_ERROR(trace::Recorder::Global().Start(command_ + " --trace " + path_));
  recording_ = true;
  return OkStatus();
}

void CliTrace::Pause() {
  if (!recording_) return;
  recording_ = false;
  trace::Trace stretch = trace::Recorder::Global().Stop();
  if (!started_) {
    trace_ = std::move(stretch);
    started_ = true;
    return;
  }
  trace_.end_ns = stretch.end_ns;
  trace_.dropped_events += stretch.dropped_events;
  for (trace::Event& e : stretch.events) trace_.events.push_back(std::move(e));
  std::map<uint32_t, std::string> names(trace_.track_names.begin(), trace_.track_names.end());
  for (auto& [tid, name] : stretch.track_names) names[tid] = std::move(name);
  trace_.track_names.assign(names.begin(), names.end());
}

Status CliTrace::Finish(std::ostream& err) {
  Pause();
  finished_ = true;
  TFHOST_RETURN_IF_ERROR(trace::WriteChromeJson(path_, trace_, command_).WithContext("--trace"));
  err << command_ << ": wrote trace " << path_ << " (" << trace_.events.size() << " slices";
  if (trace_.dropped_events > 0) err << ", " << trace_.dropped_events << " dropped past the bound";
  err << ")\n";
  return OkStatus();
}

}  // namespace tfhost::cli
