#include "host/launch/rendezvous.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace tfhost::host::launch {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

StatusOr<InstanceAddress> ParseInstanceFile(const fs::path& path) {
  std::ifstream in(path);
  std::string host, ports_line, interfaces_line;
  if (!std::getline(in, host) || !std::getline(in, ports_line)) {
    return DataLoss("rendezvous file " + path.string() + " is incomplete: expected a host line and a ports line");
  }
  if (host.empty() || host.size() > 255 || host.find(' ') != std::string::npos) {
    return DataLoss("rendezvous file " + path.string() + ": bad host '" + host.substr(0, 64) + "'");
  }
  InstanceAddress a;
  a.host = host;
  std::istringstream ps(ports_line);
  std::string tok;
  while (ps >> tok) {
    int p = 0;
    try {
      size_t used = 0;
      p = std::stoi(tok, &used);
      if (used != tok.size()) p = 0;
    } catch (...) {
      p = 0;
    }
    if (p < 1 || p > 65535 || a.ports.size() > 4096) {
      return DataLoss("rendezvous file " + path.string() + ": bad port '" + tok.substr(0, 16) + "'");
    }
    a.ports.push_back(p);
  }
  if (std::getline(in, interfaces_line)) {
    std::istringstream is(interfaces_line);
    while (is >> tok) {
      if (tok.size() > 64 || tok.find(':') == std::string::npos || a.interfaces.size() >= 256) {
        return DataLoss("rendezvous file " + path.string() + ": bad interface entry '" + tok.substr(0, 64) +
                        "' (expected NAME:SPEED_MBPS)");
      }
      a.interfaces.push_back(tok);
    }
  }
  return a;
}

Status WriteAtomically(const fs::path& path, const std::string& text) {
  fs::path tmp = path;
  tmp += ".tmp";
  {
    std::ofstream out(tmp, std::ios::trunc);
    out << text;
    if (!out.good()) return Unavailable("cannot write rendezvous file " + tmp.string());
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) return Unavailable("cannot publish rendezvous file " + path.string() + ": " + ec.message());
  return OkStatus();
}

}  // namespace

StatusOr<std::vector<InstanceAddress>> DirectoryRendezvous(const std::string& dir, int index, int count,
                                                           const InstanceAddress& self, double timeout_seconds) {
  if (count < 1 || index < 0 || index >= count) {
    return InvalidArgument("rendezvous instance " + std::to_string(index) + " of " + std::to_string(count));
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return Unavailable("cannot create rendezvous directory " + dir + ": " + ec.message());
  std::string ports;
  for (int p : self.ports) ports += (ports.empty() ? "" : " ") + std::to_string(p);
  fs::path base(dir);
  std::string interfaces;
  for (const std::string& i : self.interfaces) interfaces += (interfaces.empty() ? "" : " ") + i;
  TFHOST_RETURN_IF_ERROR(WriteAtomically(base / ("instance-" + std::to_string(index)),
                                         self.host + "\n" + ports + "\n" + interfaces + "\n"));

  auto deadline = Clock::now() + std::chrono::milliseconds(static_cast<long>(timeout_seconds * 1000));
  std::vector<InstanceAddress> all(count);
  std::vector<bool> have(count, false);
  int missing = count;
  while (true) {
    for (int i = 0; i < count; ++i) {
      if (have[i]) continue;
      fs::path f = base / ("instance-" + std::to_string(i));
      if (!fs::exists(f, ec)) continue;
      TFHOST_ASSIGN_OR_RETURN(all[i], ParseInstanceFile(f));
      have[i] = true;
      --missing;
    }
    if (missing == 0) break;
    if (Clock::now() >= deadline) {
      std::string which;
      for (int i = 0; i < count && which.size() < 200; ++i) {
        if (!have[i]) which += (which.empty() ? "" : ", ") + std::to_string(i);
      }
      return Status(StatusCode::kDeadlineExceeded,
                    "rendezvous in " + dir + ": instances " + which + " did not appear within " +
                        std::to_string(static_cast<int>(timeout_seconds)) +
                        " s (is the directory shared by every node? use --rendezvous DIR on a shared filesystem)");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }

  // Confirm, so that instance 0 knows when the directory may go.
  TFHOST_RETURN_IF_ERROR(WriteAtomically(base / ("read-" + std::to_string(index)), "ok\n"));
  return all;
}

void CleanupRendezvous(const std::string& dir, int count, double timeout_seconds) {
  std::error_code ec;
  fs::path base(dir);
  auto deadline = Clock::now() + std::chrono::milliseconds(static_cast<long>(timeout_seconds * 1000));
  while (true) {
    int read = 0;
    for (int i = 0; i < count; ++i) read += fs::exists(base / ("read-" + std::to_string(i)), ec) ? 1 : 0;
    if (read == count || Clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  fs::remove_all(base, ec);
}

}  // namespace tfhost::host::launch
