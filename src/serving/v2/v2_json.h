// The Open Inference Protocol's REST bodies: an inference request (JSON, or
// a JSON header followed by binary tensor data) into an InferRequest, and
// InferResponse, metadata and errors into JSON (plus binary output data).
//
// Request JSON: {"id"?, "parameters"?, "inputs": [{"name", "shape",
// "datatype", "parameters"?, "data"}], "outputs"?: [{"name",
// "parameters"?}]}. "data" is flat or nested lists (row-major; its element
// count must equal the shape's), values coerced as :predict coerces them
// (BYTES: strings, or {"b64": ...}). The binary tensor data extension: with
// the Inference-Header-Content-Length header the JSON is the body's first
// that many bytes; an input with parameter "binary_data_size" takes its
// bytes from what follows, in input order, and they must be used up exactly.
// Outputs go out in binary form when their "binary_data" parameter is true,
// or, with no "outputs" list, when the request parameter
// "binary_data_output" is true; JSON "data" is a flat list.
//
// Request text is untrusted: every malformed part is INVALID_ARGUMENT naming
// the field ("inputs[1].shape") and what was expected.
//
// Thread-safety: pure functions.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "serving/v2/v2_service.h"

namespace tfhost::serving::v2 {

// `json_length`: the Inference-Header-Content-Length value, when sent.
// `model_name` and `model_version` come from the path.
StatusOr<InferRequest> ParseInferRequest(std::string_view body, std::optional<size_t> json_length,
                                         const std::string& model_name, const std::string& model_version);

// The parameters of a repository load/unload body ({"parameters": {...}});
// an empty body has none.
StatusOr<Parameters> ParseRepositoryParameters(std::string_view body);
// The "ready" flag of a repository index body ({"ready": true}); false when
// the body is empty.
StatusOr<bool> ParseRepositoryIndexReady(std::string_view body);

struct EncodedResponse {
  std::string body;
  // Set when binary output data follows the JSON: the JSON's length (the
  // Inference-Header-Content-Length response header).
  std::optional<size_t> json_length;
};
EncodedResponse WriteInferResponse(const InferResponse& response);

std::string WriteServerMetadata(const ServerMetadata& metadata);
std::string WriteModelMetadata(const ModelMetadata& metadata);
// Triton's model configuration (GET /v2/models/{name}/config), which
// Triton's clients and perf_analyzer read before they infer: the metadata's
// tensors as `input`/`output` (data_type TYPE_FP32 ..., dims), platform, and
// max_batch_size 0 (shapes are given whole, the batch dimension included).
std::string WriteModelConfig(const ModelMetadata& metadata);

}  // namespace tfhost::serving::v2
