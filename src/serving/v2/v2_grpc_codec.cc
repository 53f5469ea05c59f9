#include "serving/v2/v2_grpc_codec.h"

#include <type_traits>
#include <utility>

#include "serving/v2/v2_datatype.h"

namespace tfhost::serving::v2 {

namespace {

using inference::InferTensorContents;

StatusOr<Parameter> ParameterFromProto(const inference::InferParameter& p, const std::string& where) {
  switch (p.parameter_choice_case()) {
    case inference::InferParameter::kBoolParam: return Parameter(p.bool_param());
    case inference::InferParameter::kInt64Param: return Parameter(p.int64_param());
    case inference::InferParameter::kStringParam: return Parameter(p.string_param());
    case inference::InferParameter::kDoubleParam: return Parameter(p.double_param());
    case inference::InferParameter::kUint64Param: return Parameter(p.uint64_param());
    default: return InvalidArgument(where + ": the parameter has no value");
  }
}

Status ParametersFromProto(const google::protobuf::Map<std::string, inference::InferParameter>& in,
                           const std::string& where, Parameters* out) {
  for (const auto& [key, value] : in) {
    TFHOST_ASSIGN_OR_RETURN(Parameter p, ParameterFromProto(value, where + " parameter '" + key + "'"));
    (*out)[key] = std::move(p);
  }
  return OkStatus();
}

// Copies `count` typed values into a new tensor, checking that each fits T.
template <typename T, typename Repeated>
StatusOr<Tensor> FromTyped(const Repeated& values, const char* field, DType dtype, const std::vector<int64_t>& shape,
                           int64_t count, const std::string& what) {
  if (static_cast<int64_t>(values.size()) != count) {
    return InvalidArgument(what + ": shape " + ShapeText(shape) + " needs " + std::to_string(count) + " values but " +
                           field + " holds " + std::to_string(values.size()));
  }
  Tensor t = Tensor::Uninitialized(dtype, Shape(shape));
  T* out = t.data<T>();
  for (int64_t i = 0; i < count; ++i) {
    auto v = values.Get(static_cast<int>(i));
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      if (!std::in_range<T>(v)) {
        return InvalidArgument(what + ": " + field + "[" + std::to_string(i) + "] = " + std::to_string(v) +
                               " is out of range for " + DatatypeForMessage(dtype));
      }
    }
    out[i] = static_cast<T>(v);
  }
  return t;
}

StatusOr<Tensor> FromContents(const InferTensorContents& c, DType dtype, const std::vector<int64_t>& shape,
                              const std::string& what) {
  TFHOST_ASSIGN_OR_RETURN(int64_t count, ElementCount(shape, what));
  switch (dtype) {
    case DType::kBool: return FromTyped<bool>(c.bool_contents(), "bool_contents", dtype, shape, count, what);
    case DType::kInt8: return FromTyped<int8_t>(c.int_contents(), "int_contents", dtype, shape, count, what);
    case DType::kInt16: return FromTyped<int16_t>(c.int_contents(), "int_contents", dtype, shape, count, what);
    case DType::kInt32: return FromTyped<int32_t>(c.int_contents(), "int_contents", dtype, shape, count, what);
    case DType::kInt64: return FromTyped<int64_t>(c.int64_contents(), "int64_contents", dtype, shape, count, what);
    case DType::kUInt8: return FromTyped<uint8_t>(c.uint_contents(), "uint_contents", dtype, shape, count, what);
    case DType::kUInt16: return FromTyped<uint16_t>(c.uint_contents(), "uint_contents", dtype, shape, count, what);
    case DType::kUInt32: return FromTyped<uint32_t>(c.uint_contents(), "uint_contents", dtype, shape, count, what);
    case DType::kUInt64: return FromTyped<uint64_t>(c.uint64_contents(), "uint64_contents", dtype, shape, count, what);
    case DType::kFloat: return FromTyped<float>(c.fp32_contents(), "fp32_contents", dtype, shape, count, what);
    case DType::kDouble: return FromTyped<double>(c.fp64_contents(), "fp64_contents", dtype, shape, count, what);
    case DType::kString: {
      if (c.bytes_contents_size() != count) {
        return InvalidArgument(what + ": shape " + ShapeText(shape) + " needs " + std::to_string(count) +
                               " values but bytes_contents holds " + std::to_string(c.bytes_contents_size()));
      }
      Tensor t(DType::kString, Shape(shape));
      for (int64_t i = 0; i < count; ++i) t.strings()[i] = c.bytes_contents(static_cast<int>(i));
      return t;
    }
    default:
      return InvalidArgument(what + ": datatype " + DatatypeForMessage(dtype) +
                             " has no typed contents field; send it in raw_input_contents");
  }
}

}  // namespace

StatusOr<InferRequest> InferRequestFromProto(const inference::ModelInferRequest& proto) {
  InferRequest request;
  request.model_name = proto.model_name();
  request.model_version = proto.model_version();
  request.id = proto.id();
  TFHOST_RETURN_IF_ERROR(ParametersFromProto(proto.parameters(), "request", &request.parameters));
  const bool raw = proto.raw_input_contents_size() > 0;
  if (raw && proto.raw_input_contents_size() != proto.inputs_size()) {
    return InvalidArgument("raw_input_contents has " + std::to_string(proto.raw_input_contents_size()) +
                           " entries but the request has " + std::to_string(proto.inputs_size()) +
                           " inputs (expected one entry per input, in input order)");
  }
  for (int i = 0; i < proto.inputs_size(); ++i) {
    const auto& in = proto.inputs(i);
    const std::string what = "input '" + in.name() + "'";
    std::optional<DType> dtype = DatatypeFromName(in.datatype());
    if (!dtype) {
      return InvalidArgument(what + ": unknown datatype \"" + in.datatype() + "\" (expected one of " +
                             AllDatatypeNames() + ")");
    }
    std::vector<int64_t> shape(in.shape().begin(), in.shape().end());
    InferInput input;
    input.name = in.name();
    if (raw) {
      if (in.has_contents()) {
        return InvalidArgument(what + ": has both contents and raw_input_contents (expected one)");
      }
      TFHOST_ASSIGN_OR_RETURN(input.tensor, TensorFromBinary(proto.raw_input_contents(i), *dtype, shape, what));
    } else {
      TFHOST_ASSIGN_OR_RETURN(input.tensor, FromContents(in.contents(), *dtype, shape, what));
    }
    request.inputs.push_back(std::move(input));
  }
  for (const auto& out : proto.outputs()) {
    if (out.parameters().count("classification")) {
      return InvalidArgument("output '" + out.name() +
                             "': the classification extension is not supported; request the output tensor itself");
    }
    request.outputs.push_back({out.name(), true});
  }
  return request;
}

void InferResponseToProto(const InferResponse& response, inference::ModelInferResponse* proto) {
  proto->Clear();
  proto->set_model_name(response.model_name);
  proto->set_model_version(response.model_version);
  proto->set_id(response.id);
  for (const InferOutput& o : response.outputs) {
    auto* out = proto->add_outputs();
    out->set_name(o.name);
    out->set_datatype(DatatypeForMessage(o.tensor.dtype()));
    for (int64_t d : o.tensor.shape().dims()) out->add_shape(d);
    std::string* raw = proto->add_raw_output_contents();
    raw->reserve(BinaryByteSize(o.tensor));
    AppendBinary(o.tensor, raw);
  }
}

void ModelMetadataToProto(const ModelMetadata& m, inference::ModelMetadataResponse* proto) {
  proto->Clear();
  proto->set_name(m.name);
  for (const auto& v : m.versions) proto->add_versions(v);
  proto->set_platform(m.platform);
  auto fill = [](const TensorMetadata& t, inference::ModelMetadataResponse::TensorMetadata* out) {
    out->set_name(t.name);
    out->set_datatype(t.datatype);
    for (int64_t d : t.shape) out->add_shape(d);
  };
  for (const auto& t : m.inputs) fill(t, proto->add_inputs());
  for (const auto& t : m.outputs) fill(t, proto->add_outputs());
}

}  // namespace tfhost::serving::v2
