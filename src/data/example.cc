#include "data/example.h"

#include <cstring>

namespace tfhost::data {
namespace {

namespace parsing = ops::parsing;

// A minimal bounds-checked wire walker for the FeatureLists level; the
// Features/Feature levels go through ops/parsing's decoder.
class Wire {
 public:
  explicit Wire(std::string_view b) : p_(reinterpret_cast<const uint8_t*>(b.data())), end_(p_ + b.size()) {}
  bool done() const { return p_ == end_; }
  bool Varint(uint64_t* v) {
    uint64_t r = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ == end_) return false;
      uint8_t byte = *p_++;
      r |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) {
        *v = r;
        return true;
      }
    }
    return false;
  }
  bool Tag(uint32_t* field, uint32_t* wire) {
    uint64_t t;
    if (!Varint(&t) || (t >> 3) == 0 || (t >> 3) > 0x1fffffff) return false;
    *field = static_cast<uint32_t>(t >> 3);
    *wire = static_cast<uint32_t>(t & 7);
    return true;
  }
  bool Bytes(std::string_view* out) {
    uint64_t n;
    if (!Varint(&n) || n > static_cast<uint64_t>(end_ - p_)) return false;
    *out = std::string_view(reinterpret_cast<const char*>(p_), static_cast<size_t>(n));
    p_ += n;
    return true;
  }
  // Skips a field's value; groups nest at most `depth_left` deep.
  bool Skip(uint32_t field, uint32_t wire, int depth_left = 64) {
    switch (wire) {
      case 0: {
        uint64_t v;
        return Varint(&v);
      }
      case 1: return Advance(8);
      case 2: {
        std::string_view v;
        return Bytes(&v);
      }
      case 3: {
        if (depth_left == 0) return false;
        while (true) {
          uint32_t f, w;
          if (!Tag(&f, &w)) return false;
          if (w == 4) return f == field;
          if (!Skip(f, w, depth_left - 1)) return false;
        }
      }
      case 5: return Advance(4);
      default: return false;
    }
  }

 private:
  bool Advance(size_t n) {
    if (static_cast<size_t>(end_ - p_) < n) return false;
    p_ += n;
    return true;
  }
  const uint8_t* p_;
  const uint8_t* end_;
};

Status Malformed(int64_t index, const std::string& what) {
  return InvalidArgument("could not parse serialized tf.train.SequenceExample at index " + std::to_string(index) +
                         ": malformed " + what);
}

void PutVarint(uint64_t v, std::string* out) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>(v | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

size_t VarintSize(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

void PutLengthDelimited(uint32_t field, std::string_view body, std::string* out) {
  out->push_back(static_cast<char>((field << 3) | 2));
  PutVarint(body.size(), out);
  out->append(body);
}

std::string EncodeFeatureMap(const FeatureMap& map) {
  std::string out, feature, entry;
  for (const auto& [key, value] : map) {
    feature.clear();
    AppendEncodedFeature(value, &feature);
    entry.clear();
    PutLengthDelimited(1, key, &entry);
    PutLengthDelimited(2, feature, &entry);
    PutLengthDelimited(1, entry, &out);
  }
  return out;
}

Status CollectFeatureMap(const std::vector<parsing::DecodedFeature>& decoded, FeatureMap* out) {
  for (const auto& f : decoded) {
    TFHOST_ASSIGN_OR_RETURN(Feature feature, ToFeature(f.values));
    (*out)[std::string(f.key)] = std::move(feature);  // later entries win, as in protobuf maps
  }
  return OkStatus();
}

}  // namespace

Feature Feature::Int64s(std::vector<int64_t> v) {
  Feature f;
  f.kind = FeatureKind::kInt64;
  f.int64s = std::move(v);
  return f;
}
Feature Feature::Floats(std::vector<float> v) {
  Feature f;
  f.kind = FeatureKind::kFloat;
  f.floats = std::move(v);
  return f;
}
Feature Feature::Bytes(std::vector<std::string> v) {
  Feature f;
  f.kind = FeatureKind::kBytes;
  f.bytes = std::move(v);
  return f;
}

size_t Feature::size() const {
  switch (kind) {
    case FeatureKind::kInt64: return int64s.size();
    case FeatureKind::kFloat: return floats.size();
    case FeatureKind::kBytes: return bytes.size();
    case FeatureKind::kNone: break;
  }
  return 0;
}

bool Feature::operator==(const Feature& o) const {
  if (kind != o.kind) return false;
  switch (kind) {
    case FeatureKind::kInt64: return int64s == o.int64s;
    case FeatureKind::kBytes: return bytes == o.bytes;
    case FeatureKind::kFloat:
      // memcmp's pointers must not be null, even for zero bytes.
      return floats.size() == o.floats.size() &&
             (floats.empty() || std::memcmp(floats.data(), o.floats.data(), floats.size() * sizeof(float)) == 0);
    case FeatureKind::kNone: break;
  }
  return true;
}

StatusOr<Feature> ToFeature(const parsing::FeatureValues& values) {
  Feature f;
  f.kind = values.kind();
  switch (f.kind) {
    case FeatureKind::kInt64:
      TFHOST_RETURN_IF_ERROR(values.AppendInt64s(&f.int64s));
      break;
    case FeatureKind::kFloat:
      TFHOST_RETURN_IF_ERROR(values.AppendFloats(&f.floats));
      break;
    case FeatureKind::kBytes: {
      std::vector<std::string_view> views;
      TFHOST_RETURN_IF_ERROR(values.AppendBytes(&views));
      f.bytes.assign(views.begin(), views.end());
      break;
    }
    case FeatureKind::kNone: break;
  }
  return f;
}

StatusOr<Example> DecodeExample(std::string_view bytes, int64_t record_index) {
  std::vector<parsing::DecodedFeature> decoded;
  TFHOST_RETURN_IF_ERROR(parsing::DecodeExample(bytes, record_index, &decoded));
  Example ex;
  Status s = CollectFeatureMap(decoded, &ex.features);
  if (!s.ok()) return s.WithContext("tf.train.Example at index " + std::to_string(record_index));
  return ex;
}

Status DecodeFeatureLists(std::string_view bytes, int64_t index, std::vector<FeatureListView>* lists) {
  lists->clear();
  Wire top(bytes);
  while (!top.done()) {
    uint32_t field, wire;
    if (!top.Tag(&field, &wire)) return Malformed(index, "SequenceExample");
    if (field != 2 || wire != 2) {
      if (!top.Skip(field, wire)) return Malformed(index, "SequenceExample");
      continue;
    }
    std::string_view feature_lists;
    if (!top.Bytes(&feature_lists)) return Malformed(index, "SequenceExample");
    Wire fl(feature_lists);
    while (!fl.done()) {
      uint32_t f, w;
      if (!fl.Tag(&f, &w)) return Malformed(index, "FeatureLists");
      if (f != 1 || w != 2) {
        if (!fl.Skip(f, w)) return Malformed(index, "FeatureLists");
        continue;
      }
      std::string_view entry_bytes;
      if (!fl.Bytes(&entry_bytes)) return Malformed(index, "FeatureLists");
      // Map entry: key = 1, value = 2 (FeatureList). A repeated value field
      // merges, i.e. its features concatenate.
      FeatureListView entry;
      Wire e(entry_bytes);
      while (!e.done()) {
        uint32_t ef, ew;
        if (!e.Tag(&ef, &ew)) return Malformed(index, "FeatureLists map entry");
        if (ef == 1 && ew == 2) {
          if (!e.Bytes(&entry.name)) return Malformed(index, "feature list name");
        } else if (ef == 2 && ew == 2) {
          std::string_view list_bytes;
          if (!e.Bytes(&list_bytes)) return Malformed(index, "FeatureList");
          Wire l(list_bytes);
          while (!l.done()) {
            uint32_t lf, lw;
            if (!l.Tag(&lf, &lw)) return Malformed(index, "FeatureList");
            if (lf == 1 && lw == 2) {
              std::string_view feature_bytes;
              if (!l.Bytes(&feature_bytes)) return Malformed(index, "FeatureList");
              entry.steps.emplace_back();
              if (!entry.steps.back().MergeFeature(feature_bytes).ok()) {
                return Malformed(index, "Feature in feature list");
              }
            } else if (!l.Skip(lf, lw)) {
              return Malformed(index, "FeatureList");
            }
          }
        } else if (!e.Skip(ef, ew)) {
          return Malformed(index, "FeatureLists map entry");
        }
      }
      lists->push_back(std::move(entry));
    }
  }
  return OkStatus();
}

StatusOr<SequenceExample> DecodeSequenceExample(std::string_view bytes, int64_t record_index) {
  SequenceExample out;
  std::vector<parsing::DecodedFeature> context;
  // SequenceExample.context is field 1 of type Features, exactly like
  // Example.features, and field 2 is skipped there as unknown.
  Status s = parsing::DecodeExample(bytes, record_index, &context);
  if (!s.ok()) return InvalidArgument("tf.train.SequenceExample context: " + s.message());
  TFHOST_RETURN_IF_ERROR(CollectFeatureMap(context, &out.context));
  std::vector<FeatureListView> lists;
  TFHOST_RETURN_IF_ERROR(DecodeFeatureLists(bytes, record_index, &lists));
  for (const FeatureListView& list : lists) {
    std::vector<Feature> steps;
    steps.reserve(list.steps.size());
    for (const auto& step : list.steps) {
      TFHOST_ASSIGN_OR_RETURN(Feature f, ToFeature(step));
      steps.push_back(std::move(f));
    }
    out.feature_lists[std::string(list.name)] = std::move(steps);
  }
  return out;
}

void AppendEncodedFeature(const Feature& feature, std::string* out) {
  std::string list;
  switch (feature.kind) {
    case FeatureKind::kNone:
      return;
    case FeatureKind::kBytes:
      for (const std::string& v : feature.bytes) PutLengthDelimited(1, v, &list);
      break;
    case FeatureKind::kFloat:
      if (!feature.floats.empty()) {
        PutLengthDelimited(1,
                           std::string_view(reinterpret_cast<const char*>(feature.floats.data()),
                                            feature.floats.size() * sizeof(float)),
                           &list);
      }
      break;
    case FeatureKind::kInt64:
      if (!feature.int64s.empty()) {
        size_t n = 0;
        for (int64_t v : feature.int64s) n += VarintSize(static_cast<uint64_t>(v));
        list.push_back(static_cast<char>((1 << 3) | 2));
        PutVarint(n, &list);
        for (int64_t v : feature.int64s) PutVarint(static_cast<uint64_t>(v), &list);
      }
      break;
  }
  PutLengthDelimited(static_cast<uint32_t>(feature.kind), list, out);
}

std::string EncodeExample(const Example& example) {
  std::string out;
  PutLengthDelimited(1, EncodeFeatureMap(example.features), &out);
  return out;
}

std::string EncodeSequenceExample(const SequenceExample& example) {
  std::string out;
  PutLengthDelimited(1, EncodeFeatureMap(example.context), &out);
  std::string lists, entry, list, feature;
  for (const auto& [name, steps] : example.feature_lists) {
    list.clear();
    for (const Feature& step : steps) {
      feature.clear();
      AppendEncodedFeature(step, &feature);
      PutLengthDelimited(1, feature, &list);
    }
    entry.clear();
    PutLengthDelimited(1, name, &entry);
    PutLengthDelimited(2, list, &entry);
    PutLengthDelimited(1, entry, &lists);
  }
  PutLengthDelimited(2, lists, &out);
  return out;
}

bool HasFeatureLists(std::string_view bytes) {
  Wire w(bytes);
  while (!w.done()) {
    uint32_t field, wire;
    if (!w.Tag(&field, &wire)) return false;
    if (field == 2 && wire == 2) return true;
    if (!w.Skip(field, wire)) return false;
  }
  return false;
}

const char* RecordKindName(RecordKind kind) {
  return kind == RecordKind::kSequenceExample ? "sequence_example" : "example";
}

}  // namespace tfhost::data
