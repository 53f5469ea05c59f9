#include "host/launch/supervisor.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <chrono>
#include <cstring>
#include <memory>

namespace tfhost::host::launch {

namespace {

using Clock = std::chrono::steady_clock;

// The self-pipe the signal handlers write to; the loop polls its read end.
int g_signal_pipe_write = -1;

void OnSignal(int signo) {
  int saved = errno;
  unsigned char b = static_cast<unsigned char>(signo);
  if (g_signal_pipe_write >= 0) (void)!::write(g_signal_pipe_write, &b, 1);
  errno = saved;
}

void WriteAll(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = ::write(fd, s.data() + off, s.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // nowhere to write: drop rather than block the job
    off += n;
  }
}

// One output stream of one process, split into prefixed lines.
struct Stream {
  int fd = -1;       // read end; -1 once closed
  int dest = -1;     // where prefixed lines go
  std::string partial;
};

struct Child {
  const ProcessSpec* spec = nullptr;
  pid_t pid = -1;
  bool running = false;
  int status = 0;
  Stream out, err;
  int log_fd = -1;
};

constexpr size_t kMaxLine = 64 << 10;

void EmitLines(Child& c, Stream& s, const char* data, size_t n, bool flush) {
  if (c.log_fd >= 0 && n > 0) WriteAll(c.log_fd, std::string(data, n));
  s.partial.append(data, n);
  std::string batch;
  size_t start = 0;
  while (true) {
    size_t nl = s.partial.find('\n', start);
    if (nl == std::string::npos) break;
    size_t end = nl;
    if (end > start && s.partial[end - 1] == '\r') --end;  // ssh -tt sends CRLF
    batch += "[" + c.spec->label + "] " + s.partial.substr(start, end - start) + "\n";
    start = nl + 1;
  }
  s.partial.erase(0, start);
  if (!s.partial.empty() && (flush || s.partial.size() >= kMaxLine)) {
    batch += "[" + c.spec->label + "] " + s.partial + "\n";
    s.partial.clear();
  }
  if (!batch.empty()) WriteAll(s.dest, batch);
}

void DrainStream(Child& c, Stream& s, bool to_eof) {
  char buf[16384];
  while (s.fd >= 0) {
    ssize_t n = ::read(s.fd, buf, sizeof(buf));
    if (n > 0) {
      EmitLines(c, s, buf, n, false);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EAGAIN && !to_eof) return;
    if (n < 0 && errno == EAGAIN) return;
    // EOF or error: flush what is left.
    EmitLines(c, s, "", 0, true);
    ::close(s.fd);
    s.fd = -1;
  }
}

std::string DescribeStatus(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    const char* name = ::strsignal(sig);
    return "was killed by signal " + std::to_string(sig) + (name ? std::string(" (") + name + ")" : "");
  }
  return "ended with wait status " + std::to_string(status);
}

int ExitCodeOf(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

bool Succeeded(int status) { return WIFEXITED(status) && WEXITSTATUS(status) == 0; }

std::string SafeFileName(const std::string& label) {
  std::string out;
  for (char c : label) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') ? c : '-';
  return out;
}

// Starts one process. Everything the child needs is prepared before fork so
// that the child only calls async-signal-safe functions.
bool Spawn(Child& c, int attempt, const SupervisorOptions& options) {
  std::vector<std::string> env = c.spec->env;
  env.push_back("TFHOST_RESTART=" + std::to_string(attempt));
  std::vector<char*> argv, envp;
  for (const std::string& a : c.spec->argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  // PATH lookup uses the task's PATH (execvpe would use ours).
  std::string path_var = "/usr/local/bin:/usr/bin:/bin";
  for (const std::string& e : env) {
    if (e.compare(0, 5, "PATH=") == 0) path_var = e.substr(5);
  }
  std::vector<std::string> candidates;
  const std::string& prog = c.spec->argv.at(0);
  if (prog.find('/') != std::string::npos) {
    candidates.push_back(prog);
  } else {
    size_t start = 0;
    while (start <= path_var.size()) {
      size_t colon = path_var.find(':', start);
      std::string dir = path_var.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
      candidates.push_back((dir.empty() ? "." : dir) + "/" + prog);
      if (colon == std::string::npos) break;
      start = colon + 1;
    }
  }
  std::string exec_error = "[" + c.spec->label + "] launch: cannot execute '" + prog + "'\n";

  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) return false;
  if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
    ::close(out_pipe[0]);
    ::close(out_pipe[1]);
    return false;
  }
  int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1], devnull}) ::close(fd);
    return false;
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the launcher died before prctl took effect
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGPIPE, SIGQUIT}) ::signal(sig, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    if (devnull >= 0) ::dup2(devnull, 0);
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    for (const std::string& cand : candidates) {
      ::execve(cand.c_str(), argv.data(), envp.data());
    }
    (void)!::write(2, exec_error.data(), exec_error.size());
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also here: whichever runs first, the group exists before we signal it
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  if (devnull >= 0) ::close(devnull);
  for (int fd : {out_pipe[0], err_pipe[0]}) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  c.pid = pid;
  c.running = true;
  c.status = 0;
  c.out = {out_pipe[0], options.out_fd, ""};
  c.err = {err_pipe[0], options.err_fd, ""};
  return true;
}

void SignalGroups(std::vector<Child>& children, int sig) {
  for (Child& c : children) {
    if (c.pid > 0 && c.running) ::kill(-c.pid, sig);
  }
}

class SignalScope {
 public:
  explicit SignalScope(int write_fd) {
    g_signal_pipe_write = write_fd;
    struct sigaction sa;
    std::memset(&sa, 0, sizeof(sa));
    sa.sa_handler = OnSignal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    for (size_t i = 0; i < kSignals.size(); ++i) ::sigaction(kSignals[i], &sa, &old_[i]);
    // `tfhost launch ... | head` must not kill the launcher (and with it,
    // through PDEATHSIG, the job) when the reader goes away: output is dropped.
    struct sigaction ignore;
    std::memset(&ignore, 0, sizeof(ignore));
    ignore.sa_handler = SIG_IGN;
    ::sigaction(SIGPIPE, &ignore, &old_pipe_);
    // A launcher started with a signal blocked would never see it.
    sigset_t set;
    sigemptyset(&set);
    for (int s : kSignals) sigaddset(&set, s);
    ::sigprocmask(SIG_UNBLOCK, &set, &old_mask_);
  }
  ~SignalScope() {
    for (size_t i = 0; i < kSignals.size(); ++i) ::sigaction(kSignals[i], &old_[i], nullptr);
    ::sigaction(SIGPIPE, &old_pipe_, nullptr);
    ::sigprocmask(SIG_SETMASK, &old_mask_, nullptr);
    g_signal_pipe_write = -1;
  }

 private:
  static constexpr std::array<int, 4> kSignals = {SIGINT, SIGTERM, SIGHUP, SIGCHLD};
  std::array<struct sigaction, 4> old_;
  struct sigaction old_pipe_;
  sigset_t old_mask_;
};

enum class Outcome { kSuccess, kTaskFailed, kSignalled, kSpawnFailed };

struct AttemptResult {
  Outcome outcome = Outcome::kSuccess;
  int exit_code = 0;
  std::string summary;
};

AttemptResult RunAttempt(const std::vector<ProcessSpec>& specs, int attempt, const SupervisorOptions& options,
                         int signal_read_fd) {
  std::vector<Child> children(specs.size());
  AttemptResult result;
  bool stopping = false;
  bool killed = false;
  Clock::time_point kill_at;
  auto log = [&](const std::string& msg) { WriteAll(options.err_fd, "[" + options.name + "] " + msg + "\n"); };
  auto begin_stop = [&](int sig) {
    if (!stopping) {
      stopping = true;
      kill_at = Clock::now() + std::chrono::milliseconds(static_cast<long>(options.grace_seconds * 1000));
    }
    SignalGroups(children, sig);
  };

  for (size_t i = 0; i < specs.size(); ++i) {
    children[i].spec = &specs[i];
    if (!options.log_dir.empty()) {
      std::string path = options.log_dir + "/" + SafeFileName(specs[i].label) + ".log";
      children[i].log_fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
      if (children[i].log_fd < 0) log("cannot open " + path + ": " + std::strerror(errno));
    }
    if (!Spawn(children[i], attempt, options)) {
      log("cannot start " + specs[i].label + ": " + std::strerror(errno));
      result = {Outcome::kSpawnFailed, 1, "could not start " + specs[i].label};
      begin_stop(SIGTERM);
      break;
    }
  }

  auto running_count = [&] {
    int n = 0;
    for (const Child& c : children) n += c.running ? 1 : 0;
    return n;
  };

  while (running_count() > 0) {
    std::vector<pollfd> fds;
    fds.push_back({signal_read_fd, POLLIN, 0});
    std::vector<std::pair<Child*, Stream*>> owners;
    for (Child& c : children) {
      for (Stream* s : {&c.out, &c.err}) {
        if (s->fd < 0) continue;
        fds.push_back({s->fd, POLLIN, 0});
        owners.push_back({&c, s});
      }
    }
    int timeout_ms = 200;
    if (stopping && !killed) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(kill_at - Clock::now()).count();
      timeout_ms = static_cast<int>(std::max<long>(0, std::min<long>(left, 200)));
    }
    int ready = ::poll(fds.data(), fds.size(), timeout_ms);
    if (ready < 0 && errno != EINTR) break;
    if (ready > 0) {
      for (size_t i = 1; i < fds.size(); ++i) {
        if (fds[i].revents != 0) DrainStream(*owners[i - 1].first, *owners[i - 1].second, false);
      }
      if (fds[0].revents & POLLIN) {
        unsigned char sigs[64];
        ssize_t n = ::read(signal_read_fd, sigs, sizeof(sigs));
        for (ssize_t i = 0; i < n; ++i) {
          int sig = sigs[i];
          if (sig == SIGCHLD) continue;  // reaped below
          if (stopping && result.outcome == Outcome::kSignalled) {
            log("second signal: killing every task now");
            SignalGroups(children, SIGKILL);
            killed = true;
            continue;
          }
          log(std::string("received ") + ::strsignal(sig) + "; forwarding it to every task");
          if (!stopping || result.outcome == Outcome::kSuccess) {
            result = {Outcome::kSignalled, 128 + sig, std::string("launch received ") + ::strsignal(sig)};
          }
          begin_stop(sig);
        }
      }
    }
    // Reap.
    for (Child& c : children) {
      if (!c.running) continue;
      int status = 0;
      pid_t r = ::waitpid(c.pid, &status, WNOHANG);
      if (r != c.pid) continue;
      c.running = false;
      c.status = status;
      // Whatever the task left in its group (background helpers) goes with it.
      ::kill(-c.pid, SIGKILL);
      if (stopping) continue;
      if (!Succeeded(status)) {
        log(c.spec->label + " " + DescribeStatus(status) + "; stopping the other tasks");
        result = {Outcome::kTaskFailed, ExitCodeOf(status), c.spec->label + " " + DescribeStatus(status)};
        begin_stop(SIGTERM);
        continue;
      }
      bool all_done = true;
      for (const Child& o : children) {
        if (o.spec->completes_job && (o.running || !Succeeded(o.status))) all_done = false;
      }
      if (all_done && running_count() > 0) {
        log("every task that completes the job has finished; stopping the rest");
        result.summary = "job completed";
        begin_stop(SIGTERM);
      }
    }
    if (stopping && !killed && Clock::now() >= kill_at && running_count() > 0) {
      log("grace period over; killing the remaining tasks");
      SignalGroups(children, SIGKILL);
      killed = true;
    }
  }

  // Every leader is gone; read what is left in the pipes (bounded: a stray
  // grandchild holding a pipe open has been killed with its group).
  Clock::time_point drain_until = Clock::now() + std::chrono::seconds(2);
  for (Child& c : children) {
    for (Stream* s : {&c.out, &c.err}) {
      while (s->fd >= 0 && Clock::now() < drain_until) {
        pollfd p{s->fd, POLLIN, 0};
        if (::poll(&p, 1, 100) > 0) DrainStream(c, *s, true);
      }
      if (s->fd >= 0) {
        EmitLines(c, *s, "", 0, true);
        ::close(s->fd);
        s->fd = -1;
      }
    }
    if (c.log_fd >= 0) ::close(c.log_fd);
  }
  if (result.outcome == Outcome::kSuccess && result.summary.empty()) result.summary = "every task exited 0";
  return result;
}

}  // namespace

SuperviseResult Supervise(const std::vector<ProcessSpec>& processes, const SupervisorOptions& options) {
  SuperviseResult out;
  if (processes.empty()) {
    out.summary = "nothing to run";
    return out;
  }
  int sp[2];
  if (::pipe2(sp, O_CLOEXEC | O_NONBLOCK) != 0) {
    out.exit_code = 1;
    out.summary = std::string("cannot create the signal pipe: ") + std::strerror(errno);
    return out;
  }
  {
    SignalScope scope(sp[1]);
    for (int attempt = 0;; ++attempt) {
      AttemptResult r = RunAttempt(processes, attempt, options, sp[0]);
      out.exit_code = r.exit_code;
      out.summary = r.summary;
      out.restarts = attempt;
      if (r.outcome != Outcome::kTaskFailed || attempt >= options.max_restarts) break;
      WriteAll(options.err_fd, "[" + options.name + "] restarting the job (" + std::to_string(attempt + 1) + " of " +
                                   std::to_string(options.max_restarts) + ") after: " + r.summary + "\n");
    }
  }
  ::close(sp[0]);
  ::close(sp[1]);
  return out;
}

}  // namespace tfhost::host::launch
