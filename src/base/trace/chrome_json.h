// A recorded Trace as Chrome trace-event JSON, the format chrome://tracing
// and Perfetto (ui.perfetto.dev) open:
//   {"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}
// with one "M" (metadata) event naming the process, one naming each named
// track (threads, request lanes) and ordering lanes after threads, and one
// "X" (complete) event per slice: ts and dur in microseconds from the
// recording's start (three decimals: the clock's nanoseconds, exactly), pid,
// tid, name, cat and args. otherData says how long the recording ran and how
// many slices it dropped past its bound.
//
// Thread-safety: pure functions.
#pragma once

#include <string>

#include "base/status.h"
#include "base/trace/recorder.h"

namespace tfhost::trace {

// `process_name` names the process track ("tfhost serve").
std::string ToChromeJson(const Trace& trace, const std::string& process_name);

// Writes ToChromeJson to `path`, creating its missing parent directories;
// errors name the file.
Status WriteChromeJson(const std::string& path, const Trace& trace, const std::string& process_name);

// Creates (truncates) `path` and its missing parent directories, so that a
// command can refuse an unwritable --trace before it does any work; errors
// name the file.
Status CheckTraceFileWritable(const std::string& path);

}  // namespace tfhost::trace
