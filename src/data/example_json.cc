#include "data/example_json.h"

#include "base/base64.h"
#include "data/schema.h"

#include <rapidjson/reader.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <vector>

namespace tfhost::data {
namespace {

// --- writing ---------------------------------------------------------------

void AppendJsonString(std::string_view s, std::string* out) {
  out->push_back('"');
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\') {
      out->push_back('\\');
      out->push_back(c);
    } else if (u < 0x20) {
      static const char* kHex = "0123456789abcdef";
      switch (c) {
        case '\n': out->append("\\n"); break;
        case '\t': out->append("\\t"); break;
        case '\r': out->append("\\r"); break;
        default:
          out->append("\\u00");
          out->push_back(kHex[u >> 4]);
          out->push_back(kHex[u & 15]);
      }
    } else {
      out->push_back(c);
    }
  }
  out->push_back('"');
}

template <typename T, typename Fn>
void AppendList(const std::vector<T>& values, std::string* out, Fn fn) {
  if (values.size() == 1) {
    fn(values[0]);
    return;
  }
  out->push_back('[');
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out->push_back(',');
    fn(values[i]);
  }
  out->push_back(']');
}

void AppendFeatureMapJson(const FeatureMap& map, std::string* out) {
  out->push_back('{');
  bool first = true;
  for (const auto& [name, feature] : map) {
    if (!first) out->push_back(',');
    first = false;
    AppendJsonString(name, out);
    out->push_back(':');
    AppendFeatureJson(feature, out);
  }
  out->push_back('}');
}

// --- reading: a small tree that keeps number texts ---------------------------

struct Node {
  enum Type { kNull, kBool, kNumber, kString, kArray, kObject } type = kNull;
  bool boolean = false;
  std::string text;  // number text or string value
  std::vector<Node> items;
  std::vector<std::string> keys;  // for objects, parallel to items
};

// rapidjson SAX handler; numbers arrive as raw text (kParseNumbersAsStringsFlag)
// so int64 and float32 values are parsed exactly by std::from_chars.
class TreeBuilder : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, TreeBuilder> {
 public:
  static constexpr size_t kMaxDepth = 16;
  Node root;

  bool Null() { return Add(Node{}); }
  bool Bool(bool b) {
    Node n;
    n.type = Node::kBool;
    n.boolean = b;
    return Add(std::move(n));
  }
  bool RawNumber(const char* s, rapidjson::SizeType len, bool) {
    Node n;
    n.type = Node::kNumber;
    n.text.assign(s, len);
    return Add(std::move(n));
  }
  bool String(const char* s, rapidjson::SizeType len, bool) {
    Node n;
    n.type = Node::kString;
    n.text.assign(s, len);
    return Add(std::move(n));
  }
  bool Key(const char* s, rapidjson::SizeType len, bool) {
    key_.assign(s, len);
    return true;
  }
  bool StartObject() { return Open(Node::kObject); }
  bool EndObject(rapidjson::SizeType) { return Close(); }
  bool StartArray() { return Open(Node::kArray); }
  bool EndArray(rapidjson::SizeType) { return Close(); }

 private:
  Node* Place(Node n) {
    if (stack_.empty()) {
      root = std::move(n);
      return &root;
    }
    Node* top = stack_.back();
    if (top->type == Node::kObject) top->keys.push_back(key_);
    top->items.push_back(std::move(n));
    return &top->items.back();
  }
  bool Add(Node n) {
    Place(std::move(n));
    return true;
  }
  bool Open(Node::Type t) {
    if (stack_.size() >= kMaxDepth) return false;
    Node n;
    n.type = t;
    stack_.push_back(Place(std::move(n)));
    return true;
  }
  bool Close() {
    stack_.pop_back();
    return true;
  }
  std::vector<Node*> stack_;
  std::string key_;
};

Status FeatureError(const std::string& name, const std::string& what) {
  return InvalidArgument("feature '" + name + "': " + what);
}

bool LooksFloat(std::string_view text) { return text.find_first_of(".eE") != std::string_view::npos; }

// Converts one scalar node to a value of `kind`.
Status ScalarTo(const Node& n, FeatureKind kind, const std::string& name, Feature* f) {
  if (n.type == Node::kArray || n.type == Node::kObject || n.type == Node::kNull) {
    return FeatureError(name, "a list may only hold numbers, strings or booleans");
  }
  std::string text = n.type == Node::kBool ? (n.boolean ? "1" : "0") : n.text;
  switch (kind) {
    case FeatureKind::kInt64: {
      int64_t v;
      if (!ParseInt64Text(text, &v)) {
        float fv;
        // 3.0 is an acceptable int64 when a schema asks for one.
        if (!ParseFloatText(text, &fv) || !std::isfinite(fv) || std::trunc(fv) != fv || std::fabs(fv) > 9.0e18f) {
          return FeatureError(name, "'" + text + "' is not an int64");
        }
        v = static_cast<int64_t>(fv);
      }
      f->int64s.push_back(v);
      return OkStatus();
    }
    case FeatureKind::kFloat: {
      float v;
      if (!ParseFloatText(text, &v)) return FeatureError(name, "'" + text + "' is not a float32");
      f->floats.push_back(v);
      return OkStatus();
    }
    case FeatureKind::kBytes:
      f->bytes.push_back(n.type == Node::kBool ? (n.boolean ? "true" : "false") : n.text);
      return OkStatus();
    case FeatureKind::kNone: break;
  }
  return Internal("no kind");
}

// Parses one feature value; *absent for null.
Status FeatureFromNode(const Node& n, const std::string& name, const FeatureKind* forced, Feature* out,
                       bool* absent) {
  *absent = false;
  *out = Feature();
  if (n.type == Node::kNull) {
    *absent = true;
    return OkStatus();
  }
  if (n.type == Node::kObject) {
    if (n.items.empty()) {
      if (forced) out->kind = *forced;
      return OkStatus();
    }
    if (n.items.size() != 1 || n.items[0].type != Node::kArray) {
      return FeatureError(name, "a typed value is one key (int64, float, bytes, bytes_b64) with a list");
    }
    const std::string& key = n.keys[0];
    const Node& list = n.items[0];
    if (key == "bytes_b64") {
      out->kind = FeatureKind::kBytes;
      for (const Node& item : list.items) {
        if (item.type != Node::kString) return FeatureError(name, "bytes_b64 values must be base64 strings");
        auto decoded = Base64Decode(item.text);
        if (!decoded.ok()) return FeatureError(name, "bytes_b64 value: " + decoded.status().message());
        out->bytes.push_back(*std::move(decoded));
      }
      return OkStatus();
    }
    auto kind = ParseFeatureKind(key);
    if (!kind.ok()) return FeatureError(name, "unknown typed value key '" + key + "'");
    out->kind = *kind;
    for (const Node& item : list.items) TFHOST_RETURN_IF_ERROR(ScalarTo(item, *kind, name, out));
    return OkStatus();
  }
  std::vector<const Node*> scalars;
  if (n.type == Node::kArray) {
    for (const Node& item : n.items) scalars.push_back(&item);
  } else {
    scalars.push_back(&n);
  }
  if (scalars.empty()) {
    if (forced) out->kind = *forced;
    return OkStatus();
  }
  FeatureKind kind;
  if (forced) {
    kind = *forced;
  } else {
    bool any_string = false, any_number = false, any_float = false;
    for (const Node* s : scalars) {
      if (s->type == Node::kString) {
        any_string = true;
      } else if (s->type == Node::kNumber || s->type == Node::kBool) {
        any_number = true;
        any_float = any_float || (s->type == Node::kNumber && LooksFloat(s->text));
      }
    }
    if (any_string && any_number) return FeatureError(name, "mixes strings and numbers");
    kind = any_string ? FeatureKind::kBytes : any_float ? FeatureKind::kFloat : FeatureKind::kInt64;
  }
  out->kind = kind;
  for (const Node* s : scalars) TFHOST_RETURN_IF_ERROR(ScalarTo(*s, kind, name, out));
  return OkStatus();
}

Status FeatureMapFromNode(const Node& obj, const KindSchema* schema, FeatureMap* out) {
  if (obj.type != Node::kObject) return InvalidArgument("features must be a JSON object");
  for (size_t i = 0; i < obj.items.size(); ++i) {
    const std::string& name = obj.keys[i];
    const FeatureKind* forced = nullptr;
    if (schema) {
      auto it = schema->find(name);
      if (it != schema->end()) forced = &it->second;
    }
    Feature f;
    bool absent;
    TFHOST_RETURN_IF_ERROR(FeatureFromNode(obj.items[i], name, forced, &f, &absent));
    if (!absent) (*out)[name] = std::move(f);
  }
  return OkStatus();
}

}  // namespace

void AppendFeatureJson(const Feature& f, std::string* out) {
  switch (f.kind) {
    case FeatureKind::kNone:
      out->append("{}");
      return;
    case FeatureKind::kInt64:
      if (f.int64s.empty()) {
        out->append("{\"int64\":[]}");
        return;
      }
      AppendList(f.int64s, out, [&](int64_t v) { out->append(std::to_string(v)); });
      return;
    case FeatureKind::kFloat: {
      bool finite = true;
      for (float v : f.floats) finite = finite && std::isfinite(v);
      if (f.floats.empty() || !finite) {
        out->append("{\"float\":[");
        for (size_t i = 0; i < f.floats.size(); ++i) {
          if (i) out->push_back(',');
          std::string t = FormatFloat(f.floats[i]);
          if (std::isfinite(f.floats[i])) {
            out->append(t);
          } else {
            AppendJsonString(t, out);
          }
        }
        out->append("]}");
        return;
      }
      AppendList(f.floats, out, [&](float v) { out->append(FormatFloat(v)); });
      return;
    }
    case FeatureKind::kBytes: {
      bool utf8 = true;
      for (const auto& b : f.bytes) utf8 = utf8 && IsValidUtf8(b);
      if (!utf8) {
        out->append("{\"bytes_b64\":[");
        for (size_t i = 0; i < f.bytes.size(); ++i) {
          if (i) out->push_back(',');
          AppendJsonString(Base64Encode(f.bytes[i]), out);
        }
        out->append("]}");
        return;
      }
      if (f.bytes.empty()) {
        out->append("{\"bytes\":[]}");
        return;
      }
      AppendList(f.bytes, out, [&](const std::string& v) { AppendJsonString(v, out); });
      return;
    }
  }
}

std::string ExampleToJson(const Example& example) {
  std::string out;
  AppendFeatureMapJson(example.features, &out);
  return out;
}

std::string SequenceExampleToJson(const SequenceExample& example) {
  std::string out = "{\"context\":";
  AppendFeatureMapJson(example.context, &out);
  out.append(",\"feature_lists\":{");
  bool first = true;
  for (const auto& [name, steps] : example.feature_lists) {
    if (!first) out.push_back(',');
    first = false;
    AppendJsonString(name, &out);
    out.append(":[");
    for (size_t i = 0; i < steps.size(); ++i) {
      if (i) out.push_back(',');
      // A one-value step is written as a list so it cannot be mistaken for
      // the step list itself.
      if (steps[i].kind != FeatureKind::kNone && steps[i].size() == 1) {
        out.push_back('[');
        AppendFeatureJson(steps[i], &out);
        out.push_back(']');
      } else {
        AppendFeatureJson(steps[i], &out);
      }
    }
    out.push_back(']');
  }
  out.append("}}");
  return out;
}

StatusOr<JsonRecord> RecordFromJson(std::string_view json, const KindSchema* schema) {
  TreeBuilder builder;
  rapidjson::Reader reader;
  rapidjson::MemoryStream ms(json.data(), json.size());
  rapidjson::ParseResult ok =
      reader.Parse<rapidjson::kParseNumbersAsStringsFlag | rapidjson::kParseStopWhenDoneFlag>(ms, builder);
  if (!ok) {
    return InvalidArgument("invalid JSON at character " + std::to_string(ok.Offset()) +
                           " (or nested deeper than " + std::to_string(TreeBuilder::kMaxDepth) + ")");
  }
  for (size_t i = ms.Tell(); i < json.size(); ++i) {
    if (!std::isspace(static_cast<unsigned char>(json[i]))) {
      return InvalidArgument("trailing characters after the JSON object at character " + std::to_string(i));
    }
  }
  const Node& root = builder.root;
  if (root.type != Node::kObject) return InvalidArgument("a record must be a JSON object");
  JsonRecord record;
  bool has_lists = false, only_sequence_keys = true;
  for (const std::string& k : root.keys) {
    has_lists = has_lists || k == "feature_lists";
    only_sequence_keys = only_sequence_keys && (k == "context" || k == "feature_lists");
  }
  if (has_lists && only_sequence_keys) {
    record.is_sequence = true;
    for (size_t i = 0; i < root.items.size(); ++i) {
      const Node& value = root.items[i];
      if (root.keys[i] == "context") {
        TFHOST_RETURN_IF_ERROR(FeatureMapFromNode(value, schema, &record.sequence.context));
        continue;
      }
      if (value.type != Node::kObject) return InvalidArgument("feature_lists must be a JSON object");
      for (size_t j = 0; j < value.items.size(); ++j) {
        const std::string& name = value.keys[j];
        const Node& steps = value.items[j];
        if (steps.type != Node::kArray) return FeatureError(name, "a feature list must be a JSON array of steps");
        const FeatureKind* forced = nullptr;
        if (schema && schema->count(name)) forced = &schema->at(name);
        std::vector<Feature>& out = record.sequence.feature_lists[name];
        for (const Node& step : steps.items) {
          Feature f;
          bool absent;
          TFHOST_RETURN_IF_ERROR(FeatureFromNode(step, name, forced, &f, &absent));
          out.push_back(std::move(f));
        }
      }
    }
    return record;
  }
  TFHOST_RETURN_IF_ERROR(FeatureMapFromNode(root, schema, &record.example.features));
  return record;
}

std::string FormatFloat(float v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v);
  std::string s(buf, res.ptr);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

bool ParseFloatText(std::string_view text, float* out) {
  std::string lower;
  for (char c : text) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (lower == "nan" || lower == "-nan") {
    *out = std::numeric_limits<float>::quiet_NaN();
    return true;
  }
  if (lower == "inf" || lower == "infinity" || lower == "+inf") {
    *out = std::numeric_limits<float>::infinity();
    return true;
  }
  if (lower == "-inf" || lower == "-infinity") {
    *out = -std::numeric_limits<float>::infinity();
    return true;
  }
  if (text.empty()) return false;
  const char* begin = text.data();
  if (*begin == '+') ++begin;
  auto res = std::from_chars(begin, text.data() + text.size(), *out);
  return res.ec == std::errc() && res.ptr == text.data() + text.size();
}

bool ParseInt64Text(std::string_view text, int64_t* out) {
  if (text.empty()) return false;
  const char* begin = text.data();
  if (*begin == '+') ++begin;
  auto res = std::from_chars(begin, text.data() + text.size(), *out);
  return res.ec == std::errc() && res.ptr == text.data() + text.size();
}

bool IsValidUtf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const auto* end = p + s.size();
  while (p < end) {
    unsigned char c = *p;
    if (c < 0x80) {
      ++p;
      continue;
    }
    int n;
    uint32_t cp;
    if ((c & 0xe0) == 0xc0) {
      n = 1;
      cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
      n = 2;
      cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
      n = 3;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (end - p <= n) return false;
    for (int i = 1; i <= n; ++i) {
      if ((p[i] & 0xc0) != 0x80) return false;
      cp = (cp << 6) | (p[i] & 0x3f);
    }
    static const uint32_t kMin[] = {0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
    p += n + 1;
  }
  return true;
}

}  // namespace tfhost::data
