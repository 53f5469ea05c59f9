#include "data/schema.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cmath>

namespace tfhost::data {

namespace parsing = ops::parsing;

void SchemaBuilder::Observe(Stats& st, const parsing::FeatureValues& v, int64_t count) {
  FeatureSchema& s = st.s;
  if (v.kind() != FeatureKind::kNone) {
    if (s.kind == FeatureKind::kNone) {
      s.kind = v.kind();
    } else if (s.kind != v.kind()) {
      s.mixed_kinds = true;
    }
  }
  if (st.first) {
    s.min_values = s.max_values = count;
    st.first = false;
  } else {
    s.min_values = std::min(s.min_values, count);
    s.max_values = std::max(s.max_values, count);
  }
  auto range = [&](double x) {
    if (std::isnan(x)) return;
    if (!s.has_range) {
      s.min_value = s.max_value = x;
      s.has_range = true;
    } else {
      s.min_value = std::min(s.min_value, x);
      s.max_value = std::max(s.max_value, x);
    }
    s.int_range = false;  // a float among the values: no exact integer range
  };
  auto int_range = [&](int64_t x) {
    if (!s.has_range) {
      s.min_value = s.max_value = static_cast<double>(x);
      s.min_int = s.max_int = x;
      s.has_range = s.int_range = true;
      return;
    }
    s.min_value = std::min(s.min_value, static_cast<double>(x));
    s.max_value = std::max(s.max_value, static_cast<double>(x));
    s.min_int = std::min(s.min_int, x);
    s.max_int = std::max(s.max_int, x);
  };
  if (v.kind() == FeatureKind::kFloat) {
    std::vector<float> values;
    if (v.AppendFloats(&values).ok()) {
      for (float x : values) range(x);
    }
  } else if (v.kind() == FeatureKind::kInt64) {
    std::vector<int64_t> values;
    if (v.AppendInt64s(&values).ok()) {
      for (int64_t x : values) int_range(x);
    }
  }
}

Status SchemaBuilder::Add(std::string_view serialized, int64_t index) {
  TFHOST_RETURN_IF_ERROR(parsing::DecodeExample(serialized, index, &scratch_));
  // A key repeated on the wire counts once, with its last value (map rule).
  std::map<std::string_view, const parsing::FeatureValues*> last;
  for (const auto& f : scratch_) last[f.key] = &f.values;
  for (const auto& [key, values] : last) {
    TFHOST_ASSIGN_OR_RETURN(int64_t count, values->Count());
    Stats& st = features_[std::string(key)];
    st.s.name = std::string(key);
    ++st.s.present;
    Observe(st, *values, count);
  }
  if (HasFeatureLists(serialized)) {
    sequence_ = true;
    TFHOST_RETURN_IF_ERROR(DecodeFeatureLists(serialized, index, &list_scratch_));
    std::map<std::string_view, const FeatureListView*> last_list;
    for (const auto& l : list_scratch_) last_list[l.name] = &l;
    for (const auto& [name, list] : last_list) {
      Stats& st = lists_[std::string(name)];
      FeatureSchema& s = st.s;
      bool first_record = s.present == 0;
      s.name = std::string(name);
      s.sequence = true;
      ++s.present;
      int64_t steps = static_cast<int64_t>(list->steps.size());
      s.min_steps = first_record ? steps : std::min(s.min_steps, steps);
      s.max_steps = first_record ? steps : std::max(s.max_steps, steps);
      for (const auto& step : list->steps) {
        TFHOST_ASSIGN_OR_RETURN(int64_t count, step.Count());
        Observe(st, step, count);
      }
    }
  }
  ++records_;
  return OkStatus();
}

void SchemaBuilder::Merge(const SchemaBuilder& other) {
  records_ += other.records_;
  sequence_ = sequence_ || other.sequence_;
  auto merge_into = [](std::map<std::string, Stats>& dst, const std::map<std::string, Stats>& src) {
    for (const auto& [name, theirs] : src) {
      auto it = dst.find(name);
      if (it == dst.end()) {
        dst.emplace(name, theirs);
        continue;
      }
      FeatureSchema& a = it->second.s;
      const FeatureSchema& b = theirs.s;
      if (a.kind == FeatureKind::kNone) {
        a.kind = b.kind;
      } else if (b.kind != FeatureKind::kNone && b.kind != a.kind) {
        a.mixed_kinds = true;
      }
      a.mixed_kinds = a.mixed_kinds || b.mixed_kinds;
      if (!theirs.first) {
        if (it->second.first) {
          a.min_values = b.min_values;
          a.max_values = b.max_values;
          it->second.first = false;
        } else {
          a.min_values = std::min(a.min_values, b.min_values);
          a.max_values = std::max(a.max_values, b.max_values);
        }
      }
      if (b.present > 0) {
        a.min_steps = a.present > 0 ? std::min(a.min_steps, b.min_steps) : b.min_steps;
        a.max_steps = a.present > 0 ? std::max(a.max_steps, b.max_steps) : b.max_steps;
      }
      a.present += b.present;
      if (b.has_range) {
        a.min_value = a.has_range ? std::min(a.min_value, b.min_value) : b.min_value;
        a.max_value = a.has_range ? std::max(a.max_value, b.max_value) : b.max_value;
        if (!a.has_range) {
          a.int_range = b.int_range;
          a.min_int = b.min_int;
          a.max_int = b.max_int;
        } else if (a.int_range && b.int_range) {
          a.min_int = std::min(a.min_int, b.min_int);
          a.max_int = std::max(a.max_int, b.max_int);
        } else {
          a.int_range = false;
        }
        a.has_range = true;
      }
    }
  };
  merge_into(features_, other.features_);
  merge_into(lists_, other.lists_);
}

Schema SchemaBuilder::Build() const {
  Schema schema;
  schema.records = records_;
  schema.kind = sequence_ ? RecordKind::kSequenceExample : RecordKind::kExample;
  for (const auto& [name, st] : features_) schema.features.push_back(st.s);
  for (const auto& [name, st] : lists_) schema.features.push_back(st.s);
  return schema;
}

const FeatureSchema* Schema::Find(const std::string& name, bool sequence) const {
  for (const auto& f : features) {
    if (f.name == name && f.sequence == sequence) return &f;
  }
  return nullptr;
}

std::string Schema::ToJson() const {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("records");
  w.Int64(records);
  w.Key("kind");
  w.String(RecordKindName(kind));
  w.Key("features");
  w.StartArray();
  for (const auto& f : features) {
    w.StartObject();
    w.Key("name");
    w.String(f.name.data(), static_cast<rapidjson::SizeType>(f.name.size()));
    w.Key("kind");
    w.String(parsing::FeatureKindName(f.kind));
    if (f.mixed_kinds) {
      w.Key("mixed_kinds");
      w.Bool(true);
    }
    if (f.sequence) {
      w.Key("feature_list");
      w.Bool(true);
      w.Key("min_steps");
      w.Int64(f.min_steps);
      w.Key("max_steps");
      w.Int64(f.max_steps);
    }
    w.Key("present");
    w.Int64(f.present);
    w.Key("presence");
    w.Double(records > 0 ? static_cast<double>(f.present) / static_cast<double>(records) : 0.0);
    w.Key("min_values");
    w.Int64(f.min_values);
    w.Key("max_values");
    w.Int64(f.max_values);
    if (f.has_range && f.int_range) {
      w.Key("min");
      w.Int64(f.min_int);
      w.Key("max");
      w.Int64(f.max_int);
    } else if (f.has_range) {
      w.Key("min");
      w.Double(f.min_value);
      w.Key("max");
      w.Double(f.max_value);
    }
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return buf.GetString();
}

StatusOr<FeatureKind> ParseFeatureKind(std::string_view name) {
  if (name == "int64" || name == "int") return FeatureKind::kInt64;
  if (name == "float" || name == "float32") return FeatureKind::kFloat;
  if (name == "bytes" || name == "string") return FeatureKind::kBytes;
  return InvalidArgument("unknown feature kind '" + std::string(name) + "', expected int64, float or bytes");
}

StatusOr<std::map<std::string, FeatureKind>> ParseSchemaKinds(std::string_view json) {
  rapidjson::Document doc;
  doc.Parse(json.data(), json.size());
  if (doc.HasParseError() || !doc.IsObject()) return InvalidArgument("schema is not a JSON object");
  std::map<std::string, FeatureKind> kinds;
  if (doc.HasMember("features") && doc["features"].IsArray()) {
    for (const auto& f : doc["features"].GetArray()) {
      if (!f.IsObject() || !f.HasMember("name") || !f["name"].IsString() || !f.HasMember("kind") ||
          !f["kind"].IsString()) {
        return InvalidArgument("schema 'features' entries need string 'name' and 'kind'");
      }
      std::string kind = f["kind"].GetString();
      if (kind == "none") continue;
      TFHOST_ASSIGN_OR_RETURN(FeatureKind k, ParseFeatureKind(kind));
      kinds[f["name"].GetString()] = k;
    }
    return kinds;
  }
  for (auto it = doc.MemberBegin(); it != doc.MemberEnd(); ++it) {
    if (!it->value.IsString()) {
      return InvalidArgument(std::string("schema entry '") + it->name.GetString() +
                             "' must be \"int64\", \"float\" or \"bytes\"");
    }
    Status s;
    auto k = ParseFeatureKind(it->value.GetString());
    if (!k.ok()) return k.status().WithContext(std::string("schema entry '") + it->name.GetString() + "'");
    kinds[it->name.GetString()] = *k;
  }
  return kinds;
}

}  // namespace tfhost::data
