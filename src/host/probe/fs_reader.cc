#include "host/probe/fs_reader.h"

#include <sys/statvfs.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tfhost::host {

namespace fs = std::filesystem;

std::string Trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::vector<std::string> SplitNonEmpty(const std::string& s, const std::string& seps) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (seps.find(c) != std::string::npos) {
      if (!cur.empty()) out.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(std::move(cur));
  return out;
}

std::string FsReader::ReadTrimmed(const std::string& path, const std::string& fallback) const {
  StatusOr<std::string> text = ReadFile(path);
  if (!text.ok()) return fallback;
  std::string first = *text;
  size_t nl = first.find('\n');
  if (nl != std::string::npos) first.resize(nl);
  return Trim(first);
}

int64_t FsReader::ReadInt(const std::string& path, int64_t fallback) const {
  std::string t = ReadTrimmed(path);
  if (t.empty()) return fallback;
  errno = 0;
  char* end = nullptr;
  long long v = std::strtoll(t.c_str(), &end, 0);
  if (errno != 0 || end == t.c_str()) return fallback;
  return v;
}

namespace {

class RootedFsReader : public FsReader {
 public:
  explicit RootedFsReader(std::string root) : root_(std::move(root)) {
    while (root_.size() > 1 && root_.back() == '/') root_.pop_back();
    live_ = root_ == "/" || root_.empty();
    if (live_) root_.clear();
  }

  StatusOr<std::string> ReadFile(const std::string& path) const override {
    std::string p = Map(path);
    std::ifstream in(p, std::ios::binary);
    if (!in) return NotFound("cannot open " + p + ": " + std::strerror(errno));
    // Pseudo files report size 0, so read in chunks up to the cap.
    std::string data;
    char buf[16384];
    while (in && data.size() < kMaxFileBytes) {
      in.read(buf, sizeof(buf));
      data.append(buf, static_cast<size_t>(in.gcount()));
    }
    if (in.bad()) return Unavailable("error reading " + p);
    return data;
  }

  StatusOr<std::vector<std::string>> ListDir(const std::string& path) const override {
    std::string p = Map(path);
    std::error_code ec;
    fs::directory_iterator it(p, ec);
    if (ec) return NotFound("cannot list " + p + ": " + ec.message());
    std::vector<std::string> names;
    for (; it != fs::directory_iterator(); it.increment(ec)) {
      if (ec) break;
      names.push_back(it->path().filename().string());
      if (names.size() > 100000) break;  // sysfs folders are small; a bound keeps a bad snapshot harmless
    }
    std::sort(names.begin(), names.end());
    return names;
  }

  StatusOr<std::string> ReadLink(const std::string& path) const override {
    std::error_code ec;
    fs::path target = fs::read_symlink(Map(path), ec);
    if (ec) return NotFound("cannot read link " + Map(path) + ": " + ec.message());
    return target.string();
  }

  StatusOr<std::string> RealPath(const std::string& path) const override {
    std::error_code ec;
    fs::path real = fs::canonical(Map(path), ec);
    if (ec) return NotFound("cannot resolve " + Map(path) + ": " + ec.message());
    std::string r = real.string();
    if (live_) return r;
    // Map back under the snapshot root; links pointing outside it are kept as-is.
    std::error_code ec2;
    fs::path root_real = fs::canonical(root_, ec2);
    std::string rr = ec2 ? root_ : root_real.string();
    if (r.compare(0, rr.size(), rr) == 0) {
      std::string rest = r.substr(rr.size());
      return rest.empty() ? std::string("/") : rest;
    }
    return r;
  }

  bool Exists(const std::string& path) const override {
    std::error_code ec;
    return fs::exists(fs::symlink_status(Map(path), ec)) && !ec;
  }

  StatusOr<FsSpace> Space(const std::string& path) const override {
    if (live_) {
      struct statvfs sv;
      if (::statvfs(path.c_str(), &sv) != 0) {
        return NotFound("statvfs(" + path + "): " + std::strerror(errno));
      }
      FsSpace s;
      s.total_bytes = static_cast<uint64_t>(sv.f_blocks) * sv.f_frsize;
      s.free_bytes = static_cast<uint64_t>(sv.f_bavail) * sv.f_frsize;
      return s;
    }
    StatusOr<std::string> table = ReadFile("/statvfs.txt");
    if (!table.ok()) return NotFound("snapshot " + root_ + " has no statvfs.txt");
    std::istringstream lines(*table);
    std::string line;
    while (std::getline(lines, line)) {
      std::vector<std::string> f = SplitNonEmpty(line, " \t");
      if (f.size() != 3 || f[0] != path) continue;
      FsSpace s;
      s.total_bytes = std::strtoull(f[1].c_str(), nullptr, 10);
      s.free_bytes = std::strtoull(f[2].c_str(), nullptr, 10);
      return s;
    }
    return NotFound("statvfs.txt in " + root_ + " has no line for " + path);
  }

  bool live() const override { return live_; }

 private:
  std::string Map(const std::string& path) const {
    if (live_) return path;
    if (!path.empty() && path[0] == '/') return root_ + path;
    return root_ + "/" + path;
  }
  std::string root_;
  bool live_ = false;
};

}  // namespace

std::unique_ptr<FsReader> NewRootedFsReader(const std::string& root) {
  return std::make_unique<RootedFsReader>(root);
}

}  // namespace tfhost::host
