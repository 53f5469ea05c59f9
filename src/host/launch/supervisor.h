// Runs a job's local processes and owns their lifecycle, the part of launch
// that makes a distributed job fail fast instead of hanging:
//   - each process runs in its own process group (so a task's children are
//     signalled with it) with PR_SET_PDEATHSIG=SIGKILL (so nothing outlives a
//     launcher that is itself killed with SIGKILL);
//   - stdout and stderr are read line by line and written with the task's
//     label in front ("[worker:1] loss=0.3"), and optionally kept verbatim in
//     LOG_DIR/<type>-<index>.log;
//   - when a process fails (non-zero exit or death by signal) every other one
//     gets SIGTERM and, after the grace period, SIGKILL; the job's status is
//     the failing process's (128+N for death by signal N);
//   - SIGINT, SIGTERM and SIGHUP sent to the launcher are forwarded to every
//     process group, then the same grace/SIGKILL applies; a second signal
//     kills at once;
//   - when every process marked `completes_job` has exited 0 the job is done
//     and the rest (parameter servers, which never exit by themselves, and
//     the evaluator) are stopped the same way;
//   - max_restarts > 0 restarts the whole job after a failure; each process
//     sees TFHOST_RESTART=<attempt> (0 on the first run).
//
// Thread-safety: Supervise installs process-wide signal handlers for its
// duration (restored on return); run one Supervise at a time per process.
#pragma once

#include <string>
#include <vector>

namespace tfhost::host::launch {

struct ProcessSpec {
  std::string label;              // "worker:1": output prefix and log file name
  std::vector<std::string> argv;  // argv[0] is looked up in PATH
  std::vector<std::string> env;   // the complete environment, "NAME=VALUE"
  bool completes_job = true;      // the job is done when all of these exit 0
};

struct SupervisorOptions {
  double grace_seconds = 5;  // between SIGTERM and SIGKILL
  int max_restarts = 0;
  std::string log_dir;       // empty: no log files
  int out_fd = 1;            // where prefixed stdout lines go
  int err_fd = 2;            // prefixed stderr lines and launch's own messages
  std::string name = "launch";  // prefix of launch's own messages ("[launch 2/4] ...")
};

struct SuperviseResult {
  int exit_code = 0;       // the job's status as launch should exit with it
  int restarts = 0;        // how many times the job was restarted
  std::string summary;     // one line: who ended the job and how
};

SuperviseResult Supervise(const std::vector<ProcessSpec>& processes, const SupervisorOptions& options);

}  // namespace tfhost::host::launch
