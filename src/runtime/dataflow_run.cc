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

// Everything one dataflow Run() owns while it executes. Sized for one plan
// by Init; between runs of that plan a RunStatePool keeps one, emptied of
// tensors, so that a loop body's runs reuse its vectors instead of
// allocating them (and each node's input and output vectors) every time.
struct RunState {
  const ExecutionPlan* plan = nullptr;
  FeedList* feeds = nullptr;
  // When the run owns its feeds, feed_uses_left counts each feed's readers
  // down, as uses_left does for node outputs, and the last one takes the
  // tensor.
  bool owns_feeds = false;
  std::unique_ptr<std::atomic<int>[]> feed_uses_left;
  size_t feed_capacity = 0;
  // Per planned node: the vector its kernel context borrows for its inputs,
  // its outputs and their dead flags.
  std::vector<std::vector<Tensor>> inputs;
  std::vector<std::vector<Tensor>> outputs;
  std::vector<std::vector<bool>> output_dead;
  // One byte per node, not vector<bool>: nodes on different threads write
  // their own entry, and packed bits would share words (a data race).
  std::vector<uint8_t> node_dead;                // node did not run (dead inputs)
  std::unique_ptr<std::atomic<int>[]> pending;   // inputs still awaited
  std::unique_ptr<std::atomic<int>[]> uses_left; // flattened per (node, output)
  std::vector<int> uses_offset;
  std::vector<int> initial;                      // nodes with no input to await
  std::vector<int> ready;
  // Const nodes without control inputs: never run; their readers take the
  // decoded constant directly (at batch 1 the executor's work per node was
  // several percent of a CNN's run, and most of its nodes are weights).
  std::vector<uint8_t> preset;
  std::vector<int> pending_start;                // initial_pending less the preset producers
  // Where to record output sizes for memory plans (see GraphRunner).
  const std::vector<int>* observed_offset = nullptr;
  std::atomic<int64_t>* observed_bytes = nullptr;

  std::mutex mu;
  std::condition_variable done_cv;
  int outstanding = 0;  // scheduled but unfinished nodes
  Status status;

  void Init(const ExecutionPlan& p, const ir::Graph& graph, const std::vector<Tensor>& constants) {
    plan = &p;
    const size_t n = p.nodes.size();
    inputs.resize(n);
    outputs.resize(n);
    output_dead.resize(n);
    node_dead.assign(n, 0);
    pending.reset(new std::atomic<int>[std::max<size_t>(n, 1)]);
    uses_offset.resize(n);
    preset.assign(n, 0);
    for (size_t i = 0; i < n; ++i) {
      const PlannedNode& node = p.nodes[i];
      preset[i] = graph.node(node.node).op == "Const" && constants[node.node].valid() && node.inputs.empty() &&
                  node.control_inputs.empty();
    }
    pending_start.assign(n, 0);
    int total_uses = 0;
    for (size_t i = 0; i < n; ++i) {
      const PlannedNode& node = p.nodes[i];
      uses_offset[i] = total_uses;
      total_uses += static_cast<int>(node.output_use_counts.size());
      int waits = node.initial_pending;
      for (const InputSource& src : node.inputs) waits -= src.feed < 0 && preset[src.node] ? 1 : 0;
      for (int c : node.control_inputs) waits -= preset[c] ? 1 : 0;
      pending_start[i] = waits;
      if (waits == 0 && !preset[i]) initial.push_back(static_cast<int>(i));
    }
    uses_left.reset(new std::atomic<int>[std::max(total_uses, 1)]);
  }

  // Counters as the plan starts them; vectors keep their capacity.
  void Reset() {
    const size_t n = plan->nodes.size();
    std::fill(node_dead.begin(), node_dead.end(), 0);
    for (size_t i = 0; i < n; ++i) {
      const PlannedNode& node = plan->nodes[i];
      pending[i].store(pending_start[i], std::memory_order_relaxed);
      for (size_t k = 0; k < node.output_use_counts.size(); ++k) {
        uses_left[uses_offset[i] + k].store(node.output_use_counts[k], std::memory_order_relaxed);
      }
    }
    ready.clear();
    outstanding = 0;
    status = OkStatus();
  }

  // Drops every tensor the run still holds (an idle state must hold none:
  // they would stay alive until the plan's next run) and the feeds.
  void Release() {
    for (auto& v : outputs) v.clear();
    for (auto& v : output_dead) v.clear();
    feeds = nullptr;
    owns_feeds = false;
    observed_offset = nullptr;
    observed_bytes = nullptr;
  }
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

  std::vector<Tensor> inputs = std::move(state.inputs[id]);  // its capacity, from an earlier run
  inputs.clear();
  std::vector<bool> input_dead;  // stays empty (none dead) until an input is dead
  inputs.reserve(p.inputs.size());
  bool any_dead = false;
  for (const auto& src : p.inputs) {
    if (src.feed < 0 && state.preset[src.node]) {
      inputs.push_back(constants[state.plan->nodes[src.node].node]);
      if (any_dead) input_dead.push_back(false);
      continue;
    }
    if (src.feed >= 0) {
      if (state.owns_feeds) {
        inputs.push_back(TakeOrCopy(state.feeds->mutable_at(src.feed), state.feed_uses_left[src.feed]));
      } else {
        inputs.push_back(state.feeds->at(src.feed));
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
    state.outputs[id].assign(1, constant);
    state.output_dead[id].assign(1, false);
  } else if (any_dead && !reg->handles_dead_inputs) {
    state.node_dead[id] = 1;
    state.outputs[id].assign(num_outputs, Tensor());
    state.output_dead[id].assign(num_outputs, true);
  } else {
    ops::KernelContext ctx(node, std::move(inputs), std::move(input_dead), env.resources, env.intra_op);
    ctx.set_num_outputs(static_cast<int>(num_outputs), std::move(state.outputs[id]),
                        std::move(state.output_dead[id]));
    st = RunKernel(node, p.node, *reg, ctx, env);
    inputs = ctx.TakeInputs();
    inputs.clear();  // what the kernel did not take goes now, not at the run's end
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
  inputs.clear();
  state.inputs[id] = std::move(inputs);
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

// At most one idle RunState per plan: a run takes it or, when another run of
// the plan holds it (concurrent requests, recursion), makes its own.
class RunStatePool {
 public:
  std::unique_ptr<RunState> Take() {
    std::lock_guard<std::mutex> lock(mu_);
    return std::move(idle_);
  }
  void Give(std::unique_ptr<RunState> state) {
    state->Release();
    std::lock_guard<std::mutex> lock(mu_);
    if (idle_ == nullptr) idle_ = std::move(state);
  }

 private:
  std::mutex mu_;
  std::unique_ptr<RunState> idle_;
};

std::shared_ptr<RunStatePool> MakeRunStatePool() { return std::make_shared<RunStatePool>(); }

StatusOr<std::vector<Tensor>> GraphRunner::RunPlanned(const Prepared& prepared, FeedList feeds,
                                                      const std::vector<std::string>& fetches, const ExecEnv& env) {
  const ExecutionPlan* plan = prepared.plan_.get();
  if (plan->has_frames) {
    FrameExecutorInput in{graph_, kernels_, constants_, *plan, feeds, fetches};
    return RunWithFrames(in, env);
  }

  std::unique_ptr<RunState> held = prepared.states_ != nullptr ? prepared.states_->Take() : nullptr;
  if (held == nullptr) {
    held = std::make_unique<RunState>();
    held->Init(*plan, graph_, constants_);
  }
  // Back to the pool (emptied of tensors) however the run ends.
  struct GiveBack {
    RunStatePool* pool;
    std::unique_ptr<RunState>& state;
    ~GiveBack() {
      if (pool != nullptr) pool->Give(std::move(state));
    }
  } give_back{prepared.states_.get(), held};
  RunState& state = *held;
  state.Reset();
  state.feeds = &feeds;
  if (feeds.owned() && plan->feed_use_counts.size() == feeds.size()) {
    state.owns_feeds = true;
    if (state.feed_capacity < feeds.size()) {
      state.feed_uses_left.reset(new std::atomic<int>[feeds.size()]);
      state.feed_capacity = feeds.size();
    }
    for (size_t i = 0; i < feeds.size(); ++i) state.feed_uses_left[i].store(plan->feed_use_counts[i]);
  }
  if (const ObservedSizes* observed = prepared.observed_.get()) {
    state.observed_offset = &observed->offset;
    state.observed_bytes = observed->bytes.get();
  }
  const std::vector<int>& initial = state.initial;

  if (env.inter_op == nullptr) {
    std::vector<int>& ready = state.ready;
    ready.assign(initial.begin(), initial.end());
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
      results.push_back(feeds.at(src.feed));
      continue;
    }
    if (state.preset[src.node]) {
      results.push_back(constants_[plan->nodes[src.node].node]);
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
