// Bounds on the input tensors of one inference request, the same on every
// front end: REST :predict, gRPC Predict (and warm-up records), the KServe
// v2 REST (JSON and binary) and gRPC Infer, and the examples of classify,
// regress and MultiInference. tfhost serve sets them from
// --max_request_elements, --max_request_tensor_mb and
// --max_request_string_bytes (docs/serving.md, "Limits").
//
// A request is charged input by input into one RequestBudget. TensorProto
// inputs (gRPC, and REST bodies once parsed) are charged from their shape
// and string fields before any tensor is built, because a proto may promise
// more values than it carries (TensorFlow repeats the last one). The v2
// decoders never build more than the request's own bytes hold, so v2
// inputs are charged once decoded. A refusal is INVALID_ARGUMENT (HTTP 400:
// sending the same request again cannot succeed) naming the input, the
// limit and the flag that raises it.
//
// Thread-safety: a RequestBudget belongs to one request on one thread;
// RequestLimits is a plain value.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"
#include "base/tensor.h"
#include "tensorflow/core/framework/tensor.pb.h"

namespace tfhost::serving {

struct RequestLimits {
  // Values of all input tensors of one request together: 2^29, a 2 GiB
  // float32 tensor, what the largest gRPC message can carry.
  int64_t max_elements = int64_t{1} << 29;
  // Bytes of all input tensors together: numeric values at their dtype's
  // size, strings at their length (the per-value overhead is bounded by
  // max_elements). 2 GiB, the largest gRPC message.
  int64_t max_bytes = int64_t{2048} << 20;
  // Bytes of one string value (an encoded image, a serialized tf.Example).
  int64_t max_string_bytes = int64_t{256} << 20;
};

class RequestBudget {
 public:
  explicit RequestBudget(const RequestLimits& limits) : limits_(limits) {}

  // Input `input` of `elements` values of `dtype`, before anything is
  // allocated for it; numeric values count their bytes here, string values
  // through AddString.
  Status AddTensor(std::string_view input, DType dtype, uint64_t elements);
  // Value `index` of string input `input`, `length` bytes long.
  Status AddString(std::string_view input, uint64_t index, uint64_t length);
  // A TensorProto input, from its shape, dtype and string fields (a string
  // field shorter than the shape counts its last value repeated, as
  // TensorFlow fills it). Malformed protos pass for TensorFromProto to
  // report.
  Status AddTensorProto(std::string_view input, const tensorflow::TensorProto& proto);
  // A tensor already decoded.
  Status AddDecoded(std::string_view input, const Tensor& tensor);

  uint64_t elements() const { return elements_; }
  uint64_t bytes() const { return bytes_; }

 private:
  Status AddBytes(std::string_view input, uint64_t bytes);

  RequestLimits limits_;
  uint64_t elements_ = 0;
  uint64_t bytes_ = 0;
};

}  // namespace tfhost::serving
