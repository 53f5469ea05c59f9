// `tfhost bench --profile`: where a model's time goes. Sums a session's
// per-node kernel time (runtime/node_profile.h) over the timed runs by op and
// backend and per node, and prints them as a table (the slowest nodes) or
// JSON (every node).
#pragma once

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <ostream>
#include <string>
#include <vector>

#include "runtime/node_profile.h"
#include "runtime/session.h"

namespace tfhost::cli {

struct ProfileSummary {
  struct OpTime {
    // backend: what computed the calls: "onednn", "simd", "reference", or
    // two joined by '+' when the node's calls ran on both.
    std::string op, backend;
    int nodes = 0;
    double ms_per_run = 0;
  };
  struct NodeTime {
    std::string name, op, backend;
    double ms_per_run = 0;
  };
  int runs = 0;
  // Where placement put the nodes: "simd 40, onednn 52, reference 12; 0 copies".
  std::string placement;
  double kernel_ms_per_run = 0;  // every node's kernel time
  std::vector<OpTime> by_op;      // slowest first
  std::vector<NodeTime> nodes;  // every node that ran a kernel, slowest first
};

// Nodes the table lists.
inline constexpr int kSlowestNodes = 10;

// `profile` of `session`'s graph over `runs` runs.
ProfileSummary SummarizeProfile(const runtime::NodeProfile& profile, const runtime::Session& session, int runs);

// The by-op table (at most `max_ops` rows, the rest summed in one) and the
// slowest nodes, after a heading naming the setting and the runs' mean
// latency (the kernel times are means too: a median would not add up).
void PrintProfile(const ProfileSummary& summary, int batch, int threads, double mean_ms, int max_ops,
                  std::ostream& out);

// {"runs", "kernel_ms_per_run", "by_op": [...], "nodes": [...]}: every
// node, for tools that group them (a model's blocks, say).
void WriteProfileJson(const ProfileSummary& summary, rapidjson::PrettyWriter<rapidjson::StringBuffer>& w);

}  // namespace tfhost::cli
