// A fast decoder for serialized tf.train.Example protos (docs/formats.md §1.10).
//
// Parsing ops see thousands of small Examples per request; building a protobuf
// object for each (map nodes, std::string copies) costs more than the values
// themselves. This decoder walks the wire bytes once and hands out views into
// them, so a value is only copied when it is written into an output tensor.
//
// It follows protobuf's parse rules exactly where they change the result:
//   * Float/Int64 lists may be packed or unpacked, and a list may mix both.
//   * A Features map key that appears twice keeps its last value (map rule).
//   * An Example or Feature sent in several pieces is merged: repeated list
//     values concatenate; a oneof switch to another kind drops earlier values.
//   * Unknown fields (any wire type, groups included) are skipped; a known
//     field with an unexpected wire type is an unknown field.
// Malformed bytes (truncated varints or lengths, bad wire types, a packed
// float run whose length is not a multiple of 4) give InvalidArgument naming
// the example index; nothing is read past the end of the input.
//
// Thread-safety: stateless functions; views are valid while the serialized
// bytes they point into are alive and unchanged.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace tfhost::ops::parsing {

// Which list a Feature holds (the Feature.kind oneof); kNone for an empty
// Feature, which TensorFlow treats as an empty list of any type.
enum class FeatureKind : uint8_t { kNone = 0, kBytes = 1, kFloat = 2, kInt64 = 3 };

// "bytes" / "float" / "int64" / "none", as TensorFlow's messages name them
// ("string" is what TF calls bytes in its dtype names, see KindDTypeName).
const char* FeatureKindName(FeatureKind kind);

// One feature's values as views into the serialized Example: the bodies of
// every BytesList / FloatList / Int64List piece of the winning kind.
class FeatureValues {
 public:
  FeatureKind kind() const { return kind_; }

  // Number of values across all pieces. Errors on malformed list bytes.
  StatusOr<int64_t> Count() const;

  // Append every value, in order. Each requires kind() to be the matching
  // kind or kNone (then nothing is appended).
  Status AppendFloats(std::vector<float>* out) const;
  Status AppendInt64s(std::vector<int64_t>* out) const;
  Status AppendBytes(std::vector<std::string_view>* out) const;

  // Write exactly `n` values to `out`; fails if the feature holds a different
  // number (callers check Count() first to produce a precise error).
  Status CopyFloats(float* out, int64_t n) const;
  Status CopyInt64s(int64_t* out, int64_t n) const;
  Status CopyBytes(std::string* out, int64_t n) const;

  // Used by the decoder: merges one serialized Feature message into this one.
  Status MergeFeature(std::string_view feature_bytes);

 private:
  template <typename Fn>
  Status ForEachPiece(Fn fn) const;

  FeatureKind kind_ = FeatureKind::kNone;
  // Almost every feature has exactly one list piece; keep it inline.
  std::string_view first_piece_;
  bool has_first_piece_ = false;
  std::vector<std::string_view> more_pieces_;
};

struct DecodedFeature {
  std::string_view key;
  FeatureValues values;
};

// Decodes one serialized Example into its features, in wire order (a key
// repeated on the wire appears twice; the later entry is the one protobuf
// keeps). `features` is cleared first and reused to avoid reallocation.
// `example_index` is only used in error messages.
Status DecodeExample(std::string_view serialized, int64_t example_index,
                     std::vector<DecodedFeature>* features);

}  // namespace tfhost::ops::parsing
