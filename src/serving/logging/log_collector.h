// TFRecordLogCollector: where the request log of one model goes. Serialized
// records (tensorflow.serving.PredictionLog) are handed to Add(), which only
// appends to a bounded in-memory queue; one writer thread takes them from
// there into TFRecord files (data/tfrecord_writer.h) named
//
//   <filename_prefix>-<start time, UTC, YYYYmmddTHHMMSS>-<pid>-<seq, 5 digits>.tfrecord
//
// A file is published under that name (atomically, by the TFRecord writer's
// rename) when it holds max_file_bytes of framed records, when it has been
// open for max_file_age, or when the collector is flushed or destroyed;
// until then it is a hidden temporary file beside it. Names sort in the
// order the files were started.
//
// Why a queue and a thread: request logging must never block or fail a
// request. When the queue is full (the disk is slow) a record is dropped at
// once; when a file cannot be created, written or published (the disk is
// full), its records are dropped. Both are counted (Stats, and the
// CounterCells in the options, which the request logger exports as
// Prometheus metrics); the first error of each kind is kept in last_error().
// After a write error the writer waits error_backoff before it tries a new
// file, dropping what arrives meanwhile, so a full disk costs no busy loop.
//
// Thread-safety: Add, stats and last_error may be called from any thread at
// any time; Flush from any thread. The destructor publishes what the queue
// holds (bounded by max_file_bytes rotation as usual) and joins the thread.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "base/status.h"
#include "serving/metrics/metrics_registry.h"

namespace tfhost::data {
class TFRecordWriter;
}

namespace tfhost::serving::logging {

struct LogCollectorOptions {
  // Path prefix of the files (a folder part is created when missing).
  std::string filename_prefix;
  // A file is published once its framed records reach this size.
  uint64_t max_file_bytes = uint64_t{128} << 20;
  // ... or once it has been open this long (so a quiet server's log appears).
  std::chrono::milliseconds max_file_age = std::chrono::seconds(60);
  // Bounds on what waits for the writer; past either, records are dropped.
  size_t max_queued_records = 4096;
  size_t max_queued_bytes = size_t{64} << 20;
  std::chrono::milliseconds error_backoff = std::chrono::seconds(1);
  // Optional metric cells (not owned; must outlive the collector).
  CounterCell* written = nullptr;             // records in published files
  CounterCell* dropped_queue_full = nullptr;  // refused by Add
  CounterCell* dropped_write_error = nullptr; // lost to a file error
};

// Checks the options; errors name the field and what was expected.
Status ValidateLogCollectorOptions(const LogCollectorOptions& options);

class TFRecordLogCollector {
 public:
  static StatusOr<std::unique_ptr<TFRecordLogCollector>> Create(LogCollectorOptions options);
  ~TFRecordLogCollector();
  TFRecordLogCollector(const TFRecordLogCollector&) = delete;
  TFRecordLogCollector& operator=(const TFRecordLogCollector&) = delete;

  // Queues one serialized record; never blocks on I/O. False when it was
  // dropped because the queue is full.
  bool Add(std::string record);

  // Waits until every record queued before the call is written and the open
  // file is published. The status of the last write or publish.
  Status Flush();

  struct Stats {
    int64_t written = 0;  // records in published files
    int64_t dropped_queue_full = 0;
    int64_t dropped_write_error = 0;
    int64_t files = 0;  // files published
  };
  Stats stats() const;
  // The first file error seen, with the file's name; OK when none.
  Status last_error() const;
  const LogCollectorOptions& options() const { return options_; }

  // Tests only: while held, the writer thread takes nothing from the queue,
  // which is how a slow disk looks from the request side.
  void HoldWriterForTesting(bool hold);

 private:
  explicit TFRecordLogCollector(LogCollectorOptions options);
  void WriterLoop();
  // The writer thread's file handling (called without mu_ held).
  void WriteOne(const std::string& record);
  void Publish();
  void DropOpenFile(const Status& why);
  std::string NextFileName();
  void NoteError(const Status& status);

  const LogCollectorOptions options_;
  const std::string start_stamp_;

  mutable std::mutex mu_;
  std::condition_variable cv_;        // work for the writer
  std::condition_variable drained_;   // the writer caught up (Flush)
  std::deque<std::string> queue_;
  size_t queued_bytes_ = 0;
  bool stopping_ = false;
  bool hold_ = false;
  int64_t flush_requests_ = 0;  // Flush calls made
  int64_t flushes_done_ = 0;    // Flush calls served
  Stats stats_;
  Status first_error_;
  Status last_result_;

  // Writer thread only.
  std::unique_ptr<data::TFRecordWriter> file_;
  std::chrono::steady_clock::time_point file_opened_;
  std::chrono::steady_clock::time_point retry_after_;
  int64_t sequence_ = 0;

  std::thread writer_;
};

}  // namespace tfhost::serving::logging
