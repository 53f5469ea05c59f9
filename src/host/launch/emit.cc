#include "host/launch/emit.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <sstream>

#include "host/launch/launch_plan.h"

namespace tfhost::host::launch {

namespace {

bool IsDnsLabel(const std::string& s) {
  if (s.empty() || s.size() > 40) return false;  // room for "-evaluator-NNNN"
  if (!(s[0] >= 'a' && s[0] <= 'z') || s.back() == '-') return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return true;
}

Status CheckK8s(const K8sOptions& o) {
  if (!IsDnsLabel(o.name)) {
    return InvalidArgument("--name '" + o.name +
                           "' must be a DNS label for Kubernetes: lower-case letters, digits and '-', starting with "
                           "a letter, at most 40 characters");
  }
  if (o.image.empty()) return InvalidArgument("--emit k8s needs --image (the container image with TensorFlow and your script)");
  if (o.command.empty()) return InvalidArgument("no command to run: put it after --");
  if (o.port < 1 || o.port > 65535) return InvalidArgument("--port must be in 1..65535");
  if (o.gpus_per_task < 0 || o.max_restarts < 0) return InvalidArgument("counts cannot be negative");
  return ValidateShape(o.shape);
}

std::string FlowList(const std::vector<std::string>& items) {
  std::string s = "[";
  for (size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + YamlQuote(items[i]);
  return s + "]";
}

struct Role {
  std::string type;     // "chief", "worker", "ps", "evaluator"
  std::string replica;  // TFJob replica type: "Chief", "Worker", "PS", "Evaluator"
  int replicas;
};

std::vector<Role> Roles(const ClusterShape& shape) {
  std::vector<Role> roles;
  if (shape.strategy == Strategy::kParameterServer) roles.push_back({"chief", "Chief", 1});
  roles.push_back({"worker", "Worker", shape.workers});
  if (shape.strategy == Strategy::kParameterServer) roles.push_back({"ps", "PS", shape.ps});
  if (shape.evaluator) roles.push_back({"evaluator", "Evaluator", 1});
  return roles;
}

// The container block, indented by `ind` spaces.
void Container(std::ostringstream& y, const std::string& ind, const K8sOptions& o, const Role& role,
               const std::vector<std::string>& command, const std::vector<EnvVar>& extra_env) {
  y << ind << "- name: \"tensorflow\"\n";  // the TFJob operator requires this name
  y << ind << "  image: " << YamlQuote(o.image) << "\n";
  y << ind << "  command: " << FlowList(command) << "\n";
  std::vector<EnvVar> env = o.env;
  env.insert(env.end(), extra_env.begin(), extra_env.end());
  if (!env.empty()) {
    y << ind << "  env:\n";
    for (const EnvVar& v : env) {
      y << ind << "    - name: " << YamlQuote(v.name) << "\n";
      y << ind << "      value: " << YamlQuote(v.value) << "\n";
    }
  }
  y << ind << "  ports:\n";
  y << ind << "    - name: \"tfjob-port\"\n";
  y << ind << "      containerPort: " << o.port << "\n";
  if (o.gpus_per_task > 0 && role.type != "ps") {
    y << ind << "  resources:\n";
    y << ind << "    limits:\n";
    y << ind << "      nvidia.com/gpu: " << o.gpus_per_task << "\n";
  }
}

}  // namespace

std::string YamlQuote(const std::string& s) {
  std::string q = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': q += "\\\""; break;
      case '\\': q += "\\\\"; break;
      case '\n': q += "\\n"; break;
      case '\t': q += "\\t"; break;
      case '\r': q += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          q += buf;
        } else {
          q += static_cast<char>(c);
        }
    }
  }
  return q + "\"";
}

namespace {

// "2 or 4", "2", "4" or "": the values nearest `from` on either side, within
// [lo, hi], that `fits`.
std::string NearestFits(int from, int lo, int hi, const std::function<bool(int)>& fits) {
  int below = -1, above = -1;
  for (int v = std::min(from - 1, hi); v >= lo && below < 0; --v) {
    if (fits(v)) below = v;
  }
  for (int v = std::max(from + 1, lo); v <= hi && above < 0; ++v) {
    if (fits(v)) above = v;
  }
  if (below >= 0 && above >= 0) return std::to_string(below) + " or " + std::to_string(above);
  return below >= 0 ? std::to_string(below) : above >= 0 ? std::to_string(above) : "";
}

}  // namespace

StatusOr<int> SbatchTasksPerNode(const ClusterShape& shape, bool workers_given, int nodes, int tasks_per_node) {
  if (nodes < 1) return InvalidArgument("--nodes must be at least 1, got " + std::to_string(nodes));
  if (tasks_per_node < 0) {
    return InvalidArgument("--tasks-per-node must be at least 1, got " + std::to_string(tasks_per_node));
  }
  const int total = static_cast<int>(TaskList(shape).size());
  const int others = total - shape.workers;  // chief, ps, evaluator
  const bool derived = tasks_per_node == 0;
  const int tpn = derived ? (total + nodes - 1) / nodes : tasks_per_node;
  const int launchers = nodes * tpn;
  if (total % launchers == 0) return tpn;

  std::string tasks = "--workers " + std::to_string(shape.workers) + (workers_given ? "" : " (the default)");
  if (others > 0) {
    tasks = std::to_string(total) + " tasks (" + tasks + (shape.strategy == Strategy::kParameterServer
                                                              ? ", 1 chief, --ps " + std::to_string(shape.ps)
                                                              : "") +
            (shape.evaluator ? ", 1 evaluator" : "") + ")";
  }
  std::string msg = tasks + " over --nodes " + std::to_string(nodes);
  if (derived) {
    msg += ": --tasks-per-node was not given, so " + std::to_string(tpn) + " was derived as ceil(" +
           std::to_string(total) + " tasks / " + std::to_string(nodes) + " nodes), and";
  } else {
    msg += " x --tasks-per-node " + std::to_string(tpn) + ":";
  }
  msg += " " + std::to_string(total) + " TensorFlow tasks cannot be split evenly over " + std::to_string(nodes) +
         " x " + std::to_string(tpn) + " = " + std::to_string(launchers) +
         " srun tasks (each srun task runs an equal share)";
  // With tasks per node derived, only the node count must divide the tasks
  // (the derived count then multiplies out exactly).
  auto fits = [&](int n_tasks, int n_nodes, int per_node) {
    return derived ? n_tasks % n_nodes == 0 : n_tasks % (n_nodes * per_node) == 0;
  };
  std::vector<std::string> options;
  if (shape.strategy != Strategy::kMirrored) {
    std::string w = NearestFits(shape.workers, 1, kMaxTasks - others,
                                [&](int v) { return fits(v + others, nodes, tpn); });
    if (!w.empty()) options.push_back("--workers " + w);
  }
  std::string n = NearestFits(nodes, 1, total, [&](int v) { return fits(total, v, tpn); });
  if (!n.empty()) options.push_back("--nodes " + n);
  if (!derived) {
    std::string t = NearestFits(tpn, 1, total, [&](int v) { return fits(total, nodes, v); });
    if (!t.empty()) options.push_back("--tasks-per-node " + t);
  }
  if (options.empty()) return InvalidArgument(msg + "; no layout that changes one of these flags fits");
  std::string list;
  for (size_t i = 0; i < options.size(); ++i) {
    list += (i == 0 ? "" : i + 1 == options.size() ? ", or " : ", ") + options[i];
  }
  return InvalidArgument(msg + ". Nearest layouts that fit: " + list);
}

StatusOr<std::string> EmitSbatch(const SbatchOptions& o) {
  if (o.nodes < 1 || o.tasks_per_node < 1 || o.gpus_per_node < 0) {
    return InvalidArgument("--nodes and --tasks-per-node must be at least 1");
  }
  for (char c : o.job_name + o.time + o.partition) {
    if (c == '\n' || c == '\r' || c == ' ') return InvalidArgument("--name, --time and --partition cannot contain spaces or newlines");
  }
  if (o.launch_arguments.empty()) return InvalidArgument("no command to run: put it after --");
  std::ostringstream s;
  s << "#!/bin/bash\n";
  s << "# Written by `tfhost launch --emit sbatch`. Submit with: sbatch THIS_FILE\n";
  s << "# tfhost must run on every node: unpack its release tarball (make dist) on a\n"
       "# shared filesystem, or on each node, and set TFHOST to its bin/tfhost or put\n"
       "# that bin/ on PATH (docs/distributed.md, \"Getting tfhost onto the nodes\").\n";
  s << "#SBATCH --job-name=" << o.job_name << "\n";
  s << "#SBATCH --nodes=" << o.nodes << "\n";
  s << "#SBATCH --ntasks-per-node=" << o.tasks_per_node << "\n";
  if (o.gpus_per_node > 0) s << "#SBATCH --gpus-per-node=" << o.gpus_per_node << "\n";
  if (!o.time.empty()) s << "#SBATCH --time=" << o.time << "\n";
  if (!o.partition.empty()) s << "#SBATCH --partition=" << o.partition << "\n";
  s << "#SBATCH --output=" << o.job_name << "-%j.out\n";
  s << "set -euo pipefail\n\n";
  s << "# One tfhost launcher per task slot. Each derives the same cluster from the\n"
       "# SLURM_* variables and starts its TensorFlow task(s) with their own TF_CONFIG.\n"
       "# --kill-on-bad-exit ends the whole step as soon as one task fails.\n";
  if (o.parameter_server) {
    s << "# Parameter servers never exit by themselves: --wait ends the step 60 s after\n"
         "# the first launcher (the chief's) finishes.\n";
  }
  s << "TFHOST=\"${TFHOST:-tfhost}\"\n";
  s << "srun --kill-on-bad-exit=1 --distribution=block" << (o.parameter_server ? " --wait=60" : "")
    << " \"$TFHOST\" launch --engine slurm";
  for (const std::string& a : o.launch_arguments) s << " " << ShellQuote(a);
  s << "\n";
  return s.str();
}

StatusOr<std::string> EmitTfJob(const K8sOptions& o) {
  TFHOST_RETURN_IF_ERROR(CheckK8s(o));
  std::ostringstream y;
  y << "# Written by `tfhost launch --emit k8s`: a Kubeflow TFJob. The training operator\n"
       "# sets TF_CONFIG in every pod, so the image needs TensorFlow and your script,\n"
       "# not tfhost. Apply with: kubectl apply -f THIS_FILE\n";
  y << "apiVersion: \"kubeflow.org/v1\"\n";
  y << "kind: \"TFJob\"\n";
  y << "metadata:\n";
  y << "  name: " << YamlQuote(o.name) << "\n";
  y << "spec:\n";
  y << "  runPolicy:\n";
  y << "    cleanPodPolicy: \"Running\"\n";
  y << "    backoffLimit: " << o.max_restarts << "\n";
  y << "  tfReplicaSpecs:\n";
  for (const Role& role : Roles(o.shape)) {
    y << "    " << role.replica << ":\n";
    y << "      replicas: " << role.replicas << "\n";
    y << "      restartPolicy: " << YamlQuote(o.max_restarts > 0 ? "OnFailure" : "Never") << "\n";
    y << "      template:\n";
    y << "        spec:\n";
    y << "          containers:\n";
    Container(y, "            ", o, role, o.command, {});
  }
  return y.str();
}

StatusOr<std::string> EmitIndexedJobs(const K8sOptions& o) {
  TFHOST_RETURN_IF_ERROR(CheckK8s(o));
  // The cluster, with every pod's stable DNS name (hostname.subdomain).
  std::vector<std::string> hosts;
  std::vector<int> ports;
  for (const TaskId& t : TaskList(o.shape)) {
    hosts.push_back(o.name + "-" + t.type + "-" + std::to_string(t.index) + "." + o.name);
    ports.push_back(o.port);
  }
  TFHOST_ASSIGN_OR_RETURN(ClusterSpec spec, BuildClusterSpec(o.shape, hosts, ports));
  std::string cluster = ClusterJson(spec);

  std::ostringstream y;
  y << "# Written by `tfhost launch --emit k8s-indexed`: TensorFlow on plain Kubernetes\n"
       "# (no training operator). One Indexed Job per task type and a headless Service\n"
       "# that gives pod i of Job " << o.name << "-worker the name " << o.name << "-worker-i." << o.name << ".\n"
       "# The entrypoint builds TF_CONFIG from JOB_COMPLETION_INDEX, so the image needs\n"
       "# TensorFlow and your script, not tfhost. Apply with:\n"
       "#   kubectl apply -f THIS_FILE\n";
  y << "apiVersion: \"v1\"\n";
  y << "kind: \"Service\"\n";
  y << "metadata:\n";
  y << "  name: " << YamlQuote(o.name) << "\n";
  y << "spec:\n";
  y << "  clusterIP: \"None\"\n";
  y << "  publishNotReadyAddresses: true\n";  // peers must resolve before they are Ready
  y << "  selector:\n";
  y << "    tfhost.io/job: " << YamlQuote(o.name) << "\n";
  y << "  ports:\n";
  y << "    - name: \"tfjob-port\"\n";
  y << "      port: " << o.port << "\n";
  for (const Role& role : Roles(o.shape)) {
    std::string job = o.name + "-" + role.type;
    std::string entry =
        "i=\"${JOB_COMPLETION_INDEX:?this entrypoint runs in an Indexed Job pod}\"; "
        "export TF_CONFIG='{\"cluster\":" + cluster + ",\"task\":{\"type\":\"" + role.type +
        "\",\"index\":'\"$i\"'}}'; export TFHOST_TASK_INDEX=\"$i\"; exec \"$@\"";
    std::vector<std::string> command = {"/bin/sh", "-c", entry, "tfhost-entrypoint"};
    command.insert(command.end(), o.command.begin(), o.command.end());
    y << "---\n";
    y << "apiVersion: \"batch/v1\"\n";
    y << "kind: \"Job\"\n";
    y << "metadata:\n";
    y << "  name: " << YamlQuote(job) << "\n";
    y << "spec:\n";
    y << "  completionMode: \"Indexed\"\n";
    y << "  completions: " << role.replicas << "\n";
    y << "  parallelism: " << role.replicas << "\n";
    y << "  backoffLimit: " << o.max_restarts << "\n";
    y << "  template:\n";
    y << "    metadata:\n";
    y << "      labels:\n";
    y << "        tfhost.io/job: " << YamlQuote(o.name) << "\n";
    y << "        tfhost.io/task-type: " << YamlQuote(role.type) << "\n";
    y << "    spec:\n";
    y << "      subdomain: " << YamlQuote(o.name) << "\n";
    y << "      restartPolicy: \"Never\"\n";
    y << "      containers:\n";
    Container(y, "        ", o, role, command, {{"TFHOST_TASK_TYPE", role.type, ""}});
  }
  return y.str();
}

}  // namespace tfhost::host::launch
