#include "data/example.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <gtest/gtest.h>

#include "base/test_fixtures.h"
#include "data/schema.h"
#include "data/tfrecord_reader.h"
#include "tensorflow/core/example/example.pb.h"
#include "base/test_status.h"

namespace tfhost::data {
namespace {

Feature FromProto(const tensorflow::Feature& f) {
  switch (f.kind_case()) {
    case tensorflow::Feature::kInt64List:
      return Feature::Int64s({f.int64_list().value().begin(), f.int64_list().value().end()});
    case tensorflow::Feature::kFloatList:
      return Feature::Floats({f.float_list().value().begin(), f.float_list().value().end()});
    case tensorflow::Feature::kBytesList:
      return Feature::Bytes({f.bytes_list().value().begin(), f.bytes_list().value().end()});
    default:
      return Feature();
  }
}

FeatureMap FromProto(const tensorflow::Features& features) {
  FeatureMap out;
  for (const auto& [k, v] : features.feature()) out[k] = FromProto(v);
  return out;
}

std::string Deterministic(const google::protobuf::MessageLite& m) {
  std::string out;
  google::protobuf::io::StringOutputStream stream(&out);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  m.SerializeToCodedStream(&coded);
  coded.Trim();
  return out;
}

std::vector<std::string> FixtureFiles(const std::string& dir, const std::string& pattern, int n) {
  std::vector<std::string> files;
  for (int i = 0; i < n; ++i) {
    char name[128];
    std::snprintf(name, sizeof(name), pattern.c_str(), i);
    files.push_back(testing::FixturePath("data/tfx_chicago_taxi/" + dir + "/" + name));
  }
  return files;
}

std::vector<std::string> ExampleFixtureFiles() {
  auto files = FixtureFiles("Split-train", "data_tfrecord-%05d-of-00012.gz", 12);
  auto more = FixtureFiles("external_tfrecord", "data_tfrecord-%05d-of-00002.gz", 2);
  files.insert(files.end(), more.begin(), more.end());
  return files;
}

TEST(ExampleFixtureTest, FastDecoderAgreesWithLibprotobufOnEveryExampleFixtureRecord) {
  int64_t checked = 0;
  for (const std::string& path : ExampleFixtureFiles()) {
    TFHOST_REQUIRE_FIXTURE(path);
    auto records = ReadAllRecords(path);
    ASSERT_TRUE(records.ok()) << records.status().ToString();
    for (size_t i = 0; i < records->size(); ++i) {
      const std::string& bytes = (*records)[i];
      tensorflow::Example proto;
      ASSERT_TRUE(proto.ParseFromString(bytes)) << path << " #" << i;
      auto ours = DecodeExample(bytes, static_cast<int64_t>(i));
      ASSERT_TRUE(ours.ok()) << ours.status().ToString();
      ASSERT_EQ(ours->features, FromProto(proto.features())) << path << " #" << i;
      ASSERT_FALSE(HasFeatureLists(bytes));
      // Our encoder writes what libprotobuf's deterministic serializer writes.
      ASSERT_EQ(EncodeExample(*ours), Deterministic(proto)) << path << " #" << i;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 9909 + 15000);
}

TEST(ExampleFixtureTest, FastDecoderAgreesWithLibprotobufOnEverySequenceExampleFixtureRecord) {
  std::string path = testing::FixturePath("data/tfx_chicago_taxi/sequence/data_tfrecord-00000-of-00001.gz");
  TFHOST_REQUIRE_FIXTURE(path);
  auto records = ReadAllRecords(path);
  ASSERT_TRUE(records.ok());
  ASSERT_EQ(records->size(), 15000u);
  int64_t with_lists = 0;
  for (size_t i = 0; i < records->size(); ++i) {
    const std::string& bytes = (*records)[i];
    tensorflow::SequenceExample proto;
    ASSERT_TRUE(proto.ParseFromString(bytes)) << i;
    auto ours = DecodeSequenceExample(bytes, static_cast<int64_t>(i));
    ASSERT_TRUE(ours.ok()) << ours.status().ToString();
    ASSERT_EQ(ours->context, FromProto(proto.context())) << i;
    std::map<std::string, std::vector<Feature>> lists;
    for (const auto& [name, list] : proto.feature_lists().feature_list()) {
      for (const auto& f : list.feature()) lists[name].push_back(FromProto(f));
      if (list.feature().empty()) lists[name];
    }
    ASSERT_EQ(ours->feature_lists, lists) << i;
    ASSERT_EQ(HasFeatureLists(bytes), proto.has_feature_lists());
    with_lists += proto.has_feature_lists();
    if (proto.has_context() && proto.has_feature_lists()) {
      ASSERT_EQ(EncodeSequenceExample(*ours), Deterministic(proto)) << i;
    }
  }
  EXPECT_GT(with_lists, 0);
}

TEST(ExampleTest, EncodeThenDecodeRoundTripsEveryKindIncludingEmptyAndNone) {
  Example ex;
  ex.features["i"] = Feature::Int64s({0, -1, int64_t{1} << 62, INT64_MIN});
  ex.features["f"] = Feature::Floats({1.5f, -0.0f, std::numeric_limits<float>::infinity()});
  ex.features["b"] = Feature::Bytes({"", std::string("\0\xff", 2), "text"});
  ex.features["empty_float"] = Feature::Floats({});
  ex.features["none"] = Feature();
  std::string bytes = EncodeExample(ex);
  auto back = DecodeExample(bytes);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, ex);
  tensorflow::Example proto;
  ASSERT_TRUE(proto.ParseFromString(bytes));
  EXPECT_EQ(FromProto(proto.features()), ex.features);
  EXPECT_EQ(Deterministic(proto), bytes);
}

TEST(ExampleTest, SequenceExampleRoundTripsAndMatchesProtobuf) {
  SequenceExample se;
  se.context["id"] = Feature::Bytes({"abc"});
  se.feature_lists["tokens"] = {Feature::Int64s({1, 2}), Feature::Int64s({}), Feature::Int64s({3})};
  se.feature_lists["empty"] = {};
  std::string bytes = EncodeSequenceExample(se);
  EXPECT_TRUE(HasFeatureLists(bytes));
  auto back = DecodeSequenceExample(bytes);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, se);
  tensorflow::SequenceExample proto;
  ASSERT_TRUE(proto.ParseFromString(bytes));
  EXPECT_EQ(proto.feature_lists().feature_list().at("tokens").feature_size(), 3);
  EXPECT_EQ(Deterministic(proto), bytes);
}

TEST(ExampleTest, SequenceExampleRepeatedListKeyKeepsTheLastAndSplitValuesConcatenate) {
  // Two map entries for "a" (the second wins) and one entry whose FeatureList
  // value comes in two pieces (protobuf merges: features concatenate).
  tensorflow::SequenceExample first, second;
  (*first.mutable_feature_lists()->mutable_feature_list())["a"].add_feature()->mutable_int64_list()->add_value(1);
  (*second.mutable_feature_lists()->mutable_feature_list())["a"].add_feature()->mutable_int64_list()->add_value(2);
  std::string bytes = first.SerializeAsString() + second.SerializeAsString();
  tensorflow::SequenceExample merged;
  ASSERT_TRUE(merged.ParseFromString(bytes));
  auto ours = DecodeSequenceExample(bytes);
  ASSERT_TRUE(ours.ok());
  ASSERT_EQ(ours->feature_lists.at("a").size(), 1u);
  EXPECT_EQ(ours->feature_lists.at("a")[0].int64s, std::vector<int64_t>{2});
  EXPECT_EQ(merged.feature_lists().feature_list().at("a").feature(0).int64_list().value(0), 2);

  // entry: key "b", value FeatureList{[7]}, value FeatureList{[8]} -> [7], [8]
  tensorflow::FeatureList l1, l2;
  l1.add_feature()->mutable_int64_list()->add_value(7);
  l2.add_feature()->mutable_int64_list()->add_value(8);
  std::string entry = std::string("\x0a\x01") + "b";
  for (const auto* l : {&l1, &l2}) {
    std::string body = l->SerializeAsString();
    entry += '\x12';
    entry += static_cast<char>(body.size());
    entry += body;
  }
  std::string lists = std::string("\x0a") + static_cast<char>(entry.size()) + entry;
  std::string se = std::string("\x12") + static_cast<char>(lists.size()) + lists;
  ASSERT_TRUE(merged.ParseFromString(se));
  ours = DecodeSequenceExample(se);
  ASSERT_TRUE(ours.ok());
  ASSERT_EQ(ours->feature_lists.at("b").size(), 2u);
  EXPECT_EQ(merged.feature_lists().feature_list().at("b").feature_size(), 2);
}

TEST(ExampleTest, MalformedSequenceExampleIsAnErrorNamingTheIndex) {
  std::string bad = "\x12\x05\x0a\x03\x0a";  // feature_lists -> entry claims more bytes than exist
  auto r = DecodeSequenceExample(bad, 42);
  TFHOST_ASSERT_ERROR(r, StatusCode::kInvalidArgument,
                      "tf.train.SequenceExample context: could not parse serialized tf.train.Example at index 42:");
  for (size_t cut = 0; cut < 40; ++cut) {
    SequenceExample se;
    se.context["x"] = Feature::Floats({1, 2, 3});
    se.feature_lists["y"] = {Feature::Bytes({"hello"})};
    std::string bytes = EncodeSequenceExample(se);
    tensorflow::SequenceExample proto;
    std::string prefix = bytes.substr(0, std::min(cut, bytes.size()));
    EXPECT_EQ(DecodeSequenceExample(prefix).ok(), proto.ParseFromString(prefix)) << cut;
  }
}

TEST(SchemaTest, CountsPresenceValueCountsAndRanges) {
  SchemaBuilder b;
  Example a, c;
  a.features["x"] = Feature::Int64s({5, -2});
  a.features["s"] = Feature::Bytes({"q"});
  c.features["x"] = Feature::Int64s({9});
  c.features["f"] = Feature::Floats({0.5f, 1.5f, 2.5f});
  ASSERT_TRUE(b.Add(EncodeExample(a), 0).ok());
  ASSERT_TRUE(b.Add(EncodeExample(c), 1).ok());
  Schema s = b.Build();
  EXPECT_EQ(s.records, 2);
  EXPECT_EQ(s.kind, RecordKind::kExample);
  const FeatureSchema* x = s.Find("x");
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->kind, FeatureKind::kInt64);
  EXPECT_EQ(x->present, 2);
  EXPECT_EQ(x->min_values, 1);
  EXPECT_EQ(x->max_values, 2);
  EXPECT_EQ(x->min_value, -2);
  EXPECT_EQ(x->max_value, 9);
  EXPECT_EQ(s.Find("s")->present, 1);
  EXPECT_EQ(s.Find("f")->max_value, 2.5);
  auto kinds = ParseSchemaKinds(s.ToJson());
  ASSERT_TRUE(kinds.ok()) << kinds.status().ToString();
  EXPECT_EQ(kinds->at("x"), FeatureKind::kInt64);
  EXPECT_EQ(kinds->at("f"), FeatureKind::kFloat);
  EXPECT_EQ(kinds->at("s"), FeatureKind::kBytes);
}

TEST(SchemaTest, MixedKindsAndFeatureListsAreReported) {
  SchemaBuilder b1, b2;
  Example a, c;
  a.features["v"] = Feature::Int64s({1});
  c.features["v"] = Feature::Floats({1});
  ASSERT_TRUE(b1.Add(EncodeExample(a), 0).ok());
  SequenceExample se;
  se.context["v"] = Feature::Floats({1});
  se.feature_lists["steps"] = {Feature::Int64s({1, 2, 3}), Feature::Int64s({4})};
  ASSERT_TRUE(b2.Add(EncodeSequenceExample(se), 1).ok());
  b1.Merge(b2);
  Schema s = b1.Build();
  EXPECT_EQ(s.records, 2);
  EXPECT_EQ(s.kind, RecordKind::kSequenceExample);
  EXPECT_TRUE(s.Find("v")->mixed_kinds);
  const FeatureSchema* steps = s.Find("steps", true);
  ASSERT_NE(steps, nullptr);
  EXPECT_EQ(steps->min_steps, 2);
  EXPECT_EQ(steps->min_values, 1);
  EXPECT_EQ(steps->max_values, 3);
}

// int64 ranges are kept exactly (2^53 + 1 does not survive a double) through
// Merge too; a float on either side leaves only the numeric range.
TEST(SchemaTest, Int64RangesStayExactThroughMergeAndFloatsEndThem) {
  SchemaBuilder b1, b2;
  Example a, c;
  a.features["id"] = Feature::Int64s({17031832200});
  a.features["v"] = Feature::Int64s({3});
  c.features["id"] = Feature::Int64s({9007199254740993, -4});
  c.features["v"] = Feature::Floats({0.5f});
  ASSERT_TRUE(b1.Add(EncodeExample(a), 0).ok());
  ASSERT_TRUE(b2.Add(EncodeExample(c), 1).ok());
  b1.Merge(b2);
  Schema s = b1.Build();
  const FeatureSchema* id = s.Find("id");
  ASSERT_NE(id, nullptr);
  EXPECT_TRUE(id->int_range);
  EXPECT_EQ(id->min_int, -4);
  EXPECT_EQ(id->max_int, 9007199254740993);
  const FeatureSchema* v = s.Find("v");
  ASSERT_NE(v, nullptr);
  EXPECT_FALSE(v->int_range);
  EXPECT_EQ(v->min_value, 0.5);
  EXPECT_EQ(v->max_value, 3);
  EXPECT_NE(s.ToJson().find("\"min\":-4,\"max\":9007199254740993}"), std::string::npos) << s.ToJson();
}

TEST(SchemaTest, SplitTrainFixtureSchemaHasTaxiFeaturesWithPartialPresence) {
  std::string path = testing::FixturePath("data/tfx_chicago_taxi/Split-train/data_tfrecord-00000-of-00012.gz");
  TFHOST_REQUIRE_FIXTURE(path);
  auto records = ReadAllRecords(path);
  ASSERT_TRUE(records.ok());
  SchemaBuilder b;
  for (size_t i = 0; i < records->size(); ++i) ASSERT_TRUE(b.Add((*records)[i], static_cast<int64_t>(i)).ok());
  Schema s = b.Build();
  EXPECT_EQ(s.records, static_cast<int64_t>(records->size()));
  ASSERT_NE(s.Find("fare"), nullptr);
  EXPECT_EQ(s.Find("fare")->kind, FeatureKind::kFloat);
  ASSERT_NE(s.Find("company"), nullptr);
  EXPECT_EQ(s.Find("company")->kind, FeatureKind::kBytes);
  // "Some features empty in some records" (fixture README).
  bool some_empty = false;
  for (const auto& f : s.features) some_empty = some_empty || f.min_values == 0 || f.present < s.records;
  EXPECT_TRUE(some_empty);
}

}  // namespace
}  // namespace tfhost::data
