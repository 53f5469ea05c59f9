// ExecutionPlan: the part of a graph one Run() needs, precomputed once per
// (feeds, fetches, targets) combination: which nodes run, where each input
// comes from, how many inputs each node waits for and who consumes what.
// For TF1 while loops it also records the loop structure (which frame each
// node runs in, Enter/Exit/NextIteration roles), checked once here so that
// malformed loops (mismatched frames, a NextIteration feeding no Merge, a
// cycle without a back edge) fail before anything runs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/graph.h"
#include "runtime/session.h"

namespace tfhost::runtime {

struct InputSource {
  int node = -1;        // producing node, or -1 when fed
  int index = 0;        // output index of the producer
  int feed = -1;        // index into the feeds, when fed
};

struct PlannedNode {
  int node = -1;                       // graph node index
  std::vector<InputSource> inputs;     // data inputs
  std::vector<int> control_inputs;     // planned-node ids (positions in ExecutionPlan::nodes)
  std::vector<int> consumers;          // planned-node ids, one entry per edge
  int initial_pending = 0;             // edges from planned producers
  // Consumers that read each output, so it can be released after its last use.
  std::vector<int> output_use_counts;
};

// How the executor treats a node: TF1 while-loop plumbing moves tensors
// between frames and iterations; Merge fires on its first live input.
enum class NodeKind : uint8_t { kNormal, kEnter, kExit, kNextIteration, kMerge, kLoopCond };

// One while-loop frame of a plan (TF1 tf.while_loop): all nodes between its
// Enter and Exit nodes. Frame 0 is the root (everything outside loops).
struct FrameInfo {
  std::string name;             // Enter's frame_name; "" for the root
  int parent = -1;              // enclosing frame
  int num_enters = 0;           // planned Enter nodes feeding this frame
  int parallel_iterations = 10; // iterations allowed in flight at once
  int num_nodes = 0;            // planned nodes running in this frame
};

// One edge out of a planned node, for routing tensors between frames.
struct OutEdge {
  int output = 0;    // producer's output index (unused for control edges)
  int consumer = 0;  // planned id
  int slot = -1;     // consumer's input index; -1 = control edge
};

class ExecutionPlan {
 public:
  // Builds the plan; errors name the unknown tensor or node.
  static StatusOr<ExecutionPlan> Build(const ir::Graph& graph, const std::vector<std::string>& feed_names,
                                       const std::vector<std::string>& fetches,
                                       const std::vector<std::string>& targets);

  std::vector<PlannedNode> nodes;
  std::vector<int> plan_id_of_node;  // graph node -> planned id, or -1
  // Where each fetch comes from: a planned node's output, or a feed.
  std::vector<InputSource> fetch_sources;  // .node is a planned id here
  // Per feed: the node inputs that read it, plus one per fetch of it (a use
  // never released). A run that owns its feeds moves one into its last reader.
  std::vector<int> feed_use_counts;

  // TF1 while loops (Enter/Exit/NextIteration): filled only when present.
  bool has_frames = false;
  std::vector<FrameInfo> frames;      // [0] = root
  std::vector<int> frame_of;          // planned id -> frame the node runs in
  std::vector<int> local_index;       // planned id -> index within its frame
  std::vector<int> enter_frame;       // planned id -> frame an Enter feeds, else -1
  std::vector<NodeKind> kinds;        // planned id -> kind
  std::vector<bool> is_constant_enter;
  // Per Merge: data inputs arriving over a NextIteration back edge.
  std::vector<int> merge_back_inputs;
  // Per LoopCond: its value cannot change between iterations (depends on no
  // Merge of its frame and no stateful op), so "true" means it never ends.
  std::vector<bool> invariant_loop_cond;
  std::vector<std::vector<OutEdge>> out_edges;  // planned id -> edges
  // Whether the plan runs functional control flow or other ops that need the
  // general executor (If/While/Case, calls).
  bool has_function_calls = false;
};

// Whether `op` is one of TF1's loop ops (and the Ref variants).
NodeKind KindOfOp(const std::string& op);

}  // namespace tfhost::runtime
