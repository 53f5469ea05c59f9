#include "ir/attr_constraints.h"

#include <algorithm>
#include <string>

#include "ir/attrs.h"

namespace tfhost::ir {

namespace {

std::string TypeList(const google::protobuf::RepeatedField<int>& types) {
  std::string out;
  for (int t : types) out += (out.empty() ? "" : ", ") + DTypeName(static_cast<DType>(t));
  return out;
}

std::string StringList(const google::protobuf::RepeatedPtrField<std::string>& values) {
  std::string out;
  for (const auto& s : values) out += (out.empty() ? "'" : ", '") + s + "'";
  return out;
}

Status CheckType(const Node& node, const std::string& attr, int type, const tensorflow::AttrValue::ListValue& allowed) {
  if (allowed.type().empty() || std::find(allowed.type().begin(), allowed.type().end(), type) != allowed.type().end()) {
    return OkStatus();
  }
  return InvalidArgument(NodeContext(node) + ": attr '" + attr + "' is " + DTypeName(static_cast<DType>(type)) +
                         ", which is not one of its allowed types (" + TypeList(allowed.type()) + ")");
}

}  // namespace

Status CheckAttrConstraints(const tensorflow::OpDef& def, const Node& node) {
  for (const auto& attr_def : def.attr()) {
    const tensorflow::AttrValue* value = node.FindAttr(attr_def.name());
    if (value == nullptr) continue;
    const std::string& kind = attr_def.type();
    const std::string& name = attr_def.name();
    const auto& allowed = attr_def.allowed_values().list();
    if (kind == "type") {
      if (value->value_case() != tensorflow::AttrValue::kType) {
        return InvalidArgument(NodeContext(node) + ": attr '" + name + "' must hold a type");
      }
      TFHOST_RETURN_IF_ERROR(CheckType(node, name, value->type(), allowed));
    } else if (kind == "list(type)") {
      for (int t : value->list().type()) TFHOST_RETURN_IF_ERROR(CheckType(node, name, t, allowed));
    } else if (kind == "string" && !allowed.s().empty()) {
      if (std::find(allowed.s().begin(), allowed.s().end(), value->s()) == allowed.s().end()) {
        return InvalidArgument(NodeContext(node) + ": attr '" + name + "' is '" + value->s() +
                               "', which is not one of its allowed values (" + StringList(allowed.s()) + ")");
      }
    } else if (kind == "int") {
      if (value->value_case() != tensorflow::AttrValue::kI) {
        return InvalidArgument(NodeContext(node) + ": attr '" + name + "' must hold an int");
      }
      if (attr_def.has_minimum() && value->i() < attr_def.minimum()) {
        return InvalidArgument(NodeContext(node) + ": attr '" + name + "' is " + std::to_string(value->i()) +
                               ", below its minimum " + std::to_string(attr_def.minimum()));
      }
    }
    if (kind.rfind("list(", 0) == 0 && attr_def.has_minimum()) {
      const auto& list = value->list();
      const int64_t length = std::max({list.s_size(), list.i_size(), list.f_size(), list.b_size(), list.type_size(),
                                       list.shape_size(), list.tensor_size(), list.func_size()});
      if (length < attr_def.minimum()) {
        return InvalidArgument(NodeContext(node) + ": attr '" + name + "' has " + std::to_string(length) +
                               " values, fewer than its minimum " + std::to_string(attr_def.minimum()));
      }
    }
  }
  return OkStatus();
}

}  // namespace tfhost::ir
