#include "serving/rest/json_tensor_codec.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <charconv>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "base/tensor.h"
#include "ir/tensor_proto.h"

namespace tfhost::serving {

namespace {

using rapidjson::Value;
using tensorflow::TensorProto;

constexpr char kDefaultSignature[] = "serving_default";
// rapidjson's recursive parser could overflow the stack on "[[[[...": parse
// iteratively; NaN/Infinity literals are part of TF Serving's dialect.
constexpr unsigned kParseFlags = rapidjson::kParseIterativeFlag | rapidjson::kParseNanAndInfFlag;

// ---------------------------------------------------------------- parsing

// A document for one request body whose first values live in a buffer inside
// it (on the caller's stack): rapidjson's default pool starts with a 64 KiB
// heap chunk, and freeing a chunk that large makes glibc consolidate its
// fast bins, on every request. Larger bodies still get heap chunks.
class RequestDocument {
 public:
  RequestDocument() = default;
  RequestDocument(const RequestDocument&) = delete;
  RequestDocument& operator=(const RequestDocument&) = delete;
  rapidjson::Document* get() { return &doc_; }
  rapidjson::Document& operator*() { return doc_; }
  rapidjson::Document* operator->() { return &doc_; }

 private:
  static constexpr size_t kChunkBytes = 16 * 1024;
  alignas(std::max_align_t) char buffer_[4096];
  rapidjson::MemoryPoolAllocator<> pool_{buffer_, sizeof(buffer_), kChunkBytes};
  rapidjson::Document doc_{&pool_};
};

Status ParseJson(std::string_view json, rapidjson::Document* doc) {
  doc->Parse<kParseFlags>(json.data(), json.size());
  if (doc->HasParseError()) {
    return InvalidArgument(std::string("JSON Parse error: ") + rapidjson::GetParseError_En(doc->GetParseError()) +
                           " at offset: " + std::to_string(doc->GetErrorOffset()));
  }
  if (!doc->IsObject()) return InvalidArgument("JSON Value: the request body is not a JSON object");
  return OkStatus();
}

// A short rendering of a JSON value for error messages.
std::string JsonValueToString(const Value& v) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer, rapidjson::UTF8<>, rapidjson::UTF8<>, rapidjson::CrtAllocator,
                    rapidjson::kWriteNanAndInfFlag>
      writer(buffer);
  v.Accept(writer);
  std::string s(buffer.GetString(), buffer.GetSize());
  if (s.size() > 80) s = s.substr(0, 77) + "...";
  return s;
}

bool IsB64Object(const Value& v) {
  return v.IsObject() && v.MemberCount() == 1 && v.MemberBegin()->name == "b64";
}

// Where a value sits in the request, rendered only when an error needs it:
// root ("instances"), optional batch index, optional input alias, then list
// indices.
struct JsonPath {
  const char* root = "";
  int64_t instance = -1;
  const std::string* alias = nullptr;
  std::vector<int64_t> indices;

  std::string ToString() const {
    std::string s = root;
    if (instance >= 0) s += "[" + std::to_string(instance) + "]";
    if (alias != nullptr) s += "." + *alias;
    for (int64_t i : indices) s += "[" + std::to_string(i) + "]";
    return s;
  }
};

// Dims of a nested list, following first elements ([[1,2],[3,4]] -> {2,2});
// a {"b64": ...} object is a leaf.
Status InferDims(const Value& v, const JsonPath& path, std::vector<int64_t>* dims) {
  dims->clear();
  const Value* cur = &v;
  while (cur->IsArray()) {
    if (static_cast<int>(dims->size()) >= kMaxJsonTensorRank) {
      return InvalidArgument("lists nested deeper than " + std::to_string(kMaxJsonTensorRank) + " levels at " +
                             path.ToString());
    }
    dims->push_back(cur->Size());
    if (cur->Size() == 0) break;
    cur = &(*cur)[0];
  }
  return OkStatus();
}

Status TypeError(const Value& v, DType dtype, const JsonPath& path) {
  return InvalidArgument("JSON Value: " + JsonValueToString(v) + " not of expected type: " + TfDataTypeName(dtype) +
                         " (at " + path.ToString() + ")");
}

Status RangeError(const Value& v, DType dtype, const JsonPath& path) {
  return InvalidArgument("JSON Value: " + JsonValueToString(v) + " is out of range for type: " +
                         TfDataTypeName(dtype) + " (at " + path.ToString() + ")");
}

template <typename T>
bool IntInRange(const Value& v, int64_t* out) {
  if (!v.IsInt64()) return false;
  int64_t x = v.GetInt64();
  if (x < static_cast<int64_t>(std::numeric_limits<T>::min()) ||
      x > static_cast<int64_t>(std::numeric_limits<T>::max())) {
    return false;
  }
  *out = x;
  return true;
}

// Appends one leaf to `proto`'s typed field for `dtype`.
Status AppendLeaf(const Value& v, DType dtype, const JsonPath& path, TensorProto* proto) {
  auto integer = [&](auto tag, auto add) -> Status {
    using T = decltype(tag);
    if (!v.IsNumber() || v.IsDouble()) return TypeError(v, dtype, path);
    int64_t x = 0;
    if (!IntInRange<T>(v, &x)) return RangeError(v, dtype, path);
    add(x);
    return OkStatus();
  };
  switch (dtype) {
    case DType::kFloat: {
      if (!v.IsNumber()) return TypeError(v, dtype, path);
      double d = v.GetDouble();
      if (std::isfinite(d) && std::fabs(d) > std::numeric_limits<float>::max()) return RangeError(v, dtype, path);
      proto->add_float_val(static_cast<float>(d));
      return OkStatus();
    }
    case DType::kDouble:
      if (!v.IsNumber()) return TypeError(v, dtype, path);
      proto->add_double_val(v.GetDouble());
      return OkStatus();
    case DType::kHalf:
    case DType::kBFloat16: {
      if (!v.IsNumber()) return TypeError(v, dtype, path);
      float f = static_cast<float>(v.GetDouble());
      proto->add_half_val(dtype == DType::kHalf ? FloatToHalf(f) : FloatToBFloat16(f));
      return OkStatus();
    }
    case DType::kInt32:
      return integer(int32_t{}, [&](int64_t x) { proto->add_int_val(static_cast<int32_t>(x)); });
    case DType::kInt16:
      return integer(int16_t{}, [&](int64_t x) { proto->add_int_val(static_cast<int32_t>(x)); });
    case DType::kInt8:
      return integer(int8_t{}, [&](int64_t x) { proto->add_int_val(static_cast<int32_t>(x)); });
    case DType::kUInt8:
      return integer(uint8_t{}, [&](int64_t x) { proto->add_int_val(static_cast<int32_t>(x)); });
    case DType::kUInt16:
      return integer(uint16_t{}, [&](int64_t x) { proto->add_int_val(static_cast<int32_t>(x)); });
    case DType::kUInt32:
      return integer(uint32_t{}, [&](int64_t x) { proto->add_uint32_val(static_cast<uint32_t>(x)); });
    case DType::kInt64:
      if (!v.IsNumber() || v.IsDouble()) return TypeError(v, dtype, path);
      if (!v.IsInt64()) return RangeError(v, dtype, path);
      proto->add_int64_val(v.GetInt64());
      return OkStatus();
    case DType::kUInt64:
      if (!v.IsNumber() || v.IsDouble()) return TypeError(v, dtype, path);
      if (!v.IsUint64()) return RangeError(v, dtype, path);
      proto->add_uint64_val(v.GetUint64());
      return OkStatus();
    case DType::kBool:
      if (!v.IsBool()) return TypeError(v, dtype, path);
      proto->add_bool_val(v.GetBool());
      return OkStatus();
    case DType::kString:
      if (v.IsString()) {
        proto->add_string_val(v.GetString(), v.GetStringLength());
        return OkStatus();
      }
      if (IsB64Object(v)) {
        const Value& text = v.MemberBegin()->value;
        if (!text.IsString()) {
          return InvalidArgument("'b64' value must be a string (at " + path.ToString() + ")");
        }
        auto bytes = DecodeB64Value(std::string_view(text.GetString(), text.GetStringLength()));
        if (!bytes.ok()) return bytes.status().WithContext("at " + path.ToString());
        proto->add_string_val(std::move(*bytes));
        return OkStatus();
      }
      return TypeError(v, dtype, path);
    default:
      return InvalidArgument(std::string("the REST API cannot carry values of type ") + TfDataTypeName(dtype) +
                             " (at " + path.ToString() + "); use gRPC");
  }
}

// Appends every leaf of `v` (row-major), checking that it has exactly `dims`
// from `level` on: ragged lists and lists where values belong are errors
// naming the position.
Status AppendValues(const Value& v, const std::vector<int64_t>& dims, size_t level, DType dtype, JsonPath* path,
                    TensorProto* proto) {
  if (level == dims.size()) {
    if (v.IsArray()) {
      return InvalidArgument("expected a value but got a list at " + path->ToString() +
                             " (nested lists must be rectangular: the first element has " +
                             std::to_string(dims.size()) + " list level(s) here)");
    }
    return AppendLeaf(v, dtype, *path, proto);
  }
  if (!v.IsArray()) {
    return InvalidArgument("expected a list of " + std::to_string(dims[level]) + " values but got " +
                           JsonValueToString(v) + " at " + path->ToString() +
                           " (nested lists must be rectangular)");
  }
  if (static_cast<int64_t>(v.Size()) != dims[level]) {
    return InvalidArgument("ragged list at " + path->ToString() + ": expected " + std::to_string(dims[level]) +
                           " values (as the first element at this level has) but got " + std::to_string(v.Size()));
  }
  path->indices.push_back(0);
  for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
    path->indices.back() = i;
    TFHOST_RETURN_IF_ERROR(AppendValues(v[i], dims, level + 1, dtype, path, proto));
  }
  path->indices.pop_back();
  return OkStatus();
}

void SetShape(const std::vector<int64_t>& dims, TensorProto* proto) {
  auto* shape = proto->mutable_tensor_shape();
  for (int64_t d : dims) shape->add_dim()->set_size(d);
}

std::string InputList(const SignatureInputTypes& inputs) {
  std::string s;
  for (const auto& [alias, dtype] : inputs) s += (s.empty() ? "" : ", ") + alias;
  return s.empty() ? "none" : s;
}

StatusOr<DType> InputType(const SignatureInputTypes& inputs, const std::string& alias,
                          const std::string& signature) {
  auto it = inputs.find(alias);
  if (it == inputs.end()) {
    return InvalidArgument("input '" + alias + "' is not an input of signature '" + signature +
                           "' (its inputs: " + InputList(inputs) + ")");
  }
  return it->second;
}

StatusOr<std::string> SingleInput(const SignatureInputTypes& inputs, const std::string& signature,
                                  const char* format_key) {
  if (inputs.size() != 1) {
    return InvalidArgument(std::string("'") + format_key + "' holds bare values, but signature '" + signature +
                           "' has " + std::to_string(inputs.size()) + " inputs (" + InputList(inputs) +
                           "); send objects keyed by input name");
  }
  return inputs.begin()->first;
}

Status FillRowFormat(const Value& instances, const SignatureInputTypes& inputs, const std::string& signature,
                     tensorflow::serving::PredictRequest* request) {
  if (!instances.IsArray()) return InvalidArgument("'instances' must be a list, got " + JsonValueToString(instances));
  if (instances.Empty()) return InvalidArgument("'instances' is an empty list; send at least one instance");
  const int64_t batch = instances.Size();
  const Value& first = instances[0];
  JsonPath path;
  path.root = "instances";
  std::vector<int64_t> dims;
  if (first.IsObject() && !IsB64Object(first)) {
    // One object per batch element, keyed by input alias; every element must
    // name the same inputs.
    for (auto m = first.MemberBegin(); m != first.MemberEnd(); ++m) {
      std::string alias(m->name.GetString(), m->name.GetStringLength());
      TFHOST_ASSIGN_OR_RETURN(DType dtype, InputType(inputs, alias, signature));
      TensorProto& proto = (*request->mutable_inputs())[alias];
      proto.Clear();
      proto.set_dtype(static_cast<tensorflow::DataType>(dtype));
      path.alias = &alias;
      path.instance = 0;
      TFHOST_RETURN_IF_ERROR(InferDims(m->value, path, &dims));
      for (int64_t i = 0; i < batch; ++i) {
        const Value& item = instances[static_cast<rapidjson::SizeType>(i)];
        path.instance = i;
        path.indices.clear();
        if (!item.IsObject() || IsB64Object(item)) {
          return InvalidArgument("instances[" + std::to_string(i) +
                                 "] is not an object, but instances[0] is: every instance must be an object "
                                 "keyed by input name");
        }
        if (item.MemberCount() != first.MemberCount()) {
          return InvalidArgument("instances[" + std::to_string(i) + "] has " + std::to_string(item.MemberCount()) +
                                 " inputs but instances[0] has " + std::to_string(first.MemberCount()) +
                                 ": every instance must name the same inputs");
        }
        auto found = item.FindMember(m->name);
        if (found == item.MemberEnd()) {
          return InvalidArgument("instances[" + std::to_string(i) + "] lacks input '" + alias +
                                 "' that instances[0] has: every instance must name the same inputs");
        }
        TFHOST_RETURN_IF_ERROR(AppendValues(found->value, dims, 0, dtype, &path, &proto));
      }
      std::vector<int64_t> full = {batch};
      full.insert(full.end(), dims.begin(), dims.end());
      SetShape(full, &proto);
    }
    return OkStatus();
  }
  TFHOST_ASSIGN_OR_RETURN(std::string alias, SingleInput(inputs, signature, "instances"));
  DType dtype = inputs.begin()->second;
  TensorProto& proto = (*request->mutable_inputs())[alias];
  proto.Clear();
  proto.set_dtype(static_cast<tensorflow::DataType>(dtype));
  path.instance = 0;
  TFHOST_RETURN_IF_ERROR(InferDims(first, path, &dims));
  for (int64_t i = 0; i < batch; ++i) {
    const Value& item = instances[static_cast<rapidjson::SizeType>(i)];
    path.instance = i;
    path.indices.clear();
    if (item.IsObject() && !IsB64Object(item)) {
      return InvalidArgument("instances[" + std::to_string(i) +
                             "] is an object but instances[0] is not: instances must be all values or all "
                             "objects");
    }
    TFHOST_RETURN_IF_ERROR(AppendValues(item, dims, 0, dtype, &path, &proto));
  }
  std::vector<int64_t> full = {batch};
  full.insert(full.end(), dims.begin(), dims.end());
  SetShape(full, &proto);
  return OkStatus();
}

Status FillOneColumn(const Value& value, const std::string& alias, DType dtype, JsonPath* path,
                     tensorflow::serving::PredictRequest* request) {
  TensorProto& proto = (*request->mutable_inputs())[alias];
  proto.Clear();
  proto.set_dtype(static_cast<tensorflow::DataType>(dtype));
  std::vector<int64_t> dims;
  TFHOST_RETURN_IF_ERROR(InferDims(value, *path, &dims));
  TFHOST_RETURN_IF_ERROR(AppendValues(value, dims, 0, dtype, path, &proto));
  SetShape(dims, &proto);
  return OkStatus();
}

Status FillColumnarFormat(const Value& value, const SignatureInputTypes& inputs, const std::string& signature,
                          tensorflow::serving::PredictRequest* request) {
  JsonPath path;
  path.root = "inputs";
  if (value.IsObject() && !IsB64Object(value)) {
    if (value.MemberCount() == 0) return InvalidArgument("'inputs' is an empty object; name at least one input");
    for (auto m = value.MemberBegin(); m != value.MemberEnd(); ++m) {
      std::string alias(m->name.GetString(), m->name.GetStringLength());
      TFHOST_ASSIGN_OR_RETURN(DType dtype, InputType(inputs, alias, signature));
      path.alias = &alias;
      TFHOST_RETURN_IF_ERROR(FillOneColumn(m->value, alias, dtype, &path, request));
    }
    return OkStatus();
  }
  TFHOST_ASSIGN_OR_RETURN(std::string alias, SingleInput(inputs, signature, "inputs"));
  return FillOneColumn(value, alias, inputs.begin()->second, &path, request);
}

// Reads the optional "signature_name" string.
Status ReadSignatureName(const rapidjson::Document& doc, std::string* name) {
  auto it = doc.FindMember("signature_name");
  if (it == doc.MemberEnd()) return OkStatus();
  if (!it->value.IsString()) return InvalidArgument("'signature_name' key must be a string value.");
  name->assign(it->value.GetString(), it->value.GetStringLength());
  return OkStatus();
}

// ---- tf.Example from {"feature": value | [values]} ----

Status FillFeature(const Value& v, const std::string& where, tensorflow::Feature* feature) {
  const Value* items = &v;
  Value single;  // a scalar is a one-element list
  rapidjson::MemoryPoolAllocator<> alloc;
  if (!v.IsArray()) {
    single.SetArray();
    single.PushBack(Value(v, alloc), alloc);
    items = &single;
  }
  bool any_double = false, any_number = false, any_bytes = false;
  for (const Value& item : items->GetArray()) {
    if (item.IsNumber()) {
      any_number = true;
      if (item.IsDouble() || !item.IsInt64()) any_double = true;
    } else if (item.IsString() || IsB64Object(item)) {
      any_bytes = true;
    } else {
      return InvalidArgument("feature value " + JsonValueToString(item) + " at " + where +
                             " is not a number, a string or {\"b64\": ...} (feature values are a value or a flat "
                             "list of values)");
    }
  }
  if (any_number && any_bytes) {
    return InvalidArgument("feature at " + where + " mixes numbers and strings; a feature holds one type");
  }
  if (any_bytes) {
    auto* list = feature->mutable_bytes_list();
    for (const Value& item : items->GetArray()) {
      if (item.IsString()) {
        list->add_value(item.GetString(), item.GetStringLength());
      } else {
        const Value& text = item.MemberBegin()->value;
        if (!text.IsString()) return InvalidArgument("'b64' value must be a string (at " + where + ")");
        auto bytes = DecodeB64Value(std::string_view(text.GetString(), text.GetStringLength()));
        if (!bytes.ok()) return bytes.status().WithContext("at " + where);
        list->add_value(std::move(*bytes));
      }
    }
  } else if (any_double) {
    auto* list = feature->mutable_float_list();
    for (const Value& item : items->GetArray()) list->add_value(static_cast<float>(item.GetDouble()));
  } else if (any_number) {
    auto* list = feature->mutable_int64_list();
    for (const Value& item : items->GetArray()) list->add_value(item.GetInt64());
  }
  // An empty list leaves the feature without a kind, as an empty tf.Example
  // feature is.
  return OkStatus();
}

Status FillExample(const Value& v, const std::string& where, tensorflow::Example* example) {
  if (!v.IsObject() || IsB64Object(v)) {
    return InvalidArgument(where + " must be an object of feature name to value, got " + JsonValueToString(v));
  }
  auto* features = example->mutable_features()->mutable_feature();
  for (auto m = v.MemberBegin(); m != v.MemberEnd(); ++m) {
    std::string name(m->name.GetString(), m->name.GetStringLength());
    TFHOST_RETURN_IF_ERROR(FillFeature(m->value, where + "." + name, &(*features)[name]));
  }
  return OkStatus();
}

Status FillInputFromJson(std::string_view json, tensorflow::serving::ModelSpec* spec,
                         tensorflow::serving::Input* input) {
  RequestDocument request_doc;
  rapidjson::Document& doc = *request_doc;
  TFHOST_RETURN_IF_ERROR(ParseJson(json, &doc));
  std::string signature;
  TFHOST_RETURN_IF_ERROR(ReadSignatureName(doc, &signature));
  if (doc.HasMember("signature_name")) spec->set_signature_name(signature);
  auto examples = doc.FindMember("examples");
  if (examples == doc.MemberEnd()) return InvalidArgument("Missing 'examples' key in the request body");
  if (!examples->value.IsArray()) {
    return InvalidArgument("'examples' must be a list of objects, got " + JsonValueToString(examples->value));
  }
  if (examples->value.Empty()) return InvalidArgument("'examples' is an empty list; send at least one example");
  auto context = doc.FindMember("context");
  google::protobuf::RepeatedPtrField<tensorflow::Example>* out;
  if (context != doc.MemberEnd()) {
    auto* with_context = input->mutable_example_list_with_context();
    TFHOST_RETURN_IF_ERROR(FillExample(context->value, "context", with_context->mutable_context()));
    out = with_context->mutable_examples();
  } else {
    out = input->mutable_example_list()->mutable_examples();
  }
  int64_t i = 0;
  for (const Value& example : examples->value.GetArray()) {
    TFHOST_RETURN_IF_ERROR(FillExample(example, "examples[" + std::to_string(i++) + "]", out->Add()));
  }
  return OkStatus();
}

// ---------------------------------------------------------------- writing

template <typename T>
void AppendShortest(T value, std::string* out) {
  if (std::isnan(value)) {
    out->append("NaN");
    return;
  }
  if (std::isinf(value)) {
    out->append(value > 0 ? "Infinity" : "-Infinity");
    return;
  }
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value);
  (void)ec;  // 64 bytes always suffice for the shortest form
  bool whole = true;
  for (const char* p = buf; p < end; ++p) {
    if (*p != '-' && (*p < '0' || *p > '9')) {
      whole = false;
      break;
    }
  }
  out->append(buf, end);
  if (whole) out->append(".0");
}

template <typename T>
void AppendInteger(T value, std::string* out) {
  char buf[32];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value);
  (void)ec;
  out->append(buf, end);
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

void AppendB64Object(std::string_view bytes, std::string* out) {
  out->append("{\"b64\": \"");
  out->append(Base64Encode(bytes));  // base/base64.h
  out->append("\"}");
}

// Strings go out as text when they are UTF-8 (so JSON can carry them) and
// the alias does not ask for bytes; otherwise base64.
void AppendStringValue(std::string_view s, bool as_bytes, std::string* out) {
  if (as_bytes || !IsValidUtf8(s)) {
    AppendB64Object(s, out);
  } else {
    AppendJsonString(s, out);
  }
}

void AppendElement(const Tensor& t, int64_t index, bool as_bytes, std::string* out) {
  switch (t.dtype()) {
    case DType::kFloat: AppendJsonFloat(t.data<float>()[index], out); break;
    case DType::kDouble: AppendJsonDouble(t.data<double>()[index], out); break;
    case DType::kHalf: AppendJsonFloat(HalfToFloat(t.data<uint16_t>()[index]), out); break;
    case DType::kBFloat16: AppendJsonFloat(BFloat16ToFloat(t.data<uint16_t>()[index]), out); break;
    case DType::kInt32: AppendInteger(t.data<int32_t>()[index], out); break;
    case DType::kInt16: AppendInteger(t.data<int16_t>()[index], out); break;
    case DType::kInt8: AppendInteger(static_cast<int>(t.data<int8_t>()[index]), out); break;
    case DType::kUInt8: AppendInteger(static_cast<unsigned>(t.data<uint8_t>()[index]), out); break;
    case DType::kUInt16: AppendInteger(t.data<uint16_t>()[index], out); break;
    case DType::kUInt32: AppendInteger(t.data<uint32_t>()[index], out); break;
    case DType::kInt64: AppendInteger(t.data<int64_t>()[index], out); break;
    case DType::kUInt64: AppendInteger(t.data<uint64_t>()[index], out); break;
    case DType::kBool: out->append(t.data<bool>()[index] ? "true" : "false"); break;
    case DType::kString: AppendStringValue(t.strings()[index], as_bytes, out); break;
    default: out->append("null"); break;  // rejected by CheckWritable before writing
  }
}

// Writes the sub-tensor that starts at flat element `offset` and spans
// dimensions [level, rank) as nested lists.
void AppendNested(const Tensor& t, int level, int64_t offset, bool as_bytes, std::string* out) {
  if (level == t.rank()) {
    AppendElement(t, offset, as_bytes, out);
    return;
  }
  int64_t stride = 1;
  for (int d = level + 1; d < t.rank(); ++d) stride *= t.dim(d);
  out->push_back('[');
  for (int64_t i = 0; i < t.dim(level); ++i) {
    if (i > 0) out->push_back(',');
    AppendNested(t, level + 1, offset + i * stride, as_bytes, out);
  }
  out->push_back(']');
}

Status CheckWritable(const std::string& alias, const Tensor& t) {
  switch (t.dtype()) {
    case DType::kFloat: case DType::kDouble: case DType::kHalf: case DType::kBFloat16: case DType::kInt32:
    case DType::kInt16: case DType::kInt8: case DType::kUInt8: case DType::kUInt16: case DType::kUInt32:
    case DType::kInt64: case DType::kUInt64: case DType::kBool: case DType::kString:
      return OkStatus();
    default:
      return InvalidArgument("output '" + alias + "' has type " + TfDataTypeName(t.dtype()) +
                             ", which the REST API cannot carry; use gRPC");
  }
}

}  // namespace

// ---------------------------------------------------------------- public

Status FillPredictRequestFromJson(std::string_view json, const SignatureInputsFn& get_inputs,
                                  tensorflow::serving::PredictRequest* request, JsonPredictFormat* format) {
  RequestDocument request_doc;
  rapidjson::Document& doc = *request_doc;
  TFHOST_RETURN_IF_ERROR(ParseJson(json, &doc));
  std::string signature;
  TFHOST_RETURN_IF_ERROR(ReadSignatureName(doc, &signature));
  if (doc.HasMember("signature_name")) request->mutable_model_spec()->set_signature_name(signature);
  if (signature.empty()) signature = kDefaultSignature;
  auto instances = doc.FindMember("instances");
  auto inputs = doc.FindMember("inputs");
  bool has_instances = instances != doc.MemberEnd();
  bool has_inputs = inputs != doc.MemberEnd();
  if (has_instances && has_inputs) {
    return InvalidArgument("Not formatted correctly expecting only one of 'inputs' or 'instances' keys exists");
  }
  if (!has_instances && !has_inputs) return InvalidArgument("Missing 'inputs' or 'instances' key");
  SignatureInputTypes types;
  TFHOST_RETURN_IF_ERROR(get_inputs(signature, &types));
  if (has_instances) {
    *format = JsonPredictFormat::kRow;
    return FillRowFormat(instances->value, types, signature, request);
  }
  *format = JsonPredictFormat::kColumnar;
  return FillColumnarFormat(inputs->value, types, signature, request);
}

StatusOr<std::string> MakeJsonFromTensors(const google::protobuf::Map<std::string, tensorflow::TensorProto>& tensors,
                                          JsonPredictFormat format) {
  // Sorted by alias so that responses are deterministic.
  std::map<std::string, Tensor> sorted;
  for (const auto& [alias, proto] : tensors) {
    auto t = ir::TensorFromProto(proto);
    if (!t.ok()) return t.status().WithContext("output '" + alias + "'");
    sorted.emplace(alias, std::move(*t));
  }
  return MakeJsonFromTensorMap(sorted, format);
}

StatusOr<std::string> MakeJsonFromTensorMap(const std::map<std::string, Tensor>& sorted, JsonPredictFormat format) {
  if (sorted.empty()) return Internal("the model returned no output tensors");
  for (const auto& [alias, t] : sorted) TFHOST_RETURN_IF_ERROR(CheckWritable(alias, t));
  std::string out;
  out.reserve(64);
  if (format == JsonPredictFormat::kColumnar) {
    out.append("{\"outputs\": ");
    if (sorted.size() == 1) {
      const auto& [alias, t] = *sorted.begin();
      AppendNested(t, 0, 0, EndsWith(alias, "_bytes"), &out);
    } else {
      out.push_back('{');
      bool first = true;
      for (const auto& [alias, t] : sorted) {
        if (!first) out.push_back(',');
        first = false;
        AppendJsonString(alias, &out);
        out.append(": ");
        AppendNested(t, 0, 0, EndsWith(alias, "_bytes"), &out);
      }
      out.push_back('}');
    }
    out.push_back('}');
    return out;
  }
  // Row format: split every output along dimension 0.
  int64_t batch = -1;
  for (const auto& [alias, t] : sorted) {
    if (t.rank() == 0) {
      return InvalidArgument("Tensor name: " + alias +
                             " has no shape information (a scalar output cannot be split into instances; use the "
                             "columnar 'inputs' format)");
    }
    if (batch < 0) {
      batch = t.dim(0);
    } else if (t.dim(0) != batch) {
      return InvalidArgument("Tensor name: " + alias + " has inconsistent batch size: " + std::to_string(t.dim(0)) +
                             " expecting: " + std::to_string(batch));
    }
  }
  out.append("{\"predictions\": [");
  for (int64_t i = 0; i < batch; ++i) {
    if (i > 0) out.push_back(',');
    if (sorted.size() == 1) {
      const auto& [alias, t] = *sorted.begin();
      AppendNested(t, 1, i * (t.NumElements() / batch), EndsWith(alias, "_bytes"), &out);
      continue;
    }
    out.push_back('{');
    bool first = true;
    for (const auto& [alias, t] : sorted) {
      if (!first) out.push_back(',');
      first = false;
      AppendJsonString(alias, &out);
      out.append(": ");
      AppendNested(t, 1, i * (t.NumElements() / batch), EndsWith(alias, "_bytes"), &out);
    }
    out.push_back('}');
  }
  out.append("]}");
  return out;
}

Status FillClassificationRequestFromJson(std::string_view json, tensorflow::serving::ClassificationRequest* request) {
  return FillInputFromJson(json, request->mutable_model_spec(), request->mutable_input());
}

Status FillRegressionRequestFromJson(std::string_view json, tensorflow::serving::RegressionRequest* request) {
  return FillInputFromJson(json, request->mutable_model_spec(), request->mutable_input());
}

std::string MakeJsonFromClassificationResult(const tensorflow::serving::ClassificationResult& result) {
  std::string out = "{\"results\": [";
  for (int i = 0; i < result.classifications_size(); ++i) {
    if (i > 0) out.push_back(',');
    out.push_back('[');
    const auto& classes = result.classifications(i).classes();
    for (int c = 0; c < classes.size(); ++c) {
      if (c > 0) out.push_back(',');
      out.push_back('[');
      AppendStringValue(classes[c].label(), false, &out);
      out.push_back(',');
      AppendJsonFloat(classes[c].score(), &out);
      out.push_back(']');
    }
    out.push_back(']');
  }
  out.append("]}");
  return out;
}

std::string MakeJsonFromRegressionResult(const tensorflow::serving::RegressionResult& result) {
  std::string out = "{\"results\": [";
  for (int i = 0; i < result.regressions_size(); ++i) {
    if (i > 0) out.push_back(',');
    AppendJsonFloat(result.regressions(i).value(), &out);
  }
  out.append("]}");
  return out;
}

std::string MakeJsonError(std::string_view message) {
  std::string out = "{\"error\": ";
  if (IsValidUtf8(message)) {
    AppendJsonString(message, &out);
  } else {
    // Messages can quote request bytes; keep the body valid JSON regardless.
    std::string cleaned;
    for (unsigned char c : message) cleaned.push_back(c < 0x80 ? static_cast<char>(c) : '?');
    AppendJsonString(cleaned, &out);
  }
  out.push_back('}');
  return out;
}

void AppendJsonFloat(float value, std::string* out) { AppendShortest(value, out); }
void AppendJsonDouble(double value, std::string* out) { AppendShortest(value, out); }

void AppendJsonString(std::string_view text, std::string* out) {
  static constexpr char kHex[] = "0123456789abcdef";
  out->push_back('"');
  for (char ch : text) {
    unsigned char c = static_cast<unsigned char>(ch);
    switch (c) {
      case '"': out->append("\\\""); break;
      case '\\': out->append("\\\\"); break;
      case '\n': out->append("\\n"); break;
      case '\r': out->append("\\r"); break;
      case '\t': out->append("\\t"); break;
      case '\b': out->append("\\b"); break;
      case '\f': out->append("\\f"); break;
      default:
        if (c < 0x20) {
          out->append("\\u00");
          out->push_back(kHex[c >> 4]);
          out->push_back(kHex[c & 15]);
        } else {
          out->push_back(ch);
        }
    }
  }
  out->push_back('"');
}

bool IsValidUtf8(std::string_view text) {
  size_t i = 0, n = text.size();
  while (i < n) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    int len;
    uint32_t cp;
    if ((c & 0xE0) == 0xC0) {
      len = 2;
      cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
      len = 3;
      cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
      len = 4;
      cp = c & 0x07;
    } else {
      return false;
    }
    if (i + len > n) return false;
    for (int k = 1; k < len; ++k) {
      unsigned char cc = static_cast<unsigned char>(text[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    // Overlong forms, surrogates and code points past U+10FFFF are invalid.
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
        (cp >= 0xD800 && cp <= 0xDFFF)) {
      return false;
    }
    i += len;
  }
  return true;
}

StatusOr<std::string> DecodeB64Value(std::string_view text) {
  auto bytes = Base64Decode(text, {Base64Alphabet::kStandard, /*padding=*/false});
  if (!bytes.ok()) return InvalidArgument(bytes.status().message() + " in 'b64' value");
  return bytes;
}

Status ParseJsonObject(std::string_view json, rapidjson::Document* doc) { return ParseJson(json, doc); }

namespace {

Status AppendLeavesAt(const Value& v, DType dtype, JsonPath* path, TensorProto* proto, int64_t* count) {
  if (!v.IsArray()) {
    ++*count;
    return AppendLeaf(v, dtype, *path, proto);
  }
  if (static_cast<int>(path->indices.size()) >= kMaxJsonTensorRank) {
    return InvalidArgument("lists nested deeper than " + std::to_string(kMaxJsonTensorRank) + " levels at " +
                           path->ToString());
  }
  path->indices.push_back(0);
  for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
    path->indices.back() = i;
    TFHOST_RETURN_IF_ERROR(AppendLeavesAt(v[i], dtype, path, proto, count));
  }
  path->indices.pop_back();
  return OkStatus();
}

}  // namespace

Status AppendJsonLeaves(const rapidjson::Value& value, DType dtype, const std::string& where, TensorProto* proto,
                        int64_t* count) {
  JsonPath path;
  path.root = where.c_str();
  *count = 0;
  return AppendLeavesAt(value, dtype, &path, proto, count);
}

bool AppendJsonFlatList(const Tensor& tensor, std::string* out) {
  if (!CheckWritable("", tensor).ok()) return false;
  out->push_back('[');
  for (int64_t i = 0; i < tensor.NumElements(); ++i) {
    if (i > 0) out->push_back(',');
    AppendElement(tensor, i, /*as_bytes=*/false, out);
  }
  out->push_back(']');
  return true;
}

std::string JsonValueText(const rapidjson::Value& value) { return JsonValueToString(value); }

const char* TfDataTypeName(DType dtype) {
  switch (dtype) {
    case DType::kFloat: return "float";
    case DType::kDouble: return "double";
    case DType::kInt32: return "int32";
    case DType::kUInt8: return "uint8";
    case DType::kInt16: return "int16";
    case DType::kInt8: return "int8";
    case DType::kString: return "string";
    case DType::kComplex64: return "complex64";
    case DType::kInt64: return "int64";
    case DType::kBool: return "bool";
    case DType::kQInt8: return "qint8";
    case DType::kQUInt8: return "quint8";
    case DType::kQInt32: return "qint32";
    case DType::kBFloat16: return "bfloat16";
    case DType::kQInt16: return "qint16";
    case DType::kQUInt16: return "quint16";
    case DType::kUInt16: return "uint16";
    case DType::kComplex128: return "complex128";
    case DType::kHalf: return "half";
    case DType::kResource: return "resource";
    case DType::kVariant: return "variant";
    case DType::kUInt32: return "uint32";
    case DType::kUInt64: return "uint64";
    default: return "invalid";
  }
}

}  // namespace tfhost::serving
