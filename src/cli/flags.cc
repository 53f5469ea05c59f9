#include "cli/flags.h"

#include <algorithm>
#include <charconv>

namespace tfhost::cli {

namespace {

StatusOr<int> ParseInt(const std::string& text, const std::string& what) {
  int value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) {
    return InvalidArgument(what + " expects an integer, got '" + text + "'");
  }
  return value;
}

}  // namespace

int EditDistance(const std::string& a, const std::string& b) {
  std::vector<int> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = static_cast<int>(j);
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = static_cast<int>(i);
    for (size_t j = 1; j <= b.size(); ++j) {
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

void FlagParser::AddString(const std::string& name, std::string* out, const std::string& value_name,
                           const std::string& help) {
  flags_.push_back({name, Kind::kString, out, value_name, help});
}
void FlagParser::AddOptionalString(const std::string& name, std::optional<std::string>* out,
                                   const std::string& value_name, const std::string& help) {
  flags_.push_back({name, Kind::kOptionalString, out, value_name, help});
}
void FlagParser::AddInt(const std::string& name, int* out, const std::string& value_name, const std::string& help) {
  flags_.push_back({name, Kind::kInt, out, value_name, help});
}
void FlagParser::AddBool(const std::string& name, bool* out, const std::string& help) {
  flags_.push_back({name, Kind::kBool, out, "", help});
}
void FlagParser::AddRepeated(const std::string& name, std::vector<std::string>* out, const std::string& value_name,
                             const std::string& help) {
  flags_.push_back({name, Kind::kRepeated, out, value_name, help});
}
void FlagParser::AddPositional(const std::string& name, std::string* out, const std::string& help, bool required) {
  positionals_.push_back({name, out, help, required});
}

const FlagParser::Flag* FlagParser::Find(const std::string& name) const {
  for (const Flag& f : flags_) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

bool FlagParser::TakesValue(const std::string& name) const {
  const Flag* flag = Find(name);
  return flag != nullptr && flag->kind != Kind::kBool;
}

std::string FlagParser::Suggest(const std::string& name) const {
  std::string best;
  int best_distance = 1 << 30;
  for (const Flag& f : flags_) {
    int d = EditDistance(name, f.name);
    // A prefix ("--thread" for "--threads") is as good as one typo.
    if (f.name.rfind(name, 0) == 0 || name.rfind(f.name, 0) == 0) d = std::min(d, 1);
    if (d < best_distance) {
      best_distance = d;
      best = f.name;
    }
  }
  int tolerance = std::max<int>(2, static_cast<int>(name.size()) / 3);
  if (best.empty() || best_distance > tolerance) return "";
  return best;
}

Status FlagParser::Assign(const Flag& flag, const std::string& value) {
  switch (flag.kind) {
    case Kind::kString:
      *static_cast<std::string*>(flag.out) = value;
      break;
    case Kind::kOptionalString:
      *static_cast<std::optional<std::string>*>(flag.out) = value;
      break;
    case Kind::kRepeated:
      static_cast<std::vector<std::string>*>(flag.out)->push_back(value);
      break;
    case Kind::kInt: {
      TFHOST_ASSIGN_OR_RETURN(int v, ParseInt(value, "--" + flag.name));
      *static_cast<int*>(flag.out) = v;
      break;
    }
    case Kind::kBool:
      if (value == "true" || value == "1" || value.empty()) {
        *static_cast<bool*>(flag.out) = true;
      } else if (value == "false" || value == "0") {
        *static_cast<bool*>(flag.out) = false;
      } else {
        return InvalidArgument("--" + flag.name + " expects true or false, got '" + value + "'");
      }
      break;
  }
  return OkStatus();
}

Status FlagParser::Parse(const std::vector<std::string>& args) {
  size_t next_positional = 0;
  bool flags_done = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (!flags_done && (arg == "--help" || arg == "-h")) {
      help_requested_ = true;
      return OkStatus();
    }
    if (!flags_done && arg == "--") {
      flags_done = true;
      continue;
    }
    if (!flags_done && arg.size() > 1 && arg[0] == '-') {
      std::string body = arg.substr(arg[1] == '-' ? 2 : 1);
      std::string name = body, value;
      bool has_value = false;
      if (size_t eq = body.find('='); eq != std::string::npos) {
        name = body.substr(0, eq);
        value = body.substr(eq + 1);
        has_value = true;
      }
      const Flag* flag = Find(name);
      if (flag == nullptr) {
        std::string suggestion = Suggest(name);
        return InvalidArgument("unknown flag '" + arg + "'" +
                               (suggestion.empty() ? std::string() : "; did you mean '--" + suggestion + "'?"));
      }
      if (flag->kind != Kind::kBool && !has_value) {
        if (i + 1 >= args.size()) {
          return InvalidArgument("flag --" + name + " needs a value (" + flag->value_name + ")");
        }
        value = args[++i];
        has_value = true;
      }
      TFHOST_RETURN_IF_ERROR(Assign(*flag, value));
      continue;
    }
    if (next_positional >= positionals_.size()) {
      return InvalidArgument("unexpected argument '" + arg + "'");
    }
    *positionals_[next_positional++].out = arg;
  }
  for (size_t p = next_positional; p < positionals_.size(); ++p) {
    if (positionals_[p].required) return InvalidArgument("missing argument " + positionals_[p].name);
  }
  return OkStatus();
}

std::string FlagParser::Help() const {
  std::string out = "Usage: " + usage_ + "\n\n" + summary_ + "\n";
  auto row = [](const std::string& left, const std::string& help) {
    std::string line = "  " + left;
    if (line.size() < 28) {
      line.append(28 - line.size(), ' ');
    } else {
      line += "\n" + std::string(28, ' ');
    }
    return line + help + "\n";
  };
  if (!positionals_.empty()) {
    out += "\nArguments:\n";
    for (const auto& p : positionals_) out += row(p.name, p.help);
  }
  out += "\nFlags:\n";
  for (const auto& f : flags_) {
    out += row("--" + f.name + (f.value_name.empty() ? "" : " " + f.value_name), f.help);
  }
  out += row("--help", "show this help");
  return out;
}

StatusOr<std::vector<int>> ParseIntList(const std::string& text, const std::string& flag, int min, int max) {
  std::vector<int> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    TFHOST_ASSIGN_OR_RETURN(int v, ParseInt(item, "--" + flag));
    if (v < min || v > max) {
      return InvalidArgument("--" + flag + " values must be between " + std::to_string(min) + " and " +
                             std::to_string(max) + ", got " + std::to_string(v));
    }
    out.push_back(v);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace tfhost::cli
