#include "host/launch/slurm_interfaces.h"

#include <gtest/gtest.h>

#include <chrono>

#include "base/test_status.h"
#include "host/launch/tcp_kv_store.h"

namespace tfhost::host::launch {
namespace {

// A store standing in for launcher 0's, holding what a faulty or foreign
// launcher 0 published.
SlurmInterfaceExchange SecondLauncherOf(int port, int nodes) {
  SlurmInterfaceExchange x;
  x.store_host = "127.0.0.1";
  x.store_port = port;
  x.instance = 1;
  x.instances = nodes;
  x.node = 1;
  x.nodes = nodes;
  x.publishes = true;
  x.candidates = {"eth0:10000"};
  x.timeout_seconds = 5;
  return x;
}

TEST(SlurmInterfacesTest, ListsForTheWrongNumberOfNodesAreDataLoss) {
  auto server = TcpKvStoreServer::Start(0);
  ASSERT_TRUE(server.ok());
  auto client = TcpKvStoreClient::Connect("127.0.0.1", (*server)->port(), std::chrono::seconds(5));
  ASSERT_TRUE(client.ok());
  ASSERT_TRUE((*client)->Set("if/all", "eth0:10000\n").ok());  // one node's list; the step has three
  auto lists = ExchangeSlurmInterfaces(SecondLauncherOf((*server)->port(), 3));
  TFHOST_ASSERT_ERROR(lists, StatusCode::kDataLoss,
                      "slurm interface exchange: launcher 0 published 1 node lists, expected 3 (do all launchers run "
                      "the same command?)");
  EXPECT_NE(lists.status().message().find("1 node lists, expected 3"), std::string::npos) << lists.status().message();
}

TEST(SlurmInterfacesTest, LauncherZerosFailureReachesTheOthersAtOnce) {
  auto server = TcpKvStoreServer::Start(0);
  ASSERT_TRUE(server.ok());
  auto client = TcpKvStoreClient::Connect("127.0.0.1", (*server)->port(), std::chrono::seconds(5));
  ASSERT_TRUE(client.ok());
  ASSERT_TRUE((*client)->Set("if/all", "!node 2 never reported its interfaces").ok());
  auto lists = ExchangeSlurmInterfaces(SecondLauncherOf((*server)->port(), 3));
  TFHOST_ASSERT_ERROR(lists, StatusCode::kUnavailable,
                      "slurm interface exchange: launcher 0 gave up: node 2 never reported its interfaces");
  EXPECT_NE(lists.status().message().find("node 2 never reported"), std::string::npos);
  // It published its own node's candidates before waiting.
  auto mine = (*client)->Get("if/node/1", std::chrono::seconds(1));
  ASSERT_TRUE(mine.ok());
  EXPECT_EQ(*mine, "eth0:10000");
}

TEST(SlurmInterfacesTest, WellFormedListsComeBackOnePerNodeInOrder) {
  auto server = TcpKvStoreServer::Start(0);
  ASSERT_TRUE(server.ok());
  auto client = TcpKvStoreClient::Connect("127.0.0.1", (*server)->port(), std::chrono::seconds(5));
  ASSERT_TRUE(client.ok());
  ASSERT_TRUE((*client)->Set("if/all", "eth0:10000 ib0:56000\n\nib0:100000\n").ok());
  auto lists = ExchangeSlurmInterfaces(SecondLauncherOf((*server)->port(), 3));
  ASSERT_TRUE(lists.ok()) << lists.status().ToString();
  ASSERT_EQ(lists->size(), 3u);
  EXPECT_EQ((*lists)[0], (std::vector<std::string>{"eth0:10000", "ib0:56000"}));
  EXPECT_TRUE((*lists)[1].empty());  // a node with no usable interface
  EXPECT_EQ((*lists)[2], (std::vector<std::string>{"ib0:100000"}));
  EXPECT_TRUE((*client)->Get("if/done/1", std::chrono::seconds(1)).ok());  // it confirmed
}

}  // namespace
}  // namespace tfhost::host::launch
