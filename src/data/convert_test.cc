#include "data/convert.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "base/test_fixtures.h"
#include "data/csv.h"
#include "data/example_json.h"
#include "data/schema.h"
#include "base/test_status.h"

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
  EXPECT_EQ(ShardName("p", 0, 1, Compression::kZlib), "p-00000-of-00001");
}

TEST(ConvertTest, GzipShardsEndInGzAndReadBackByMagicAndByName) {
  TempDir dir;
  std::string csv = dir.File("in.csv");
  WriteText(csv, "a\n1\n2\n3\n");
  ToTFRecordOptions to;
  to.shards = 2;
  to.compression = Compression::kGzip;
  auto out = ConvertToTFRecords({csv}, dir.File("g"), to);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->outputs, (std::vector<std::string>{dir.File("g-00000-of-00002.gz"), dir.File("g-00001-of-00002.gz")}));
  EXPECT_EQ(ReadText(out->outputs[0]).substr(0, 2), "\x1f\x8b");
  for (const auto& shard : out->outputs) {
    auto reader = TFRecordReader::Open(shard);
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    EXPECT_EQ((*reader)->compression(), Compression::kGzip);
  }
  EXPECT_EQ(AllRecords(out->outputs).size(), 3u);
  // A zlib shard has no agreed suffix; its header tells readers what it is.
  to.compression = Compression::kZlib;
  auto z = ConvertToTFRecords({csv}, dir.File("z"), to);
  ASSERT_TRUE(z.ok()) << z.status().ToString();
  EXPECT_EQ(z->outputs[0], dir.File("z-00000-of-00002"));
}

TEST(ConvertTest, ConvertingIntoMissingNestedDirectoriesCreatesThem) {
  TempDir dir;
  std::string csv = dir.File("in.csv");
  WriteText(csv, "a,b\n1,x\n");
  ToTFRecordOptions to;
  to.shards = 4;
  to.compression = Compression::kGzip;
  auto out = ConvertToTFRecords({csv}, dir.File("conv/nested/taxi"), to);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  for (const auto& shard : out->outputs) EXPECT_TRUE(fs::exists(shard)) << shard;
  EXPECT_EQ(out->outputs[3], dir.File("conv/nested/taxi-00003-of-00004.gz"));

  // The way back, too: text outputs and their schema sidecar.
  auto back = ConvertFromTFRecords(out->outputs, dir.File("text/again/back.csv"), TextFormat::kCsv, {});
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(ReadText(dir.File("text/again/back.csv")), "a,b\n1,x\n");
  EXPECT_TRUE(fs::exists(dir.File("text/again/back.csv.schema.json")));
  auto jsonl = ConvertFromTFRecords(out->outputs, dir.File("j/out.jsonl"), TextFormat::kJsonl, {});
  ASSERT_TRUE(jsonl.ok()) << jsonl.status().ToString();
}

TEST(ConvertTest, AnOutputParentThatIsARegularFileIsAnErrorNamingIt) {
  TempDir dir;
  std::string csv = dir.File("in.csv");
  WriteText(csv, "a\n1\n");
  WriteText(dir.File("conv"), "I am a file");
  auto out = ConvertToTFRecords({csv}, dir.File("conv/taxi"), {});
  TFHOST_ASSERT_ERROR(out, StatusCode::kFailedPrecondition, "exists and is not a directory");
  EXPECT_EQ(out.status().message(), "cannot create directory '" + dir.File("conv") + "' for '" +
                                        dir.File("conv/taxi-00000-of-00001") + "': '" + dir.File("conv") +
                                        "' exists and is not a directory");
  EXPECT_EQ(ReadText(dir.File("conv")), "I am a file");

  ASSERT_TRUE(WriteTFRecordFile(dir.File("r.tfrecord"), {EncodeExample(Example())}).ok());
  auto text = ConvertFromTFRecords({dir.File("r.tfrecord")}, dir.File("conv/sub/out.jsonl"), TextFormat::kJsonl, {});
  TFHOST_ASSERT_ERROR(text, StatusCode::kFailedPrecondition, "exists and is not a directory");
  EXPECT_NE(text.status().message().find("'" + dir.File("conv") + "' exists and is not a directory"),
            std::string::npos)
      << text.status().ToString();
}

TEST(ConvertTest, CsvWholeNumbersFloat32CannotHoldBecomeInt64AndOnlyAColumnWithFractionsWarns) {
  TempDir dir;
  std::string csv = dir.File("tracts.csv");
  // tract: whole numbers beyond float32's exact range, one with ".0";
  // secs: whole numbers with ".0" that float32 holds (stay float, as before);
  // n: plain small integers (int64, as before); mixed: a big whole number next
  // to a fraction (float: int64 cannot hold 0.5).
  WriteText(csv,
            "tract,secs,n,mixed\n"
            "17031832200.0,180.0,1,17031832200\n"
            "17031081500,60.0,2,0.5\n"
            ",,,\n");
  auto kinds = InferCsvKinds(csv, nullptr);
  ASSERT_TRUE(kinds.ok()) << kinds.status().ToString();
  EXPECT_EQ(kinds->kinds, (std::vector<FeatureKind>{FeatureKind::kInt64, FeatureKind::kFloat, FeatureKind::kInt64,
                                                    FeatureKind::kFloat}));
  // Only the mixed column loses a whole number, and says so.
  std::vector<std::string> warnings = {
      csv + ":2: column 'mixed' is float32 (it also holds fractions), and float32 cannot hold 17031832200 exactly "
            "(stored as 17031832576); give it \"bytes\" in --schema to keep the text"};
  EXPECT_EQ(kinds->warnings, warnings);

  auto out = ConvertToTFRecords({csv}, dir.File("o"), {});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(out->warnings, warnings);
  auto records = AllRecords(out->outputs);
  ASSERT_EQ(records.size(), 3u);
  auto r0 = *DecodeExample(records[0]);
  EXPECT_EQ(r0.features.at("tract"), Feature::Int64s({17031832200}));
  EXPECT_EQ(r0.features.at("secs"), Feature::Floats({180.0f}));
  EXPECT_EQ(r0.features.at("n"), Feature::Int64s({1}));
  auto r1 = *DecodeExample(records[1]);
  EXPECT_EQ(r1.features.at("tract"), Feature::Int64s({17031081500}));
  EXPECT_EQ(r1.features.at("mixed"), Feature::Floats({0.5f}));
}

TEST(ConvertTest, ASchemaForcingFloat32OnSuchIntegersWarnsNamingColumnAndFirstValue) {
  TempDir dir;
  std::string csv = dir.File("tracts.csv");
  // A fraction before the big whole number does not hide it.
  WriteText(csv, "census_tract,fare\n1.5,2.5\n17031832200,3\n17031081500.0,4\n");
  KindSchema schema = {{"census_tract", FeatureKind::kFloat}, {"fare", FeatureKind::kFloat}};
  ToTFRecordOptions to;
  to.schema = &schema;
  auto out = ConvertToTFRecords({csv}, dir.File("o"), to);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->warnings.size(), 1u);
  EXPECT_EQ(out->warnings[0], csv +
                                  ":3: column 'census_tract' is float32 by the schema, and float32 cannot hold "
                                  "17031832200 exactly (stored as 17031832576); use int64");
  // The schema still wins: the value is the float32 the warning names.
  auto records = AllRecords(out->outputs);
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(DecodeExample(records[1])->features.at("census_tract"), Feature::Floats({17031832576.0f}));
}

TEST(ConvertTest, IntegralTextIsAnIntegerWithAtMostAZeroFraction) {
  int64_t v = 0;
  EXPECT_TRUE(ParseIntegralText("17031832200.0", &v));
  EXPECT_EQ(v, 17031832200);
  EXPECT_TRUE(ParseIntegralText("-7.", &v));
  EXPECT_EQ(v, -7);
  EXPECT_TRUE(ParseIntegralText("+12.000", &v));
  EXPECT_EQ(v, 12);
  EXPECT_FALSE(ParseIntegralText("1.5", &v));
  EXPECT_FALSE(ParseIntegralText(".0", &v));
  EXPECT_FALSE(ParseIntegralText("-.0", &v));
  EXPECT_FALSE(ParseIntegralText("1e3", &v));
  EXPECT_FALSE(ParseIntegralText("99999999999999999999.0", &v));
  EXPECT_FALSE(ParseIntegralText("1.0x", &v));
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
  EXPECT_EQ(first->outputs[2], dir.File("taxi-00002-of-00003.gz"));
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

  // Row 26 of the CSV, the first with a census tract, is record 25: shard 1
  // (after shard 0's 3334 records), position 8. "17031832200.0" is a whole
  // number float32 would round to 17031832576, so the column is int64;
  // "22.0" and "900.0" are exact in float32 and stay float.
  // 6,12.25,10,1,1,1476579600,41.952822916,-87.65324399200001,41.920451512,-87.67995476799999,3.5,,17031832200.0,Credit Card,,900.0,22.0,3.0
  auto row26 = DecodeExample(records[3334 + 8]);
  ASSERT_TRUE(row26.ok());
  EXPECT_EQ(row26->features.at("dropoff_census_tract"), Feature::Int64s({17031832200}));
  EXPECT_EQ(row26->features.at("dropoff_community_area"), Feature::Floats({22.0f}));
  EXPECT_EQ(row26->features.at("trip_seconds"), Feature::Floats({900.0f}));

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
  TFHOST_EXPECT_ERROR(RecordFromJson("{"), StatusCode::kInvalidArgument,
                      "invalid JSON at character 1 (or nested deeper than 16)");
  TFHOST_EXPECT_ERROR(RecordFromJson("[1]"), StatusCode::kInvalidArgument, "a record must be a JSON object");
  TFHOST_EXPECT_ERROR(RecordFromJson(R"({"a": [1, "x"]})"), StatusCode::kInvalidArgument,
                      "feature 'a': mixes strings and numbers");
  TFHOST_EXPECT_ERROR(RecordFromJson(R"({"a": [[1]]})"), StatusCode::kInvalidArgument,
                      "feature 'a': a list may only hold numbers, strings or booleans");
  TFHOST_EXPECT_ERROR(RecordFromJson(R"({"a": 99999999999999999999})"), StatusCode::kInvalidArgument,
                      "feature 'a': '99999999999999999999' is not an int64");
  TFHOST_EXPECT_ERROR(RecordFromJson(R"({"a": 1} trailing)"), StatusCode::kInvalidArgument,
                      "trailing characters after the JSON object at character 9");
  std::string deep = "{\"a\":" + std::string(100000, '[') + std::string(100000, ']') + "}";
  TFHOST_EXPECT_ERROR(RecordFromJson(deep), StatusCode::kInvalidArgument,
                      "invalid JSON at character 21 (or nested deeper than 16)");
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
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument, "bad.csv:3: 1 fields, the header has 2");
  EXPECT_FALSE(fs::exists(dir.File("o-00000-of-00001")));  // nothing published on failure

  WriteText(csv, "a\n\"open\n");
  TFHOST_EXPECT_ERROR(ConvertToTFRecords({csv}, dir.File("o"), {}), StatusCode::kInvalidArgument,
                      "bad.csv:2: the file ends inside a quoted field");
  TFHOST_EXPECT_ERROR(ConvertToTFRecords({dir.File("x.parquet")}, dir.File("o"), {}), StatusCode::kInvalidArgument,
                      "x.parquet': expected .csv, .jsonl, .ndjson or .json");
}

TEST(ConvertTest, ListsCannotBecomeCsv) {
  TempDir dir;
  Example ex;
  ex.features["v"] = Feature::Int64s({1, 2});
  ASSERT_TRUE(WriteTFRecordFile(dir.File("l.tfrecord"), {EncodeExample(ex)}).ok());
  auto out = ConvertFromTFRecords({dir.File("l.tfrecord")}, dir.File("l.csv"), TextFormat::kCsv, {});
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "feature 'v' holds 2 values; a CSV cell holds exactly one (convert to JSON Lines instead)");
  EXPECT_FALSE(fs::exists(dir.File("l.csv")));
}

}  // namespace
}  // namespace tfhost::data
