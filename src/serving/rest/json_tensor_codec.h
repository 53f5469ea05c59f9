// TensorFlow Serving's REST JSON <-> request/response protos (docs/formats.md
// §1.11, REST API). Requests: row format `{"instances": [...]}` (a list over
// the batch of values, or of objects keyed by input alias) and columnar
// `{"inputs": value | {alias: value}}`; `{"b64": "..."}` for binary strings;
// NaN / Infinity / -Infinity; nested lists must be rectangular; leaf values
// are coerced to the signature input's dtype (ints into floats, never floats
// into ints). Classify / regress bodies (`signature_name`, `context`,
// `examples`) become tf.Example lists. Responses are written the way TF
// Serving writes them: `predictions` (row) or `outputs` (columnar); floats in
// shortest round-trip form with ".0" on whole numbers; strings that are not
// valid UTF-8, and outputs whose alias ends in "_bytes", as {"b64": ...}.
//
// Everything here is a pure function of its arguments; request text is
// untrusted: every malformed input yields InvalidArgument naming the
// position (e.g. "instances[1][0]") and what was expected.
#pragma once

#include <rapidjson/fwd.h>

#include <functional>
#include <map>
#include <string>
#include <string_view>

#include "base/base64.h"
#include "base/dtype.h"
#include "base/status.h"
#include "base/tensor.h"
#include "tensorflow/core/framework/tensor.pb.h"
#include "tensorflow_serving/apis/classification.pb.h"
#include "tensorflow_serving/apis/predict.pb.h"
#include "tensorflow_serving/apis/regression.pb.h"

namespace tfhost::serving {

enum class JsonPredictFormat { kRow, kColumnar };

// Input alias -> dtype of one signature.
using SignatureInputTypes = std::map<std::string, DType>;

// Looks up the inputs of a signature by name (the codec passes
// "serving_default" when the body names none). Errors pass through unchanged
// to the caller (e.g. InvalidArgument "... not found in signature def").
using SignatureInputsFn = std::function<Status(const std::string& signature_name, SignatureInputTypes* inputs)>;

// Deepest list nesting accepted in request values (TensorFlow allows 254
// dimensions; nobody sends more than a handful).
inline constexpr int kMaxJsonTensorRank = 64;

// Parses a :predict body into request->inputs (and model_spec.signature_name
// when the body names one); *format says which response shape to write.
Status FillPredictRequestFromJson(std::string_view json, const SignatureInputsFn& get_inputs,
                                  tensorflow::serving::PredictRequest* request, JsonPredictFormat* format);

// Writes {"predictions": ...} (row: every tensor must have the same size in
// dimension 0; several outputs make one object per batch element) or
// {"outputs": ...} (columnar: the value itself for one output, an object
// keyed by alias for several).
StatusOr<std::string> MakeJsonFromTensors(const google::protobuf::Map<std::string, tensorflow::TensorProto>& tensors,
                                          JsonPredictFormat format);
// Same, from tensors keyed by output alias.
StatusOr<std::string> MakeJsonFromTensorMap(const std::map<std::string, Tensor>& tensors, JsonPredictFormat format);

// Parses a :classify / :regress body into request->input (ExampleList, or
// ExampleListWithContext when "context" is present) and
// model_spec.signature_name. Feature values are a scalar or a flat list of
// numbers (all integers -> int64_list, else float_list), strings or
// {"b64": ...} (-> bytes_list).
Status FillClassificationRequestFromJson(std::string_view json, tensorflow::serving::ClassificationRequest* request);
Status FillRegressionRequestFromJson(std::string_view json, tensorflow::serving::RegressionRequest* request);

// {"results": [[[label, score], ...], ...]} and {"results": [value, ...]}.
std::string MakeJsonFromClassificationResult(const tensorflow::serving::ClassificationResult& result);
std::string MakeJsonFromRegressionResult(const tensorflow::serving::RegressionResult& result);

// {"error": "<message>"} with the message JSON-escaped.
std::string MakeJsonError(std::string_view message);

// ---- building blocks (exposed for the router and tests) ----

// Shortest text that reads back as the same float / double, with ".0"
// appended to whole numbers ("3.0", "0.1", "1e+20"); NaN, Infinity,
// -Infinity as the bare tokens TF Serving writes.
void AppendJsonFloat(float value, std::string* out);
void AppendJsonDouble(double value, std::string* out);
// A JSON string literal (with quotes) of `text`, which must be valid UTF-8.
void AppendJsonString(std::string_view text, std::string* out);
bool IsValidUtf8(std::string_view text);
// A {"b64": ...} value as TF Serving takes it: the standard alphabet,
// padding optional (base/base64.h); errors say "in 'b64' value".
StatusOr<std::string> DecodeB64Value(std::string_view text);
// TensorFlow's DataTypeString ("float", "int64", "string", ...), as error
// messages name dtypes.
const char* TfDataTypeName(DType dtype);

// ---- shared with the Open Inference Protocol's JSON (serving/v2) ----

// Parses a request body as :predict does (NaN / Infinity accepted, nesting
// parsed iteratively); INVALID_ARGUMENT "JSON Parse error: ... at offset: N"
// or "... not a JSON object".
Status ParseJsonObject(std::string_view json, rapidjson::Document* doc);
// Appends the leaves of `value` (one value, or lists nested to any depth,
// read row-major) to `proto`'s typed field for `dtype`, coerced and checked
// as :predict values are; *count gets the number appended. Errors name the
// position as `where` followed by list indices ("inputs[0].data[3]").
Status AppendJsonLeaves(const rapidjson::Value& value, DType dtype, const std::string& where,
                        tensorflow::TensorProto* proto, int64_t* count);
// `tensor`'s elements as one flat JSON list, written as :predict writes
// values (strings that are not UTF-8 as {"b64": ...}). False, writing
// nothing, for dtypes JSON cannot carry (complex, variant, ...).
bool AppendJsonFlatList(const Tensor& tensor, std::string* out);
// A short rendering of a JSON value, for error messages.
std::string JsonValueText(const rapidjson::Value& value);

}  // namespace tfhost::serving
