// `--trace FILE` on run, bench, predict and serve: a Chrome trace-event JSON
// timeline of what the command did (base/trace/; docs/trace.md), written
// when the command ends.
//
// The file is created (with its missing folders) before any work, so an
// unwritable path fails at once, naming the file; a command that fails
// removes it again rather than leave an empty trace. Recording can be paused
// and resumed (bench records only its timed runs): the slices of every
// recorded stretch go into the one file, timed from the first stretch's
// start.
//
// Thread-safety: one CliTrace per command, used by the command's thread.
#pragma once

#include <memory>
#include <ostream>
#include <string>

#include "base/status.h"
#include "base/trace/recorder.h"
#include "cli/flags.h"

namespace tfhost::cli {

void AddTraceFlag(FlagParser& flags, std::string* path);

class CliTrace;
// Finish for a command's trace, if it has one.
Status FinishTrace(const std::unique_ptr<CliTrace>& trace, std::ostream& err);

class CliTrace {
 public:
  // Null for an empty `path` (no --trace). `command` names the process in
  // the trace ("tfhost run"). Errors name the flag and the file.
  static StatusOr<std::unique_ptr<CliTrace>> Create(const std::string& path, const std::string& command);
  // Create, then Resume.
  static StatusOr<std::unique_ptr<CliTrace>> Start(const std::string& path, const std::string& command);
  // Unless Finish ran (the command failed): a recording still on is stopped
  // and dropped, and the empty file Create made is removed.
  ~CliTrace();

  // Starts (or continues) recording; ABORTED when another recording is on.
  Status Resume();
  // Stops recording, keeping what was recorded.
  void Pause();
  // Pauses and writes the file; says on `err` where it went.
  Status Finish(std::ostream& err);

 private:
  CliTrace(std::string path, std::string command) : path_(std::move(path)), command_(std::move(command)) {}

  std::string path_;
  std::string command_;
  bool recording_ = false;
  bool started_ = false;  // a stretch was recorded: trace_.start_ns holds
  bool finished_ = false;
  trace::Trace trace_;
};

}  // namespace tfhost::cli
