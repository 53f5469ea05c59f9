#include "data/tfrecord_read_ahead.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

namespace tfhost::data {
namespace {

// Serves `bytes` in reads of at most `step`, then fails with DATA_LOSS if
// `fail_at_end`.
class ScriptedStream : public InputStream {
 public:
  ScriptedStream(std::string bytes, size_t step, bool fail_at_end)
      : bytes_(std::move(bytes)), step_(step), fail_at_end_(fail_at_end) {}
  StatusOr<size_t> Read(char* buf, size_t n) override {
    if (pos_ == bytes_.size()) {
      if (fail_at_end_) return DataLoss("scripted: stream broken at byte " + std::to_string(pos_));
      return size_t{0};
    }
    size_t k = std::min({n, step_, bytes_.size() - pos_});
    bytes_.copy(buf, k, pos_);
    pos_ += k;
    return k;
  }
  std::optional<uint64_t> Size() const override { return std::nullopt; }
  uint64_t RawBytesConsumed() const override { return pos_; }

 private:
  std::string bytes_;
  size_t step_;
  bool fail_at_end_;
  size_t pos_ = 0;
};

std::string Pattern(size_t n) {
  std::string s(n, '\0');
  for (size_t i = 0; i < n; ++i) s[i] = static_cast<char>(i * 7 + i / 251);
  return s;
}

// Takes every chunk until the end or an error; returns the bytes and the
// final status.
std::pair<std::string, Status> Drain(ReadAhead& ra) {
  std::string got;
  while (true) {
    StatusOr<ReadAhead::Chunk> c = ra.Next();
    if (!c.ok()) return {got, c.status()};
    if (c->size == 0) return {got, OkStatus()};
    got.append(c->data, c->size);
    ra.Release(c->index);
  }
}

TEST(ReadAheadTest, ChunksArriveInStreamOrderFilledAcrossShortReads) {
  std::string bytes = Pattern(100000);
  ScriptedStream stream(bytes, 333, false);
  ReadAhead ra(&stream, 4096, 512, 3);
  StatusOr<ReadAhead::Chunk> first = ra.Next();
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(first->size, 4096u);  // 333-byte reads are gathered into a whole chunk
  std::string got(first->data, first->size);
  ra.Release(first->index);
  auto [rest, status] = Drain(ra);
  EXPECT_TRUE(status.ok()) << status.ToString();
  EXPECT_EQ(got + rest, bytes);
  StatusOr<ReadAhead::Chunk> again = ra.Next();  // the end is sticky
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->size, 0u);
  EXPECT_EQ(again->raw_bytes_consumed, bytes.size());
}

TEST(ReadAheadTest, StreamErrorComesAfterEveryByteReadBeforeItAndStays) {
  std::string bytes = Pattern(10000);
  ScriptedStream stream(bytes, 1000, true);
  ReadAhead ra(&stream, 4096, 512, 2);
  auto [got, status] = Drain(ra);
  EXPECT_EQ(got, bytes);
  EXPECT_EQ(status.code(), StatusCode::kDataLoss);
  EXPECT_NE(status.message().find("broken at byte 10000"), std::string::npos) << status.message();
  EXPECT_EQ(ra.Next().status().message(), status.message());
}

TEST(ReadAheadTest, HeadroomBeforeTheDataIsWritable) {
  std::string bytes = Pattern(8192);
  ScriptedStream stream(bytes, 8192, false);
  ReadAhead ra(&stream, 4096, 256, 2);
  StatusOr<ReadAhead::Chunk> c = ra.Next();
  ASSERT_TRUE(c.ok());
  std::memset(c->data - ra.headroom(), 'h', ra.headroom());  // ASan would flag an out-of-bounds write
  EXPECT_EQ(std::string(c->data, c->size), bytes.substr(0, 4096));
  ra.Release(c->index);
}

TEST(ReadAheadTest, DestroyingWhileTheHelperWaitsForABufferReturns) {
  // Nothing is released: the helper fills both buffers and then waits; the
  // destructor must wake and join it (a hang fails by the test timeout).
  std::string bytes = Pattern(1 << 20);
  ScriptedStream stream(bytes, 4096, false);
  {
    ReadAhead ra(&stream, 4096, 0, 2);
    StatusOr<ReadAhead::Chunk> c = ra.Next();
    ASSERT_TRUE(c.ok());
    EXPECT_EQ(std::string(c->data, c->size), bytes.substr(0, 4096));
  }
  SUCCEED();
}

}  // namespace
}  // namespace tfhost::data
