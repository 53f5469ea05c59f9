#include "host/launch/tcp_kv_store.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <thread>

#include "base/test_status.h"
#include "host/launch/socket_util.h"

namespace tfhost::host::launch {
namespace {

using std::chrono::milliseconds;

TEST(TcpKvStoreTest, ValueSetByOneClientIsReadByAnother) {
  auto server = TcpKvStoreServer::Start(0);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  auto a = TcpKvStoreClient::Connect("127.0.0.1", (*server)->port(), milliseconds(2000));
  auto b = TcpKvStoreClient::Connect("127.0.0.1", (*server)->port(), milliseconds(2000));
  ASSERT_TRUE(a.ok() && b.ok());
  std::string binary("rank\0addr\xff", 10);
  ASSERT_TRUE((*a)->Set("rank0", binary).ok());
  auto got = (*b)->Get("rank0", milliseconds(1000));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(*got, binary);
}

TEST(TcpKvStoreTest, GetWaitsForAKeySetLater) {
  auto server = TcpKvStoreServer::Start(0);
  ASSERT_TRUE(server.ok());
  int port = (*server)->port();
  std::thread setter([port] {
    std::this_thread::sleep_for(milliseconds(200));
    auto c = TcpKvStoreClient::Connect("127.0.0.1", port, milliseconds(2000));
    ASSERT_TRUE(c.ok());
    EXPECT_TRUE((*c)->Set("late", "v").ok());
  });
  auto c = TcpKvStoreClient::Connect("127.0.0.1", port, milliseconds(2000));
  ASSERT_TRUE(c.ok());
  auto got = (*c)->Get("late", milliseconds(10000));
  setter.join();
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(*got, "v");
}

TEST(TcpKvStoreTest, MissingKeyTimesOutNamingTheKey) {
  auto server = TcpKvStoreServer::Start(0);
  ASSERT_TRUE(server.ok());
  auto c = TcpKvStoreClient::Connect("127.0.0.1", (*server)->port(), milliseconds(2000));
  ASSERT_TRUE(c.ok());
  auto got = (*c)->Get("rank3", milliseconds(100));
  TFHOST_ASSERT_ERROR(got, StatusCode::kDeadlineExceeded,
                      "rendezvous store: key 'rank3' was not set within 100 ms (a rank did not start?)");
  EXPECT_NE(got.status().message().find("'rank3'"), std::string::npos);
  // The connection stays usable after a timeout.
  ASSERT_TRUE((*c)->Set("rank3", "x").ok());
  EXPECT_TRUE((*c)->Get("rank3", milliseconds(100)).ok());
}

TEST(TcpKvStoreTest, GarbageFromOneClientDropsOnlyThatClient) {
  auto server = TcpKvStoreServer::Start(0);
  ASSERT_TRUE(server.ok());
  int port = (*server)->port();
  auto raw = ConnectWithRetry("127.0.0.1", port, SteadyClock::now() + milliseconds(2000));
  ASSERT_TRUE(raw.ok());
  // A set claiming a 4 GiB key: refused without allocating it.
  const char garbage[] = {'S', '\xff', '\xff', '\xff', '\xff'};
  ASSERT_TRUE(WriteExact(*raw, garbage, sizeof(garbage)).ok());
  char byte;
  TFHOST_EXPECT_ERROR(ReadExact(*raw, &byte, 1), StatusCode::kUnavailable, "peer closed the connection");
  ::close(*raw);
  auto c = TcpKvStoreClient::Connect("127.0.0.1", port, milliseconds(2000));
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE((*c)->Set("k", "v").ok());
  EXPECT_EQ(*(*c)->Get("k", milliseconds(100)), "v");
}

TEST(TcpKvStoreTest, ServerShutsDownWhileAClientWaits) {
  auto server = TcpKvStoreServer::Start(0);
  ASSERT_TRUE(server.ok());
  auto c = TcpKvStoreClient::Connect("127.0.0.1", (*server)->port(), milliseconds(2000));
  ASSERT_TRUE(c.ok());
  std::thread waiter([&] { EXPECT_FALSE((*c)->Get("never", milliseconds(60000)).ok()); });
  std::this_thread::sleep_for(milliseconds(100));
  auto start = std::chrono::steady_clock::now();
  server->reset();
  waiter.join();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

}  // namespace
}  // namespace tfhost::host::launch
