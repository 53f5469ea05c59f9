#include "backends/algorithm_cache.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "base/file_util.h"

namespace tfhost::backends {
namespace {

constexpr char kHeader[] = "# tfhost algorithm cache v2";
// The first version, whose lines have no blob field; still read.
constexpr char kHeaderV1[] = "# tfhost algorithm cache v1";

// Keys are built from device and library names the driver reports; tabs and
// newlines in them would break the line format, so they become spaces.
std::string Clean(std::string s) {
  for (char& c : s) {
    if (c == '\t' || c == '\n' || c == '\r') c = ' ';
  }
  return s;
}

std::vector<std::string> SplitTabs(const std::string& line) {
  std::vector<std::string> fields;
  size_t start = 0;
  for (;;) {
    size_t tab = line.find('\t', start);
    fields.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) return fields;
    start = tab + 1;
  }
}

bool ParseInt(const std::string& s, int64_t* out) {
  if (s.empty()) return false;
  char* end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (end != s.c_str() + s.size()) return false;
  *out = v;
  return true;
}

constexpr char kHexDigits[] = "0123456789abcdef";

std::string ToHex(const std::string& bytes) {
  if (bytes.empty()) return "-";
  std::string hex;
  hex.reserve(bytes.size() * 2);
  for (unsigned char b : bytes) {
    hex += kHexDigits[b >> 4];
    hex += kHexDigits[b & 15];
  }
  return hex;
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// "-" is no blob; anything else must be pairs of hex digits.
bool FromHex(const std::string& hex, std::string* bytes) {
  bytes->clear();
  if (hex == "-") return true;
  if (hex.empty() || hex.size() % 2 != 0 || hex.size() / 2 > kMaxAlgorithmBlobBytes) return false;
  for (size_t i = 0; i < hex.size(); i += 2) {
    const int hi = HexValue(hex[i]), lo = HexValue(hex[i + 1]);
    if (hi < 0 || lo < 0) return false;
    *bytes += static_cast<char>(hi * 16 + lo);
  }
  return true;
}

}  // namespace

std::string AlgorithmKey::ToString() const {
  std::ostringstream os;
  os << "op=" << op << ";dtypes=";
  for (size_t i = 0; i < dtypes.size(); ++i) os << (i ? "," : "") << DTypeShortName(dtypes[i]);
  os << ";layout=" << layout << ";shapes=";
  for (size_t i = 0; i < shapes.size(); ++i) {
    os << (i ? "," : "");
    for (size_t d = 0; d < shapes[i].size(); ++d) os << (d ? "x" : "") << shapes[i][d];
  }
  os << ";attrs=" << attrs << ";device=" << device << ";libraries=" << libraries;
  return Clean(os.str());
}

std::optional<AlgorithmChoice> AlgorithmCache::Lookup(const AlgorithmKey& key, int64_t workspace_cap,
                                                      bool need_measured) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(key.ToString());
  if (it == entries_.end() || it->second.workspace_bytes > workspace_cap) return std::nullopt;
  if (need_measured && !it->second.measured()) return std::nullopt;
  return it->second;
}

bool AlgorithmCache::MergeLocked(const std::string& key, const AlgorithmChoice& choice) {
  auto [it, inserted] = entries_.emplace(key, choice);
  if (inserted) return true;
  if (!choice.measured() && it->second.measured()) return false;
  it->second = choice;
  return true;
}

void AlgorithmCache::Insert(const AlgorithmKey& key, const AlgorithmChoice& choice) {
  std::lock_guard<std::mutex> lock(mu_);
  if (MergeLocked(key.ToString(), choice)) ++changes_;
}

void AlgorithmCache::Replace(const AlgorithmKey& key, const AlgorithmChoice& choice) {
  std::lock_guard<std::mutex> lock(mu_);
  entries_[key.ToString()] = choice;
  ++changes_;
}

size_t AlgorithmCache::size() const {
  std::lock_guard<std::mutex> lock(mu_);
  return entries_.size();
}

uint64_t AlgorithmCache::changes() const {
  std::lock_guard<std::mutex> lock(mu_);
  return changes_;
}

Status AlgorithmCache::Save(const std::string& path) const {
  TFHOST_RETURN_IF_ERROR(CreateParentDirectories(path));
  std::string text = std::string(kHeader) + "\n";
  {
    std::lock_guard<std::mutex> lock(mu_);
    char number[64];
    for (const auto& [key, c] : entries_) {
      std::snprintf(number, sizeof(number), "%.3f", c.micros);
      text += key + "\t" + std::to_string(c.algorithm) + "\t" + std::to_string(c.workspace_bytes) + "\t" +
              (c.measured() ? std::string(number) : std::string("-1")) + "\t" +
              (c.measured() ? "measured" : "heuristic") + "\t" + ToHex(c.blob) + "\n";
    }
  }
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out.good()) return Unavailable("cannot write the algorithm cache " + tmp);
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    return Unavailable("cannot replace the algorithm cache " + path + ": " + ec.message());
  }
  return OkStatus();
}

Status AlgorithmCache::Load(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("no algorithm cache at " + path);
  std::string line;
  if (!std::getline(in, line) || (line != kHeader && line != kHeaderV1)) {
    return InvalidArgument(path + ":1: not a tfhost algorithm cache of a version this tfhost reads (expected the line \"" +
                           std::string(kHeader) + "\" or \"" + std::string(kHeaderV1) + "\")");
  }
  const bool v1 = line == kHeaderV1;
  const size_t fields = v1 ? 5 : 6;
  std::map<std::string, AlgorithmChoice> read;
  for (int number = 2; std::getline(in, line); ++number) {
    if (line.empty()) continue;
    const std::string where = path + ":" + std::to_string(number);
    const std::vector<std::string> f = SplitTabs(line);
    AlgorithmChoice c;
    bool ok = f.size() == fields && !f[0].empty() && ParseInt(f[1], &c.algorithm) &&
              ParseInt(f[2], &c.workspace_bytes) && c.workspace_bytes >= 0 &&
              (f[4] == "measured" || f[4] == "heuristic");
    if (ok) {
      char* end = nullptr;
      c.micros = std::strtod(f[3].c_str(), &end);
      ok = end == f[3].c_str() + f[3].size() && !f[3].empty();
      if (ok && (f[4] == "measured") != (c.micros >= 0)) {
        return InvalidArgument(where + ": entry '" + f[0] + "' is " + f[4] + " but its microseconds field is " + f[3] +
                               " (expected a time >= 0 for a measured entry, a negative value for a heuristic one)");
      }
    }
    if (!ok) {
      return InvalidArgument(where + ": expected key, algorithm, workspace bytes, microseconds, " +
                             "\"measured\" or \"heuristic\"" + (v1 ? "" : " and the algorithm blob") +
                             ", separated by tabs");
    }
    if (!v1 && !FromHex(f[5], &c.blob)) {
      return InvalidArgument(where + ": entry '" + f[0] + "' has a malformed algorithm blob '" +
                             (f[5].size() > 40 ? f[5].substr(0, 40) + "..." : f[5]) +
                             "' (expected \"-\" or pairs of hex digits, at most " +
                             std::to_string(kMaxAlgorithmBlobBytes) + " bytes)");
    }
    read[f[0]] = c;
  }
  std::lock_guard<std::mutex> lock(mu_);
  for (auto& [key, c] : read) MergeLocked(key, c);
  return OkStatus();
}

}  // namespace tfhost::backends
