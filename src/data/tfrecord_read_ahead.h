// Read-ahead for the TFRecord reader: a helper thread pulls the next chunks
// of an InputStream (read() of a file, or inflating a compressed one) into a
// small ring of buffers while the reader's own thread checks the CRCs of the
// chunk before — the overlap a tf.data reader with a prefetch buffer has. On
// a machine with a free core, wall time then approaches the slower of the
// two stages instead of their sum; the CPU time spent is the same.
//
// Chunks come back in stream order. Each chunk has `headroom` writable bytes
// in front of its data, so the consumer can move the unfinished tail of the
// previous chunk (part of one record) there and keep records contiguous
// without copying the chunk itself.
//
// Thread-safety: one consumer thread calls Next/Release; the helper thread
// is the only one that touches the stream until the ReadAhead is destroyed.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "base/status.h"
#include "data/input_stream.h"

namespace tfhost::data {

class ReadAhead {
 public:
  struct Chunk {
    int index = -1;       // pass to Release() when done with `data`
    char* data = nullptr;  // `headroom()` writable bytes precede it
    size_t size = 0;       // 0: end of stream (index is -1 then)
    uint64_t raw_bytes_consumed = 0;  // the stream's count after this chunk
  };

  // Starts the helper thread. `stream` must outlive this object and must
  // not be used by anyone else until it is destroyed. chunks >= 2. If no
  // thread can be started, started() is false and nothing reads the stream.
  ReadAhead(InputStream* stream, size_t chunk_bytes, size_t headroom, int chunks);
  // Stops the helper (it finishes at most the one read in progress) and
  // joins it; chunks not yet consumed are dropped.
  ~ReadAhead();
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;

  // Blocks until the next chunk is read. Returns a chunk with size 0 at the
  // end of the stream, or the stream's error once the chunks read before it
  // are consumed; either is returned again by every later call.
  StatusOr<Chunk> Next();
  // Hands chunk `index` back for refilling; its data must no longer be used.
  void Release(int index);

  size_t headroom() const { return headroom_; }
  bool started() const { return thread_.joinable(); }

 private:
  struct Filled {
    int index = -1;  // -1: terminal (end of stream or error)
    size_t size = 0;
    uint64_t raw_bytes_consumed = 0;
    Status status;
  };
  void Run();
  char* DataOf(int index) { return buffers_[static_cast<size_t>(index)].get() + headroom_; }

  InputStream* stream_;
  const size_t chunk_bytes_;
  const size_t headroom_;
  // Written only by the helper (allocation on first use); the consumer
  // reads an entry after taking its chunk through mu_.
  std::vector<std::unique_ptr<char[]>> buffers_;

  std::mutex mu_;
  std::condition_variable free_cv_;    // helper waits for a free buffer
  std::condition_variable filled_cv_;  // consumer waits for a filled one
  std::deque<int> free_;
  std::deque<Filled> filled_;
  bool stop_ = false;
  bool finished_ = false;  // consumer side: the terminal entry was taken
  Filled terminal_;
  std::thread thread_;
};

}  // namespace tfhost::data
