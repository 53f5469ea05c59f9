#include "ir/attrs.h"

#include "ir/tensor_proto.h"

namespace tfhost::ir {

using tensorflow::AttrValue;

std::string NodeContext(const Node& node) {
  return "node '" + node.name + "' (" + node.op + ")";
}

namespace {

Status Mismatch(const Node& node, const std::string& key, const char* expected,
                const AttrValue& value) {
  return InvalidArgument(NodeContext(node) + ": attr '" + key + "' must be " + expected +
                         ", got " + value.ShortDebugString());
}

const AttrValue* Find(const Node& node, const std::string& key, Status* status) {
  const AttrValue* v = node.FindAttr(key);
  if (v == nullptr) *status = InvalidArgument(NodeContext(node) + ": missing required attr '" + key + "'");
  return v;
}

}  // namespace

#define TFHOST_ATTR_SCALAR(TYPE, CASE, EXPECTED, EXPR)                    \
  template <>                                                             \
  StatusOr<TYPE> GetAttr<TYPE>(const Node& node, const std::string& key) { \
    Status st;                                                            \
    const AttrValue* v = Find(node, key, &st);                            \
    if (!v) return st;                                                    \
    if (v->value_case() != AttrValue::CASE) return Mismatch(node, key, EXPECTED, *v); \
    return EXPR;                                                          \
  }

TFHOST_ATTR_SCALAR(int64_t, kI, "an int", v->i())
TFHOST_ATTR_SCALAR(int, kI, "an int", static_cast<int>(v->i()))
TFHOST_ATTR_SCALAR(float, kF, "a float", v->f())
TFHOST_ATTR_SCALAR(bool, kB, "a bool", v->b())
TFHOST_ATTR_SCALAR(std::string, kS, "a string", v->s())
TFHOST_ATTR_SCALAR(DType, kType, "a type", BaseType(v->type()))
TFHOST_ATTR_SCALAR(PartialShape, kShape, "a shape", PartialShape::FromProto(v->shape()))
TFHOST_ATTR_SCALAR(tensorflow::NameAttrList, kFunc, "a function", v->func())
#undef TFHOST_ATTR_SCALAR

template <>
StatusOr<Tensor> GetAttr<Tensor>(const Node& node, const std::string& key) {
  if (key == "value" && node.constant.valid()) return node.constant;
  Status st;
  const AttrValue* v = Find(node, key, &st);
  if (!v) return st;
  if (v->value_case() != AttrValue::kTensor) return Mismatch(node, key, "a tensor", *v);
  auto t = TensorFromProto(v->tensor());
  if (!t.ok()) return t.status().WithContext(NodeContext(node) + ": attr '" + key + "'");
  return t;
}

// A list attr may be written as `list {}` or, by some writers, be absent from
// the oneof entirely when empty; both mean an empty list.
#define TFHOST_ATTR_LIST(TYPE, FIELD, EXPECTED, CONVERT)                          \
  template <>                                                                     \
  StatusOr<std::vector<TYPE>> GetAttr<std::vector<TYPE>>(const Node& node,        \
                                                         const std::string& key) { \
    Status st;                                                                    \
    const AttrValue* v = Find(node, key, &st);                                    \
    if (!v) return st;                                                            \
    if (v->value_case() != AttrValue::kList && v->value_case() != AttrValue::VALUE_NOT_SET) \
      return Mismatch(node, key, EXPECTED, *v);                                   \
    std::vector<TYPE> out;                                                        \
    for (const auto& x : v->list().FIELD()) out.push_back(CONVERT);               \
    return out;                                                                   \
  }

TFHOST_ATTR_LIST(int64_t, i, "a list of ints", x)
TFHOST_ATTR_LIST(int, i, "a list of ints", static_cast<int>(x))
TFHOST_ATTR_LIST(float, f, "a list of floats", x)
TFHOST_ATTR_LIST(std::string, s, "a list of strings", x)
TFHOST_ATTR_LIST(DType, type, "a list of types", BaseType(x))
TFHOST_ATTR_LIST(PartialShape, shape, "a list of shapes", PartialShape::FromProto(x))
#undef TFHOST_ATTR_LIST

}  // namespace tfhost::ir
