// A YAML document as a tree of maps (keys in insertion order), lists and
// scalars, rendered in block style for people to read and for Kubernetes
// (sigs.k8s.io/yaml) and PyYAML to parse back to the same values.
//
// Why a tree and not text: the manifests are checked field by field in tests,
// and a value can never break the document it sits in. Strings are written
// plain where every YAML 1.1 and 1.2 reader takes them as that same string,
// double-quoted (JSON escapes) where a reader could see a number, boolean,
// null, date or an indicator ("8:30" is an integer in YAML 1.1, "on" a
// boolean, "- x" a list); multi-line text (a config file) as a literal block.
//
// Thread-safety: a node is a plain value; const use from many threads is safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tfhost::host::k8s {

class YamlNode {
 public:
  enum class Kind { kMap, kList, kString, kInt, kBool };

  static YamlNode Map() { return YamlNode(Kind::kMap); }
  static YamlNode List() { return YamlNode(Kind::kList); }
  static YamlNode Str(std::string value);
  static YamlNode Int(int64_t value);
  static YamlNode Bool(bool value);

  Kind kind() const { return kind_; }
  bool is_map() const { return kind_ == Kind::kMap; }
  bool is_list() const { return kind_ == Kind::kList; }
  bool is_scalar() const { return !is_map() && !is_list(); }

  // Map: adds `key` (or replaces its value, keeping its place) and returns
  // the stored child, so nested maps are built in place.
  YamlNode& Set(const std::string& key, YamlNode value);
  YamlNode& Set(const std::string& key, const char* value) { return Set(key, Str(value)); }
  YamlNode& Set(const std::string& key, const std::string& value) { return Set(key, Str(value)); }
  YamlNode& Set(const std::string& key, int value) { return Set(key, Int(value)); }
  // List: appends and returns the stored item.
  YamlNode& Add(YamlNode value);

  // Lookups for readers (tests): null when absent or not a map / out of range.
  const YamlNode* Find(const std::string& key) const;
  const YamlNode* At(size_t index) const;
  // Follows keys through maps; in a list, the step is the item's index
  // ({"spec", "containers", "0", "image"}). Keys may hold dots and slashes
  // ("prometheus.io/path"), hence steps rather than one dotted string.
  const YamlNode* Path(const std::vector<std::string>& steps) const;
  size_t size() const { return items_.size(); }
  const std::vector<std::string>& keys() const { return keys_; }
  const std::vector<YamlNode>& items() const { return items_; }

  // The scalar as text: the string, the decimal integer, "true"/"false".
  const std::string& text() const { return text_; }
  int64_t int_value() const { return int_; }

 private:
  explicit YamlNode(Kind kind) : kind_(kind) {}

  Kind kind_;
  std::string text_;
  int64_t int_ = 0;
  std::vector<std::string> keys_;  // maps: keys_[i] names items_[i]
  std::vector<YamlNode> items_;
};

// One document, block style, two-space indentation, ending in a newline.
std::string ToYaml(const YamlNode& root);

// How one string scalar is written (plain, or double-quoted with JSON
// escapes); exposed for tests. Multi-line strings are left to ToYaml.
std::string YamlScalar(const std::string& value);

}  // namespace tfhost::host::k8s
