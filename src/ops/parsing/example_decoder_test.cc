#include "ops/parsing/example_decoder.h"

#include <gtest/gtest.h>

#include <map>
#include <random>

#include "tensorflow/core/example/example.pb.h"
#include "base/test_status.h"

namespace tfhost::ops::parsing {
namespace {

// Decodes `bytes` and returns key -> last FeatureValues, as a map lookup would.
// The values are views into `bytes`, which must outlive them.
std::map<std::string, FeatureValues> DecodeToMap(const std::string& bytes) {
  std::vector<DecodedFeature> features;
  Status s = DecodeExample(bytes, 0, &features);
  EXPECT_TRUE(s.ok()) << s.ToString();
  std::map<std::string, FeatureValues> out;
  for (auto& f : features) out[std::string(f.key)] = f.values;
  return out;
}

// Checks that our decoder sees exactly what libprotobuf parses from `bytes`.
void ExpectMatchesProtobuf(const std::string& bytes) {
  tensorflow::Example expected;
  ASSERT_TRUE(expected.ParseFromString(bytes));
  auto got = DecodeToMap(bytes);
  ASSERT_EQ(got.size(), expected.features().feature().size());
  for (const auto& [key, feature] : expected.features().feature()) {
    ASSERT_TRUE(got.count(key)) << key;
    const FeatureValues& v = got[key];
    switch (feature.kind_case()) {
      case tensorflow::Feature::kFloatList: {
        ASSERT_EQ(v.kind(), FeatureKind::kFloat) << key;
        std::vector<float> values;
        ASSERT_TRUE(v.AppendFloats(&values).ok());
        std::vector<float> want(feature.float_list().value().begin(),
                                feature.float_list().value().end());
        EXPECT_EQ(values, want) << key;
        EXPECT_EQ(*v.Count(), static_cast<int64_t>(want.size()));
        break;
      }
      case tensorflow::Feature::kInt64List: {
        ASSERT_EQ(v.kind(), FeatureKind::kInt64) << key;
        std::vector<int64_t> values;
        ASSERT_TRUE(v.AppendInt64s(&values).ok());
        std::vector<int64_t> want(feature.int64_list().value().begin(),
                                  feature.int64_list().value().end());
        EXPECT_EQ(values, want) << key;
        EXPECT_EQ(*v.Count(), static_cast<int64_t>(want.size()));
        break;
      }
      case tensorflow::Feature::kBytesList: {
        ASSERT_EQ(v.kind(), FeatureKind::kBytes) << key;
        std::vector<std::string_view> values;
        ASSERT_TRUE(v.AppendBytes(&values).ok());
        std::vector<std::string_view> want(feature.bytes_list().value().begin(),
                                           feature.bytes_list().value().end());
        EXPECT_EQ(values, want) << key;
        EXPECT_EQ(*v.Count(), static_cast<int64_t>(want.size()));
        break;
      }
      default:
        EXPECT_EQ(v.kind(), FeatureKind::kNone) << key;
        EXPECT_EQ(*v.Count(), 0);
    }
  }
}

tensorflow::Example HandmadeExample() {
  tensorflow::Example ex;
  auto& fmap = *ex.mutable_features()->mutable_feature();
  fmap["x"].mutable_float_list()->add_value(2.0f);
  auto* floats = fmap["many_floats"].mutable_float_list();
  for (int i = 0; i < 100; ++i) floats->add_value(i * 0.25f - 3.0f);
  auto* ints = fmap["ids"].mutable_int64_list();
  ints->add_value(0);
  ints->add_value(-1);
  ints->add_value(int64_t{1} << 62);
  ints->add_value(INT64_MIN);
  auto* bytes = fmap["words"].mutable_bytes_list();
  bytes->add_value("hello");
  bytes->add_value("");
  bytes->add_value(std::string("\0\xff", 2));
  fmap["empty"];  // a Feature with no kind
  fmap["empty_floats"].mutable_float_list();
  return ex;
}

// Protobuf varint/tag helpers, for handmade encodings libprotobuf never writes.
std::string Varint(uint64_t v) {
  std::string s;
  while (v >= 0x80) {
    s.push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  s.push_back(static_cast<char>(v));
  return s;
}
std::string Tag(int field, int wire) { return Varint((field << 3) | wire); }
std::string Len(int field, const std::string& body) { return Tag(field, 2) + Varint(body.size()) + body; }
std::string Fixed32(float f) {
  std::string s(4, '\0');
  std::memcpy(s.data(), &f, 4);
  return s;
}
std::string Entry(const std::string& key, const std::string& feature) {
  return Len(1, Len(1, key) + Len(2, feature));
}

TEST(ExampleDecoderTest, MatchesProtobufOnHandmadeExample) {
  ExpectMatchesProtobuf(HandmadeExample().SerializeAsString());
}

TEST(ExampleDecoderTest, EmptyInputIsAnExampleWithoutFeatures) {
  ExpectMatchesProtobuf("");
  std::vector<DecodedFeature> features;
  ASSERT_TRUE(DecodeExample("", 0, &features).ok());
  EXPECT_TRUE(features.empty());
}

TEST(ExampleDecoderTest, AcceptsUnpackedFloatsAndInt64sMixedWithPacked) {
  // FloatList: one unpacked fixed32 value, then a packed run of two.
  std::string floats = Tag(1, 5) + Fixed32(1.5f) + Len(1, Fixed32(2.5f) + Fixed32(-3.0f));
  // Int64List: unpacked 7, packed [-2, 300].
  std::string ints = Tag(1, 0) + Varint(7) +
                     Len(1, Varint(static_cast<uint64_t>(int64_t{-2})) + Varint(300));
  std::string bytes = Len(1, Entry("f", Len(2, floats)) + Entry("i", Len(3, ints)));
  ExpectMatchesProtobuf(bytes);
  auto got = DecodeToMap(bytes);
  std::vector<float> f;
  ASSERT_TRUE(got["f"].AppendFloats(&f).ok());
  EXPECT_EQ(f, (std::vector<float>{1.5f, 2.5f, -3.0f}));
  std::vector<int64_t> i(3);
  ASSERT_TRUE(got["i"].CopyInt64s(i.data(), 3).ok());
  EXPECT_EQ(i, (std::vector<int64_t>{7, -2, 300}));
}

TEST(ExampleDecoderTest, RepeatedKeyKeepsLastValueAndSplitMessagesMerge) {
  // "k" twice (last wins); Features sent in two pieces (merge); a Feature whose
  // float_list comes in two pieces (values concatenate); a oneof switch from
  // int64 to float (earlier int64 values dropped); unknown fields everywhere.
  std::string feature_split = Len(3, Tag(1, 0) + Varint(5)) + Len(2, Tag(1, 5) + Fixed32(1.0f)) +
                              Len(2, Tag(1, 5) + Fixed32(2.0f)) + Tag(9, 0) + Varint(1);
  std::string piece1 = Entry("k", Len(2, Tag(1, 5) + Fixed32(9.0f))) + Tag(7, 5) + Fixed32(0);
  std::string piece2 = Entry("k", Len(1, Len(1, "last"))) + Entry("split", feature_split);
  std::string bytes = Len(1, piece1) + Tag(15, 1) + std::string(8, 'z') + Len(1, piece2) +
                      Tag(4, 3) + Tag(1, 0) + Varint(3) + Tag(4, 4);  // an unknown group
  ExpectMatchesProtobuf(bytes);
  auto got = DecodeToMap(bytes);
  EXPECT_EQ(got["k"].kind(), FeatureKind::kBytes);
  std::vector<float> split;
  ASSERT_TRUE(got["split"].AppendFloats(&split).ok());
  EXPECT_EQ(split, (std::vector<float>{1.0f, 2.0f}));
}

TEST(ExampleDecoderTest, CopyRefusesWrongCountOrKind) {
  std::string bytes = HandmadeExample().SerializeAsString();  // the views point into it
  auto got = DecodeToMap(bytes);
  std::vector<float> buf(1);
  TFHOST_EXPECT_ERROR(got["many_floats"].CopyFloats(buf.data(), 1), StatusCode::kInvalidArgument,
                      "feature holds 100 float values, expected 1");  // 100 values, room for 1
  EXPECT_TRUE(got["x"].CopyFloats(buf.data(), 1).ok());
  EXPECT_EQ(buf[0], 2.0f);
  std::vector<int64_t> ibuf(1);
  TFHOST_EXPECT_ERROR(got["x"].CopyInt64s(ibuf.data(), 1), StatusCode::kInvalidArgument,
                      "feature holds float values, expected an int64 list");
}

TEST(ExampleDecoderTest, MalformedBytesFailWithExampleIndexAndNeverCrash) {
  std::string good = HandmadeExample().SerializeAsString();
  std::vector<DecodedFeature> features;
  Status s = DecodeExample(good.substr(0, good.size() - 3), 7, &features);
  TFHOST_ASSERT_ERROR(s, StatusCode::kInvalidArgument,
                      "could not parse serialized tf.train.Example at index 7: malformed Example");

  // A packed float run whose length is not a multiple of 4.
  std::string bad_floats = Len(1, Entry("f", Len(2, Len(1, "abc"))));
  ASSERT_TRUE(DecodeExample(bad_floats, 0, &features).ok());  // lists decode lazily
  TFHOST_EXPECT_ERROR(features[0].values.Count(), StatusCode::kInvalidArgument, "malformed FloatList in a Feature");

  // Every truncation and single-byte corruption of a valid example either
  // decodes or fails cleanly (run under ASan to check the "never crash" part).
  std::mt19937 rng(42);
  for (size_t cut = 0; cut < good.size(); ++cut) {
    (void)DecodeExample(good.substr(0, cut), 0, &features);
  }
  for (int trial = 0; trial < 2000; ++trial) {
    std::string corrupt = good;
    corrupt[rng() % corrupt.size()] = static_cast<char>(rng());
    if (DecodeExample(corrupt, 0, &features).ok()) {
      for (auto& f : features) {
        auto n = f.values.Count();
        if (!n.ok()) continue;
        std::vector<float> fl;
        std::vector<int64_t> il;
        std::vector<std::string_view> bl;
        (void)f.values.AppendFloats(&fl);
        (void)f.values.AppendInt64s(&il);
        (void)f.values.AppendBytes(&bl);
        EXPECT_EQ(static_cast<int64_t>(fl.size() + il.size() + bl.size()), *n);
      }
    }
  }
}

TEST(ExampleDecoderTest, RejectsBadTagsAndOverlongVarints) {
  std::vector<DecodedFeature> features;
  TFHOST_EXPECT_ERROR(DecodeExample(std::string("\x00", 1), 0, &features), StatusCode::kInvalidArgument,
                      "could not parse serialized tf.train.Example at index 0: malformed Example");  // field 0
  TFHOST_EXPECT_ERROR(DecodeExample(Tag(1, 7), 0, &features), StatusCode::kInvalidArgument,
                      "could not parse serialized tf.train.Example at index 0: malformed Example");              // wire type 7
  TFHOST_EXPECT_ERROR(DecodeExample(Tag(2, 4), 0, &features), StatusCode::kInvalidArgument,
                      "could not parse serialized tf.train.Example at index 0: malformed Example");              // stray end-group
  TFHOST_EXPECT_ERROR(DecodeExample(std::string(11, '\xff'), 0, &features), StatusCode::kInvalidArgument,
                      "could not parse serialized tf.train.Example at index 0: malformed Example");
  TFHOST_EXPECT_ERROR(DecodeExample(Tag(1, 2) + Varint(1000) + "short", 0, &features), StatusCode::kInvalidArgument,
                      "could not parse serialized tf.train.Example at index 0: malformed Example");
}

}  // namespace
}  // namespace tfhost::ops::parsing
