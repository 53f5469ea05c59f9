// Lossless JSON for Examples and SequenceExamples, as `tfhost data head` and
// `convert` (JSON Lines) read and write them.
//
// A feature value is written in the plainest form that still parses back to
// the same kind and values:
//   int64  -> 7 or [1, 2]            float -> 1.5, 3.0 or [0.25, 1e+20]
//   bytes  -> "text" or ["a", "b"]   (valid UTF-8 only)
// and, where a plain form would be ambiguous, as a typed object:
//   {"int64": []}, {"float": []}, {"bytes": []}   empty lists keep their kind
//   {"float": [1.0, "nan", "inf", "-inf"]}       non-finite floats
//   {"bytes_b64": ["AP8="]}                      bytes that are not UTF-8
//   {}                                           a Feature with no kind
// Floats are printed shortest-round-trip with a '.' or exponent, so they never
// read back as int64; numbers are read from their text (not via double), so
// every float32 and int64 round-trips exactly. A SequenceExample is
// {"context": {...}, "feature_lists": {"name": [step, step, ...]}} with each
// step a feature value as above.
//
// Reading plain JSON: integers -> int64, any number with '.' or an exponent
// in a feature -> float (its integers too), strings -> bytes, booleans -> 0/1,
// null -> absent, [] -> a kindless feature. A schema (name -> kind) overrides
// inference: numbers convert, and numeric strings parse, to the schema's kind.
// Input is untrusted: nesting is bounded and errors name the line and field.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "base/status.h"
#include "data/example.h"

namespace tfhost::data {

using KindSchema = std::map<std::string, FeatureKind>;

std::string ExampleToJson(const Example& example);
std::string SequenceExampleToJson(const SequenceExample& example);
// Appends one feature value in the form above.
void AppendFeatureJson(const Feature& feature, std::string* out);

// A parsed JSON line: an Example, or a SequenceExample when the object's
// only keys are "context" and/or "feature_lists" and "feature_lists" is there.
struct JsonRecord {
  bool is_sequence = false;
  Example example;
  SequenceExample sequence;
};
StatusOr<JsonRecord> RecordFromJson(std::string_view json, const KindSchema* schema = nullptr);

// Shortest text that parses back to exactly `v` and reads as a float (has a
// '.' or exponent); "nan"/"inf"/"-inf" for non-finite values.
std::string FormatFloat(float v);
// Parses a decimal float/int text exactly; false on junk.
bool ParseFloatText(std::string_view text, float* out);
bool ParseInt64Text(std::string_view text, int64_t* out);

bool IsValidUtf8(std::string_view s);

}  // namespace tfhost::data
