#include "runtime/frame_executor.h"

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>

#include "ir/attrs.h"

namespace tfhost::runtime {

namespace {

std::atomic<int64_t> pool_min_elements{kFramePoolMinElements};

// Arrival state of one node in one iteration.
struct NodeSlot {
  int pending = 0;      // edges still awaited (for a Merge: control edges only)
  int dead_data = 0;    // Merge: dead data inputs seen
  bool any_dead = false;
  bool live = false;    // Merge: a live data input arrived
  bool fired = false;
  std::vector<Tensor> in;
  std::vector<uint8_t> state;  // per input: 0 = not arrived, 1 = live, 2 = dead
};

struct FrameInstance;

struct Iteration {
  std::vector<NodeSlot> slots;  // by local index
  int outstanding = 0;          // nodes ready or running
  int live_children = 0;        // child frame instances not yet finished
  std::map<int, std::unique_ptr<FrameInstance>> children;  // by static frame id
};

struct FrameInstance {
  int frame = 0;
  FrameInstance* parent = nullptr;
  int64_t parent_iter = 0;
  int pending_enters = 0;
  int64_t oldest = 0;   // iteration number of iters.front()
  int64_t highest = 0;  // newest iteration created
  std::deque<std::unique_ptr<Iteration>> iters;
  struct Invariant {
    int enter;
    Tensor value;
    bool dead;
  };
  std::vector<Invariant> invariants;  // is_constant Enters, re-sent to every new iteration
  struct Deferred {
    int producer;
    Tensor value;
  };
  std::vector<Deferred> deferred;  // NextIteration outputs waiting for a free iteration slot
  std::set<int> dead_exits;
  std::set<int> live_exits;
};

struct ReadyItem {
  FrameInstance* frame;
  int64_t iter;
  int id;
};

class FrameExecutor {
 public:
  FrameExecutor(const FrameExecutorInput& in, const ExecEnv& env) : in_(in), plan_(in.plan), env_(env) {
    // Initial pending counts per frame (a Merge waits only for control edges
    // here; its data inputs are counted as they arrive).
    init_pending_.resize(plan_.frames.size());
    for (size_t f = 0; f < plan_.frames.size(); ++f) init_pending_[f].assign(plan_.frames[f].num_nodes, 0);
    for (size_t id = 0; id < plan_.nodes.size(); ++id) {
      const PlannedNode& p = plan_.nodes[id];
      int v = plan_.kinds[id] == NodeKind::kMerge ? static_cast<int>(p.control_inputs.size()) : p.initial_pending;
      init_pending_[plan_.frame_of[id]][plan_.local_index[id]] = v;
      if (plan_.kinds[id] == NodeKind::kMerge) {
        int data = 0;
        for (const auto& src : p.inputs) data += src.feed < 0 ? 1 : 0;
        merge_data_inputs_[id] = data;
      }
    }
    for (size_t i = 0; i < in.fetches.size(); ++i) {
      const InputSource& src = plan_.fetch_sources[i];
      if (src.feed < 0) fetch_of_[src.node].push_back(static_cast<int>(i));
    }
    results_.resize(in.fetches.size());
    result_state_.assign(in.fetches.size(), 0);
  }

  StatusOr<std::vector<Tensor>> Run() {
    root_.frame = 0;
    root_.iters.push_back(NewIterationState(0));
    Iteration* it0 = root_.iters.front().get();
    for (size_t id = 0; id < plan_.nodes.size(); ++id) {
      if (plan_.frame_of[id] != 0) continue;
      NodeSlot& slot = it0->slots[plan_.local_index[id]];
      if (plan_.kinds[id] == NodeKind::kMerge) {
        // A Merge whose inputs are all fed or absent runs at once.
        if (slot.pending == 0 && merge_data_inputs_[id] == 0) MakeReady(&root_, 0, static_cast<int>(id));
      } else if (slot.pending == 0) {
        MakeReady(&root_, 0, static_cast<int>(id));
      }
    }
    TFHOST_RETURN_IF_ERROR(Schedule());
    TFHOST_RETURN_IF_ERROR(CheckFinished());
    std::vector<Tensor> out(in_.fetches.size());
    for (size_t i = 0; i < in_.fetches.size(); ++i) {
      const InputSource& src = plan_.fetch_sources[i];
      if (src.feed >= 0) {
        out[i] = in_.feeds.at(src.feed);
        continue;
      }
      int frame = plan_.frame_of[src.node];
      if (plan_.kinds[src.node] == NodeKind::kExit) frame = plan_.frames[frame].parent;
      if (plan_.kinds[src.node] == NodeKind::kEnter) frame = plan_.enter_frame[src.node];
      if (frame != 0) {
        return InvalidArgument("fetch '" + in_.fetches[i] + "' lies inside " + FrameLabel(frame) +
                               "; only tensors outside while loops can be fetched");
      }
      if (result_state_[i] == 2) {
        return InvalidArgument("fetch '" + in_.fetches[i] +
                               "' was not computed: it lies on an untaken branch of a Switch");
      }
      if (result_state_[i] == 0) {
        return Internal("fetch '" + in_.fetches[i] + "' was never computed" + StuckDescription());
      }
      out[i] = std::move(results_[i]);
    }
    return out;
  }

 private:
  std::string FrameLabel(int frame) const {
    return frame == 0 ? std::string("the top level") : "while-loop frame '" + plan_.frames[frame].name + "'";
  }
  std::string NodeLabel(int id) const { return ir::NodeContext(in_.graph.node(plan_.nodes[id].node)); }

  std::unique_ptr<Iteration> NewIterationState(int frame) {
    auto it = std::make_unique<Iteration>();
    const auto& init = init_pending_[frame];
    it->slots.resize(init.size());
    for (size_t i = 0; i < init.size(); ++i) it->slots[i].pending = init[i];
    return it;
  }

  Iteration* IterationOf(FrameInstance* f, int64_t iter) {
    int64_t k = iter - f->oldest;
    if (k < 0 || k >= static_cast<int64_t>(f->iters.size())) return nullptr;
    return f->iters[k].get();
  }

  void MakeReady(FrameInstance* f, int64_t iter, int id) {
    Iteration* it = IterationOf(f, iter);
    it->slots[plan_.local_index[id]].fired = true;
    ++it->outstanding;
    ready_.push_back({f, iter, id});
  }

  // One input (slot >= 0) or control edge (slot < 0) arrives at `consumer`.
  Status Deliver(int consumer, int slot, const Tensor& value, bool dead, FrameInstance* f, int64_t iter) {
    Iteration* it = IterationOf(f, iter);
    if (it == nullptr) {
      return Internal(NodeLabel(consumer) + ": input for iteration " + std::to_string(iter) + " of " +
                      FrameLabel(f->frame) + ", which is not running");
    }
    NodeSlot& ns = it->slots[plan_.local_index[consumer]];
    const PlannedNode& p = plan_.nodes[consumer];
    const bool merge = plan_.kinds[consumer] == NodeKind::kMerge;
    if (slot >= 0) {
      if (ns.state.empty()) {
        ns.state.assign(p.inputs.size(), 0);
        ns.in.resize(p.inputs.size());
      }
      if (ns.state[slot] != 0) {
        return InvalidArgument(NodeLabel(consumer) + " received input " + std::to_string(slot) + " twice in iteration " +
                               std::to_string(iter) + " of " + FrameLabel(f->frame) +
                               "; a malformed while loop (frames or back edges do not match)");
      }
      ns.state[slot] = dead ? 2 : 1;
      // A node that has fired has handed its inputs to its kernel (`in` is
      // moved out); a late input is only counted, and refused below.
      if (!dead && !ns.fired) ns.in[slot] = value;
    }
    if (ns.fired) {
      if (merge && (dead || slot < 0)) return OkStatus();
      if (merge) {
        return InvalidArgument(NodeLabel(consumer) + " received a second live input in iteration " +
                               std::to_string(iter) + " of " + FrameLabel(f->frame) +
                               "; only one input of a Merge may be live");
      }
      return Internal(NodeLabel(consumer) + " received an input after it ran");
    }
    if (merge && slot >= 0) {
      if (dead) {
        ++ns.dead_data;
      } else {
        ns.live = true;
      }
    } else {
      --ns.pending;
      if (dead) ns.any_dead = true;
    }
    bool ready;
    if (merge) {
      int back = plan_.merge_back_inputs[consumer];
      int data = merge_data_inputs_[consumer];
      // Loop merges get their Enter input in iteration 0 and their back edge
      // after; other merges get every input in every iteration.
      int expected = back == 0 ? data : (iter == 0 ? data - back : back);
      ready = ns.pending == 0 && (ns.live || ns.dead_data >= expected);
    } else {
      ready = ns.pending == 0;
    }
    if (ready) MakeReady(f, iter, consumer);
    return OkStatus();
  }

  // Sends a node's outputs along all its edges into (f, iter).
  Status DeliverAll(int id, const std::vector<Tensor>& outputs, const std::vector<bool>& output_dead,
                    bool node_dead, FrameInstance* f, int64_t iter) {
    for (const OutEdge& e : plan_.out_edges[id]) {
      if (e.slot < 0) {
        TFHOST_RETURN_IF_ERROR(Deliver(e.consumer, -1, Tensor(), node_dead, f, iter));
        continue;
      }
      bool dead = e.output >= static_cast<int>(output_dead.size()) || output_dead[e.output];
      static const Tensor kNone;
      TFHOST_RETURN_IF_ERROR(
          Deliver(e.consumer, e.slot, dead ? kNone : outputs[e.output], dead, f, iter));
    }
    return OkStatus();
  }

  Status NewIteration(FrameInstance* f) {
    if (env_.loops != nullptr && !env_.loops->TryCharge()) {
      return env_.loops->Exceeded(FrameLabel(f->frame) + ", iteration " + std::to_string(f->highest + 1));
    }
    ++f->highest;
    f->iters.push_back(NewIterationState(f->frame));
    for (const auto& inv : f->invariants) {
      TFHOST_RETURN_IF_ERROR(DeliverAll(inv.enter, {inv.value}, {inv.dead}, inv.dead, f, f->highest));
    }
    return OkStatus();
  }

  StatusOr<FrameInstance*> ChildFrame(FrameInstance* f, int64_t iter, int child_frame) {
    Iteration* it = IterationOf(f, iter);
    auto found = it->children.find(child_frame);
    if (found != it->children.end()) return found->second.get();
    auto child = std::make_unique<FrameInstance>();
    child->frame = child_frame;
    child->parent = f;
    child->parent_iter = iter;
    child->pending_enters = plan_.frames[child_frame].num_enters;
    child->iters.push_back(NewIterationState(child_frame));
    FrameInstance* raw = child.get();
    it->children.emplace(child_frame, std::move(child));
    ++it->live_children;
    return raw;
  }

  // The scheduler: all frame bookkeeping runs here, on the caller's thread;
  // only kernels of plain nodes go to the inter-op pool. Work of different
  // iterations of a frame (up to parallel_iterations of them, which the
  // iteration window already bounds) and of independent branches thus runs
  // concurrently, as in TensorFlow's executor, while the order in which
  // tensors are delivered never changes what a node computes.
  Status Schedule() {
    Status status = OkStatus();
    while (status.ok()) {
      while (status.ok() && !ready_.empty()) {
        ReadyItem item = ready_.front();
        ready_.pop_front();
        status = Start(item);
      }
      if (!status.ok() || in_flight_ == 0) break;
      Completion done = WaitForCompletion();
      status = done.status.ok() ? Finish(done.item, std::move(done.outputs), std::move(done.output_dead), done.any_dead)
                                : done.status;
    }
    // Kernels still running refer to this executor: wait for them.
    while (in_flight_ > 0) WaitForCompletion();
    return status;
  }

  struct Completion {
    ReadyItem item;
    Status status;
    std::vector<Tensor> outputs;
    std::vector<bool> output_dead;
    bool any_dead = false;
  };

  Completion WaitForCompletion() {
    std::unique_lock<std::mutex> lock(mu_);
    done_cv_.wait(lock, [&] { return !completed_.empty(); });
    Completion c = std::move(completed_.front());
    completed_.pop_front();
    --in_flight_;
    return c;
  }

  // Gathers a ready node's inputs and runs it: inline for control-flow nodes,
  // constants and dead nodes (cheap, and their effects on frames are needed at
  // once), for cheap kernels (WorthAThread) and for a kernel when nothing else
  // could run beside it; otherwise on the inter-op pool, finishing when its
  // completion comes back.
  Status Start(const ReadyItem& item) {
    FrameInstance* f = item.frame;
    const int id = item.id;
    Iteration* it = IterationOf(f, item.iter);
    NodeSlot& slot = it->slots[plan_.local_index[id]];
    const PlannedNode& p = plan_.nodes[id];
    const ir::Node& node = in_.graph.node(p.node);
    const ops::OpRegistration* reg = in_.kernels[p.node];
    const NodeKind kind = plan_.kinds[id];

    std::vector<Tensor> inputs(p.inputs.size());
    std::vector<bool> input_dead(p.inputs.size(), false);
    bool data_dead = false;
    for (size_t s = 0; s < p.inputs.size(); ++s) {
      if (p.inputs[s].feed >= 0) {
        inputs[s] = in_.feeds.at(p.inputs[s].feed);
        continue;
      }
      uint8_t st = slot.state.empty() ? 0 : slot.state[s];
      if (st == 1) {
        inputs[s] = std::move(slot.in[s]);
      } else {
        input_dead[s] = true;  // dead, or (Merge) not arrived
        data_dead = true;
      }
    }
    slot.in.clear();
    slot.in.shrink_to_fit();
    bool any_dead = slot.any_dead || (kind != NodeKind::kMerge && data_dead);

    size_t num_outputs = std::max(node.output_dtypes.size(), p.output_use_counts.size());
    std::vector<Tensor> outputs;
    std::vector<bool> output_dead;
    const Tensor& constant = in_.constants[p.node];
    if (constant.valid() && !any_dead) {
      outputs = {constant};
      output_dead = {false};
    } else if (any_dead && (!reg->handles_dead_inputs || slot.any_dead)) {
      outputs.assign(num_outputs, Tensor());
      output_dead.assign(num_outputs, true);
    } else if (kind == NodeKind::kNormal && env_.inter_op != nullptr && (!ready_.empty() || in_flight_ > 0) &&
               WorthAThread(node, *reg, inputs)) {
      ++in_flight_;
      env_.inter_op->Schedule([this, item, &node, node_id = p.node, reg, num_outputs, any_dead,
                               inputs = std::move(inputs),
                               input_dead = std::move(input_dead)]() mutable {
        ops::KernelContext ctx(node, std::move(inputs), std::move(input_dead), env_.resources, env_.intra_op);
        ctx.set_num_outputs(static_cast<int>(num_outputs));
        Completion c{item, RunKernel(node, node_id, *reg, ctx, env_), std::move(ctx.outputs()), ctx.TakeOutputDead(),
                     any_dead};
        std::lock_guard<std::mutex> lock(mu_);
        completed_.push_back(std::move(c));
        done_cv_.notify_one();
      });
      return OkStatus();
    } else {
      ops::KernelContext ctx(node, std::move(inputs), std::move(input_dead), env_.resources, env_.intra_op);
      ctx.set_num_outputs(static_cast<int>(num_outputs));
      TFHOST_RETURN_IF_ERROR(RunKernel(node, p.node, *reg, ctx, env_));
      outputs = std::move(ctx.outputs());
      output_dead = ctx.TakeOutputDead();
    }
    return Finish(item, std::move(outputs), std::move(output_dead), any_dead);
  }

  // Whether a kernel is worth handing to the pool: handing one over and back
  // costs microseconds (a thread wake-up each way), far more than the scalar
  // arithmetic and bookkeeping nodes that make up most of a loop body, so
  // those run inline, as TensorFlow runs its inexpensive kernels. Function
  // calls and kernels reading at least kFramePoolMinElements elements (a MatMul
  // with its weights, a cell over a batch) go to the pool.
  static bool WorthAThread(const ir::Node& node, const ops::OpRegistration& reg, const std::vector<Tensor>& inputs) {
    if (&reg == &FunctionCallRegistration() || IsFunctionalOp(node.op)) return true;
    const int64_t min_elements = pool_min_elements.load(std::memory_order_relaxed);
    int64_t elements = 0;
    for (const Tensor& t : inputs) {
      if (t.valid()) elements += t.NumElements();
    }
    return elements >= min_elements;
  }

  // Sends a node's outputs on (frames, fetches, consumers) once it ran.
  Status Finish(const ReadyItem& item, std::vector<Tensor> outputs, std::vector<bool> output_dead, bool any_dead) {
    FrameInstance* f = item.frame;
    const int id = item.id;
    Iteration* it = IterationOf(f, item.iter);
    const PlannedNode& p = plan_.nodes[id];
    const ir::Node& node = in_.graph.node(p.node);
    const NodeKind kind = plan_.kinds[id];
    const size_t num_outputs = std::max(node.output_dtypes.size(), p.output_use_counts.size());
    bool node_dead = num_outputs > 0 || any_dead;
    for (size_t i = 0; i < output_dead.size(); ++i) node_dead &= static_cast<bool>(output_dead[i]);
    if (num_outputs == 0) node_dead = any_dead;

    if (kind == NodeKind::kLoopCond && plan_.invariant_loop_cond[id] && !output_dead.empty() && !output_dead[0] &&
        outputs[0].dtype() == DType::kBool && outputs[0].NumElements() == 1 && outputs[0].data<bool>()[0]) {
      return InvalidArgument("while loop '" + plan_.frames[f->frame].name + "' can never finish: its condition " +
                             NodeLabel(id) + " is true and depends on no loop variable (Merge) of the loop");
    }

    if (f == &root_ && kind != NodeKind::kEnter) RecordFetches(id, outputs, output_dead);

    switch (kind) {
      case NodeKind::kEnter: {
        TFHOST_ASSIGN_OR_RETURN(FrameInstance * child, ChildFrame(f, item.iter, plan_.enter_frame[id]));
        if (plan_.is_constant_enter[id]) {
          bool dead = output_dead.empty() || output_dead[0];
          child->invariants.push_back({id, dead ? Tensor() : outputs[0], dead});
          for (int64_t i = child->oldest; i <= child->highest; ++i) {
            TFHOST_RETURN_IF_ERROR(DeliverAll(id, outputs, output_dead, node_dead, child, i));
          }
        } else {
          TFHOST_RETURN_IF_ERROR(DeliverAll(id, outputs, output_dead, node_dead, child, 0));
        }
        --child->pending_enters;
        TFHOST_RETURN_IF_ERROR(Advance(child));
        break;
      }
      case NodeKind::kExit:
        if (node_dead) {
          f->dead_exits.insert(id);
        } else {
          if (!f->live_exits.insert(id).second) {
            return InvalidArgument(NodeLabel(id) + " produced a second live value for one run of " +
                                   FrameLabel(f->frame));
          }
          if (f->parent == &root_) RecordFetches(id, outputs, output_dead);
          TFHOST_RETURN_IF_ERROR(DeliverAll(id, outputs, output_dead, false, f->parent, f->parent_iter));
        }
        break;
      case NodeKind::kNextIteration: {
        if (node_dead) break;  // the loop ended on this path
        int64_t next = item.iter + 1;
        if (next <= f->highest) {
          TFHOST_RETURN_IF_ERROR(DeliverAll(id, outputs, output_dead, false, f, next));
        } else if (static_cast<int>(f->iters.size()) < plan_.frames[f->frame].parallel_iterations) {
          TFHOST_RETURN_IF_ERROR(NewIteration(f));
          TFHOST_RETURN_IF_ERROR(DeliverAll(id, outputs, output_dead, false, f, next));
        } else {
          f->deferred.push_back({id, outputs[0]});
        }
        break;
      }
      default:
        TFHOST_RETURN_IF_ERROR(DeliverAll(id, outputs, output_dead, node_dead, f, item.iter));
        break;
    }
    // Iterations are held by pointer, so `it` is still this node's.
    --it->outstanding;
    return Advance(f);
  }

  // Keeps the outputs of `id` that are fetched (they have reached the top level).
  void RecordFetches(int id, const std::vector<Tensor>& outputs, const std::vector<bool>& output_dead) {
    auto fetched = fetch_of_.find(id);
    if (fetched == fetch_of_.end()) return;
    for (int i : fetched->second) {
      int index = plan_.fetch_sources[i].index;
      if (index >= static_cast<int>(output_dead.size()) || output_dead[index]) {
        result_state_[i] = 2;
      } else {
        results_[i] = outputs[index];
        result_state_[i] = 1;
      }
    }
  }

  // Retires finished iterations of `f` (oldest first), starts deferred ones,
  // and finishes the frame when nothing in it can run any more.
  Status Advance(FrameInstance* f) {
    if (f == &root_) return OkStatus();
    for (;;) {
      if (f->iters.empty()) break;
      Iteration* it = f->iters.front().get();
      bool done = it->outstanding == 0 && it->live_children == 0 && (f->oldest != 0 || f->pending_enters == 0);
      if (!done) return OkStatus();
      f->iters.pop_front();
      ++f->oldest;
      if (!f->deferred.empty()) {
        std::vector<FrameInstance::Deferred> deferred = std::move(f->deferred);
        f->deferred.clear();
        TFHOST_RETURN_IF_ERROR(NewIteration(f));
        for (const auto& d : deferred) {
          TFHOST_RETURN_IF_ERROR(DeliverAll(d.producer, {d.value}, {false}, false, f, f->highest));
        }
      }
    }
    // Every iteration finished: the loop is over.
    FrameInstance* parent = f->parent;
    int64_t parent_iter = f->parent_iter;
    for (int exit : f->dead_exits) {
      if (f->live_exits.count(exit)) continue;
      if (parent == &root_) RecordFetches(exit, {Tensor()}, {true});
      TFHOST_RETURN_IF_ERROR(DeliverAll(exit, {Tensor()}, {true}, true, parent, parent_iter));
    }
    Iteration* pit = IterationOf(parent, parent_iter);
    --pit->live_children;
    pit->children.erase(f->frame);  // destroys f
    return Advance(parent);
  }

  // After the ready queue drains: any frame still alive waits for inputs that
  // can never come.
  Status CheckFinished() {
    Iteration* it = root_.iters.front().get();
    if (it->children.empty()) return OkStatus();
    return InvalidArgument("the run cannot finish" + StuckDescription());
  }

  // Says which loops are stuck and why, innermost first: missing Enter
  // inputs, iterations waiting for a free parallel_iterations slot, and nodes
  // that received some inputs but never ran.
  std::string StuckDescription() {
    std::string out;
    std::function<void(FrameInstance*)> walk = [&](FrameInstance* f) {
      for (size_t k = 0; k < f->iters.size(); ++k) {
        for (auto& [id, child] : f->iters[k]->children) walk(child.get());
      }
      if (out.size() > 800) return;
      if (f != &root_) {
        out += "; " + FrameLabel(f->frame) + " is stalled at iteration " + std::to_string(f->oldest) + " with " +
               std::to_string(f->iters.size()) + " iteration(s) in flight (parallel_iterations " +
               std::to_string(plan_.frames[f->frame].parallel_iterations) + ")";
        if (f->pending_enters > 0) {
          out += ", still waiting for " + std::to_string(f->pending_enters) + " of its " +
                 std::to_string(plan_.frames[f->frame].num_enters) + " Enter inputs";
        }
        if (!f->deferred.empty()) out += ", the next iteration waiting for a free slot";
      }
      for (size_t k = 0; k < f->iters.size() && out.size() < 800; ++k) {
        Iteration* it = f->iters[k].get();
        for (size_t id = 0; id < plan_.nodes.size() && out.size() < 800; ++id) {
          if (plan_.frame_of[id] != f->frame) continue;
          const NodeSlot& s = it->slots[plan_.local_index[id]];
          bool partial = !s.fired && (!s.state.empty() || s.pending != init_pending_[f->frame][plan_.local_index[id]]);
          if (!partial) continue;
          out += "; " + NodeLabel(static_cast<int>(id)) + " in iteration " + std::to_string(f->oldest + k) +
                 " of " + FrameLabel(f->frame) + " received only part of its inputs";
        }
      }
    };
    walk(&root_);
    return ": a malformed while loop" + out;
  }

  const FrameExecutorInput& in_;
  const ExecutionPlan& plan_;
  const ExecEnv& env_;
  std::vector<std::vector<int>> init_pending_;
  std::map<int, int> merge_data_inputs_;
  std::map<int, std::vector<int>> fetch_of_;
  std::vector<Tensor> results_;
  std::vector<uint8_t> result_state_;
  FrameInstance root_;
  std::deque<ReadyItem> ready_;
  int in_flight_ = 0;  // kernels on the pool; read and written by the scheduler only
  std::mutex mu_;      // guards completed_
  std::condition_variable done_cv_;
  std::deque<Completion> completed_;
};

}  // namespace

StatusOr<std::vector<Tensor>> RunWithFrames(const FrameExecutorInput& in, const ExecEnv& env) {
  FrameExecutor executor(in, env);
  return executor.Run();
}

int64_t SetFramePoolMinElementsForTesting(int64_t elements) { return pool_min_elements.exchange(elements); }

}  // namespace tfhost::runtime
