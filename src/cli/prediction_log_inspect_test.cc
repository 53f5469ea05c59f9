#include "cli/prediction_log_inspect.h"

#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>

#include "data/example.h"
#include "data/tfrecord_writer.h"
#include "tensorflow_serving/apis/prediction_log.pb.h"

namespace tfhost::cli {

int DataCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

namespace {

namespace fs = std::filesystem;
namespace ts = tensorflow::serving;

std::string Log(const std::string& text) {
  ts::PredictionLog log;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &log)) << text;
  return log.SerializeAsString();
}

const char kPredict[] = R"(
  log_metadata { model_spec { name: "mnist" version { value: 3 } signature_name: "serving_default" } }
  predict_log { request { inputs { key: "image" value { dtype: DT_FLOAT tensor_shape { dim { size: 1 } dim { size: 784 } } } } } })";
const char kRegress[] = R"(
  log_metadata { model_spec { name: "mnist" version { value: 3 } signature_name: "regress" } }
  regress_log { request { input { example_list { examples {} examples {} } } } })";

TEST(PredictionLogInspectTest, TellsPredictionLogsFromExamples) {
  EXPECT_TRUE(LooksLikePredictionLog(Log(kPredict)));
  EXPECT_TRUE(LooksLikePredictionLog(Log(kRegress)));
  data::Example example;
  example.features["mnist"] = data::Feature::Floats({1.0f, 2.0f});
  example.features["label"] = data::Feature::Int64s({7});
  EXPECT_FALSE(LooksLikePredictionLog(data::EncodeExample(example)));
  EXPECT_FALSE(LooksLikePredictionLog(Log("log_metadata { model_spec { name: \"m\" } }")));  // no log type
  EXPECT_FALSE(LooksLikePredictionLog("not a proto \xff\xff"));
}

TEST(PredictionLogInspectTest, DataInspectSummarisesLogTypesAndModels) {
  std::string dir = (fs::temp_directory_path() / "tfhost_plog_inspect").string();
  fs::create_directories(dir);
  const std::string file = dir + "/requests.tfrecord";
  ASSERT_TRUE(data::WriteTFRecordFile(file, {Log(kPredict), Log(kPredict), Log(kRegress)}).ok());
  std::ostringstream out, err;
  ASSERT_EQ(DataCommand({"inspect", file, "--quiet"}, out, err), 0) << err.str();
  const std::string text = out.str();
  EXPECT_NE(text.find("3 records"), std::string::npos) << text;
  EXPECT_NE(text.find("kind PredictionLog\n\n"
                      "log type              records\n"
                      "predict_log                 2\n"
                      "regress_log                 1\n\n"
                      "model  version  signature        records  inputs (first record)\n"
                      "mnist        3  regress                1  2 tf.Example(s)\n"
                      "mnist        3  serving_default        2  image float [1,784]\n"),
            std::string::npos)
      << text;

  std::ostringstream json, head, err2;
  ASSERT_EQ(DataCommand({"inspect", file, "--json"}, json, err2), 0) << err2.str();
  EXPECT_NE(json.str().find("\"prediction_logs\":{\"kind\":\"prediction_log\",\"log_types\":{\"predict_log\":2,"
                            "\"regress_log\":1}"),
            std::string::npos)
      << json.str();
  ASSERT_EQ(DataCommand({"head", file, "-n", "1", "--json"}, head, err2), 0) << err2.str();
  EXPECT_EQ(head.str().rfind("{\"log_metadata\":{\"model_spec\":{\"name\":\"mnist\",\"version\":\"3\"", 0), 0u)
      << head.str();
  fs::remove_all(dir);
}

TEST(PredictionLogInspectTest, AnExampleAmongPredictionLogsIsDataLossNamingTheRecord) {
  PredictionLogSummary summary;
  ASSERT_TRUE(summary.Add(Log(kPredict), 0).ok());
  data::Example example;
  example.features["x"] = data::Feature::Floats({1.0f});
  Status s = summary.Add(data::EncodeExample(example), 1);
  EXPECT_EQ(s.code(), StatusCode::kDataLoss);
  EXPECT_NE(s.message().find("record 1 is not a tensorflow.serving.PredictionLog"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace tfhost::cli
