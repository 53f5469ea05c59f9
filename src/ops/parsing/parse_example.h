// ParseExample, ParseExampleV2 and ParseSingleExample: turn a batch of
// serialized tf.train.Examples into dense, sparse and ragged tensors. These
// are what TF Serving's Classify/Regress signatures run first, and what
// `tf.io.parse_example` graphs contain.
//
// Semantics (TensorFlow's fast parsing path):
//   * dense feature i with dense_shapes[i] = S: each example must hold exactly
//     S.num_elements() values of dtype Tdense[i]; output [batch] + S. A missing
//     feature takes dense_defaults[i]; an empty default means "required".
//     S with a leading -1 is variable length: [batch, max_rows] + S[1:],
//     padded with the (scalar) default, or zero/"" when the default is empty.
//   * sparse feature: indices [N, 2] (example, position), values [N],
//     dense_shape [batch, max_count].
//   * ragged feature (V2 only): values [N] and row_splits [batch + 1].
//   * V2 and ParseSingleExample accept a scalar `serialized`; then the batch
//     dimension is dropped (sparse indices [N, 1], dense_shape [max_count]).
// Errors name the feature key and example index (and the example's name
// when `names` is given), in TensorFlow's wording where callers match on it.
#pragma once

#include "ops/op_registry.h"

namespace tfhost::ops {

void RegisterParseExampleOps(OpRegistry& registry);
// DecodeCSV (decode_csv.cc).
void RegisterDecodeCsvOp(OpRegistry& registry);
// DecodeRaw (decode_raw.cc).
void RegisterDecodeRawOp(OpRegistry& registry);

}  // namespace tfhost::ops
