#include "serving/rest/rest_api_handler.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

#include <unistd.h>

#include "base/test_fixtures.h"
#include "base/test_tfserving_models.h"
#include "loaders/savedmodel/demo_models.h"
#include "serving/server_core.h"

namespace tfhost::serving {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// TF Serving's test models: the shared fixtures' copies, else the zoo's equivalents.
std::string ModelDir(const std::string& model_dir) { return testing::TfServingModelPath(model_dir); }

std::unique_ptr<ServerCore> MakeCore(const ModelServerConfig& config) {
  ServerCoreOptions options;
  options.model_server_config = config;
  options.manager.file_system_poll_wait_seconds = 0;
  options.manager.max_num_load_retries = 0;
  auto core = ServerCore::Create(std::move(options));
  EXPECT_TRUE(core.ok()) << core.status().ToString();
  return core.ok() ? std::move(*core) : nullptr;
}

// One core per (model dir, served name), shared by the tests of this file.
ServerCore* CoreFor(const std::string& model_dir, const std::string& served_as) {
  static std::mutex mu;
  static auto* cores = new std::map<std::string, std::unique_ptr<ServerCore>>();
  std::lock_guard<std::mutex> lock(mu);
  auto& core = (*cores)[model_dir + "|" + served_as];
  if (!core) core = MakeCore(SingleModelConfig(served_as, ModelDir(model_dir)));
  return core.get();
}

std::string Compact(const rapidjson::Value& v) {
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  v.Accept(writer);
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::string WithoutSpaces(const std::string& s) {
  std::string out;
  bool in_string = false;
  for (size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (c == '"' && (i == 0 || s[i - 1] != '\\')) in_string = !in_string;
    if (!in_string && (c == ' ' || c == '\n')) continue;
    out.push_back(c);
  }
  return out;
}

// The TF2 metadata fixture omits "defaults" for __saved_model_init_op while
// printing "defaults": {} everywhere else; an empty map is the same thing.
void DropEmptyDefaults(rapidjson::Value& v) {
  if (v.IsObject()) {
    auto it = v.FindMember("defaults");
    if (it != v.MemberEnd() && it->value.IsObject() && it->value.MemberCount() == 0) v.RemoveMember(it);
    for (auto m = v.MemberBegin(); m != v.MemberEnd(); ++m) DropEmptyDefaults(m->value);
  } else if (v.IsArray()) {
    for (auto& item : v.GetArray()) DropEmptyDefaults(item);
  }
}

TEST(RestApiHandlerTest, EveryCaseOfRestCasesJsonMatches) {
  std::string cases_path = testing::FixturePath("tfserving-configs/derived/rest_cases.json");
  TFHOST_REQUIRE_FIXTURE(cases_path);
  rapidjson::Document doc;
  doc.Parse(ReadFile(cases_path).c_str());
  ASSERT_FALSE(doc.HasParseError());
  const auto& cases = doc["cases"];
  ASSERT_GE(cases.Size(), 25u);
  int checked = 0;
  for (const auto& c : cases.GetArray()) {
    std::string model_dir = c["model_dir"].GetString();
    std::string served_as = c["served_as"].GetString();
    std::string method = c["http_method"].GetString();
    std::string path = c["path"].GetString();
    SCOPED_TRACE(method + " " + path + " on " + model_dir + " (" + c["basis"].GetString() + ")");
    ServerCore* core = CoreFor(model_dir, served_as);
    ASSERT_NE(core, nullptr);
    RestApiHandler handler(core, RestApiOptions{});
    std::string body;
    if (c["request"].IsString()) {
      body = c["request"].GetString();
    } else if (!c["request"].IsNull()) {
      body = Compact(c["request"]);
    }
    RestResponse r = handler.Handle(method, path, body);
    EXPECT_EQ(r.status, c["expected_http_status"].GetInt()) << r.body;
    rapidjson::Document got;
    got.Parse<rapidjson::kParseNanAndInfFlag>(r.body.c_str());
    ASSERT_FALSE(got.HasParseError()) << r.body;
    const auto& expected = c["expected_response"];
    if (expected.HasMember("error_contains")) {
      ASSERT_TRUE(got.HasMember("error")) << r.body;
      EXPECT_NE(std::string(got["error"].GetString()).find(expected["error_contains"].GetString()),
                std::string::npos)
          << r.body;
    } else if (expected.HasMember("$file")) {
      std::string file = testing::FixturePath(std::string("tfserving-configs/derived/") + expected["$file"].GetString());
      rapidjson::Document want;
      want.Parse(ReadFile(file).c_str());
      ASSERT_FALSE(want.HasParseError()) << file;
      // The fixture was captured with the model served as "default".
      want["model_spec"]["name"].SetString(served_as.c_str(), want.GetAllocator());
      DropEmptyDefaults(want);
      DropEmptyDefaults(got);
      EXPECT_TRUE(got == want) << "got:\n" << r.body << "\nwant:\n" << Compact(want);
    } else {
      EXPECT_TRUE(got == expected) << "got:  " << r.body << "\nwant: " << Compact(expected);
      // Byte for byte apart from spaces: same number formatting ("3.0").
      EXPECT_EQ(WithoutSpaces(r.body), Compact(expected));
    }
    ++checked;
  }
  EXPECT_EQ(checked, static_cast<int>(cases.Size()));
}

// This fixture was captured with version 123 served. (The TF2 metadata
// fixture belongs to a TF2 two-version model that is not among the fixture
// models: saved_model_half_plus_two_tf2_cpu has a non-empty "defaults" for
// serving_default, which that capture lacks.)
TEST(RestApiHandlerTest, MetadataMatchesTheTwoVersionFixture) {
  for (const auto& [model_dir, file] : std::vector<std::pair<std::string, std::string>>{
           {"saved_model_half_plus_two_2_versions", "saved_model_half_plus_two_2_versions_metadata.json"},
       }) {
    SCOPED_TRACE(model_dir);
    TFHOST_REQUIRE_TFSERVING_MODEL(ModelDir(model_dir));
    const std::string want_path = testing::FixturePath("tfserving-configs/" + file);
    TFHOST_REQUIRE_FIXTURE(want_path);
    ModelServerConfig config;
    auto* m = config.mutable_model_config_list()->add_config();
    m->set_name("saved_model_half_plus_two_2_versions");
    m->set_base_path(ModelDir(model_dir));
    m->mutable_model_version_policy()->mutable_specific()->add_versions(123);
    auto core = MakeCore(config);
    ASSERT_NE(core, nullptr);
    RestApiHandler handler(core.get(), RestApiOptions{});
    RestResponse r = handler.Handle("GET", "/v1/models/saved_model_half_plus_two_2_versions/metadata", "");
    ASSERT_EQ(r.status, 200) << r.body;
    rapidjson::Document got, want;
    got.Parse(r.body.c_str());
    want.Parse(ReadFile(want_path).c_str());
    ASSERT_FALSE(want.HasParseError());
    DropEmptyDefaults(got);
    DropEmptyDefaults(want);
    EXPECT_TRUE(got == want) << r.body;
  }
}

class HalfPlusTwoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    TFHOST_REQUIRE_TFSERVING_MODEL(ModelDir("saved_model_half_plus_two_cpu"));
    core_ = CoreFor("saved_model_half_plus_two_cpu", "default");
    ASSERT_NE(core_, nullptr);
  }
  ServerCore* core_ = nullptr;
};

TEST_F(HalfPlusTwoTest, PathsAreCaseInsensitiveButModelNamesAreNot) {
  RestApiHandler handler(core_, RestApiOptions{});
  RestResponse r = handler.Handle("POST", "/V1/Models/default/VERSIONS/123:PREDICT", R"({"instances": [2.0]})");
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body, R"({"predictions": [3.0]})");
  EXPECT_EQ(handler.Handle("GET", "/v1/MODELS/default/Metadata", "").status, 200);
  EXPECT_EQ(handler.Handle("GET", "/v1/models/DEFAULT", "").status, 404);
}

TEST_F(HalfPlusTwoTest, ColumnarRequestsGetColumnarOutputs) {
  RestApiHandler handler(core_, RestApiOptions{});
  RestResponse r = handler.Handle("POST", "/v1/models/default:predict", R"({"inputs": {"x": [[1.0], [2.0]]}})");
  EXPECT_EQ(r.status, 200) << r.body;
  EXPECT_EQ(r.body, R"({"outputs": [[2.5],[3.0]]})");
}

TEST_F(HalfPlusTwoTest, MalformedRoutesAndWrongMethodsAre400) {
  RestApiHandler handler(core_, RestApiOptions{});
  for (const auto& [method, path] : std::vector<std::pair<std::string, std::string>>{
           {"GET", "/v1/models/default:predict"},
           {"POST", "/v1/models/default"},
           {"POST", "/v1/models/default:frobnicate"},
           {"GET", "/v1/models/default/versions/abc"},
           {"GET", "/v1/models/default/versions/99999999999999999999999"},
           {"GET", "/v1/models/default/extra/metadata"},
           {"GET", "/v1/models//metadata"},
       }) {
    RestResponse r = handler.Handle(method, path, "{}");
    EXPECT_EQ(r.status, 400) << method << " " << path << ": " << r.body;
    EXPECT_NE(r.body.find("Malformed request"), std::string::npos) << r.body;
  }
}

TEST_F(HalfPlusTwoTest, UnknownVersionIs404AndModelNamesNeverReachTheFileSystem) {
  RestApiHandler handler(core_, RestApiOptions{});
  RestResponse r = handler.Handle("GET", "/v1/models/default/versions/7", "");
  EXPECT_EQ(r.status, 404) << r.body;
  for (std::string name : {"..", "...", "%2e%2e", "~root", "default%2F..%2F.."}) {
    RestResponse p = handler.Handle("POST", "/v1/models/" + name + ":predict", R"({"instances": [1.0]})");
    EXPECT_EQ(p.status, 404) << name << ": " << p.body;
    EXPECT_NE(p.body.find("Servable not found"), std::string::npos) << p.body;
  }
}

TEST_F(HalfPlusTwoTest, ListModelsHealthAndReadiness) {
  RestApiHandler handler(core_, RestApiOptions{});
  RestResponse list = handler.Handle("GET", "/v1/models", "");
  EXPECT_EQ(list.status, 200);
  EXPECT_EQ(list.body,
            R"({"models": [{"name": "default", "model_version_status": [{"version": "123", "state": "AVAILABLE", )"
            R"("status": {"error_code": "OK", "error_message": ""}}], "version_labels": {}}]})");
  EXPECT_EQ(handler.Handle("GET", "/healthz", "").status, 200);
  EXPECT_EQ(handler.Handle("GET", "/readyz", "").status, 200);
  handler.SetDraining(true);
  EXPECT_EQ(handler.Handle("GET", "/readyz", "").status, 503);
  EXPECT_EQ(handler.Handle("GET", "/healthz", "").status, 200);
}

TEST_F(HalfPlusTwoTest, MetricsAreServedOnlyAtTheConfiguredPath) {
  RestApiHandler handler(core_, RestApiOptions{"/custom/metrics"});
  ASSERT_EQ(handler.Handle("POST", "/v1/models/default:predict", R"({"instances": [1.0]})").status, 200);
  RestResponse m = handler.Handle("GET", "/custom/metrics", "");
  EXPECT_EQ(m.status, 200);
  EXPECT_NE(m.content_type.find("text/plain"), std::string::npos);
  EXPECT_NE(m.body.find(":tensorflow:serving:request_count"), std::string::npos) << m.body.substr(0, 2000);
  EXPECT_EQ(handler.Handle("GET", "/monitoring/prometheus/metrics", "").status, 404);
  RestApiHandler off(core_, RestApiOptions{""});
  EXPECT_EQ(off.Handle("GET", "/monitoring/prometheus/metrics", "").status, 404);
}

TEST(RestApiHandlerTest, VersionLabelsAndSpecificVersions) {
  std::string dir = ModelDir("saved_model_half_plus_two_2_versions");
  TFHOST_REQUIRE_TFSERVING_MODEL(dir);
  ModelServerConfig config;
  auto* m = config.mutable_model_config_list()->add_config();
  m->set_name("hp2");
  m->set_base_path(dir);
  m->set_model_platform("tensorflow");
  m->mutable_model_version_policy()->mutable_specific()->add_versions(123);
  m->mutable_model_version_policy()->mutable_specific()->add_versions(124);
  (*m->mutable_version_labels())["stable"] = 123;
  (*m->mutable_version_labels())["canary"] = 124;
  auto core = MakeCore(config);
  ASSERT_NE(core, nullptr);
  RestApiHandler handler(core.get(), RestApiOptions{});
  RestResponse status = handler.Handle("GET", "/v1/models/hp2/labels/stable", "");
  EXPECT_EQ(status.status, 200) << status.body;
  EXPECT_NE(status.body.find("\"123\""), std::string::npos) << status.body;
  RestResponse all = handler.Handle("GET", "/v1/models/hp2", "");
  EXPECT_NE(all.body.find("\"124\""), std::string::npos) << all.body;
  EXPECT_NE(all.body.find("\"123\""), std::string::npos) << all.body;
  EXPECT_EQ(handler.Handle("POST", "/v1/models/hp2/labels/canary:predict", R"({"instances": [[1.0]]})").status, 200);
  EXPECT_EQ(handler.Handle("POST", "/v1/models/hp2/versions/124:predict", R"({"instances": [[1.0]]})").status, 200);
  RestResponse list = handler.Handle("GET", "/v1/models", "");
  EXPECT_NE(list.body.find(R"("canary": "124")"), std::string::npos) << list.body;
}

TEST(RestApiHandlerTest, HttpStatusMappingFollowsTfServing) {
  EXPECT_EQ(HttpStatusForCode(StatusCode::kOk), 200);
  EXPECT_EQ(HttpStatusForCode(StatusCode::kInvalidArgument), 400);
  EXPECT_EQ(HttpStatusForCode(StatusCode::kFailedPrecondition), 400);
  EXPECT_EQ(HttpStatusForCode(StatusCode::kNotFound), 404);
  EXPECT_EQ(HttpStatusForCode(StatusCode::kUnavailable), 503);
  EXPECT_EQ(HttpStatusForCode(StatusCode::kDeadlineExceeded), 504);
  EXPECT_EQ(HttpStatusForCode(StatusCode::kResourceExhausted), 429);
  EXPECT_EQ(HttpStatusForCode(StatusCode::kUnimplemented), 501);
  EXPECT_EQ(HttpStatusForCode(StatusCode::kInternal), 500);
  EXPECT_EQ(HttpStatusForCode(StatusCode::kCancelled), 499);
}

// The demo cnn (x [-1,8,8,1], Conv2D first) sent a rank-2 input: the graph
// refuses it, and the answer names the signature input and both shapes
// before the inner node's error. Shapes the graph takes are still served
// (TF Serving does not check them against the signature either).
TEST(RestApiHandlerDemoTest, WrongInputShapeIs400NamingTheInputAndTheDeclaredShape) {
  const std::string dir = (std::filesystem::temp_directory_path() / ("rest_demo_" + std::to_string(::getpid()))).string();
  ASSERT_TRUE(loaders::WriteDemoModels(dir).ok());
  auto core = MakeCore(SingleModelConfig("cnn", dir + "/cnn"));
  ASSERT_NE(core, nullptr);
  RestApiHandler handler(core.get(), RestApiOptions{});
  RestResponse bad = handler.Handle("POST", "/v1/models/cnn:predict", R"({"instances": [[1.0, 2.0, 3.0]]})");
  EXPECT_EQ(bad.status, 400) << bad.body;
  EXPECT_NE(bad.body.find("signature 'serving_default': input 'x' has shape [1,3] but the signature declares "
                          "[?,8,8,1] (the model failed on it: "),
            std::string::npos)
      << bad.body;
  std::string row = "[", image = "[";  // [8,8,1] of 0.5
  for (int i = 0; i < 8; ++i) row += std::string(i ? "," : "") + "[0.5]";
  row += "]";
  for (int i = 0; i < 8; ++i) image += (i ? "," : "") + row;
  image += "]";
  RestResponse good = handler.Handle("POST", "/v1/models/cnn:predict", R"({"instances": [)" + image + "]}");
  EXPECT_EQ(good.status, 200) << good.body << " for " << image;
  std::filesystem::remove_all(dir);
}

// The single-model status and the model list are written by one writer: the
// same spacing and the same fields for each version, so that a client (or a
// person reading curl output) sees one shape. Both bodies are checked whole.
TEST(RestApiHandlerDemoTest, ModelStatusAndModelListShareOneVersionStatusLayout) {
  const std::string dir =
      (std::filesystem::temp_directory_path() / ("rest_demo_list_" + std::to_string(::getpid()))).string();
  ASSERT_TRUE(loaders::WriteDemoModels(dir).ok());
  ModelServerConfig config;
  for (const char* name : {"half_plus_two", "mlp"}) {
    auto* m = config.mutable_model_config_list()->add_config();
    m->set_name(name);
    m->set_base_path(dir + "/" + name);
    m->set_model_platform("tensorflow");
  }
  auto core = MakeCore(config);
  ASSERT_NE(core, nullptr);
  RestApiHandler handler(core.get(), RestApiOptions{});
  const std::string version_status =
      R"("model_version_status": [{"version": "1", "state": "AVAILABLE", )"
      R"("status": {"error_code": "OK", "error_message": ""}}])";

  RestResponse one = handler.Handle("GET", "/v1/models/mlp", "");
  EXPECT_EQ(one.status, 200);
  EXPECT_EQ(one.body, "{" + version_status + "}");
  EXPECT_EQ(handler.Handle("GET", "/v1/models/mlp/versions/1", "").body, one.body);

  RestResponse list = handler.Handle("GET", "/v1/models", "");
  EXPECT_EQ(list.status, 200);
  EXPECT_EQ(list.body, R"({"models": [)"
                       R"({"name": "half_plus_two", )" + version_status + R"(, "version_labels": {}}, )"
                       R"({"name": "mlp", )" + version_status + R"(, "version_labels": {}}]})");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace tfhost::serving
