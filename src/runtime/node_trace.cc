#include "runtime/node_trace.h"

#include "backends/backend_registry.h"
#include "backends/placement.h"
#include "ir/attrs.h"

namespace tfhost::runtime {

namespace {

int64_t Nanos(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

}  // namespace

void RecordNodeSlice(const ir::Node& node, ops::KernelContext& ctx, uint64_t run,
                     std::chrono::steady_clock::time_point start, std::chrono::steady_clock::time_point end) {
  const bool copy = node.op == backends::kCopyOp;
  trace::Event e;
  e.name = node.name;
  e.category = copy ? "copy" : "node";
  e.tid = trace::ThisThreadId();
  // The trace clock is the steady clock in nanoseconds (trace::NowNanos).
  e.start_ns = Nanos(start);
  e.duration_ns = Nanos(end) - e.start_ns;
  trace::Args args;
  args.Add("op", node.op).Add("backend", backends::BackendName(ctx.backend_id())).Add("run", run);
  std::string outputs = "[";
  int64_t bytes = 0;
  for (int i = 0; i < ctx.num_outputs(); ++i) {
    if (i > 0) outputs += ",";
    const Tensor& t = ctx.outputs()[i];
    if (ctx.output_dead()[i] || !t.valid()) {
      outputs += "\"dead\"";
      continue;
    }
    trace::AppendJsonString(DTypeShortName(t.dtype()) + t.shape().ToString(), &outputs);
    bytes += static_cast<int64_t>(t.ByteSize());
  }
  outputs += "]";
  args.AddJson("outputs", outputs);
  if (copy) {
    auto from = ir::GetAttr<std::string>(node, "from");
    auto to = ir::GetAttr<std::string>(node, "to");
    args.Add("from", from.ok() ? *from : std::string("?")).Add("to", to.ok() ? *to : std::string("?"));
    args.Add("bytes", bytes);
  }
  e.args = args.Take();
  trace::Record(std::move(e));
}

}  // namespace tfhost::runtime
