// Turns `tfhost run --input` values into tensors: a .npy file, `@FILE` (the
// file's bytes as a string scalar) or a JSON literal (nested lists of
// numbers, strings or booleans). Also formats tensors for the terminal.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "base/tensor.h"

namespace tfhost::cli {

struct InputFlag {
  enum class Kind { kNpyFile, kFileBytes, kJson };
  std::string key;    // signature input key or tensor name ("x", "x:0")
  Kind kind = Kind::kJson;
  std::string value;  // file path (without '@') or JSON text
};

// Splits "KEY=VALUE" at the first '='. VALUE starting with '@' is a file
// whose bytes are fed; VALUE ending in ".npy" is a NumPy file; anything else
// is a JSON literal.
StatusOr<InputFlag> ParseInputFlag(const std::string& flag);

// Reads the tensor an InputFlag describes. `dtype` is the dtype the model
// expects (kInvalid when unknown): JSON values are converted to it (with range
// checks for integers); .npy and @FILE values are returned as stored.
StatusOr<Tensor> LoadInput(const InputFlag& input, DType dtype);

// Parses a JSON literal into a tensor. Nested lists give the shape and must
// be rectangular. Leaves are numbers, strings, booleans, or {"b64": "..."}
// objects (base64 bytes, as in TF Serving's REST API). With `dtype` kInvalid
// the type follows the content: all booleans -> bool, strings -> string,
// integers only -> int64, else float32. `where` names the input in errors.
StatusOr<Tensor> TensorFromJson(std::string_view json, DType dtype, const std::string& where);

// "float32[2,3] [[0.1, 0.2, ...], ...]": a one-line summary with at most
// `max_values` values, for printing outputs.
std::string SummarizeTensor(const Tensor& tensor, int max_values = 10);

}  // namespace tfhost::cli
