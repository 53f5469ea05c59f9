#include "ir/op_def_builder.h"

#include <cctype>
#include <cstdlib>
#include <map>

#include "base/dtype.h"

namespace tfhost::ir {

namespace {

std::string Trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t");
  return s.substr(b, e - b + 1);
}

// Splits "a, b, [c, d]" at top-level commas.
std::vector<std::string> SplitTopLevel(const std::string& s) {
  std::vector<std::string> parts;
  int depth = 0;
  bool in_quote = false;
  std::string cur;
  for (char c : s) {
    if (c == '\'' || c == '"') in_quote = !in_quote;
    if (!in_quote && (c == '[' || c == '(' || c == '{')) ++depth;
    if (!in_quote && (c == ']' || c == ')' || c == '}')) --depth;
    if (c == ',' && depth == 0 && !in_quote) {
      parts.push_back(Trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!Trim(cur).empty()) parts.push_back(Trim(cur));
  return parts;
}

// C escapes in quoted defaults, as TensorFlow writes them ('\t', '\n', '\\', '\'').
std::string Unescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 == s.size()) {
      out += s[i];
      continue;
    }
    char c = s[++i];
    out += c == 't' ? '\t' : c == 'n' ? '\n' : c == 'r' ? '\r' : c == '0' ? '\0' : c;
  }
  return out;
}

bool IsQuoted(const std::string& s) {
  return s.size() >= 2 && (s.front() == '\'' || s.front() == '"') && s.back() == s.front();
}

StatusOr<tensorflow::DataType> ParseTypeName(const std::string& s) {
  TFHOST_ASSIGN_OR_RETURN(DType d, ParseDType(s));
  return static_cast<tensorflow::DataType>(d);
}

// Parses one default value of scalar attr type `type` into `value`.
Status ParseScalarValue(const std::string& type, const std::string& text,
                        tensorflow::AttrValue* value) {
  if (type == "string") {
    if (!IsQuoted(text)) return InvalidArgument("string default must be quoted: " + text);
    value->set_s(Unescape(text.substr(1, text.size() - 2)));
  } else if (type == "int") {
    value->set_i(std::stoll(text));
  } else if (type == "float") {
    value->set_f(std::stof(text));
  } else if (type == "bool") {
    if (text != "true" && text != "false") return InvalidArgument("bool default must be true/false: " + text);
    value->set_b(text == "true");
  } else if (type == "type") {
    TFHOST_ASSIGN_OR_RETURN(auto t, ParseTypeName(text));
    value->set_type(t);
  } else if (type == "shape") {
    if (text == "unknown") {
      value->mutable_shape()->set_unknown_rank(true);
    } else {
      return InvalidArgument("only 'unknown' is supported as a shape default");
    }
  } else {
    return InvalidArgument("no default syntax for attr type " + type);
  }
  return OkStatus();
}

Status ParseAttr(const std::string& spec, tensorflow::OpDef::AttrDef* attr) {
  auto colon = spec.find(':');
  if (colon == std::string::npos) return InvalidArgument("attr spec needs 'name: type'");
  attr->set_name(Trim(spec.substr(0, colon)));
  std::string rest = Trim(spec.substr(colon + 1));
  std::string default_text;
  // The default follows the first '=' that is not part of a ">=" minimum.
  size_t eq = std::string::npos;
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == '=' && (i == 0 || rest[i - 1] != '>')) {
      eq = i;
      break;
    }
  }
  if (eq != std::string::npos) {
    default_text = Trim(rest.substr(eq + 1));
    rest = Trim(rest.substr(0, eq));
  }
  // Minimums such as "int >= 1" (checked at load: ir/attr_constraints.h).
  if (auto ge = rest.find(">="); ge != std::string::npos) {
    const std::string bound = Trim(rest.substr(ge + 2));
    char* end = nullptr;
    const long long minimum = std::strtoll(bound.c_str(), &end, 10);
    if (bound.empty() || end != bound.c_str() + bound.size()) {
      return InvalidArgument("attr '" + attr->name() + "': minimum must be an integer, got '" + bound + "'");
    }
    attr->set_has_minimum(true);
    attr->set_minimum(minimum);
    rest = Trim(rest.substr(0, ge));
  }
  std::string type = rest;
  if (!rest.empty() && rest.front() == '{') {
    // Allowed values: quoted strings mean a string attr, else a type attr.
    std::string inner = rest.substr(1, rest.size() - 2);
    auto values = SplitTopLevel(inner);
    bool strings = !values.empty() && IsQuoted(values[0]);
    type = strings ? "string" : "type";
    auto* allowed = attr->mutable_allowed_values()->mutable_list();
    for (const auto& v : values) {
      if (strings) {
        allowed->add_s(v.substr(1, v.size() - 2));
      } else {
        TFHOST_ASSIGN_OR_RETURN(auto t, ParseTypeName(v));
        allowed->add_type(t);
      }
    }
  } else if (rest.rfind("list(", 0) == 0 && rest.find('{') != std::string::npos) {
    type = "list(type)";
  }
  attr->set_type(type);
  if (default_text.empty()) return OkStatus();
  auto* dv = attr->mutable_default_value();
  if (type.rfind("list(", 0) == 0) {
    std::string elem = type.substr(5, type.size() - 6);
    if (default_text.front() != '[' || default_text.back() != ']') {
      return InvalidArgument("list default must be [..]: " + default_text);
    }
    auto* list = dv->mutable_list();
    for (const auto& item : SplitTopLevel(default_text.substr(1, default_text.size() - 2))) {
      tensorflow::AttrValue one;
      TFHOST_RETURN_IF_ERROR(ParseScalarValue(elem, item, &one));
      if (elem == "int") list->add_i(one.i());
      else if (elem == "float") list->add_f(one.f());
      else if (elem == "string") list->add_s(one.s());
      else if (elem == "bool") list->add_b(one.b());
      else if (elem == "type") list->add_type(one.type());
    }
    return OkStatus();
  }
  return ParseScalarValue(type, default_text, dv);
}

Status ParseArg(const std::string& spec, const std::map<std::string, std::string>& attr_types,
                tensorflow::OpDef::ArgDef* arg) {
  auto colon = spec.find(':');
  if (colon == std::string::npos) return InvalidArgument("arg spec needs 'name: type'");
  arg->set_name(Trim(spec.substr(0, colon)));
  std::string type = Trim(spec.substr(colon + 1));
  if (type.rfind("Ref(", 0) == 0 && type.back() == ')') {
    arg->set_is_ref(true);
    type = Trim(type.substr(4, type.size() - 5));
  }
  if (auto star = type.find('*'); star != std::string::npos) {
    arg->set_number_attr(Trim(type.substr(0, star)));
    type = Trim(type.substr(star + 1));
  }
  auto it = attr_types.find(type);
  if (it != attr_types.end()) {
    if (it->second == "list(type)") {
      arg->set_type_list_attr(type);
    } else if (it->second == "type") {
      arg->set_type_attr(type);
    } else {
      return InvalidArgument("arg type '" + type + "' names an attr of type " + it->second);
    }
    return OkStatus();
  }
  TFHOST_ASSIGN_OR_RETURN(auto t, ParseTypeName(type));
  arg->set_type(t);
  return OkStatus();
}

}  // namespace

StatusOr<tensorflow::OpDef> OpDefBuilder::Finalize() const {
  tensorflow::OpDef def;
  def.set_name(name_);
  def.set_is_stateful(stateful_);
  std::map<std::string, std::string> attr_types;
  for (const auto& spec : attrs_) {
    Status st = ParseAttr(spec, def.add_attr());
    if (!st.ok()) return st.WithContext("op schema " + name_ + ", attr '" + spec + "'");
    attr_types[def.attr(def.attr_size() - 1).name()] = def.attr(def.attr_size() - 1).type();
  }
  for (const auto& spec : inputs_) {
    Status st = ParseArg(spec, attr_types, def.add_input_arg());
    if (!st.ok()) return st.WithContext("op schema " + name_ + ", input '" + spec + "'");
  }
  for (const auto& spec : outputs_) {
    Status st = ParseArg(spec, attr_types, def.add_output_arg());
    if (!st.ok()) return st.WithContext("op schema " + name_ + ", output '" + spec + "'");
  }
  return def;
}

}  // namespace tfhost::ir
