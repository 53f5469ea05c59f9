// The binary half of a TensorFlow.js graph model (docs/formats.md §5): weight
// shards concatenated into one byte stream, decoded weight by weight in
// manifest order, with uint8/uint16 affine dequantization and float16
// widening. Kept apart from model.json parsing so the byte-level rules can be
// tested on handmade buffers.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/tensor.h"

namespace tfhost::loaders::tfjs {

struct WeightQuantization {
  std::string dtype;  // "uint8", "uint16" or "float16"
  std::optional<double> scale;
  std::optional<double> min;
};

// One entry of weightsManifest[*].weights.
struct WeightSpec {
  std::string name;  // the Const node it fills
  std::vector<int64_t> shape;
  std::string dtype;  // float32, int32, bool, string, complex64
  std::optional<WeightQuantization> quantization;
};

// All shards of all groups, concatenated in manifest order.
struct WeightShards {
  std::string bytes;
  std::vector<std::string> paths;  // as written in the manifest
  std::vector<size_t> ends;        // cumulative end offset of each shard in `bytes`
  // The manifest path of the shard holding byte `offset` (the last shard for
  // offsets past the end).
  std::string ShardAt(size_t offset) const;
};

// Reads `paths` relative to `dir`. A missing or unreadable shard is an error
// naming it; absolute paths and paths with ".." are refused, so a model can
// only read files beside its model.json.
StatusOr<WeightShards> ReadWeightShards(const std::string& dir, const std::vector<std::string>& paths);

// Decodes one weight from the front of `data` and reports how many bytes it
// used. The result has the weight's logical dtype (float32 for quantized
// float weights, int32 for quantized int32 weights, rounded as TF.js does).
// Errors name the weight; a short buffer is OutOfRange.
StatusOr<Tensor> DecodeWeight(const WeightSpec& spec, std::string_view data, size_t* consumed);

// Decodes every weight in order; the specs must use the whole stream. A short
// stream names the weight and the shard it ran off; leftover bytes are an
// error too (the manifest does not describe the shards).
StatusOr<std::vector<Tensor>> DecodeWeights(const std::vector<WeightSpec>& specs, const WeightShards& shards);

// The same, handing each weight to `use(index, tensor)` as soon as it is
// decoded, so a loader can store it in its final place and drop it before
// the next is decoded (the decoded weights never all exist twice).
Status ForEachDecodedWeight(const std::vector<WeightSpec>& specs, const WeightShards& shards,
                            const std::function<Status(size_t, Tensor)>& use);

}  // namespace tfhost::loaders::tfjs
