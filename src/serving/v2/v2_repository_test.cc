#include "serving/v2/v2_repository.h"

#include <gtest/gtest.h>

#include "base/test_status.h"
#include "serving/v2/v2_test_models.h"

namespace tfhost::serving::v2 {
namespace {

const RepositoryModel* Find(const std::vector<RepositoryModel>& index, const std::string& name,
                            const std::string& version) {
  for (const auto& m : index) {
    if (m.name == name && m.version == version) return &m;
  }
  return nullptr;
}

class V2RepositoryTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(server_.status.ok()) << server_.status.ToString(); }
  testing::EchoServer server_;
  V2Repository repository_{server_.core.get()};
};

TEST_F(V2RepositoryTest, IndexListsEveryVersionOfEveryConfiguredModel) {
  auto index = repository_.Index(false);
  EXPECT_EQ(index.size(), testing::EchoDTypes().size() + 1);  // echo_fp32 has two versions
  const RepositoryModel* v2 = Find(index, "echo_fp32", "2");
  ASSERT_NE(v2, nullptr);
  EXPECT_EQ(v2->state, "READY");
  EXPECT_EQ(v2->reason, "");
}

TEST_F(V2RepositoryTest, UnloadThenLoadRestoresTheModel) {
  ASSERT_TRUE(repository_.Unload("echo_fp32", {}).ok());
  TFHOST_EXPECT_ERROR(server_.core->GetServable(ModelSpecFor("echo_fp32", "", "")), StatusCode::kNotFound,
                      "Servable not found for request: Latest(echo_fp32)");
  auto index = repository_.Index(false);
  const RepositoryModel* gone = Find(index, "echo_fp32", "");
  ASSERT_NE(gone, nullptr);
  EXPECT_EQ(gone->state, "UNAVAILABLE");
  EXPECT_EQ(gone->reason, "unloaded");
  EXPECT_EQ(Find(repository_.Index(true), "echo_fp32", ""), nullptr);
  EXPECT_TRUE(repository_.Unload("echo_fp32", {}).ok()) << "unloading twice is not an error";

  Status loaded = repository_.Load("echo_fp32", {});
  ASSERT_TRUE(loaded.ok()) << loaded.ToString();
  auto servable = server_.core->GetServable(ModelSpecFor("echo_fp32", "stable", ""));
  ASSERT_TRUE(servable.ok()) << servable.status().ToString();
  EXPECT_EQ((*servable)->version, 1) << "the model comes back with its config, labels included";
  EXPECT_TRUE(repository_.Load("echo_fp32", {}).ok()) << "loading a loaded model re-scans it";
}

TEST_F(V2RepositoryTest, UnknownModelsAndUploadedConfigsAreRefused) {
  Status unknown = repository_.Load("nope", {});
  EXPECT_EQ(unknown.code(), StatusCode::kNotFound);
  EXPECT_EQ(unknown.message().rfind("model 'nope' is not in the model repository (models the server config has "
                                    "named: echo_bf16, echo_bool,",
                                    0),
            0u)
      << unknown.message();
  EXPECT_EQ(repository_.Unload("nope", {}).code(), StatusCode::kNotFound);
  Status config = repository_.Load("echo_int8", {{"config", std::string("{}")}});
  EXPECT_EQ(config.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(config.message(),
            "cannot load model 'echo_int8' with parameter 'config': tfhost loads models only from the model server "
            "config's base paths, not from a config or files sent with the request");
  EXPECT_EQ(repository_.Load("echo_int8", {{"file:1/model.savedmodel", std::string("...")}}).code(),
            StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tfhost::serving::v2
