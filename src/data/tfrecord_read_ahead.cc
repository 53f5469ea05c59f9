#include "data/tfrecord_read_ahead.h"

#include <system_error>
#include <utility>

namespace tfhost::data {

ReadAhead::ReadAhead(InputStream* stream, size_t chunk_bytes, size_t headroom, int chunks)
    : stream_(stream), chunk_bytes_(chunk_bytes), headroom_(headroom) {
  // Buffers are allocated by the helper on first use (a small file needs
  // one or two) and not zero-filled.
  buffers_.resize(static_cast<size_t>(chunks));
  for (int i = 0; i < chunks; ++i) free_.push_back(i);
  try {
    thread_ = std::thread([this] { Run(); });
  } catch (const std::system_error&) {
    // No thread to be had (resource limits): the caller reads plainly.
  }
}

ReadAhead::~ReadAhead() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  free_cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void ReadAhead::Run() {
  while (true) {
    int index;
    {
      std::unique_lock<std::mutex> lock(mu_);
      free_cv_.wait(lock, [&] { return stop_ || !free_.empty(); });
      if (stop_) return;
      index = free_.front();
      free_.pop_front();
    }
    std::unique_ptr<char[]>& buffer = buffers_[static_cast<size_t>(index)];
    if (buffer == nullptr) buffer = std::make_unique_for_overwrite<char[]>(headroom_ + chunk_bytes_);
    // Fill the whole chunk (a compressed stream returns less per call), so
    // the consumer switches buffers — and copies a record tail — once per
    // chunk, not once per read().
    char* data = DataOf(index);
    size_t got_total = 0;
    Status status;
    bool end = false;
    while (got_total < chunk_bytes_) {
      StatusOr<size_t> got = stream_->Read(data + got_total, chunk_bytes_ - got_total);
      if (!got.ok()) {
        status = got.status();
        break;
      }
      if (*got == 0) {
        end = true;
        break;
      }
      got_total += *got;
    }
    uint64_t raw = stream_->RawBytesConsumed();
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (got_total > 0) {
        filled_.push_back(Filled{index, got_total, raw, OkStatus()});
      } else {
        free_.push_back(index);
      }
      if (!status.ok() || end) filled_.push_back(Filled{-1, 0, raw, status});
    }
    filled_cv_.notify_one();
    if (!status.ok() || end) return;
  }
}

StatusOr<ReadAhead::Chunk> ReadAhead::Next() {
  if (!finished_) {
    std::unique_lock<std::mutex> lock(mu_);
    filled_cv_.wait(lock, [&] { return !filled_.empty(); });
    Filled f = std::move(filled_.front());
    filled_.pop_front();
    if (f.index >= 0) return Chunk{f.index, DataOf(f.index), f.size, f.raw_bytes_consumed};
    finished_ = true;
    terminal_ = std::move(f);
  }
  if (!terminal_.status.ok()) return terminal_.status;
  return Chunk{-1, nullptr, 0, terminal_.raw_bytes_consumed};
}

void ReadAhead::Release(int index) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(index);
  }
  free_cv_.notify_one();
}

}  // namespace tfhost::data
