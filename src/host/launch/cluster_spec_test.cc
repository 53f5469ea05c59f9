#include "host/launch/cluster_spec.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "base/test_status.h"

namespace tfhost::host::launch {
namespace {

ClusterSpec Build(const ClusterShape& shape, int base_port = 2000) {
  std::vector<std::string> hosts;
  std::vector<int> ports;
  for (size_t i = 0; i < TaskList(shape).size(); ++i) {
    hosts.push_back("h" + std::to_string(i / 2));
    ports.push_back(base_port + static_cast<int>(i));
  }
  auto spec = BuildClusterSpec(shape, hosts, ports);
  EXPECT_TRUE(spec.ok()) << spec.status().ToString();
  return spec.ok() ? *spec : ClusterSpec{};
}

rapidjson::Document Parse(const std::string& json) {
  rapidjson::Document d;
  d.Parse(json.c_str());
  EXPECT_FALSE(d.HasParseError()) << json;
  return d;
}

TEST(ClusterSpecTest, MultiWorkerIsWorkersOnlyAndEveryTaskSeesTheSameCluster) {
  ClusterShape shape{Strategy::kMultiWorker, 3, 0, false};
  ClusterSpec spec = Build(shape);
  std::string first_cluster;
  for (int i = 0; i < 3; ++i) {
    auto json = TfConfigJson(spec, {"worker", i});
    ASSERT_TRUE(json.ok());
    rapidjson::Document d = Parse(*json);
    ASSERT_TRUE(d.IsObject());
    const auto& cluster = d["cluster"];
    EXPECT_EQ(cluster.MemberCount(), 1u) << *json;  // no chief, no ps
    ASSERT_TRUE(cluster.HasMember("worker"));
    ASSERT_EQ(cluster["worker"].Size(), 3u);
    EXPECT_STREQ(cluster["worker"][0].GetString(), "h0:2000");
    EXPECT_STREQ(cluster["worker"][2].GetString(), "h1:2002");
    EXPECT_STREQ(d["task"]["type"].GetString(), "worker");
    EXPECT_EQ(d["task"]["index"].GetInt(), i);
    std::string c = ClusterJson(spec);
    if (i == 0) first_cluster = c;
    EXPECT_EQ(c, first_cluster);
  }
  EXPECT_EQ(*TfConfigJson(spec, {"worker", 1}),
            R"({"cluster":{"worker":["h0:2000","h0:2001","h1:2002"]},"task":{"type":"worker","index":1}})");
}

TEST(ClusterSpecTest, ParameterServerHasChiefWorkersAndPsAndEvaluatorStaysOutside) {
  ClusterShape shape{Strategy::kParameterServer, 2, 2, true};
  std::vector<TaskId> ids = TaskList(shape);
  ASSERT_EQ(ids.size(), 6u);
  EXPECT_EQ(ids[0].Label(), "chief:0");
  EXPECT_EQ(ids[1].Label(), "worker:0");
  EXPECT_EQ(ids[3].Label(), "ps:0");
  EXPECT_EQ(ids[5].Label(), "evaluator:0");
  ClusterSpec spec = Build(shape);
  EXPECT_EQ(ClusterJson(spec), R"({"chief":["h0:2000"],"worker":["h0:2001","h1:2002"],"ps":["h1:2003","h2:2004"]})");
  auto eval = TfConfigJson(spec, {"evaluator", 0});
  ASSERT_TRUE(eval.ok());
  rapidjson::Document d = Parse(*eval);
  EXPECT_FALSE(d["cluster"].HasMember("evaluator"));
  EXPECT_STREQ(d["task"]["type"].GetString(), "evaluator");
  auto ps1 = TfConfigJson(spec, {"ps", 1});
  ASSERT_TRUE(ps1.ok());
  EXPECT_EQ(Parse(*ps1)["task"]["index"].GetInt(), 1);
}

TEST(ClusterSpecTest, MirroredHasNoTfConfig) {
  ClusterShape shape{Strategy::kMirrored, 1, 0, false};
  ClusterSpec spec = Build(shape);
  auto json = TfConfigJson(spec, {"worker", 0});
  ASSERT_TRUE(json.ok());
  EXPECT_EQ(*json, "");
}

TEST(ClusterSpecTest, ShapesThatTensorFlowRejectsAreErrors) {
  TFHOST_EXPECT_ERROR(ValidateShape({Strategy::kMultiWorker, 2, 1, false}), StatusCode::kInvalidArgument,
                      "MultiWorkerMirroredStrategy has no parameter servers: drop --ps or use --strategy ps");
  TFHOST_EXPECT_ERROR(ValidateShape({Strategy::kMultiWorker, 0, 0, false}), StatusCode::kInvalidArgument,
                      "multiworker strategy needs --workers >= 1");
  TFHOST_EXPECT_ERROR(ValidateShape({Strategy::kParameterServer, 2, 0, false}), StatusCode::kInvalidArgument,
                      "ps strategy needs --ps >= 1 parameter servers");
  TFHOST_EXPECT_ERROR(ValidateShape({Strategy::kMirrored, 2, 0, false}), StatusCode::kInvalidArgument,
                      "mirrored strategy runs one process on one host (it uses every local GPU itself): --workers must "
                      "be 1, no --ps, no --evaluator; use");
  TFHOST_EXPECT_ERROR(ValidateShape({Strategy::kMirrored, 1, 0, true}), StatusCode::kInvalidArgument,
                      "mirrored strategy runs one process on one host (it uses every local GPU itself): --workers must "
                      "be 1, no --ps, no --evaluator; use");
  TFHOST_EXPECT_ERROR(ValidateShape({Strategy::kMultiWorker, 1 << 30, 0, false}), StatusCode::kInvalidArgument,
                      "at most 4096 tasks per job");
  EXPECT_TRUE(ValidateShape({Strategy::kMultiWorker, 4, 0, true}).ok());
}

TEST(ClusterSpecTest, DuplicateAddressesAndBadPortsAreRejected) {
  ClusterShape shape{Strategy::kMultiWorker, 2, 0, false};
  TFHOST_EXPECT_ERROR(BuildClusterSpec(shape, {"a", "a"}, {1000, 1000}), StatusCode::kInvalidArgument,
                      "task worker:1 would share a:1000 with another task");
  EXPECT_TRUE(BuildClusterSpec(shape, {"a", "b"}, {1000, 1000}).ok());
  TFHOST_EXPECT_ERROR(BuildClusterSpec(shape, {"a", "b"}, {0, 1000}), StatusCode::kInvalidArgument,
                      "task worker:0 has port 0, expected 1..65535");
  TFHOST_EXPECT_ERROR(BuildClusterSpec(shape, {"a", "b"}, {1000, 70000}), StatusCode::kInvalidArgument,
                      "task worker:1 has port 70000, expected 1..65535");
  TFHOST_EXPECT_ERROR(BuildClusterSpec(shape, {"a"}, {1000}), StatusCode::kInvalidArgument,
                      "cluster of 2 tasks got 1 hosts and 1 ports");
  TFHOST_EXPECT_ERROR(BuildClusterSpec(shape, {"a", ""}, {1000, 1001}), StatusCode::kInvalidArgument,
                      "task worker:1 has no host");
}

TEST(ClusterSpecTest, Ipv6HostsAreBracketed) {
  TaskAddress a{{"worker", 0}, "fe80::1", 2222};
  EXPECT_EQ(a.Address(), "[fe80::1]:2222");
}

TEST(ClusterSpecTest, StrategyNamesParse) {
  EXPECT_EQ(*ParseStrategy("mwms"), Strategy::kMultiWorker);
  EXPECT_EQ(*ParseStrategy("ps"), Strategy::kParameterServer);
  EXPECT_EQ(*ParseStrategy("mirrored"), Strategy::kMirrored);
  TFHOST_EXPECT_ERROR(ParseStrategy("horovod"), StatusCode::kInvalidArgument,
                      "unknown strategy 'horovod': expected multiworker, ps or mirrored");
}

}  // namespace
}  // namespace tfhost::host::launch
