// Batch prediction: turning input records into a signature's input tensors,
// and a batch's output tensors back into one tf.train.Example per record.
//
// Two ways to feed a signature:
//   * kSerializedExamples: the signature takes serialized tf.Example strings
//     and parses them itself (TF Serving's classify/regress signatures, or a
//     predict signature whose one DT_STRING input is called "inputs",
//     "examples", ... and holds ParseExample inside). Records go in as they
//     are: a [batch] string tensor.
//   * kFeatures: each signature input is filled from the record's feature of
//     the same name (the input's key, else its tensor's name without ":0"),
//     converted to the input's dtype and reshaped to its shape without the
//     batch dimension: a float feature of 64 values feeds x: float32
//     [?,8,8,1] as one [8,8,1] row.
// Errors name the file, the record, the feature and what the input expects.
//
// Outputs: every output tensor must have the batch as its first dimension;
// row i becomes feature <output key> of record i's Example (floating types
// -> FloatList, integers and bool -> Int64List, strings -> BytesList).
//
// Thread-safety: a Feeder is immutable after Create and may be used from many
// threads at once.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "base/tensor.h"
#include "data/example.h"
#include "ir/partial_shape.h"

namespace tfhost::data::predict {

// What batch prediction needs to know of a signature (the runtime's
// Signature, without depending on the runtime).
struct TensorInfo {
  std::string key;
  std::string tensor_name;
  DType dtype = DType::kInvalid;
  ir::PartialShape shape;
  bool has_default = false;  // inputs: SignatureDef.defaults holds a value
};

struct SignatureInfo {
  std::string name;
  std::string method_name;
  std::vector<TensorInfo> inputs;
  std::vector<TensorInfo> outputs;
};

enum class FeedMode { kSerializedExamples, kFeatures };
const char* FeedModeName(FeedMode mode);  // "examples" / "features"
StatusOr<FeedMode> ParseFeedMode(std::string_view name);

// The mode to use: `requested` if set (checked against the signature),
// otherwise the signature decides (see the header comment).
StatusOr<FeedMode> ChooseFeedMode(const SignatureInfo& signature, std::optional<FeedMode> requested);

// One input record and where it came from.
struct RecordRef {
  std::string_view bytes;      // a serialized Example (TFRecord) or one JSON line
  bool is_json = false;
  const std::string* file = nullptr;
  int64_t index = 0;           // record number in the file
  int64_t line = 0;            // JSON Lines: 1-based line number

  // "file 'a.tfrecord' record 17" / "file 'a.jsonl' line 18".
  std::string Where() const;
};

struct FeedOptions {
  // Features copied unchanged from each input record to its output Example
  // (an id to join results on, say).
  std::vector<std::string> keep_features;
  // Output keys to keep (empty: all of the signature's outputs).
  std::vector<std::string> outputs;
};

// A batch's input tensors, and the kept features of each record.
struct FedBatch {
  int64_t size = 0;
  std::map<std::string, Tensor> inputs;
  std::vector<FeatureMap> kept;  // empty unless keep_features is set
};

class Feeder {
 public:
  static StatusOr<Feeder> Create(SignatureInfo signature, FeedMode mode, FeedOptions options = {});

  FeedMode mode() const { return mode_; }
  const SignatureInfo& signature() const { return signature_; }
  // Output keys the batch runs fetch (in order).
  const std::vector<std::string>& output_keys() const { return output_keys_; }

  // Input tensors for `records` (at least one).
  StatusOr<FedBatch> Feed(const std::vector<RecordRef>& records) const;

  // One Example per record from a run's outputs; `kept` as Feed returned it.
  StatusOr<std::vector<Example>> Split(const std::map<std::string, Tensor>& outputs, int64_t batch_size,
                                       std::vector<FeatureMap> kept) const;

 private:
  struct Input {
    size_t input_index = 0;     // in signature_.inputs
    std::string feature;        // feature name looked up first (the key)
    std::string alt_feature;    // then this one (tensor name without ":0"), may be empty
    // Dims of one record's value (the input's shape without the batch dim);
    // -1 for a dim taken from the values; empty + unknown_rank for "any".
    std::vector<int64_t> row_dims;
    bool row_unknown_rank = false;
    int64_t fixed_batch = -1;   // the shape's batch dim when the model fixes it
  };
  Feeder() = default;
  Status FeedFeatures(const std::vector<RecordRef>& records, FedBatch* batch) const;

  SignatureInfo signature_;
  FeedMode mode_ = FeedMode::kFeatures;
  FeedOptions options_;
  std::vector<Input> feature_inputs_;
  std::vector<std::string> output_keys_;
};

}  // namespace tfhost::data::predict
