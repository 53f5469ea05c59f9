// The frame executor: runs plans that contain TF1 while loops (Enter, Exit,
// NextIteration, LoopCond with Switch/Merge), as TensorFlow's executor does.
//
// Every tensor is tagged with a frame instance and an iteration. Enter sends
// its input into iteration 0 of the child frame named by frame_name (one
// instance per parent frame instance and parent iteration, so nested loops
// get a fresh inner loop per outer iteration); an Enter with is_constant
// makes its value visible in every iteration of that frame. NextIteration
// sends to the next iteration; Exit to the parent frame. Merge fires on its
// first live input (or once every input it can get in this iteration is
// dead). Dead tensors flow as in TensorFlow: a dead NextIteration ends the
// loop, a dead Exit reaches the parent only when its loop never produced a
// live one (the whole loop was on an untaken branch).
//
// At most `parallel_iterations` iterations of a frame run at once; later ones
// wait. Every new iteration draws on the run's LoopBudget (env.loops,
// --max_loop_iterations); past it the run fails. Runs that can never finish
// also fail with an error instead of hanging: a loop condition that depends
// on no loop variable and is true, and nodes left waiting for inputs that
// can never arrive (reported with the node, frame and iteration).
//
// Frame bookkeeping runs on the caller's thread. With an inter-op pool
// (env.inter_op), kernels of plain nodes that are worth a thread (function
// calls, or at least kFramePoolMinElements input elements) run on it whenever other work could
// run beside them, so independent nodes of up to parallel_iterations
// iterations (and of separate branches) overlap, as in TensorFlow's executor;
// what each node computes does not depend on that order. Without a pool, nodes
// run one at a time on the caller's thread. The caller must not be a worker of
// env.inter_op (it waits for the pool). Kernels may still use the intra-op
// pool.
#pragma once

#include <string>
#include <vector>

#include "runtime/execution_plan.h"
#include "runtime/graph_runner.h"

namespace tfhost::runtime {

struct FrameExecutorInput {
  const ir::Graph& graph;
  const std::vector<const ops::OpRegistration*>& kernels;
  const std::vector<Tensor>& constants;
  const ExecutionPlan& plan;  // plan.has_frames
  FeedList feeds;
  const std::vector<std::string>& fetches;
};

StatusOr<std::vector<Tensor>> RunWithFrames(const FrameExecutorInput& in, const ExecEnv& env);

// Kernels reading fewer input elements than this run inline even with a pool.
inline constexpr int64_t kFramePoolMinElements = 16384;
// Tests: changes that threshold (0 sends every plain kernel to the pool) for
// all executors; returns the previous value.
int64_t SetFramePoolMinElementsForTesting(int64_t elements);

}  // namespace tfhost::runtime
