#include "serving/model_manager/model_config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "base/test_fixtures.h"
#include "base/test_status.h"
#include "base/test_temp_dir.h"

namespace tfhost::serving {
namespace {

namespace fs = std::filesystem;

struct TempDir : tfhost::testing::TempDir {
  TempDir() : tfhost::testing::TempDir("tfhost_cfg") {}};

std::string ConfigsDir() { return tfhost::testing::FixturePath("tfserving-configs"); }

TEST(ModelConfigTest, ParsesGoodModelConfigFixture) {
  std::string path = ConfigsDir() + "/good_model_config.txt";
  TFHOST_REQUIRE_FIXTURE(path);
  auto config = ReadModelServerConfigFile(path);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  ASSERT_EQ(config->model_config_list().config_size(), 2);
  EXPECT_EQ(config->model_config_list().config(0).name(), "half_plus_two");
  EXPECT_EQ(config->model_config_list().config(0).base_path(), "${TEST_HALF_PLUS_TWO_DIR}");
  EXPECT_EQ(config->model_config_list().config(1).name(), "half_plus_three");
  EXPECT_TRUE(ValidateModelServerConfig(*config).ok());
}

TEST(ModelConfigTest, BadModelConfigFixtureFailsNamingFileAndPosition) {
  std::string path = ConfigsDir() + "/bad_model_config.txt";
  TFHOST_REQUIRE_FIXTURE(path);
  auto config = ReadModelServerConfigFile(path);
  TFHOST_ASSERT_ERROR(config, StatusCode::kInvalidArgument,
                      path + ":1:12: Message type \"tensorflow.serving.ModelServerConfig\" has no field");
  EXPECT_NE(config.status().message().find(path + ":1:"), std::string::npos) << config.status().message();
  EXPECT_NE(config.status().message().find("ModelServerConfig"), std::string::npos);
}

TEST(ModelConfigTest, ParsesDerivedExampleWithPoliciesAndLabels) {
  std::string path = ConfigsDir() + "/derived/model_config_example.txt";
  TFHOST_REQUIRE_FIXTURE(path);
  auto config = ReadModelServerConfigFile(path);
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  ASSERT_TRUE(ValidateModelServerConfig(*config).ok());
  const auto& list = config->model_config_list().config();
  ASSERT_EQ(list.size(), 3);
  EXPECT_EQ(VersionPolicyString(list[0].model_version_policy()), "specific{123,124}");
  EXPECT_EQ(list[0].version_labels().at("stable"), 123);
  EXPECT_EQ(list[0].version_labels().at("canary"), 124);
  EXPECT_EQ(VersionPolicyString(list[1].model_version_policy()), "latest{1}");
  EXPECT_EQ(VersionPolicyString(list[2].model_version_policy()), "all");
}

TEST(ModelConfigTest, UnknownFieldErrorNamesLineColumnAndField) {
  auto config = ParseModelServerConfig("model_config_list {\n  config {\n    nme: \"x\"\n  }\n}\n", "models.config");
  TFHOST_ASSERT_ERROR(config, StatusCode::kInvalidArgument,
                      "models.config:3:8: Message type \"tensorflow.serving.ModelConfig\" has no field named \"nme\". "
                      "(expected a tensorflow.serving.ModelServerConfig");
  EXPECT_NE(config.status().message().find("models.config:3:"), std::string::npos) << config.status().message();
  EXPECT_NE(config.status().message().find("nme"), std::string::npos);
}

TEST(ModelConfigTest, UnterminatedMessageIsAnErrorNotACrash) {
  for (const char* text : {"model_config_list {", "model_config_list { config { name: \"a", "}}}}", "\xff\xfe",
                           "model_config_list { config { model_version_policy { latest { num_versions: -1 } } } }"}) {
    auto config = ParseModelServerConfig(text, "t");
    TFHOST_EXPECT_ERROR(config, StatusCode::kInvalidArgument,
                        "(expected a tensorflow.serving.ModelServerConfig in protobuf text format)")
        << text;
  }
}

ModelServerConfig Parse(const std::string& text) {
  auto c = ParseModelServerConfig(text, "t");
  EXPECT_TRUE(c.ok()) << c.status().ToString();
  return c.ok() ? *c : ModelServerConfig();
}

TEST(ModelConfigTest, ValidationRejectsDuplicateNamesMissingPathsAndBadPlatforms) {
  auto dup = Parse(R"(model_config_list { config { name: "a" base_path: "/x" } config { name: "a" base_path: "/y" } })");
  Status s = ValidateModelServerConfig(dup);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("duplicate model name"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("\"a\""), std::string::npos);

  s = ValidateModelServerConfig(Parse(R"(model_config_list { config { name: "a" } })"));
  EXPECT_NE(s.message().find("base_path"), std::string::npos) << s.message();

  s = ValidateModelServerConfig(Parse(R"(model_config_list { config { base_path: "/x" } })"));
  EXPECT_NE(s.message().find("'name' is empty"), std::string::npos) << s.message();

  s = ValidateModelServerConfig(
      Parse(R"(model_config_list { config { name: "a" base_path: "/x" model_platform: "pytorch" } })"));
  EXPECT_NE(s.message().find("pytorch"), std::string::npos) << s.message();

  s = ValidateModelServerConfig(Parse(
      R"(model_config_list { config { name: "a" base_path: "/x" model_version_policy { specific { } } } })"));
  EXPECT_NE(s.message().find("specific lists no versions"), std::string::npos) << s.message();
}

TEST(ModelConfigTest, LabelMustNameAVersionOfASpecificPolicy) {
  Status s = ValidateModelServerConfig(Parse(R"(model_config_list { config { name: "a" base_path: "/x"
      model_version_policy { specific { versions: 1 } } version_labels { key: "stable" value: 2 } } })"));
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("\"stable\" points at version 2"), std::string::npos) << s.message();
  EXPECT_TRUE(ValidateModelServerConfig(Parse(R"(model_config_list { config { name: "a" base_path: "/x"
      model_version_policy { specific { versions: 1 } } version_labels { key: "stable" value: 1 } } })"))
                  .ok());
}

TEST(ModelConfigTest, CustomModelConfigIsUnimplemented) {
  ModelServerConfig config;
  config.mutable_custom_model_config();
  EXPECT_EQ(ValidateModelServerConfig(config).code(), StatusCode::kUnimplemented);
}

TEST(ModelConfigTest, SingleModelConfigMatchesTfServingFlags) {
  ModelServerConfig config = SingleModelConfig("half", "/models/half");
  ASSERT_EQ(config.model_config_list().config_size(), 1);
  EXPECT_EQ(config.model_config_list().config(0).name(), "half");
  EXPECT_EQ(config.model_config_list().config(0).base_path(), "/models/half");
  EXPECT_EQ(config.model_config_list().config(0).model_platform(), "tensorflow");
  EXPECT_TRUE(ValidateModelServerConfig(config).ok());
}

TEST(ModelConfigTest, ListsOnlyNumericVersionDirectories) {
  TempDir dir;
  for (const char* d : {"1", "00000123", "7", "abc", "12a", "-3", ".hidden", "99999999999999999999"}) {
    fs::create_directory(fs::path(dir.path()) / d);
  }
  std::ofstream(fs::path(dir.path()) / "5") << "a file, not a version";
  fs::create_directory_symlink(fs::path(dir.path()) / "7", fs::path(dir.path()) / "8");
  auto versions = ListVersionDirectories(dir.path());
  ASSERT_TRUE(versions.ok()) << versions.status().ToString();
  std::vector<int64_t> keys;
  for (const auto& [v, p] : *versions) keys.push_back(v);
  EXPECT_EQ(keys, (std::vector<int64_t>{1, 7, 8, 123}));
  EXPECT_EQ(versions->at(123), (fs::path(dir.path()) / "00000123").string());
}

TEST(ModelConfigTest, MissingBasePathIsNotFound) {
  auto versions = ListVersionDirectories("/nonexistent/tfhost/base");
  TFHOST_ASSERT_ERROR(versions, StatusCode::kNotFound,
                      "model base path /nonexistent/tfhost/base does not exist or is not a directory");
  EXPECT_NE(versions.status().message().find("/nonexistent/tfhost/base"), std::string::npos);
}

TEST(ModelConfigTest, VersionPoliciesSelectLatestAllAndSpecific) {
  std::vector<int64_t> available = {3, 1, 10, 7};
  ServableVersionPolicy unset;
  EXPECT_EQ(SelectVersions(unset, available), (std::vector<int64_t>{10}));
  ServableVersionPolicy latest;
  latest.mutable_latest()->set_num_versions(2);
  EXPECT_EQ(SelectVersions(latest, available), (std::vector<int64_t>{7, 10}));
  latest.mutable_latest()->set_num_versions(0);
  EXPECT_EQ(SelectVersions(latest, available), (std::vector<int64_t>{10}));
  latest.mutable_latest()->set_num_versions(100);
  EXPECT_EQ(SelectVersions(latest, available), (std::vector<int64_t>{1, 3, 7, 10}));
  ServableVersionPolicy all;
  all.mutable_all();
  EXPECT_EQ(SelectVersions(all, available), (std::vector<int64_t>{1, 3, 7, 10}));
  ServableVersionPolicy specific;
  specific.mutable_specific()->add_versions(3);
  specific.mutable_specific()->add_versions(42);
  EXPECT_EQ(SelectVersions(specific, available), (std::vector<int64_t>{3}));
  EXPECT_TRUE(SelectVersions(latest, {}).empty());
}

}  // namespace
}  // namespace tfhost::serving
