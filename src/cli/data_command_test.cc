#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/test_fixtures.h"
#include "cli/cli.h"
#include "data/example.h"
#include "data/tfrecord_reader.h"
#include "data/tfrecord_writer.h"

namespace tfhost::cli {

// Declared in cli.h too; repeated so this test does not depend on the table row.
int DataCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

namespace {

namespace fs = std::filesystem;

class TempDir {
 public:
  TempDir() {
    std::string templ = (fs::temp_directory_path() / "data_command_test_XXXXXX").string();
    path_ = ::mkdtemp(templ.data());
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

struct Result {
  int code;
  std::string out, err;
};

Result Data(std::vector<std::string> args) {
  std::ostringstream out, err;
  int code = DataCommand(args, out, err);
  return {code, out.str(), err.str()};
}

std::string SplitTrain(int i) {
  char name[96];
  std::snprintf(name, sizeof(name), "data/tfx_chicago_taxi/Split-train/data_tfrecord-%05d-of-00012.gz", i);
  return testing::FixturePath(name);
}

TEST(DataCommandTest, InspectCountsEveryFixtureShardAndInfersTheSchema) {
  TFHOST_REQUIRE_FIXTURE(SplitTrain(0));
  std::vector<std::string> args = {"inspect"};
  for (int i = 0; i < 12; ++i) args.push_back(SplitTrain(i));
  Result r = Data(args);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("total: 12 file(s), 9909 records"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fare"), std::string::npos);
  args.push_back("--json");
  r = Data(args);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\"records\":9909"), std::string::npos);
  EXPECT_NE(r.out.find("\"name\":\"company\",\"kind\":\"bytes\""), std::string::npos) << r.out;
}

TEST(DataCommandTest, InspectExpandsAQuotedGlob) {
  TFHOST_REQUIRE_FIXTURE(SplitTrain(0));
  Result r = Data({"inspect", testing::FixturePath("data/tfx_chicago_taxi/external_tfrecord/*.gz"), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\"records\":15000"), std::string::npos) << r.out;
}

// Census tracts and timestamps are int64s beyond what "%g" shows; the range
// must print them whole, and exactly above 2^53 where a double would round
// (9007199254740993 = 2^53 + 1). A feature that is also float somewhere keeps
// the numeric form.
TEST(DataCommandTest, InspectPrintsInt64RangesAsWholeIntegersInTextAndJson) {
  TempDir dir;
  data::Example a, b;
  a.features["id"] = data::Feature::Int64s({17031832200, -5});
  a.features["mixed"] = data::Feature::Int64s({7});
  a.features["score"] = data::Feature::Floats({0.5f});
  b.features["id"] = data::Feature::Int64s({9007199254740993});
  b.features["mixed"] = data::Feature::Floats({2.5f});
  ASSERT_TRUE(data::WriteTFRecordFile(dir.File("big.tfrecord"), {data::EncodeExample(a), data::EncodeExample(b)}).ok());

  Result r = Data({"inspect", dir.File("big.tfrecord"), "--quiet"});
  ASSERT_EQ(r.code, 0) << r.err;
  size_t table = r.out.find("\n\nfeature");
  ASSERT_NE(table, std::string::npos) << r.out;
  EXPECT_EQ(r.out.substr(table + 2),
            "feature  kind    presence  values/record  range\n"
            "id       int64     100.0%  1..2           [-5, 9007199254740993]\n"
            "mixed    int64*    100.0%  1..1           [2.5, 7]\n"
            "score    float      50.0%  1..1           [0.5, 0.5]\n"
            "(* the feature has different kinds in different records)\n");

  r = Data({"inspect", dir.File("big.tfrecord"), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\"name\":\"id\",\"kind\":\"int64\",\"present\":2,\"presence\":1.0,\"min_values\":1,"
                       "\"max_values\":2,\"min\":-5,\"max\":9007199254740993}"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("\"min\":2.5,\"max\":7.0}"), std::string::npos) << r.out;
}

TEST(DataCommandTest, HeadPrintsNRecordsAsJsonLines) {
  TFHOST_REQUIRE_FIXTURE(SplitTrain(0));
  Result r = Data({"head", SplitTrain(0), SplitTrain(1), "-n", "3", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 3);
  EXPECT_EQ(r.out.rfind("{\"", 0), 0u) << r.out;
  std::string seq = testing::FixturePath("data/tfx_chicago_taxi/sequence/data_tfrecord-00000-of-00001.gz");
  r = Data({"head", seq, "-n", "1"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("record 0"), std::string::npos);
}

TEST(DataCommandTest, VerifyPassesFixturesAndFailsListingTheBadRecord) {
  TFHOST_REQUIRE_FIXTURE(SplitTrain(0));
  Result ok = Data({"verify", SplitTrain(0), SplitTrain(5)});
  EXPECT_EQ(ok.code, 0) << ok.out << ok.err;
  EXPECT_NE(ok.out.find("OK: 2 file(s)"), std::string::npos) << ok.out;

  TempDir dir;
  std::string path = dir.File("bad.tfrecord");
  ASSERT_TRUE(data::WriteTFRecordFile(path, {"one", "two", "three"}).ok());
  {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(19 + 12 + 1);  // a data byte of record 1
    f.put('X');
  }
  Result bad = Data({"verify", path});
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.out.find("byte offset 19 (record index 1): bad data CRC"), std::string::npos) << bad.out;
  Result bad_json = Data({"verify", path, "--json"});
  EXPECT_EQ(bad_json.code, 1);
  EXPECT_NE(bad_json.out.find("\"record_index\":1"), std::string::npos) << bad_json.out;
  EXPECT_NE(bad_json.out.find("\"ok\":false"), std::string::npos);
}

TEST(DataCommandTest, ConvertCsvToShardsAndBackRoundTrips) {
  std::string csv = testing::FixturePath("data/tfx_chicago_taxi/external_csv/data.csv");
  TFHOST_REQUIRE_FIXTURE(csv);
  TempDir dir;
  Result r = Data({"convert", csv, "--out", dir.File("taxi"), "--shards", "4", "--compression", "zlib", "--quiet"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<std::string> shards;
  for (int i = 0; i < 4; ++i) shards.push_back(dir.File("taxi-0000" + std::to_string(i) + "-of-00004"));
  for (const auto& s : shards) ASSERT_TRUE(fs::exists(s)) << s;
  std::vector<std::string> args = {"convert"};
  args.insert(args.end(), shards.begin(), shards.end());
  args.insert(args.end(), {"--out", dir.File("back.csv"), "--json"});
  r = Data(args);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\"records\":10000"), std::string::npos) << r.out;
  r = Data({"convert", dir.File("back.csv"), "--out", dir.File("again"), "--schema", dir.File("back.csv.schema.json"),
            "--quiet"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::vector<std::string> first, second;
  for (const auto& s : shards) {
    auto rec = data::ReadAllRecords(s);
    ASSERT_TRUE(rec.ok());
    first.insert(first.end(), rec->begin(), rec->end());
  }
  second = *data::ReadAllRecords(dir.File("again-00000-of-00001"));
  EXPECT_EQ(first, second);
}

TEST(DataCommandTest, ConvertIntoAMissingFolderCreatesItAndNamesGzipShardsGz) {
  std::string csv = testing::FixturePath("data/tfx_chicago_taxi/external_csv/data.csv");
  TFHOST_REQUIRE_FIXTURE(csv);
  TempDir dir;
  // The docs' example, with conv/ (and a level below it) not there yet.
  Result r = Data({"convert", csv, "--out", dir.File("conv/x/taxi"), "--shards", "4", "--compression", "gzip"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  std::string expected = "wrote 10000 records to";
  for (int i = 0; i < 4; ++i) expected += " " + dir.File("conv/x/taxi-0000" + std::to_string(i) + "-of-00004.gz");
  EXPECT_EQ(r.out, expected + "\n");
  // Read back by name and by magic alike: inspect, head and convert to text.
  r = Data({"inspect", dir.File("conv/x/taxi-*"), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\"compression\":\"gzip\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"records\":10000"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"name\":\"dropoff_census_tract\",\"kind\":\"int64\""), std::string::npos) << r.out;
  r = Data({"convert", dir.File("conv/x/taxi-*"), "--out", dir.File("text/back.jsonl"), "--quiet"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir.File("text/back.jsonl")));
}

TEST(DataCommandTest, ConvertUnderARegularFileFailsNamingIt) {
  TempDir dir;
  std::ofstream(dir.File("in.csv")) << "a\n1\n";
  std::ofstream(dir.File("conv")) << "a file";
  Result r = Data({"convert", dir.File("in.csv"), "--out", dir.File("conv/taxi"), "--quiet"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "tfhost data convert: cannot create directory '" + dir.File("conv") + "' for '" +
                       dir.File("conv/taxi-00000-of-00001") + "': '" + dir.File("conv") +
                       "' exists and is not a directory\n");
}

TEST(DataCommandTest, ConvertWarnsWhenTheSchemaMakesLargeWholeNumbersFloat32) {
  TempDir dir;
  std::ofstream(dir.File("in.csv")) << "census_tract,n\n1,2\n17031832200,3\n";
  std::ofstream(dir.File("s.json")) << "{\"census_tract\": \"float\"}";
  Result r = Data({"convert", dir.File("in.csv"), "--out", dir.File("o"), "--schema", dir.File("s.json"), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::string warning = dir.File("in.csv") +
                        ":3: column 'census_tract' is float32 by the schema, and float32 cannot hold 17031832200 "
                        "exactly (stored as 17031832576); use int64";
  EXPECT_EQ(r.err, "tfhost data convert: warning: " + warning + "\n");
  EXPECT_NE(r.out.find("\"warnings\":[\"" + warning + "\"]"), std::string::npos) << r.out;
  // Without the schema the column is int64 and nothing is said.
  r = Data({"convert", dir.File("in.csv"), "--out", dir.File("p"), "--quiet"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
}

TEST(DataCommandTest, ConvertJsonLinesToTFRecordAndBack) {
  TempDir dir;
  std::string jsonl = dir.File("in.jsonl");
  std::ofstream(jsonl) << "{\"a\": 1, \"b\": [0.5, 2.0], \"s\": \"x\"}\n\n{\"a\": [2, 3]}\n";
  Result r = Data({"convert", jsonl, "--out", dir.File("j"), "--quiet"});
  ASSERT_EQ(r.code, 0) << r.err;
  r = Data({"convert", dir.File("j-00000-of-00001"), "--out", dir.File("out.jsonl"), "--quiet"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream f(dir.File("out.jsonl"));
  std::string text((std::istreambuf_iterator<char>(f)), {});
  EXPECT_EQ(text, "{\"a\":1,\"b\":[0.5,2.0],\"s\":\"x\"}\n{\"a\":[2,3]}\n");
}

TEST(DataCommandTest, ConvertImageFolderToShardsAndBackIsLossless) {
  TempDir dir;
  fs::create_directories(dir.File("imgs/cat"));
  fs::create_directories(dir.File("imgs/dog"));
  std::string png = std::string("\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR\0\0\0\x02\0\0\0\x03", 24) + "pixels";
  std::string gif = std::string("GIF89a\x04\0\x05\0", 10) + "more";
  std::ofstream(dir.File("imgs/cat/c1.png"), std::ios::binary) << png;
  std::ofstream(dir.File("imgs/dog/d1.gif"), std::ios::binary) << gif;
  Result r = Data({"convert", dir.File("imgs"), "--out", dir.File("img"), "--shards", "2", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\"records\":2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"classes\":[\"cat\",\"dog\"]"), std::string::npos) << r.out;
  r = Data({"head", dir.File("img-00000-of-00002"), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\"image/class/text\":\"cat\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"image/width\":2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"image/height\":3"), std::string::npos) << r.out;
  r = Data({"convert", dir.File("img-*"), "--out", dir.File("back"), "--format", "images", "--quiet"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto read = [](const std::string& p) {
    std::ifstream f(p, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(f)), {});
  };
  EXPECT_EQ(read(dir.File("back/cat/c1.png")), png);
  EXPECT_EQ(read(dir.File("back/dog/d1.gif")), gif);
  EXPECT_EQ(Data({"convert", dir.File("imgs"), dir.File("back"), "--out", dir.File("x")}).code, 2);
}

TEST(DataCommandTest, BenchReportsEveryModeWithRatios) {
  TFHOST_REQUIRE_FIXTURE(SplitTrain(0));
  Result r = Data({"bench", SplitTrain(0), SplitTrain(1), "--repeat", "1", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  for (const char* mode : {"raw read", "read+verify", "read+verify (mmap)", "read+verify (read-ahead)",
                           "read+verify+parse", "decode fast", "decode libprotobuf"}) {
    EXPECT_NE(r.out.find(mode), std::string::npos) << mode;
  }
  EXPECT_NE(r.out.find("\"fast_decoder_vs_libprotobuf\":"), std::string::npos);
  EXPECT_NE(r.out.find("\"verify_vs_raw_cpu\":"), std::string::npos);
  EXPECT_NE(r.out.find("\"verify_read_ahead_vs_raw\":"), std::string::npos);
  EXPECT_NE(r.out.find("\"reader_cpu_file_mb_per_s\":"), std::string::npos);
  EXPECT_NE(r.out.find("\"cpu_file_mb_per_s\":"), std::string::npos);
}

TEST(DataCommandTest, UsageErrorsExitTwo) {
  EXPECT_EQ(Data({}).code, 2);
  EXPECT_EQ(Data({"frobnicate"}).code, 2);
  EXPECT_EQ(Data({"inspect"}).code, 2);
  EXPECT_EQ(Data({"head", "x", "-n", "-1"}).code, 2);
  EXPECT_EQ(Data({"convert", "a.csv"}).code, 2);
  EXPECT_EQ(Data({"inspect", "/nonexistent.tfrecord"}).code, 1);
  EXPECT_EQ(Data({"inspect", "--help"}).code, 0);
}

}  // namespace
}  // namespace tfhost::cli
