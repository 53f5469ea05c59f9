#include "serving/v2/v2_json.h"

#include <rapidjson/document.h>

#include "ir/tensor_proto.h"
#include "serving/rest/json_tensor_codec.h"
#include "serving/v2/v2_datatype.h"

namespace tfhost::serving::v2 {

namespace {

using rapidjson::Value;

constexpr char kBinaryDataSize[] = "binary_data_size";
constexpr char kBinaryData[] = "binary_data";
constexpr char kBinaryDataOutput[] = "binary_data_output";

StatusOr<Parameter> ParameterFromJson(const Value& v, const std::string& where) {
  if (v.IsBool()) return Parameter(v.GetBool());
  if (v.IsInt64()) return Parameter(v.GetInt64());
  if (v.IsUint64()) return Parameter(v.GetUint64());
  if (v.IsNumber()) return Parameter(v.GetDouble());
  if (v.IsString()) return Parameter(std::string(v.GetString(), v.GetStringLength()));
  return InvalidArgument(where + ": expected a boolean, number or string but got " + JsonValueText(v));
}

Status ReadParameters(const Value& object, const std::string& where, Parameters* out) {
  auto it = object.FindMember("parameters");
  if (it == object.MemberEnd()) return OkStatus();
  if (!it->value.IsObject()) {
    return InvalidArgument(where + ".parameters: expected an object but got " + JsonValueText(it->value));
  }
  for (const auto& m : it->value.GetObject()) {
    std::string key(m.name.GetString(), m.name.GetStringLength());
    TFHOST_ASSIGN_OR_RETURN(Parameter p, ParameterFromJson(m.value, where + ".parameters." + key));
    (*out)[key] = std::move(p);
  }
  return OkStatus();
}

StatusOr<std::string> RequiredString(const Value& object, const char* key, const std::string& where) {
  auto it = object.FindMember(key);
  if (it == object.MemberEnd()) return InvalidArgument(where + ": missing \"" + key + "\"");
  if (!it->value.IsString()) {
    return InvalidArgument(where + "." + key + ": expected a string but got " + JsonValueText(it->value));
  }
  return std::string(it->value.GetString(), it->value.GetStringLength());
}

StatusOr<bool> BoolParameter(const Parameters& params, const char* key, const std::string& where) {
  auto it = params.find(key);
  if (it == params.end()) return false;
  if (const bool* b = std::get_if<bool>(&it->second)) return *b;
  return InvalidArgument(where + ".parameters." + key + ": expected true or false");
}

StatusOr<std::vector<int64_t>> ReadShape(const Value& input, const std::string& where) {
  auto it = input.FindMember("shape");
  if (it == input.MemberEnd()) return InvalidArgument(where + ": missing \"shape\"");
  if (!it->value.IsArray()) {
    return InvalidArgument(where + ".shape: expected a list of dimensions but got " + JsonValueText(it->value));
  }
  std::vector<int64_t> shape;
  for (const Value& d : it->value.GetArray()) {
    if (!d.IsInt64() || d.GetInt64() < 0) {
      return InvalidArgument(where + ".shape: expected sizes >= 0 but got " + JsonValueText(d));
    }
    shape.push_back(d.GetInt64());
  }
  return shape;
}

// One input: JSON "data", or `binary_data_size` bytes from `*binary`.
StatusOr<InferInput> ReadInput(const Value& input, const std::string& where, std::string_view* binary,
                               bool binary_allowed) {
  if (!input.IsObject()) return InvalidArgument(where + ": expected an object but got " + JsonValueText(input));
  InferInput out;
  TFHOST_ASSIGN_OR_RETURN(out.name, RequiredString(input, "name", where));
  const std::string what = "input '" + out.name + "'";
  TFHOST_ASSIGN_OR_RETURN(std::string datatype, RequiredString(input, "datatype", where));
  std::optional<DType> dtype = DatatypeFromName(datatype);
  if (!dtype) {
    return InvalidArgument(what + ": unknown datatype \"" + datatype + "\" (expected one of " + AllDatatypeNames() +
                           ")");
  }
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ReadShape(input, where));
  TFHOST_ASSIGN_OR_RETURN(int64_t count, ElementCount(shape, what));
  Parameters params;
  TFHOST_RETURN_IF_ERROR(ReadParameters(input, where, &params));
  auto size_param = params.find(kBinaryDataSize);
  auto data = input.FindMember("data");
  if (size_param != params.end()) {
    if (data != input.MemberEnd()) {
      return InvalidArgument(what + ": has both \"data\" and a binary_data_size parameter (expected one)");
    }
    if (!binary_allowed) {
      return InvalidArgument(what + ": binary_data_size is set but the request has no Inference-Header-Content-Length "
                                    "header saying where its JSON ends and binary data begins");
    }
    uint64_t size = 0;
    if (const auto* i = std::get_if<int64_t>(&size_param->second); i && *i >= 0) {
      size = static_cast<uint64_t>(*i);
    } else if (const auto* u = std::get_if<uint64_t>(&size_param->second)) {
      size = *u;
    } else {
      return InvalidArgument(what + ": binary_data_size must be a byte count >= 0");
    }
    if (size > binary->size()) {
      return InvalidArgument(what + ": binary_data_size is " + std::to_string(size) + " bytes but only " +
                             std::to_string(binary->size()) +
                             " bytes of binary data remain in the body (truncated request?)");
    }
    TFHOST_ASSIGN_OR_RETURN(out.tensor, TensorFromBinary(binary->substr(0, size), *dtype, shape, what));
    binary->remove_prefix(size);
    return out;
  }
  if (data == input.MemberEnd()) {
    return InvalidArgument(what + ": has neither \"data\" nor a binary_data_size parameter");
  }
  tensorflow::TensorProto proto;
  int64_t given = 0;
  TFHOST_RETURN_IF_ERROR(AppendJsonLeaves(data->value, *dtype, where + ".data", &proto, &given));
  if (given != count) {
    return InvalidArgument(what + ": shape " + ShapeText(shape) + " needs " + std::to_string(count) +
                           " values but \"data\" holds " + std::to_string(given));
  }
  proto.set_dtype(static_cast<tensorflow::DataType>(*dtype));
  for (int64_t d : shape) proto.mutable_tensor_shape()->add_dim()->set_size(d);
  auto tensor = ir::TensorFromProto(proto);
  if (!tensor.ok()) return tensor.status().WithContext(what);
  out.tensor = std::move(*tensor);
  return out;
}

StatusOr<RequestedOutput> ReadOutput(const Value& output, const std::string& where) {
  if (!output.IsObject()) return InvalidArgument(where + ": expected an object but got " + JsonValueText(output));
  RequestedOutput out;
  TFHOST_ASSIGN_OR_RETURN(out.name, RequiredString(output, "name", where));
  Parameters params;
  TFHOST_RETURN_IF_ERROR(ReadParameters(output, where, &params));
  if (params.count("classification")) {
    return InvalidArgument("output '" + out.name +
                           "': the classification extension is not supported; request the output tensor itself");
  }
  TFHOST_ASSIGN_OR_RETURN(out.binary, BoolParameter(params, kBinaryData, where));
  return out;
}

void AppendTensorMetadata(const std::vector<TensorMetadata>& tensors, std::string* out) {
  out->push_back('[');
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (i > 0) out->append(", ");
    out->append("{\"name\": ");
    AppendJsonString(tensors[i].name, out);
    out->append(", \"datatype\": ");
    AppendJsonString(tensors[i].datatype, out);
    out->append(", \"shape\": " + ShapeText(tensors[i].shape) + "}");
  }
  out->push_back(']');
}

void AppendStringList(const std::vector<std::string>& items, std::string* out) {
  out->push_back('[');
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out->append(", ");
    AppendJsonString(items[i], out);
  }
  out->push_back(']');
}

}  // namespace

StatusOr<InferRequest> ParseInferRequest(std::string_view body, std::optional<size_t> json_length,
                                         const std::string& model_name, const std::string& model_version) {
  std::string_view json = body;
  std::string_view binary;
  if (json_length) {
    if (*json_length > body.size()) {
      return InvalidArgument("Inference-Header-Content-Length is " + std::to_string(*json_length) +
                             " bytes but the request body holds only " + std::to_string(body.size()));
    }
    json = body.substr(0, *json_length);
    binary = body.substr(*json_length);
  }
  rapidjson::Document doc;
  TFHOST_RETURN_IF_ERROR(ParseJsonObject(json, &doc));
  InferRequest request;
  request.model_name = model_name;
  request.model_version = model_version;
  if (auto id = doc.FindMember("id"); id != doc.MemberEnd()) {
    if (!id->value.IsString()) return InvalidArgument("id: expected a string but got " + JsonValueText(id->value));
    request.id.assign(id->value.GetString(), id->value.GetStringLength());
  }
  TFHOST_RETURN_IF_ERROR(ReadParameters(doc, "request", &request.parameters));
  TFHOST_ASSIGN_OR_RETURN(request.binary_outputs, BoolParameter(request.parameters, kBinaryDataOutput, "request"));
  auto inputs = doc.FindMember("inputs");
  if (inputs == doc.MemberEnd() || !inputs->value.IsArray()) {
    return InvalidArgument("the request needs \"inputs\": a list of {\"name\", \"shape\", \"datatype\", \"data\"}");
  }
  for (rapidjson::SizeType i = 0; i < inputs->value.Size(); ++i) {
    TFHOST_ASSIGN_OR_RETURN(InferInput input, ReadInput(inputs->value[i], "inputs[" + std::to_string(i) + "]",
                                                        &binary, json_length.has_value()));
    request.inputs.push_back(std::move(input));
  }
  if (!binary.empty()) {
    return InvalidArgument(std::to_string(binary.size()) +
                           " bytes of binary data follow the JSON but no input's binary_data_size claims them "
                           "(binary_data_size must add up to the body's length minus Inference-Header-Content-Length)");
  }
  if (auto outputs = doc.FindMember("outputs"); outputs != doc.MemberEnd()) {
    if (!outputs->value.IsArray()) {
      return InvalidArgument("outputs: expected a list of {\"name\"} but got " + JsonValueText(outputs->value));
    }
    for (rapidjson::SizeType i = 0; i < outputs->value.Size(); ++i) {
      TFHOST_ASSIGN_OR_RETURN(RequestedOutput out,
                              ReadOutput(outputs->value[i], "outputs[" + std::to_string(i) + "]"));
      request.outputs.push_back(std::move(out));
    }
  }
  return request;
}

StatusOr<Parameters> ParseRepositoryParameters(std::string_view body) {
  Parameters params;
  if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) return params;
  rapidjson::Document doc;
  TFHOST_RETURN_IF_ERROR(ParseJsonObject(body, &doc));
  TFHOST_RETURN_IF_ERROR(ReadParameters(doc, "request", &params));
  return params;
}

StatusOr<bool> ParseRepositoryIndexReady(std::string_view body) {
  if (body.find_first_not_of(" \t\r\n") == std::string_view::npos) return false;
  rapidjson::Document doc;
  TFHOST_RETURN_IF_ERROR(ParseJsonObject(body, &doc));
  auto ready = doc.FindMember("ready");
  if (ready == doc.MemberEnd()) return false;
  if (!ready->value.IsBool()) return InvalidArgument("ready: expected true or false but got " + JsonValueText(ready->value));
  return ready->value.GetBool();
}

EncodedResponse WriteInferResponse(const InferResponse& response) {
  EncodedResponse out;
  std::string& json = out.body;
  json = "{\"model_name\": ";
  AppendJsonString(response.model_name, &json);
  json += ", \"model_version\": ";
  AppendJsonString(response.model_version, &json);
  if (!response.id.empty()) {
    json += ", \"id\": ";
    AppendJsonString(response.id, &json);
  }
  json += ", \"outputs\": [";
  bool any_binary = false;
  for (size_t i = 0; i < response.outputs.size(); ++i) {
    const InferOutput& o = response.outputs[i];
    if (i > 0) json += ", ";
    json += "{\"name\": ";
    AppendJsonString(o.name, &json);
    json += ", \"datatype\": \"" + DatatypeForMessage(o.tensor.dtype()) + "\", \"shape\": " +
            ShapeText(o.tensor.shape().dims());
    if (o.binary) {
      any_binary = true;
      json += ", \"parameters\": {\"binary_data_size\": " + std::to_string(BinaryByteSize(o.tensor)) + "}}";
    } else {
      json += ", \"data\": ";
      AppendJsonFlatList(o.tensor, &json);
      json += "}";
    }
  }
  json += "]}";
  if (any_binary) {
    out.json_length = json.size();
    for (const InferOutput& o : response.outputs) {
      if (o.binary) AppendBinary(o.tensor, &json);
    }
  }
  return out;
}

std::string WriteServerMetadata(const ServerMetadata& m) {
  std::string out = "{\"name\": ";
  AppendJsonString(m.name, &out);
  out += ", \"version\": ";
  AppendJsonString(m.version, &out);
  out += ", \"extensions\": ";
  AppendStringList(m.extensions, &out);
  return out + "}";
}

std::string WriteModelMetadata(const ModelMetadata& m) {
  std::string out = "{\"name\": ";
  AppendJsonString(m.name, &out);
  out += ", \"versions\": ";
  AppendStringList(m.versions, &out);
  out += ", \"platform\": ";
  AppendJsonString(m.platform, &out);
  out += ", \"inputs\": ";
  AppendTensorMetadata(m.inputs, &out);
  out += ", \"outputs\": ";
  AppendTensorMetadata(m.outputs, &out);
  return out + "}";
}

namespace {

void AppendTensorConfig(const std::vector<TensorMetadata>& tensors, std::string* out) {
  out->push_back('[');
  for (size_t i = 0; i < tensors.size(); ++i) {
    if (i > 0) out->append(", ");
    out->append("{\"name\": ");
    AppendJsonString(tensors[i].name, out);
    // Triton's DataType names: TYPE_ + the protocol's datatype, but BYTES is TYPE_STRING.
    out->append(", \"data_type\": ");
    AppendJsonString(tensors[i].datatype == "BYTES" ? "TYPE_STRING" : "TYPE_" + tensors[i].datatype, out);
    out->append(", \"dims\": " + ShapeText(tensors[i].shape) + "}");
  }
  out->push_back(']');
}

}  // namespace

std::string WriteModelConfig(const ModelMetadata& m) {
  std::string out = "{\"name\": ";
  AppendJsonString(m.name, &out);
  out += ", \"platform\": ";
  AppendJsonString(m.platform, &out);
  out += ", \"max_batch_size\": 0, \"input\": ";
  AppendTensorConfig(m.inputs, &out);
  out += ", \"output\": ";
  AppendTensorConfig(m.outputs, &out);
  return out + "}";
}

}  // namespace tfhost::serving::v2
