// `tfhost serve`'s flags: their values (TF Serving's names and defaults
// unless marked as tfhost additions in docs/serving.md), their registration
// with the parser, and the checks that need no file or model.
//
// Thread-safety: plain values and functions, used by one thread.
#pragma once

#include <climits>
#include <string>

#include "base/status.h"
#include "cli/flags.h"
#include "cli/gpu_memory_flags.h"
#include "cli/limit_flags.h"
#include "serving/servable/request_limits.h"

namespace tfhost::cli {

struct ServeFlags {
  int port = 8500;
  int rest_api_port = 8501;
  std::string rest_api_address = "0.0.0.0";
  std::string grpc_address = "0.0.0.0";
  std::string grpc_socket_path;
  std::string device = "cpu";
  GpuMemoryFlags gpu_memory;
  std::string model_name = "default";
  std::string model_base_path;
  std::string model_config_file;
  int model_config_file_poll_wait_seconds = 0;
  int file_system_poll_wait_seconds = 1;
  bool enable_batching = false;
  bool enable_per_model_batching_parameters = false;
  std::string batching_parameters_file;
  std::string batching_mode;
  int target_latency_ms = 0;
  std::string monitoring_config_file;
  std::string ssl_config_file;
  bool enable_model_warmup = true;
  int num_request_iterations_for_warmup = 0;
  bool allow_version_labels_for_unavailable_models = false;
  bool force_allow_any_version_labels_for_unavailable_models = false;
  int rest_api_num_threads = 0;
  int rest_api_worker_threads = 0;
  int rest_api_timeout_in_ms = 30000;
  int tensorflow_intra_op_parallelism = 0;
  int tensorflow_inter_op_parallelism = 0;
  std::string precision = "fp32";
  bool prefer_tflite_model = false;
  int max_num_load_retries = 5;
  int load_retry_interval_micros = 60 * 1000 * 1000;
  int rest_api_max_body_mb = 64;
  int shutdown_timeout_ms = 10000;
  // How often freed heap memory goes back to the system (base/heap_trimmer.h).
  int heap_trim_interval_seconds = 10;
  std::string demo_models_dir;
  int grpc_max_message_bytes = INT_MAX;
  std::string grpc_channel_arguments;
  int grpc_max_threads = 0;
  int request_log_max_file_bytes = 128 << 20;
  int request_log_max_file_seconds = 60;
  // Bounds on each request's input tensors (serving/servable/request_limits.h)
  // and on what a served model may demand (cli/limit_flags.h).
  int max_request_elements = static_cast<int>(serving::RequestLimits{}.max_elements);
  int max_request_tensor_mb = static_cast<int>(serving::RequestLimits{}.max_bytes >> 20);
  int max_request_string_bytes = static_cast<int>(serving::RequestLimits{}.max_string_bytes);
  ModelLimitFlags limits;
};

// Registers every serve flag (the --emit ones are in serve_emit.h).
void AddServeFlags(FlagParser& flags, ServeFlags& f);

// Ranges and contradictions between flags; errors name the flag and the
// accepted range.
Status CheckServeFlags(const ServeFlags& f);

}  // namespace tfhost::cli
