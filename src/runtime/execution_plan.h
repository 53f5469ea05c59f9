// ExecutionPlan: the part of a graph one Run() needs, precomputed once per
// (feeds, fetches, targets) combination: which nodes run, where each input
// comes from, how many inputs each node waits for and who consumes what.
#pragma once

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
};

}  // namespace tfhost::runtime
