// The batch scheduler's trace slices (base/trace/trace.h), category
// "batching":
//   "queue wait"  on the request's lane (request_span.h), from the moment
//                 its task was enqueued to the moment its batch began: how
//                 long it waited for the batch to fill or time out and for a
//                 free batch thread. args: request, batch, queue, rows.
//   "batch"       on the batch thread, from taking the batch until its
//                 answers are handed out (joining the inputs, the run, the
//                 output check); the model run's "session" slice nests in
//                 it. args: id, queue, rows,
//                 padded_rows, requests (the ids of the requests it served).
// A task enqueued with no request lane current (a caller outside the
// serving front ends) gets a lane of its own for its wait.
//
// Thread-safety: TaskTrace belongs to one task; the functions may be called
// from any thread.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/trace/request_span.h"

namespace tfhost::serving::batching {

// What a task remembers of its enqueueing while a recording is on.
class TaskTrace {
 public:
  TaskTrace() = default;
  ~TaskTrace() {
    if (own_lane_) trace::ReleaseLane(context_.lane);
  }
  TaskTrace(const TaskTrace&) = delete;
  TaskTrace& operator=(const TaskTrace&) = delete;

  // Called as the task is enqueued; does nothing unless a recording is on.
  void Enqueued() {
    if (trace::Enabled()) Begin();
  }
  bool traced() const { return enqueue_ns_ != 0; }
  uint64_t request() const { return context_.span; }
  // Records the wait, once (a task split over batches waited for its first).
  void Started(int64_t start_ns, uint64_t batch, const std::string& queue, int64_t rows);

 private:
  void Begin();

  trace::Context context_;
  int64_t enqueue_ns_ = 0;
  bool own_lane_ = false;
};

void RecordBatchSlice(int64_t start_ns, uint64_t batch, const std::string& queue, int64_t rows, int64_t padded_rows,
                      const std::vector<uint64_t>& requests);

}  // namespace tfhost::serving::batching
