// tf.train.Example and tf.train.SequenceExample as plain C++ values
// (docs/formats.md §1.10): decoding through the fast wire decoder of
// ops/parsing/example_decoder.h (no protobuf objects), encoding straight to
// wire bytes, and telling the two message kinds apart.
//
// Decoding follows libprotobuf's parse exactly (a repeated map key keeps its
// last value, split messages merge, packed and unpacked lists both read,
// unknown fields skipped); encoding writes what libprotobuf's deterministic
// serialization writes (map keys sorted, packed numeric lists), so
// Encode(Decode(x)) equals protobuf's canonical bytes for x.
//
// Thread-safety: plain values and pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "ops/parsing/example_decoder.h"

namespace tfhost::data {

using FeatureKind = ops::parsing::FeatureKind;

struct Feature {
  FeatureKind kind = FeatureKind::kNone;
  std::vector<int64_t> int64s;
  std::vector<float> floats;
  std::vector<std::string> bytes;

  static Feature Int64s(std::vector<int64_t> v);
  static Feature Floats(std::vector<float> v);
  static Feature Bytes(std::vector<std::string> v);
  // Number of values of the feature's kind.
  size_t size() const;
  // Kinds and values equal; floats compare by bit pattern (NaN == NaN).
  bool operator==(const Feature& other) const;
};

using FeatureMap = std::map<std::string, Feature>;

struct Example {
  FeatureMap features;
  bool operator==(const Example& o) const { return features == o.features; }
};

struct SequenceExample {
  FeatureMap context;
  std::map<std::string, std::vector<Feature>> feature_lists;
  bool operator==(const SequenceExample& o) const {
    return context == o.context && feature_lists == o.feature_lists;
  }
};

// Decoding. `record_index` only appears in error messages.
StatusOr<Example> DecodeExample(std::string_view bytes, int64_t record_index = 0);
StatusOr<SequenceExample> DecodeSequenceExample(std::string_view bytes, int64_t record_index = 0);

// Walks a serialized SequenceExample's feature_lists without copying:
// fn(name, steps) for each final map entry, where steps are views into
// `bytes`. Context features come from ops::parsing::DecodeExample, since
// SequenceExample.context has Example.features' field number and type.
struct FeatureListView {
  std::string_view name;
  std::vector<ops::parsing::FeatureValues> steps;
};
Status DecodeFeatureLists(std::string_view bytes, int64_t record_index, std::vector<FeatureListView>* lists);

// Encoding.
std::string EncodeExample(const Example& example);
std::string EncodeSequenceExample(const SequenceExample& example);
void AppendEncodedFeature(const Feature& feature, std::string* out);

// Copies a decoded view into a Feature.
StatusOr<Feature> ToFeature(const ops::parsing::FeatureValues& values);

// Whether serialized bytes carry SequenceExample.feature_lists (field 2 at the
// top level). An Example never has field 2; a SequenceExample without
// feature_lists is byte-for-byte an Example with the same features.
bool HasFeatureLists(std::string_view bytes);

enum class RecordKind { kExample, kSequenceExample };
const char* RecordKindName(RecordKind kind);  // "example" / "sequence_example"

}  // namespace tfhost::data
