#include "serving/logging/log_collector.h"

#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <vector>

#include "data/tfrecord_writer.h"

namespace tfhost::serving::logging {

namespace {

using Clock = std::chrono::steady_clock;

std::string UtcStamp() {
  std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y%m%dT%H%M%S", &tm);
  return buf;
}

void Bump(CounterCell* cell, int64_t by) {
  if (cell && by > 0) cell->Increment(by);
}

}  // namespace

Status ValidateLogCollectorOptions(const LogCollectorOptions& options) {
  if (options.filename_prefix.empty()) {
    return InvalidArgument("log_collector_config.filename_prefix is empty (expected a path prefix for the log files, "
                           "e.g. \"/var/log/tfhost/my_model\")");
  }
  if (options.filename_prefix.back() == '/') {
    return InvalidArgument("log_collector_config.filename_prefix \"" + options.filename_prefix +
                           "\" ends in '/' (expected a folder followed by a file name prefix)");
  }
  if (options.max_file_bytes == 0) return InvalidArgument("request log max file bytes must be > 0");
  if (options.max_file_age.count() <= 0) return InvalidArgument("request log max file age must be > 0 ms");
  if (options.max_queued_records == 0 || options.max_queued_bytes == 0) {
    return InvalidArgument("request log queue bounds must be > 0");
  }
  return OkStatus();
}

TFRecordLogCollector::TFRecordLogCollector(LogCollectorOptions options)
    : options_(std::move(options)), start_stamp_(UtcStamp()) {}

StatusOr<std::unique_ptr<TFRecordLogCollector>> TFRecordLogCollector::Create(LogCollectorOptions options) {
  TFHOST_RETURN_IF_ERROR(ValidateLogCollectorOptions(options));
  std::unique_ptr<TFRecordLogCollector> c(new TFRecordLogCollector(std::move(options)));
  TFRecordLogCollector* raw = c.get();
  c->writer_ = std::thread([raw] { raw->WriterLoop(); });
  return c;
}

TFRecordLogCollector::~TFRecordLogCollector() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    hold_ = false;
  }
  cv_.notify_all();
  if (writer_.joinable()) writer_.join();
}

bool TFRecordLogCollector::Add(std::string record) {
  {
    std::lock_guard lock(mu_);
    if (stopping_ || queue_.size() >= options_.max_queued_records ||
        queued_bytes_ + record.size() > options_.max_queued_bytes) {
      ++stats_.dropped_queue_full;
      Bump(options_.dropped_queue_full, 1);
      return false;
    }
    queued_bytes_ += record.size();
    queue_.push_back(std::move(record));
  }
  cv_.notify_one();
  return true;
}

Status TFRecordLogCollector::Flush() {
  std::unique_lock lock(mu_);
  if (stopping_) return last_result_;
  const int64_t ticket = ++flush_requests_;
  cv_.notify_one();
  drained_.wait(lock, [&] { return flushes_done_ >= ticket; });
  return last_result_;
}

TFRecordLogCollector::Stats TFRecordLogCollector::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

Status TFRecordLogCollector::last_error() const {
  std::lock_guard lock(mu_);
  return first_error_;
}

void TFRecordLogCollector::HoldWriterForTesting(bool hold) {
  {
    std::lock_guard lock(mu_);
    hold_ = hold;
  }
  cv_.notify_all();
}

void TFRecordLogCollector::NoteError(const Status& status) {
  std::lock_guard lock(mu_);
  if (first_error_.ok()) {
    first_error_ = status;
    // The first one only: a full disk would otherwise print per file.
    std::fprintf(stderr, "tfhost serve: request log: %s (records are dropped while this lasts)\n",
                 status.ToString().c_str());
  }
  last_result_ = status;
}

std::string TFRecordLogCollector::NextFileName() {
  char seq[24];
  std::snprintf(seq, sizeof(seq), "%05lld", static_cast<long long>(sequence_++));
  return options_.filename_prefix + "-" + start_stamp_ + "-" + std::to_string(::getpid()) + "-" + seq + ".tfrecord";
}

void TFRecordLogCollector::DropOpenFile(const Status& why) {
  const int64_t lost = file_ ? file_->records_written() : 0;
  file_.reset();  // removes the temporary file
  {
    std::lock_guard lock(mu_);
    stats_.dropped_write_error += lost;
  }
  Bump(options_.dropped_write_error, lost);
  NoteError(why);
  retry_after_ = Clock::now() + options_.error_backoff;
}

void TFRecordLogCollector::Publish() {
  if (!file_) return;
  const int64_t records = file_->records_written();
  Status st = file_->Close();
  if (!st.ok()) return DropOpenFile(st.WithContext("publishing request log file " + file_->path()));
  file_.reset();
  std::lock_guard lock(mu_);
  stats_.written += records;
  ++stats_.files;
  last_result_ = OkStatus();
  Bump(options_.written, records);
}

void TFRecordLogCollector::WriteOne(const std::string& record) {
  if (!file_) {
    if (Clock::now() < retry_after_) {
      std::lock_guard lock(mu_);
      ++stats_.dropped_write_error;
      Bump(options_.dropped_write_error, 1);
      return;
    }
    data::TFRecordWriterOptions wopts;
    auto created = data::TFRecordWriter::Create(NextFileName(), wopts);
    if (!created.ok()) {
      DropOpenFile(created.status().WithContext("creating a request log file for prefix \"" +
                                                options_.filename_prefix + "\""));
      std::lock_guard lock(mu_);
      ++stats_.dropped_write_error;
      Bump(options_.dropped_write_error, 1);
      return;
    }
    file_ = std::move(*created);
    file_opened_ = Clock::now();
  }
  Status st = file_->Write(record);
  if (!st.ok()) {
    // The record being written is lost with the ones already in the file.
    {
      std::lock_guard lock(mu_);
      ++stats_.dropped_write_error;
    }
    Bump(options_.dropped_write_error, 1);
    return DropOpenFile(st.WithContext("writing request log file " + file_->path()));
  }
  if (file_->bytes_written() >= options_.max_file_bytes) Publish();
}

void TFRecordLogCollector::WriterLoop() {
  std::vector<std::string> batch;
  for (;;) {
    int64_t flush_ticket = 0;
    bool stopping = false;
    {
      std::unique_lock lock(mu_);
      auto ready = [&] { return stopping_ || (!hold_ && (!queue_.empty() || flushes_done_ < flush_requests_)); };
      if (file_) {
        cv_.wait_until(lock, file_opened_ + options_.max_file_age, ready);
      } else {
        cv_.wait(lock, ready);
      }
      stopping = stopping_;
      if (!hold_ || stopping) {
        batch.assign(std::make_move_iterator(queue_.begin()), std::make_move_iterator(queue_.end()));
        queue_.clear();
        queued_bytes_ = 0;
        flush_ticket = flush_requests_;
      }
    }
    for (const std::string& record : batch) WriteOne(record);
    batch.clear();
    const bool aged = file_ && Clock::now() >= file_opened_ + options_.max_file_age;
    const bool flush = flush_ticket > flushes_done_;
    if (aged || flush || stopping) Publish();
    if (flush) {
      std::lock_guard lock(mu_);
      flushes_done_ = flush_ticket;
      drained_.notify_all();
    }
    if (stopping) {
      std::lock_guard lock(mu_);
      flushes_done_ = flush_requests_;
      drained_.notify_all();
      return;
    }
  }
}

}  // namespace tfhost::serving::logging
