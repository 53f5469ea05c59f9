// GraphRunner's dataflow executor: a run of a plan without TF1 while
// loops (those go to frame_executor.h). Each node runs once all its inputs
// are ready, on the caller's thread or, given an inter-op pool, as chains of
// ready nodes on its workers; outputs are released after their last reader.
#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>

#include "runtime/execution_plan.h"
#include "runtime/frame_executor.h"
#include "runtime/graph_runner.h"

namespace tfhost::runtime {

namespace {

// Everything one dataflow Run() owns while it executes.
struct RunState {
  const ExecutionPlan* plan;
  const NamedTensors* feeds;
  // Set when the run owns its feeds (then the same as `feeds`):
  // feed_uses_left counts each feed's readers down, as uses_left does for
  // node outputs, and the last one takes the tensor.
  NamedTensors* owned_feeds = nullptr;
  std::unique_ptr<std::atomic<int>[]> feed_uses_left;
  std::vector<std::vector<Tensor>> outputs;      // per planned node
  std::vector<std::vector<bool>> output_dead;    // per planned node
  // One byte per node, not vector<bool>: nodes on different threads write
  // their own entry, and packed bits would share words (a data race).
  std::vector<uint8_t> node_dead;                // node did not run (dead inputs)
  std::unique_ptr<std::atomic<int>[]> pending;   // inputs still awaited
  std::unique_ptr<std::atomic<int>[]> uses_left; // flattened per (node, output)
  std::vector<int> uses_offset;
  // Where to record output sizes for memory plans (see GraphRunner).
  const std::vector<int>* observed_offset = nullptr;
  std::atomic<int64_t>* observed_bytes = nullptr;

  std::mutex mu;
  std::condition_variable done_cv;
  int outstanding = 0;  // scheduled but unfinished nodes
  Status status;
};

// One reader's copy of a tensor that `uses` readers still await: the last
// one takes it (no reference-count round trip); earlier ones copy it, and
// whichever finishes last releases it. A count of 1 proves the others are
// done: each counts down only after its copy.
Tensor TakeOrCopy(Tensor& held, std::atomic<int>& uses) {
  if (uses.load(std::memory_order_acquire) == 1) {
    uses.store(0, std::memory_order_relaxed);
    Tensor taken = std::move(held);
    held = Tensor();
    return taken;
  }
  Tensor copy = held;
  if (uses.fetch_sub(1) == 1) held = Tensor();
  return copy;
}

// Runs one planned node and returns the consumers that became ready.
void ExecuteNode(int id, RunState& state, const ir::Graph& graph,
                 const std::vector<const ops::OpRegistration*>& kernels,
                 const std::vector<Tensor>& constants, const ExecEnv& env, std::vector<int>* ready) {
  const PlannedNode& p = state.plan->nodes[id];
  const ir::Node& node = graph.node(p.node);
  const ops::OpRegistration* reg = kernels[p.node];
  const Tensor& constant = constants[p.node];

  std::vector<Tensor> inputs;
  std::vector<bool> input_dead;  // stays empty (none dead) until an input is dead
  inputs.reserve(p.inputs.size());
  bool any_dead = false;
  for (const auto& src : p.inputs) {
    if (src.feed >= 0) {
      if (state.owned_feeds != nullptr) {
        inputs.push_back(TakeOrCopy((*state.owned_feeds)[src.feed].second, state.feed_uses_left[src.feed]));
      } else {
        inputs.push_back((*state.feeds)[src.feed].second);
      }
      if (any_dead) input_dead.push_back(false);
      continue;
    }
    bool dead = state.output_dead[src.node][src.index];
    if (dead && !any_dead) input_dead.assign(inputs.size(), false);
    any_dead |= dead;
    if (any_dead) input_dead.push_back(dead);
    Tensor value = TakeOrCopy(state.outputs[src.node][src.index],
                              state.uses_left[state.uses_offset[src.node] + src.index]);
    inputs.push_back(dead ? Tensor() : std::move(value));
  }
  for (int c : p.control_inputs) any_dead |= state.node_dead[c] != 0;

  size_t num_outputs = std::max(node.output_dtypes.size(), p.output_use_counts.size());
  Status st;
  if (constant.valid() && !any_dead) {
    state.outputs[id] = {constant};
    state.output_dead[id] = {false};
  } else if (any_dead && !reg->handles_dead_inputs) {
    state.node_dead[id] = 1;
    state.outputs[id].assign(num_outputs, Tensor());
    state.output_dead[id].assign(num_outputs, true);
  } else {
    ops::KernelContext ctx(node, std::move(inputs), std::move(input_dead), env.resources, env.intra_op);
    ctx.set_num_outputs(static_cast<int>(num_outputs));
    st = RunKernel(node, p.node, *reg, ctx, env);
    state.output_dead[id] = ctx.TakeOutputDead();
    state.outputs[id] = std::move(ctx.outputs());
    // Outputs that nothing reads (and no fetch) are released now rather than
    // at the end of the run; a dead flag stays for the dead-branch logic.
    const size_t recorded = std::min(state.outputs[id].size(), num_outputs);
    for (size_t k = 0; k < state.outputs[id].size(); ++k) {
      const Tensor& t = state.outputs[id][k];
      if (state.observed_bytes != nullptr && k < recorded && t.valid() && !IsStringLike(t.dtype()) &&
          t.dtype() != DType::kVariant) {
        state.observed_bytes[(*state.observed_offset)[id] + k].store(static_cast<int64_t>(t.ByteSize()),
                                                                      std::memory_order_relaxed);
      }
      if (k >= p.output_use_counts.size() || p.output_use_counts[k] == 0) state.outputs[id][k] = Tensor();
    }
    bool all_dead = num_outputs > 0;
    for (bool d : state.output_dead[id]) all_dead &= d;
    state.node_dead[id] = all_dead ? 1 : 0;
  }
  if (!st.ok()) {
    std::lock_guard<std::mutex> lock(state.mu);
    if (state.status.ok()) state.status = st;
    return;
  }
  for (int c : p.consumers) {
    if (state.pending[c].fetch_sub(1) == 1) ready->push_back(c);
  }
}

}  // namespace

StatusOr<std::vector<Tensor>> GraphRunner::RunPlanned(const Prepared& prepared, const NamedTensors& feeds,
                                                      const std::vector<std::string>& fetches, const ExecEnv& env,
                                                      NamedTensors* owned_feeds) {
  const ExecutionPlan* plan = prepared.plan_.get();
  if (plan->has_frames) {
    FrameExecutorInput in{graph_, kernels_, constants_, *plan, feeds, fetches};
    return RunWithFrames(in, env);
  }

  RunState state;
  state.plan = plan;
  state.feeds = &feeds;
  if (owned_feeds != nullptr && plan->feed_use_counts.size() == feeds.size()) {
    state.owned_feeds = owned_feeds;
    state.feed_uses_left.reset(new std::atomic<int>[std::max<size_t>(feeds.size(), 1)]);
    for (size_t i = 0; i < feeds.size(); ++i) state.feed_uses_left[i].store(plan->feed_use_counts[i]);
  }
  if (const ObservedSizes* observed = prepared.observed_.get()) {
    state.observed_offset = &observed->offset;
    state.observed_bytes = observed->bytes.get();
  }
  size_t n = plan->nodes.size();
  state.outputs.resize(n);
  state.output_dead.resize(n);
  state.node_dead.assign(n, 0);
  state.pending.reset(new std::atomic<int>[n]);
  state.uses_offset.resize(n);
  int total_uses = 0;
  for (size_t i = 0; i < n; ++i) {
    state.pending[i].store(plan->nodes[i].initial_pending);
    state.uses_offset[i] = total_uses;
    total_uses += static_cast<int>(plan->nodes[i].output_use_counts.size());
  }
  state.uses_left.reset(new std::atomic<int>[std::max(total_uses, 1)]);
  for (size_t i = 0; i < n; ++i) {
    for (size_t k = 0; k < plan->nodes[i].output_use_counts.size(); ++k) {
      state.uses_left[state.uses_offset[i] + k].store(plan->nodes[i].output_use_counts[k]);
    }
  }

  std::vector<int> initial;
  for (size_t i = 0; i < n; ++i) {
    if (plan->nodes[i].initial_pending == 0) initial.push_back(static_cast<int>(i));
  }

  if (env.inter_op == nullptr) {
    std::vector<int> ready = std::move(initial);
    while (!ready.empty() && state.status.ok()) {
      int id = ready.back();
      ready.pop_back();
      ExecuteNode(id, state, graph_, kernels_, constants_, env, &ready);
    }
  } else {
    // Each task runs a node, keeps one newly ready consumer for itself and
    // schedules the rest, so chains don't bounce between threads.
    ThreadPool* pool = env.inter_op;
    std::function<void(int)> run_chain = [&](int id) {
      for (;;) {
        std::vector<int> ready;
        ExecuteNode(id, state, graph_, kernels_, constants_, env, &ready);
        bool failed;
        {
          std::lock_guard<std::mutex> lock(state.mu);
          failed = !state.status.ok();
          if (!failed) state.outstanding += static_cast<int>(ready.size());
        }
        if (failed || ready.empty()) break;
        for (size_t k = 1; k < ready.size(); ++k) {
          int next = ready[k];
          pool->Schedule([&, next] { run_chain(next); });
        }
        {
          std::lock_guard<std::mutex> lock(state.mu);
          --state.outstanding;  // the one we keep is accounted as the current task
        }
        id = ready[0];
      }
      std::lock_guard<std::mutex> lock(state.mu);
      if (--state.outstanding == 0) state.done_cv.notify_all();
    };
    {
      std::lock_guard<std::mutex> lock(state.mu);
      state.outstanding = static_cast<int>(initial.size());
    }
    for (int id : initial) pool->Schedule([&, id] { run_chain(id); });
    std::unique_lock<std::mutex> lock(state.mu);
    state.done_cv.wait(lock, [&] { return state.outstanding == 0; });
  }
  if (!state.status.ok()) return state.status;

  std::vector<Tensor> results;
  results.reserve(fetches.size());
  for (size_t i = 0; i < fetches.size(); ++i) {
    const InputSource& src = plan->fetch_sources[i];
    if (src.feed >= 0) {
      results.push_back(feeds[src.feed].second);
      continue;
    }
    if (state.output_dead[src.node].size() <= static_cast<size_t>(src.index) ||
        state.output_dead[src.node][src.index]) {
      return InvalidArgument("fetch '" + fetches[i] +
                             "' was not computed: it lies on an untaken branch of a Switch");
    }
    results.push_back(state.outputs[src.node][src.index]);
  }
  return results;
}

}  // namespace tfhost::runtime
