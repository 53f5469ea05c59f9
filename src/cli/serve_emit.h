// `tfhost serve ... --emit k8s`: instead of serving, writes the Kubernetes
// objects that run the same `tfhost serve` (host/k8s/serving_manifests.h)
// as one YAML stream on stdout (`| kubectl apply -f -`) or, with
// --emit_dir DIR, one file per object.
//
// The container gets the serve flags as given, less the ones that only make
// sense here: --emit and its companions, and the flags naming local files
// (--model_config_file, --model_base_path/--model_name, the batching and
// monitoring config files), whose contents go into a ConfigMap mounted in
// the pod instead. Model folders are not copied: their paths are the pod's
// (a claim mounted with --models_pvc, or folders in the image).
//
// Thread-safety: none needed; called once from the serve command.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "cli/flags.h"

namespace tfhost::cli {

// The flags of serve that only --emit reads.
struct ServeEmitFlags {
  std::string emit;  // "k8s"; empty: serve
  std::string emit_dir;
  std::string image;  // empty: DefaultServeImage()
  std::string k8s_name = "tfhost";
  std::string k8s_namespace;
  std::string models_pvc;
  std::string models_mount_path = "/models";
  std::string hpa_metric = "cpu";
  std::string cpu_request = "1";
  std::string memory_request = "2Gi";
  std::string cpu_limit;
  std::string memory_limit;
  int min_replicas = 2;
  int max_replicas = 10;
  int hpa_target = 0;
  int pdb_max_unavailable = 1;
  int prestop_seconds = 5;
  int startup_seconds = 600;
};
void AddServeEmitFlags(FlagParser& flags, ServeEmitFlags* f);

// "tfhost:<version>": the image docs/kubernetes.md builds.
std::string DefaultServeImage();

// A usage error when an --emit-only flag is in `args` without --emit;
// "" when none is.
std::string EmitOnlyFlagsWithoutEmit(const std::vector<std::string>& args, const ServeEmitFlags& f);

// What serve parsed that the manifests need (its flags, checked).
struct ServeEmitContext {
  const std::vector<std::string>* args = nullptr;  // serve's arguments as given
  const FlagParser* parser = nullptr;              // serve's parser, which knows each flag's kind
  int rest_port = 8501;
  int grpc_port = 8500;
  std::string rest_address;
  std::string grpc_address;  // host part, after a HOST:PORT split
  std::string device;
  std::string model_name;
  std::string model_base_path;
  std::string model_config_file;
  std::string batching_parameters_file;
  std::string batching_mode;
  int target_latency_ms = 0;
  std::string grpc_channel_arguments;
  std::string monitoring_config_file;
  std::string metrics_path;  // "" when monitoring is off
  bool batching = false;
  int shutdown_timeout_ms = 10000;
  int stop_grace_seconds = 30;
};

// Writes the manifests; returns the exit code (kExitUsage for a bad flag,
// kExitFailure for an unreadable file or directory).
int EmitServeManifests(const ServeEmitFlags& f, const ServeEmitContext& context, std::ostream& out, std::ostream& err);

}  // namespace tfhost::cli
