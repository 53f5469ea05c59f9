#include "cli/bench_profile.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <utility>

#include "backends/backend_registry.h"

namespace tfhost::cli {

ProfileSummary SummarizeProfile(const runtime::NodeProfile& profile, const runtime::Session& session, int runs) {
  ProfileSummary s;
  s.runs = runs;
  s.placement = session.runner().placement().ToString();
  const double per_run_ms = 1e-6 / std::max(1, runs);
  std::map<std::pair<std::string, std::string>, ProfileSummary::OpTime> ops;
  const int n = std::min(profile.num_nodes(), session.graph().num_nodes());
  for (int i = 0; i < n; ++i) {
    if (profile.calls(i) == 0) continue;
    const ir::Node& node = session.graph().node(i);
    // What computed the calls, not the first kernel of the node's chain: a
    // SIMD convolution kernel hands the shapes it does not take to oneDNN's.
    const std::string backend = backends::BackendNames(profile.backends(i));
    const double ms = static_cast<double>(profile.nanos(i)) * per_run_ms;
    ProfileSummary::OpTime& op = ops[{node.op, backend}];
    op.op = node.op;
    op.backend = backend;
    ++op.nodes;
    op.ms_per_run += ms;
    s.kernel_ms_per_run += ms;
    s.nodes.push_back({node.name, node.op, op.backend, ms});
  }
  for (auto& [key, op] : ops) s.by_op.push_back(std::move(op));
  auto slower = [](const auto& a, const auto& b) { return a.ms_per_run > b.ms_per_run; };
  std::sort(s.by_op.begin(), s.by_op.end(), slower);
  std::sort(s.nodes.begin(), s.nodes.end(), slower);
  return s;
}

void PrintProfile(const ProfileSummary& summary, int batch, int threads, double mean_ms, int max_ops,
                  std::ostream& out) {
  char line[512];
  const double total = summary.kernel_ms_per_run > 0 ? summary.kernel_ms_per_run : 1;
  std::snprintf(line, sizeof(line),
                "\nprofile, batch %d, threads %d, %d runs: kernels %.3f ms of the mean run's %.3f ms (the rest: "
                "the executor between kernels)\n",
                batch, threads, summary.runs, summary.kernel_ms_per_run, mean_ms);
  out << line << "  placement: " << summary.placement << "\n";
  std::snprintf(line, sizeof(line), "  %-34s %-10s %6s %10s %7s\n", "op", "backend", "nodes", "ms/run", "%");
  out << line;
  double rest_ms = 0;
  int rest_nodes = 0;
  for (size_t i = 0; i < summary.by_op.size(); ++i) {
    const auto& op = summary.by_op[i];
    if (static_cast<int>(i) >= max_ops) {
      rest_ms += op.ms_per_run;
      rest_nodes += op.nodes;
      continue;
    }
    std::snprintf(line, sizeof(line), "  %-34s %-10s %6d %10.3f %6.1f%%\n", op.op.c_str(), op.backend.c_str(),
                  op.nodes, op.ms_per_run, 100.0 * op.ms_per_run / total);
    out << line;
  }
  if (rest_nodes > 0) {
    std::snprintf(line, sizeof(line), "  %-34s %-10s %6d %10.3f %6.1f%%\n", "(other ops)", "", rest_nodes, rest_ms,
                  100.0 * rest_ms / total);
    out << line;
  }
  std::snprintf(line, sizeof(line), "  %10s %7s  %-10s %-34s %s\n", "ms/run", "%", "backend", "op",
                "slowest nodes");
  out << line;
  for (size_t i = 0; i < summary.nodes.size() && i < static_cast<size_t>(kSlowestNodes); ++i) {
    const auto& node = summary.nodes[i];
    std::snprintf(line, sizeof(line), "  %10.3f %6.1f%%  %-10s %-34s ", node.ms_per_run,
                  100.0 * node.ms_per_run / total, node.backend.c_str(), node.op.c_str());
    out << line << node.name << "\n";
  }
}

void WriteProfileJson(const ProfileSummary& summary, rapidjson::PrettyWriter<rapidjson::StringBuffer>& w) {
  auto text = [&w](const char* key, const std::string& value) {
    w.Key(key);
    w.String(value.c_str());
  };
  auto number = [&w](const char* key, double value) {
    w.Key(key);
    w.Double(value);
  };
  w.StartObject();
  w.Key("runs");
  w.Int(summary.runs);
  text("placement", summary.placement);
  number("kernel_ms_per_run", summary.kernel_ms_per_run);
  w.Key("by_op");
  w.StartArray();
  for (const auto& op : summary.by_op) {
    w.StartObject();
    text("op", op.op);
    text("backend", op.backend);
    w.Key("nodes");
    w.Int(op.nodes);
    number("ms_per_run", op.ms_per_run);
    w.EndObject();
  }
  w.EndArray();
  w.Key("nodes");
  w.StartArray();
  for (const auto& node : summary.nodes) {
    w.StartObject();
    text("name", node.name);
    text("op", node.op);
    text("backend", node.backend);
    number("ms_per_run", node.ms_per_run);
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
}

}  // namespace tfhost::cli
