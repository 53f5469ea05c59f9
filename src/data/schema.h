// Feature schema inference over serialized Examples / SequenceExamples: for
// each feature name, its kind, how often it is present, how many values a
// record holds (min/max) and the numeric value range — what `tfhost data
// inspect` prints and what `convert --schema` reads back.
//
// Works on wire bytes through the fast decoder; nothing is copied per value.
// Thread-safety: a builder is used by one thread; Merge() combines builders
// filled on different threads.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "data/example.h"

namespace tfhost::data {

struct FeatureSchema {
  std::string name;
  FeatureKind kind = FeatureKind::kNone;  // kNone: only ever seen without a kind
  bool mixed_kinds = false;               // different records use different kinds
  bool sequence = false;                  // a SequenceExample feature_list
  int64_t present = 0;                    // records where the name appears
  // Values per record (per step for feature lists), over present records.
  int64_t min_values = 0, max_values = 0;
  // Steps per record, for feature lists.
  int64_t min_steps = 0, max_steps = 0;
  // Numeric range over all values (NaN skipped); valid when has_range.
  bool has_range = false;
  double min_value = 0, max_value = 0;
  // Set when every value in the range was an int64: min_int/max_int then
  // hold the range exactly (a double rounds int64s above 2^53) and it is
  // printed as integers ("17031832200", not "1.70318e+10").
  bool int_range = false;
  int64_t min_int = 0, max_int = 0;
};

struct Schema {
  int64_t records = 0;
  RecordKind kind = RecordKind::kExample;
  std::vector<FeatureSchema> features;  // context/plain features by name, then feature lists by name

  const FeatureSchema* Find(const std::string& name, bool sequence = false) const;
  // {"records":N,"kind":"example","features":[{"name":..,"kind":"int64","presence":0.98,...}]}
  std::string ToJson() const;
};

class SchemaBuilder {
 public:
  // Adds one serialized record; errors if it is not a valid Example or
  // SequenceExample (`index` names it).
  Status Add(std::string_view serialized, int64_t index);
  void Merge(const SchemaBuilder& other);
  Schema Build() const;

 private:
  struct Stats {
    FeatureSchema s;
    bool first = true;
  };
  void Observe(Stats& st, const ops::parsing::FeatureValues& v, int64_t count);

  int64_t records_ = 0;
  bool sequence_ = false;
  std::map<std::string, Stats> features_;
  std::map<std::string, Stats> lists_;
  std::vector<ops::parsing::DecodedFeature> scratch_;
  std::vector<FeatureListView> list_scratch_;
};

// Reads a schema file: either Schema::ToJson's form, or a plain object
// {"name": "int64" | "float" | "bytes", ...}. Returns name -> kind.
StatusOr<std::map<std::string, FeatureKind>> ParseSchemaKinds(std::string_view json);

StatusOr<FeatureKind> ParseFeatureKind(std::string_view name);  // "int64", "float", "bytes"/"string"

}  // namespace tfhost::data
