#include "host/doctor/tf_build_matrix.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "base/test_status.h"

namespace tfhost::host {
namespace {

TEST(TfBuildMatrixTest, EmbeddedCopyEqualsTheJsonDataFile) {
  const char* src = std::getenv("TFHOST_SOURCE_DIR");
  ASSERT_NE(src, nullptr);
  std::ifstream in(std::string(src) + "/src/host/data/tf_build_matrix.json");
  ASSERT_TRUE(in);
  std::stringstream s;
  s << in.rdbuf();
  EXPECT_EQ(s.str(), std::string(kTfBuildMatrixJson));
}

TEST(TfBuildMatrixTest, PublishedRowsAreFoundByMinorVersion) {
  const std::vector<TfBuild>& m = DefaultTfBuildMatrix();
  ASSERT_GE(m.size(), 20u);
  const TfBuild* b = FindTfBuild(m, "2.15.1");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->cuda, "12.2");
  EXPECT_EQ(b->cudnn, "8.9");
  ASSERT_NE(FindTfBuild(m, "2.12.0"), nullptr);
  EXPECT_EQ(FindTfBuild(m, "2.12.0")->cuda, "11.8");
  EXPECT_EQ(FindTfBuild(m, "2.1"), FindTfBuild(m, "2.1.4"));
  EXPECT_NE(FindTfBuild(m, "2.1"), FindTfBuild(m, "2.10"));
  EXPECT_EQ(FindTfBuild(m, "3.0"), nullptr);
  EXPECT_EQ(FindTfBuild(m, "garbage"), nullptr);
}

TEST(TfBuildMatrixTest, MalformedTablesAreErrors) {
  TFHOST_EXPECT_ERROR(ParseTfBuildMatrix(""), StatusCode::kInvalidArgument,
                      "TensorFlow build matrix: JSON parse error at offset 0");
  TFHOST_EXPECT_ERROR(ParseTfBuildMatrix("{}"), StatusCode::kInvalidArgument,
                      "TensorFlow build matrix: expected an object with a \"builds\" array");
  TFHOST_EXPECT_ERROR(ParseTfBuildMatrix(R"({"builds": [{"tensorflow": "2.1", "cuda": 10}]})"),
                      StatusCode::kInvalidArgument, "TensorFlow build matrix: builds[0].cuda must be a string");
  StatusOr<std::vector<TfBuild>> ok = ParseTfBuildMatrix(R"({"builds": [{"tensorflow": "9.9", "cuda": "99.0", "cudnn": "1.0"}]})");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok->size(), 1u);
}

}  // namespace
}  // namespace tfhost::host
