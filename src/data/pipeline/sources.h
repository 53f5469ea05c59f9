// Pipeline sources and transforms for TFRecord data: file lists by glob,
// the records of a TFRecord file, Example parsing, and padded batches of
// variable-length features.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "data/example.h"
#include "data/pipeline/pipeline.h"
#include "data/tfrecord_reader.h"

namespace tfhost::data::pipeline {

// Files matching any of `patterns` (glob syntax), sorted and deduplicated,
// expanded when an iterator starts. A pattern matching nothing is an error
// (NotFound) so a typo does not silently produce an empty dataset.
// With shuffle, the list is shuffled with `seed` (same seed, same order).
Pipeline<std::string> ListFiles(std::vector<std::string> patterns, bool shuffle = false, uint64_t seed = 0);

// The records of one TFRecord file.
Pipeline<std::string> TFRecordRecords(const std::string& path, TFRecordReaderOptions options = {});

// The records of every file of `files`, `cycle_length` files at a time.
Pipeline<std::string> TFRecordDataset(const Pipeline<std::string>& files, InterleaveOptions interleave = {},
                                      TFRecordReaderOptions options = {});

// A map function decoding serialized tf.train.Example records.
std::function<StatusOr<Example>(std::string)> ParseExampleFn();

// A batch of Examples as dense [batch, max_len] rows per feature, padded
// with 0 / "" (tf.data's padded_batch for variable-length features);
// lengths[i] is row i's true length (0 where the feature is absent).
struct PaddedFeature {
  FeatureKind kind = FeatureKind::kNone;
  int64_t batch = 0;
  int64_t max_len = 0;
  std::vector<int64_t> lengths;
  std::vector<int64_t> int64s;
  std::vector<float> floats;
  std::vector<std::string> bytes;
};
using PaddedBatch = std::map<std::string, PaddedFeature>;

// Errors when a feature has different kinds in different rows.
StatusOr<PaddedBatch> PadBatch(const std::vector<Example>& examples);

}  // namespace tfhost::data::pipeline
