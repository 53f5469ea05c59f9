#include "data/convert.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "base/test_fixtures.h"
#include "data/csv.h"
#include "data/example_json.h"
#include "data/schema.h"

namespace tfhost::data {
namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string templ = (fs::temp_directory_path() / "convert_test_XXXXXX").string();
    path_ = ::mkdtemp(templ.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

void WriteText(const std::string& path, const std::string& text) { std::ofstream(path, std::ios::binary) << text; }
std::string ReadText(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), {});
}

std::vector<std::string> AllRecords(const std::vector<std::string>& files) {
  std::vector<std::string> out;
  for (const auto& f : files) {
    auto r = ReadAllRecords(f);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (r.ok()) out.insert(out.end(), r->begin(), r->end());
  }
  return out;
}

TEST(ConvertTest, ShardNamesFollowTheTensorFlowConvention) {
  EXPECT_EQ(ShardName("out/train", 3, 8), "out/train-00003-of-00008");
  EXPECT_EQ(ShardName("p", 0, 1), "p-00000-of-00001");
}

TEST(ConvertTest, FixtureCsvRoundTripsThroughShardedGzipTFRecordsAndBack) {
  std::string csv = testing::FixturePath("data/tfx_chicago_taxi/external_csv/data.csv");
  TFHOST_REQUIRE_FIXTURE(csv);
  TempDir dir;
  ToTFRecordOptions to;
  to.shards = 3;
  to.compression = Compression::kGzip;
  auto first = ConvertToTFRecords({csv}, dir.File("taxi"), to);
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_EQ(first->records, 10000);
  ASSERT_EQ(first->outputs.size(), 3u);
  EXPECT_EQ(first->outputs[2], dir.File("taxi-00002-of-00003"));
  std::vector<std::string> records = AllRecords(first->outputs);
  ASSERT_EQ(records.size(), 10000u);

  // Row 1 of the CSV lands first in shard 0:
  // 10,5.85,10,1,2,1382319000,41.985015101,-87.804532006,,,0.0,,,Cash,Taxi Affiliation Services,180.0,,0.0
  auto row1 = DecodeExample(records[0]);
  ASSERT_TRUE(row1.ok());
  const FeatureMap& f = row1->features;
  EXPECT_EQ(f.at("pickup_community_area"), Feature::Int64s({10}));
  EXPECT_EQ(f.at("fare"), Feature::Floats({5.85f}));
  EXPECT_EQ(f.at("trip_start_timestamp"), Feature::Int64s({1382319000}));
  EXPECT_EQ(f.at("trip_seconds"), Feature::Floats({180.0f}));
  EXPECT_EQ(f.at("company"), Feature::Bytes({"Taxi Affiliation Services"}));
  EXPECT_EQ(f.count("dropoff_latitude"), 0u);  // empty cell -> absent
  EXPECT_EQ(f.count("pickup_census_tract"), 0u);

  // Back to CSV (with its kinds sidecar), then to TFRecord again: same records.
  FromTFRecordOptions from;
  auto back = ConvertFromTFRecords(first->outputs, dir.File("back.csv"), TextFormat::kCsv, from);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->records, 10000);
  auto kinds = ParseSchemaKinds(ReadText(dir.File("back.csv.schema.json")));
  ASSERT_TRUE(kinds.ok()) << kinds.status().ToString();
  ToTFRecordOptions again;
  again.schema = &*kinds;
  auto second = ConvertToTFRecords({dir.File("back.csv")}, dir.File("again"), again);
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  EXPECT_EQ(AllRecords(second->outputs), records);
}

TEST(ConvertTest, FixtureTFRecordsRoundTripThroughJsonLinesValueForValue) {
  std::vector<std::string> inputs = {
      testing::FixturePath("data/tfx_chicago_taxi/Split-train/data_tfrecord-00003-of-00012.gz"),
      testing::FixturePath("data/tfx_chicago_taxi/sequence/data_tfrecord-00000-of-00001.gz")};
  for (const auto& in : inputs) TFHOST_REQUIRE_FIXTURE(in);
  TempDir dir;
  auto jsonl = ConvertFromTFRecords(inputs, dir.File("all.jsonl"), TextFormat::kJsonl, {});
  ASSERT_TRUE(jsonl.ok()) << jsonl.status().ToString();
  auto back = ConvertToTFRecords({dir.File("all.jsonl")}, dir.File("rt"), {});
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  std::vector<std::string> original = AllRecords(inputs);
  std::vector<std::string> round = AllRecords(back->outputs);
  ASSERT_EQ(round.size(), original.size());
  for (size_t i = 0; i < original.size(); ++i) {
    if (HasFeatureLists(original[i])) {
      ASSERT_EQ(*DecodeSequenceExample(round[i]), *DecodeSequenceExample(original[i])) << i;
    } else {
      ASSERT_EQ(*DecodeExample(round[i]), *DecodeExample(original[i])) << i;
    }
  }
}

TEST(ConvertTest, JsonKeepsKindsForAwkwardValues) {
  Example ex;
  ex.features["bin"] = Feature::Bytes({std::string("\x00\xff\xfe", 3), "ok"});
  ex.features["text"] = Feature::Bytes({"quote \" backslash \\ newline \n tab \t \x01 é"});
  ex.features["empty_bytes"] = Feature::Bytes({""});
  ex.features["no_bytes"] = Feature::Bytes({});
  ex.features["nonfinite"] = Feature::Floats({std::nanf(""), INFINITY, -INFINITY, 1.0f});
  ex.features["whole_float"] = Feature::Floats({3.0f});
  ex.features["tiny"] = Feature::Floats({1e-45f, 3.4028235e38f, 0.1f, -0.0f});
  ex.features["ints"] = Feature::Int64s({INT64_MIN, INT64_MAX, 0});
  ex.features["no_ints"] = Feature::Int64s({});
  ex.features["kindless"] = Feature();
  std::string json = ExampleToJson(ex);
  auto back = RecordFromJson(json);
  ASSERT_TRUE(back.ok()) << back.status().ToString() << "\n" << json;
  EXPECT_FALSE(back->is_sequence);
  EXPECT_EQ(back->example, ex) << json;
  EXPECT_NE(json.find("\"whole_float\":3.0"), std::string::npos) << json;
}

TEST(ConvertTest, PlainJsonInfersKindsAndSchemaOverridesThem) {
  auto r = RecordFromJson(R"({"a": 1, "b": [1, 2.5], "c": "x", "d": null, "e": [true, false], "f": []})");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const FeatureMap& f = r->example.features;
  EXPECT_EQ(f.at("a"), Feature::Int64s({1}));
  EXPECT_EQ(f.at("b"), Feature::Floats({1.0f, 2.5f}));
  EXPECT_EQ(f.at("c"), Feature::Bytes({"x"}));
  EXPECT_EQ(f.count("d"), 0u);
  EXPECT_EQ(f.at("e"), Feature::Int64s({1, 0}));
  EXPECT_EQ(f.at("f").kind, FeatureKind::kNone);

  KindSchema schema = {{"a", FeatureKind::kFloat}, {"c", FeatureKind::kBytes}, {"n", FeatureKind::kInt64}};
  auto s = RecordFromJson(R"({"a": 1, "c": 7, "n": "42"})", &schema);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->example.features.at("a"), Feature::Floats({1.0f}));
  EXPECT_EQ(s->example.features.at("c"), Feature::Bytes({"7"}));
  EXPECT_EQ(s->example.features.at("n"), Feature::Int64s({42}));
}

TEST(ConvertTest, BadJsonIsAnErrorNamingTheProblem) {
  EXPECT_FALSE(RecordFromJson("{").ok());
  EXPECT_FALSE(RecordFromJson("[1]").ok());
  EXPECT_FALSE(RecordFromJson(R"({"a": [1, "x"]})").ok());
  EXPECT_FALSE(RecordFromJson(R"({"a": [[1]]})").ok());
  EXPECT_FALSE(RecordFromJson(R"({"a": 99999999999999999999})").ok());
  EXPECT_FALSE(RecordFromJson(R"({"a": 1} trailing)").ok());
  std::string deep = "{\"a\":" + std::string(100000, '[') + std::string(100000, ']') + "}";
  EXPECT_FALSE(RecordFromJson(deep).ok());
  auto e = RecordFromJson(R"({"price": [1, "x"]})");
  EXPECT_NE(e.status().message().find("price"), std::string::npos);
}

TEST(ConvertTest, SequenceExampleJsonRoundTrips) {
  SequenceExample se;
  se.context["id"] = Feature::Bytes({"u1"});
  se.feature_lists["clicks"] = {Feature::Int64s({1}), Feature::Int64s({2, 3}), Feature::Int64s({})};
  se.feature_lists["score"] = {Feature::Floats({0.5f})};
  auto back = RecordFromJson(SequenceExampleToJson(se));
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  ASSERT_TRUE(back->is_sequence);
  EXPECT_EQ(back->sequence, se) << SequenceExampleToJson(se);
}

TEST(ConvertTest, CsvQuotingEmptyCellsAndQuotedEmptyStrings) {
  TempDir dir;
  std::string csv = dir.File("in.csv");
  WriteText(csv, "name,n,x\r\n\"Smith, J\",1,\n\"multi\nline \"\"q\"\"\",,2.5\n\"\",3,1\n");
  auto out = ConvertToTFRecords({csv}, dir.File("o"), {});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  auto records = AllRecords(out->outputs);
  ASSERT_EQ(records.size(), 3u);
  auto r0 = *DecodeExample(records[0]);
  EXPECT_EQ(r0.features.at("name"), Feature::Bytes({"Smith, J"}));
  EXPECT_EQ(r0.features.at("n"), Feature::Int64s({1}));
  EXPECT_EQ(r0.features.count("x"), 0u);
  auto r1 = *DecodeExample(records[1]);
  EXPECT_EQ(r1.features.at("name"), Feature::Bytes({"multi\nline \"q\""}));
  EXPECT_EQ(r1.features.count("n"), 0u);
  EXPECT_EQ(r1.features.at("x"), Feature::Floats({2.5f}));  // the column has a non-integer: float
  auto r2 = *DecodeExample(records[2]);
  EXPECT_EQ(r2.features.at("name"), Feature::Bytes({""}));
  EXPECT_EQ(r2.features.at("x"), Feature::Floats({1.0f}));

  auto back = ConvertFromTFRecords(out->outputs, dir.File("back.csv"), TextFormat::kCsv, {});
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(ReadText(dir.File("back.csv")),
            "n,name,x\n1,\"Smith, J\",\n,\"multi\nline \"\"q\"\"\",2.5\n3,\"\",1.0\n");
}

TEST(ConvertTest, CsvErrorsNameFileAndLine) {
  TempDir dir;
  std::string csv = dir.File("bad.csv");
  WriteText(csv, "a,b\n1,2\n3\n");
  auto out = ConvertToTFRecords({csv}, dir.File("o"), {});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("bad.csv:3"), std::string::npos) << out.status().message();
  EXPECT_FALSE(fs::exists(dir.File("o-00000-of-00001")));  // nothing published on failure

  WriteText(csv, "a\n\"open\n");
  EXPECT_FALSE(ConvertToTFRecords({csv}, dir.File("o"), {}).ok());
  EXPECT_FALSE(ConvertToTFRecords({dir.File("x.parquet")}, dir.File("o"), {}).ok());
}

TEST(ConvertTest, ListsCannotBecomeCsv) {
  TempDir dir;
  Example ex;
  ex.features["v"] = Feature::Int64s({1, 2});
  ASSERT_TRUE(WriteTFRecordFile(dir.File("l.tfrecord"), {EncodeExample(ex)}).ok());
  auto out = ConvertFromTFRecords({dir.File("l.tfrecord")}, dir.File("l.csv"), TextFormat::kCsv, {});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("JSON Lines"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir.File("l.csv")));
}

}  // namespace
}  // namespace tfhost::data
