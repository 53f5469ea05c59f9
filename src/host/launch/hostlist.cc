#include "host/launch/hostlist.h"

#include <cctype>
#include <cstdint>

namespace tfhost::host::launch {

namespace {

// One piece of an entry: literal text, or the list of numbers a bracket
// group stands for (already formatted with their padding).
struct Piece {
  std::string literal;
  std::vector<std::string> choices;  // empty for literal pieces
};

bool AllDigits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

std::string Pad(uint64_t value, size_t width) {
  std::string s = std::to_string(value);
  if (s.size() < width) s.insert(0, width - s.size(), '0');
  return s;
}

// "01-03,07" -> 01 02 03 07. `entry` is for messages only.
StatusOr<std::vector<std::string>> ExpandGroup(const std::string& group, const std::string& entry) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= group.size()) {
    size_t comma = group.find(',', start);
    std::string item = group.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    size_t dash = item.find('-');
    std::string lo = dash == std::string::npos ? item : item.substr(0, dash);
    std::string hi = dash == std::string::npos ? item : item.substr(dash + 1);
    if (!AllDigits(lo) || !AllDigits(hi) || lo.size() > 18 || hi.size() > 18) {
      return InvalidArgument("hostlist entry '" + entry + "': bracket item '" + item +
                             "' must be a number or LO-HI range of digits");
    }
    uint64_t a = std::stoull(lo), b = std::stoull(hi);
    if (a > b) {
      return InvalidArgument("hostlist entry '" + entry + "': range '" + item + "' runs backwards");
    }
    if (b - a >= kMaxHostlistHosts || out.size() + (b - a + 1) > kMaxHostlistHosts) {
      return InvalidArgument("hostlist entry '" + entry + "': expands to more than " +
                             std::to_string(kMaxHostlistHosts) + " names");
    }
    // Slurm pads to the width of the low bound when it has leading zeros
    // ("[08-10]" -> 08 09 10); "[8-10]" is unpadded.
    size_t width = lo.size() > 1 && lo[0] == '0' ? lo.size() : 0;
    for (uint64_t v = a; v <= b; ++v) out.push_back(Pad(v, width));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

Status ExpandEntry(const std::string& entry, std::vector<std::string>* out) {
  if (entry.empty()) return InvalidArgument("hostlist has an empty entry (two commas in a row, or a leading/trailing comma)");
  std::vector<Piece> pieces;
  size_t i = 0;
  std::string literal;
  while (i < entry.size()) {
    char c = entry[i];
    if (c == ']') return InvalidArgument("hostlist entry '" + entry + "': ']' without '['");
    if (c == '[') {
      size_t close = entry.find(']', i);
      if (close == std::string::npos) return InvalidArgument("hostlist entry '" + entry + "': '[' is never closed");
      std::string group = entry.substr(i + 1, close - i - 1);
      if (group.find('[') != std::string::npos) {
        return InvalidArgument("hostlist entry '" + entry + "': brackets cannot nest");
      }
      if (group.empty()) return InvalidArgument("hostlist entry '" + entry + "': empty brackets");
      if (!literal.empty()) pieces.push_back({literal, {}});
      literal.clear();
      TFHOST_ASSIGN_OR_RETURN(std::vector<std::string> choices, ExpandGroup(group, entry));
      pieces.push_back({"", std::move(choices)});
      i = close + 1;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c)) || std::iscntrl(static_cast<unsigned char>(c))) {
      return InvalidArgument("hostlist entry '" + entry + "': host names cannot contain whitespace or control characters");
    }
    literal += c;
    ++i;
  }
  if (!literal.empty()) pieces.push_back({literal, {}});

  // Cartesian product, left group outermost, checked against the cap before
  // anything is allocated.
  uint64_t total = 1;
  for (const Piece& p : pieces) {
    if (p.choices.empty()) continue;
    total *= p.choices.size();
    if (total + out->size() > kMaxHostlistHosts) {
      return InvalidArgument("hostlist entry '" + entry + "': expands to more than " +
                             std::to_string(kMaxHostlistHosts) + " names");
    }
  }
  std::vector<size_t> idx(pieces.size(), 0);
  for (uint64_t n = 0; n < total; ++n) {
    std::string name;
    for (size_t p = 0; p < pieces.size(); ++p) {
      name += pieces[p].choices.empty() ? pieces[p].literal : pieces[p].choices[idx[p]];
    }
    out->push_back(std::move(name));
    // Odometer: the rightmost group turns fastest.
    for (size_t p = pieces.size(); p-- > 0;) {
      if (pieces[p].choices.empty()) continue;
      if (++idx[p] < pieces[p].choices.size()) break;
      idx[p] = 0;
    }
  }
  return OkStatus();
}

}  // namespace

StatusOr<std::vector<std::string>> ExpandHostlist(const std::string& expr) {
  if (expr.empty()) return InvalidArgument("hostlist is empty");
  std::vector<std::string> hosts;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= expr.size(); ++i) {
    if (i < expr.size() && expr[i] == '[') ++depth;
    if (i < expr.size() && expr[i] == ']') --depth;
    if (i == expr.size() || (expr[i] == ',' && depth <= 0)) {
      Status st = ExpandEntry(expr.substr(start, i - start), &hosts);
      if (!st.ok()) return st.WithContext("expanding hostlist '" + expr + "'");
      start = i + 1;
      depth = 0;
    }
  }
  return hosts;
}

StatusOr<std::vector<int>> ExpandTasksPerNode(const std::string& expr) {
  if (expr.empty()) return InvalidArgument("tasks-per-node list is empty");
  std::vector<int> out;
  size_t start = 0;
  while (start <= expr.size()) {
    size_t comma = expr.find(',', start);
    std::string item = expr.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    std::string count = item, repeat = "1";
    if (size_t paren = item.find("(x"); paren != std::string::npos) {
      if (item.back() != ')') return InvalidArgument("tasks-per-node item '" + item + "': expected N(xM)");
      count = item.substr(0, paren);
      repeat = item.substr(paren + 2, item.size() - paren - 3);
    }
    if (!AllDigits(count) || !AllDigits(repeat) || count.size() > 6 || repeat.size() > 6) {
      return InvalidArgument("tasks-per-node item '" + item + "' in '" + expr + "': expected N or N(xM)");
    }
    int c = std::stoi(count), r = std::stoi(repeat);
    if (r <= 0 || out.size() + r > kMaxHostlistHosts) {
      return InvalidArgument("tasks-per-node item '" + item + "' repeats " + repeat + " times");
    }
    out.insert(out.end(), r, c);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace tfhost::host::launch
