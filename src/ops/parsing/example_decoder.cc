#include "ops/parsing/example_decoder.h"

#include <cstring>

namespace tfhost::ops::parsing {
namespace {

// Protobuf wire types.
constexpr uint32_t kVarint = 0;
constexpr uint32_t kFixed64 = 1;
constexpr uint32_t kLengthDelimited = 2;
constexpr uint32_t kStartGroup = 3;
constexpr uint32_t kEndGroup = 4;
constexpr uint32_t kFixed32 = 5;

// Unknown groups nest; bound the recursion so hostile input cannot overflow
// the stack (protobuf's own default limit is 100).
constexpr int kMaxGroupDepth = 64;

// A bounds-checked cursor over wire bytes. Every read returns false instead
// of reading past `end_`.
class WireReader {
 public:
  explicit WireReader(std::string_view bytes)
      : p_(reinterpret_cast<const uint8_t*>(bytes.data())), end_(p_ + bytes.size()) {}

  bool done() const { return p_ == end_; }

  bool ReadVarint(uint64_t* value) {
    uint64_t result = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ == end_) return false;
      uint8_t byte = *p_++;
      result |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) {
        *value = result;
        return true;
      }
    }
    return false;  // more than 10 bytes
  }

  bool ReadTag(uint32_t* field, uint32_t* wire_type) {
    uint64_t tag;
    if (!ReadVarint(&tag)) return false;
    *field = static_cast<uint32_t>(tag >> 3);
    *wire_type = static_cast<uint32_t>(tag & 7);
    return *field != 0 && (tag >> 3) <= 0x1fffffff;
  }

  bool ReadLengthDelimited(std::string_view* out) {
    uint64_t len;
    if (!ReadVarint(&len)) return false;
    if (len > static_cast<uint64_t>(end_ - p_)) return false;
    *out = std::string_view(reinterpret_cast<const char*>(p_), static_cast<size_t>(len));
    p_ += len;
    return true;
  }

  bool ReadFixed32(uint32_t* value) {
    if (end_ - p_ < 4) return false;
    std::memcpy(value, p_, 4);  // wire is little-endian, as are our targets
    p_ += 4;
    return true;
  }

  // Skips the value of a field whose tag was just read.
  bool SkipField(uint32_t field, uint32_t wire_type, int depth = 0) {
    switch (wire_type) {
      case kVarint: {
        uint64_t ignored;
        return ReadVarint(&ignored);
      }
      case kFixed64:
        if (end_ - p_ < 8) return false;
        p_ += 8;
        return true;
      case kLengthDelimited: {
        std::string_view ignored;
        return ReadLengthDelimited(&ignored);
      }
      case kStartGroup: {
        if (depth >= kMaxGroupDepth) return false;
        while (true) {
          uint32_t f, w;
          if (!ReadTag(&f, &w)) return false;
          if (w == kEndGroup) return f == field;
          if (!SkipField(f, w, depth + 1)) return false;
        }
      }
      case kFixed32:
        if (end_ - p_ < 4) return false;
        p_ += 4;
        return true;
      default:  // kEndGroup without a start, or wire types 6/7
        return false;
    }
  }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
};

Status Malformed(int64_t example_index, const std::string& where) {
  return InvalidArgument("could not parse serialized tf.train.Example at index " +
                         std::to_string(example_index) + ": malformed " + where);
}

Status BadList(const char* what) {
  return InvalidArgument(std::string("malformed ") + what + " in a Feature");
}

// Walks field 1 of one FloatList / Int64List / BytesList body (`what`),
// skipping other fields. A value comes either packed in a length-delimited run
// or one per tag with wire type `scalar_wire`: on_packed(run) and
// on_scalar(reader) consume them and return false when malformed. (BytesList
// has only the length-delimited form: its caller passes kLengthDelimited, so
// on_packed sees each value and on_scalar is never called.)
template <typename OnPacked, typename OnScalar>
Status WalkList(std::string_view body, const char* what, uint32_t scalar_wire,
                OnPacked&& on_packed, OnScalar&& on_scalar) {
  WireReader r(body);
  while (!r.done()) {
    uint32_t field, wire;
    if (!r.ReadTag(&field, &wire)) return BadList(what);
    if (field == 1 && wire == kLengthDelimited) {
      std::string_view packed;
      if (!r.ReadLengthDelimited(&packed) || !on_packed(packed)) return BadList(what);
    } else if (field == 1 && wire == scalar_wire) {
      if (!on_scalar(r)) return BadList(what);
    } else if (!r.SkipField(field, wire)) {
      return BadList(what);
    }
  }
  return OkStatus();
}

// Calls fn(float) for every value in one FloatList body.
template <typename Fn>
Status WalkFloatList(std::string_view body, Fn&& fn) {
  return WalkList(
      body, "FloatList", kFixed32,
      [&](std::string_view packed) {
        if (packed.size() % 4 != 0) return false;
        for (size_t i = 0; i < packed.size(); i += 4) {
          float v;
          std::memcpy(&v, packed.data() + i, 4);
          fn(v);
        }
        return true;
      },
      [&](WireReader& r) {
        uint32_t bits;
        if (!r.ReadFixed32(&bits)) return false;
        float v;
        std::memcpy(&v, &bits, 4);
        fn(v);
        return true;
      });
}

template <typename Fn>
Status WalkInt64List(std::string_view body, Fn&& fn) {
  return WalkList(
      body, "Int64List", kVarint,
      [&](std::string_view packed) {
        WireReader pr(packed);
        while (!pr.done()) {
          uint64_t v;
          if (!pr.ReadVarint(&v)) return false;
          fn(static_cast<int64_t>(v));
        }
        return true;
      },
      [&](WireReader& r) {
        uint64_t v;
        if (!r.ReadVarint(&v)) return false;
        fn(static_cast<int64_t>(v));
        return true;
      });
}

template <typename Fn>
Status WalkBytesList(std::string_view body, Fn&& fn) {
  return WalkList(
      body, "BytesList", kLengthDelimited,
      [&](std::string_view v) {
        fn(v);
        return true;
      },
      [](WireReader&) { return false; });
}

// Counting float values only needs lengths, not the values themselves.
Status CountFloatList(std::string_view body, int64_t* count) {
  return WalkList(
      body, "FloatList", kFixed32,
      [&](std::string_view packed) {
        if (packed.size() % 4 != 0) return false;
        *count += static_cast<int64_t>(packed.size() / 4);
        return true;
      },
      [&](WireReader& r) {
        uint32_t bits;
        if (!r.ReadFixed32(&bits)) return false;
        ++*count;
        return true;
      });
}

// A feature of the wrong kind: says what it holds and what the caller wanted.
Status WrongKind(FeatureKind have, const char* want) {
  return InvalidArgument(std::string("feature holds ") + FeatureKindName(have) + " values, expected " + want);
}

}  // namespace

const char* FeatureKindName(FeatureKind kind) {
  switch (kind) {
    case FeatureKind::kBytes: return "bytes";
    case FeatureKind::kFloat: return "float";
    case FeatureKind::kInt64: return "int64";
    case FeatureKind::kNone: break;
  }
  return "none";
}

template <typename Fn>
Status FeatureValues::ForEachPiece(Fn fn) const {
  if (has_first_piece_) TFHOST_RETURN_IF_ERROR(fn(first_piece_));
  for (std::string_view piece : more_pieces_) TFHOST_RETURN_IF_ERROR(fn(piece));
  return OkStatus();
}

StatusOr<int64_t> FeatureValues::Count() const {
  int64_t n = 0;
  Status s;
  switch (kind_) {
    case FeatureKind::kNone:
      break;
    case FeatureKind::kFloat:
      s = ForEachPiece([&](std::string_view p) { return CountFloatList(p, &n); });
      break;
    case FeatureKind::kInt64:
      s = ForEachPiece([&](std::string_view p) { return WalkInt64List(p, [&](int64_t) { ++n; }); });
      break;
    case FeatureKind::kBytes:
      s = ForEachPiece(
          [&](std::string_view p) { return WalkBytesList(p, [&](std::string_view) { ++n; }); });
      break;
  }
  if (!s.ok()) return s;
  return n;
}

Status FeatureValues::AppendFloats(std::vector<float>* out) const {
  if (kind_ == FeatureKind::kNone) return OkStatus();
  if (kind_ != FeatureKind::kFloat) return WrongKind(kind_, "a float list");
  return ForEachPiece(
      [&](std::string_view p) { return WalkFloatList(p, [&](float v) { out->push_back(v); }); });
}

Status FeatureValues::AppendInt64s(std::vector<int64_t>* out) const {
  if (kind_ == FeatureKind::kNone) return OkStatus();
  if (kind_ != FeatureKind::kInt64) return WrongKind(kind_, "an int64 list");
  return ForEachPiece(
      [&](std::string_view p) { return WalkInt64List(p, [&](int64_t v) { out->push_back(v); }); });
}

Status FeatureValues::AppendBytes(std::vector<std::string_view>* out) const {
  if (kind_ == FeatureKind::kNone) return OkStatus();
  if (kind_ != FeatureKind::kBytes) return WrongKind(kind_, "a bytes list");
  return ForEachPiece([&](std::string_view p) {
    return WalkBytesList(p, [&](std::string_view v) { out->push_back(v); });
  });
}

namespace {
// Runs walk_all(visit) and stores the i-th value visited through store(i, v)
// while i < n, counting them all, so a feature with more values than the
// caller's buffer never writes past it. Fails unless there were exactly n.
template <typename WalkAll, typename Store>
Status CopyExactly(const char* what, int64_t n, WalkAll walk_all, Store store) {
  int64_t written = 0;
  TFHOST_RETURN_IF_ERROR(walk_all([&](auto v) {
    if (written < n) store(written, v);
    ++written;
  }));
  if (written != n) {
    return InvalidArgument(std::string("feature holds ") + std::to_string(written) + " " + what +
                           " values, expected " + std::to_string(n));
  }
  return OkStatus();
}
}  // namespace

Status FeatureValues::CopyFloats(float* out, int64_t n) const {
  if (kind_ != FeatureKind::kFloat && kind_ != FeatureKind::kNone) {
    return WrongKind(kind_, "a float list");
  }
  return CopyExactly(
      "float", n,
      [&](auto visit) {
        return ForEachPiece([&](std::string_view p) { return WalkFloatList(p, visit); });
      },
      [&](int64_t i, float v) { out[i] = v; });
}

Status FeatureValues::CopyInt64s(int64_t* out, int64_t n) const {
  if (kind_ != FeatureKind::kInt64 && kind_ != FeatureKind::kNone) {
    return WrongKind(kind_, "an int64 list");
  }
  return CopyExactly(
      "int64", n,
      [&](auto visit) {
        return ForEachPiece([&](std::string_view p) { return WalkInt64List(p, visit); });
      },
      [&](int64_t i, int64_t v) { out[i] = v; });
}

Status FeatureValues::CopyBytes(std::string* out, int64_t n) const {
  if (kind_ != FeatureKind::kBytes && kind_ != FeatureKind::kNone) {
    return WrongKind(kind_, "a bytes list");
  }
  return CopyExactly(
      "bytes", n,
      [&](auto visit) {
        return ForEachPiece([&](std::string_view p) { return WalkBytesList(p, visit); });
      },
      [&](int64_t i, std::string_view v) { out[i].assign(v.data(), v.size()); });
}

Status FeatureValues::MergeFeature(std::string_view feature_bytes) {
  WireReader r(feature_bytes);
  while (!r.done()) {
    uint32_t field, wire;
    if (!r.ReadTag(&field, &wire)) return InvalidArgument("malformed Feature");
    if (field >= 1 && field <= 3 && wire == kLengthDelimited) {
      std::string_view body;
      if (!r.ReadLengthDelimited(&body)) return InvalidArgument("malformed Feature");
      auto kind = static_cast<FeatureKind>(field);
      if (kind != kind_) {
        // Setting another member of a oneof clears the previous one.
        kind_ = kind;
        has_first_piece_ = false;
        more_pieces_.clear();
      }
      if (!has_first_piece_) {
        first_piece_ = body;
        has_first_piece_ = true;
      } else {
        more_pieces_.push_back(body);
      }
    } else if (!r.SkipField(field, wire)) {
      return InvalidArgument("malformed Feature");
    }
  }
  return OkStatus();
}

namespace {

// Decodes one Features.feature map entry (key = 1, value = 2).
Status DecodeMapEntry(std::string_view entry, int64_t example_index, DecodedFeature* out) {
  WireReader r(entry);
  out->key = std::string_view();
  out->values = FeatureValues();
  while (!r.done()) {
    uint32_t field, wire;
    if (!r.ReadTag(&field, &wire)) return Malformed(example_index, "Features map entry");
    if (field == 1 && wire == kLengthDelimited) {
      if (!r.ReadLengthDelimited(&out->key)) return Malformed(example_index, "feature key");
    } else if (field == 2 && wire == kLengthDelimited) {
      std::string_view value;
      if (!r.ReadLengthDelimited(&value)) return Malformed(example_index, "Feature");
      Status s = out->values.MergeFeature(value);
      if (!s.ok()) return Malformed(example_index, "Feature");
    } else if (!r.SkipField(field, wire)) {
      return Malformed(example_index, "Features map entry");
    }
  }
  return OkStatus();
}

}  // namespace

Status DecodeExample(std::string_view serialized, int64_t example_index,
                     std::vector<DecodedFeature>* features) {
  features->clear();
  WireReader example(serialized);
  while (!example.done()) {
    uint32_t field, wire;
    if (!example.ReadTag(&field, &wire)) return Malformed(example_index, "Example");
    if (field != 1 || wire != kLengthDelimited) {
      if (!example.SkipField(field, wire)) return Malformed(example_index, "Example");
      continue;
    }
    // Example.features; a second occurrence merges into the first.
    std::string_view features_bytes;
    if (!example.ReadLengthDelimited(&features_bytes)) return Malformed(example_index, "Example");
    WireReader fr(features_bytes);
    while (!fr.done()) {
      uint32_t f, w;
      if (!fr.ReadTag(&f, &w)) return Malformed(example_index, "Features");
      if (f == 1 && w == kLengthDelimited) {
        std::string_view entry;
        if (!fr.ReadLengthDelimited(&entry)) return Malformed(example_index, "Features");
        features->emplace_back();
        TFHOST_RETURN_IF_ERROR(DecodeMapEntry(entry, example_index, &features->back()));
      } else if (!fr.SkipField(f, w)) {
        return Malformed(example_index, "Features");
      }
    }
  }
  return OkStatus();
}

}  // namespace tfhost::ops::parsing
