#include "host/k8s/yaml_node.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace tfhost::host::k8s {

namespace {

// Characters YAML treats as line breaks or a byte-order mark beyond the
// ASCII ones (NEL, LINE/PARAGRAPH SEPARATOR, BOM), as their UTF-8 bytes:
// a plain or literal scalar holding one would not read back verbatim.
constexpr const char* kSpecialSequences[] = {"\xC2\x85", "\xE2\x80\xA8", "\xE2\x80\xA9", "\xEF\xBB\xBF"};

bool HasSpecialSequence(const std::string& s) {
  for (const char* seq : kSpecialSequences) {
    if (s.find(seq) != std::string::npos) return true;
  }
  return false;
}

bool IsControl(unsigned char c) { return c < 0x20 || c == 0x7f; }

// Words YAML 1.1 (PyYAML, go-yaml v2) or 1.2 reads as booleans or null.
bool IsReservedWord(const std::string& s) {
  std::string lower(s.size(), '\0');
  std::transform(s.begin(), s.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  static const char* const kWords[] = {"true", "false", "yes", "no", "on", "off", "y", "n", "null", "~"};
  for (const char* w : kWords) {
    if (lower == w) return true;
  }
  return false;
}

// True when `s` may be written without quotes and reads back as this string.
bool PlainSafe(const std::string& s) {
  if (s.empty() || IsReservedWord(s) || HasSpecialSequence(s)) return false;
  const unsigned char first = s.front(), last = s.back();
  if (first == ' ' || first == '\t' || last == ' ' || last == '\t' || last == ':') return false;
  for (unsigned char c : s) {
    if (IsControl(c)) return false;
  }
  // Indicators, and what starts a number, date or time in either YAML
  // version (digits, ".5", "-1", "+.inf"); "<<" (merge) and "=" (value)
  // are YAML 1.1 types.
  static const std::string kNeverFirst = "?:,[]{}#&*!|>'\"%@`<=~.";
  if (kNeverFirst.find(static_cast<char>(first)) != std::string::npos || std::isdigit(first)) return false;
  if (first == '-' || first == '+') {
    if (s.size() == 1) return false;
    const unsigned char second = s[1];
    if (second == ' ' || second == '.' || std::isdigit(second)) return false;
  }
  return s.find(": ") == std::string::npos && s.find(" #") == std::string::npos;
}

std::string DoubleQuoted(const std::string& s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = s[i];
    bool escaped_sequence = false;
    for (const char* seq : kSpecialSequences) {
      const std::string_view view(seq);
      if (s.compare(i, view.size(), view) == 0) {
        // Decode the two- or three-byte UTF-8 sequence into its code point.
        unsigned code = view.size() == 2 ? ((c & 0x1Fu) << 6) | (s[i + 1] & 0x3Fu)
                                         : ((c & 0x0Fu) << 12) | ((s[i + 1] & 0x3Fu) << 6) | (s[i + 2] & 0x3Fu);
        char buf[8];
        std::snprintf(buf, sizeof(buf), "\\u%04X", code);
        out += buf;
        i += view.size() - 1;
        escaped_sequence = true;
        break;
      }
    }
    if (escaped_sequence) continue;
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (IsControl(c)) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04X", c);
          out += buf;
        } else {
          out += static_cast<char>(c);
        }
    }
  }
  return out + "\"";
}

// Multi-line text that a literal block ("|") carries verbatim: no control
// characters but tab and newline, and a first line that does not start with
// white space (else the block's indentation would be read from it).
bool LiteralSafe(const std::string& s) {
  if (s.find('\n') == std::string::npos || HasSpecialSequence(s)) return false;
  if (s.front() == ' ' || s.front() == '\t' || s.front() == '\n') return false;
  for (unsigned char c : s) {
    if (IsControl(c) && c != '\n' && c != '\t') return false;
  }
  return true;
}

// "|" with the chomping indicator that keeps exactly the trailing newlines.
void AppendLiteral(const std::string& s, int indent, std::string& out) {
  size_t trailing = 0;
  while (trailing < s.size() && s[s.size() - 1 - trailing] == '\n') ++trailing;
  out += trailing == 0 ? "|-\n" : trailing == 1 ? "|\n" : "|+\n";
  const std::string pad(indent, ' ');
  size_t start = 0;
  const size_t body_end = s.size() - trailing;
  while (start < body_end) {
    size_t end = s.find('\n', start);
    if (end == std::string::npos || end > body_end) end = body_end;
    if (end > start) out += pad + s.substr(start, end - start);
    out += "\n";
    start = end + 1;
  }
  for (size_t i = 1; i < trailing; ++i) out += "\n";
}

std::string ScalarText(const YamlNode& n) {
  return n.kind() == YamlNode::Kind::kString ? YamlScalar(n.text()) : n.text();
}

void AppendList(const YamlNode& list, int indent, std::string& out);
void AppendMapEntries(const YamlNode& map, int indent, bool first_inline, std::string& out);

// What follows "key:" or "-": the value inline, or on the next lines at
// `child_indent`.
void AppendValue(const YamlNode& n, int child_indent, std::string& out) {
  if (n.kind() == YamlNode::Kind::kString && LiteralSafe(n.text())) {
    out += " ";
    AppendLiteral(n.text(), child_indent, out);
  } else if (n.is_scalar()) {
    out += ' ';
    out += ScalarText(n);
    out += '\n';
  } else if (n.size() == 0) {
    out += n.is_map() ? " {}\n" : " []\n";
  } else if (n.is_map()) {
    out += "\n";
    AppendMapEntries(n, child_indent, false, out);
  } else {
    out += "\n";
    AppendList(n, child_indent, out);
  }
}

void AppendMapEntries(const YamlNode& map, int indent, bool first_inline, std::string& out) {
  for (size_t i = 0; i < map.size(); ++i) {
    if (i > 0 || !first_inline) out += std::string(indent, ' ');
    out += YamlScalar(map.keys()[i]) + ":";
    AppendValue(map.items()[i], indent + 2, out);
  }
}

void AppendList(const YamlNode& list, int indent, std::string& out) {
  for (const YamlNode& item : list.items()) {
    out += std::string(indent, ' ') + "-";
    if (item.is_map() && item.size() > 0) {
      out += " ";
      AppendMapEntries(item, indent + 2, true, out);
    } else {
      AppendValue(item, indent + 2, out);
    }
  }
}

}  // namespace

YamlNode YamlNode::Str(std::string value) {
  YamlNode n(Kind::kString);
  n.text_ = std::move(value);
  return n;
}

YamlNode YamlNode::Int(int64_t value) {
  YamlNode n(Kind::kInt);
  n.int_ = value;
  n.text_ = std::to_string(value);
  return n;
}

YamlNode YamlNode::Bool(bool value) {
  YamlNode n(Kind::kBool);
  n.int_ = value ? 1 : 0;
  n.text_ = value ? "true" : "false";
  return n;
}

YamlNode& YamlNode::Set(const std::string& key, YamlNode value) {
  for (size_t i = 0; i < keys_.size(); ++i) {
    if (keys_[i] == key) return items_[i] = std::move(value);
  }
  keys_.push_back(key);
  items_.push_back(std::move(value));
  return items_.back();
}

YamlNode& YamlNode::Add(YamlNode value) {
  items_.push_back(std::move(value));
  return items_.back();
}

const YamlNode* YamlNode::Find(const std::string& key) const {
  if (!is_map()) return nullptr;
  for (size_t i = 0; i < keys_.size(); ++i) {
    if (keys_[i] == key) return &items_[i];
  }
  return nullptr;
}

const YamlNode* YamlNode::At(size_t index) const {
  return is_list() && index < items_.size() ? &items_[index] : nullptr;
}

const YamlNode* YamlNode::Path(const std::vector<std::string>& steps) const {
  const YamlNode* n = this;
  for (const std::string& step : steps) {
    if (n->is_list()) {
      char* end = nullptr;
      const unsigned long index = std::strtoul(step.c_str(), &end, 10);
      n = (step.empty() || *end != '\0') ? nullptr : n->At(index);
    } else {
      n = n->Find(step);
    }
    if (n == nullptr) return nullptr;
  }
  return n;
}

std::string YamlScalar(const std::string& value) { return PlainSafe(value) ? value : DoubleQuoted(value); }

std::string ToYaml(const YamlNode& root) {
  std::string out;
  if (root.is_map() && root.size() > 0) {
    AppendMapEntries(root, 0, false, out);
  } else if (root.is_list() && root.size() > 0) {
    AppendList(root, 0, out);
  } else {
    AppendValue(root, 2, out);
    out.erase(0, 1);  // the separating space AppendValue puts after "key:"
  }
  return out;
}

}  // namespace tfhost::host::k8s
