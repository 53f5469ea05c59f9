#include "serving/batching/batch_trace.h"

namespace tfhost::serving::batching {

void TaskTrace::Begin() {
  context_ = trace::CurrentContext();
  if (context_.lane == 0) {
    context_.lane = trace::AcquireLane();
    own_lane_ = true;
  }
  enqueue_ns_ = trace::NowNanos();
}

void TaskTrace::Started(int64_t start_ns, uint64_t batch, const std::string& queue, int64_t rows) {
  if (enqueue_ns_ == 0) return;
  trace::Event e;
  e.name = "queue wait";
  e.category = "batching";
  e.tid = context_.lane;
  e.start_ns = enqueue_ns_;
  e.duration_ns = start_ns - enqueue_ns_;
  trace::Args args;
  if (context_.span != 0) args.Add("request", context_.span);
  args.Add("batch", batch).Add("queue", queue).Add("rows", rows);
  e.args = args.Take();
  trace::Record(std::move(e));
  enqueue_ns_ = 0;
}

void RecordBatchSlice(int64_t start_ns, uint64_t batch, const std::string& queue, int64_t rows, int64_t padded_rows,
                      const std::vector<uint64_t>& requests) {
  trace::Event e;
  e.name = "batch";
  e.category = "batching";
  e.tid = trace::ThisThreadId();
  e.start_ns = start_ns;
  e.duration_ns = trace::NowNanos() - start_ns;
  std::string ids = "[";
  for (size_t i = 0; i < requests.size(); ++i) ids += (i ? "," : "") + std::to_string(requests[i]);
  ids += "]";
  trace::Args args;
  args.Add("id", batch).Add("queue", queue).Add("rows", rows).Add("padded_rows", padded_rows).AddJson("requests", ids);
  e.args = args.Take();
  trace::Record(std::move(e));
}

}  // namespace tfhost::serving::batching
