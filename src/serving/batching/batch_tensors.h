// Tensor plumbing for dynamic batching: what may share a batch, joining
// requests' inputs along dim 0 (with TF Serving's two kinds of padding), and
// cutting the batched outputs back into per-request pieces.
//
// Padding follows TF Serving: rows added to reach an allowed batch size are
// copies of the batch's first row; with pad_variable_length_inputs, dims other
// than 0 are grown to the batch maximum and filled with the first element of
// the request's own tensor.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "base/tensor.h"

namespace tfhost::serving::batching {

using TensorMap = std::map<std::string, Tensor>;

// Rows of a request: the shared dim 0 of its inputs. Errors when there is no
// input, an input is a scalar, or two inputs disagree on dim 0.
StatusOr<int64_t> TaskRows(const TensorMap& inputs);

// Requests with equal keys can be concatenated: same input names and dtypes,
// and the same dims after dim 0 (only the same ranks when
// `pad_variable_length` is on).
std::string BatchCompatibilityKey(const TensorMap& inputs, bool pad_variable_length);

// Rows [begin, end) of one request's inputs.
struct RowSlice {
  const TensorMap* inputs;
  int64_t begin;
  int64_t end;
};

// Concatenates the slices along dim 0 and pads the result to `padded_rows`
// rows (>= total rows) by repeating the first row. All slices must have equal
// compatibility keys. `padded_rows` must not exceed what the caller bounded.
StatusOr<TensorMap> ConcatenateBatch(const std::vector<RowSlice>& slices, int64_t padded_rows,
                                     bool pad_variable_length);

// Rows [begin, end) of a tensor of rank >= 1 (deep copy).
Tensor SliceRows(const Tensor& tensor, int64_t begin, int64_t end);

// Joins tensors with equal dtype and inner dims along dim 0.
StatusOr<Tensor> ConcatRows(const std::vector<Tensor>& parts, const std::string& what);

// Checks that every output has rank >= 1 and dim 0 == batch_rows; the error
// names the output and says why batching needs it.
Status CheckBatchedOutputs(const TensorMap& outputs, int64_t batch_rows);

}  // namespace tfhost::serving::batching
