#include "cli/serve_flags.h"

#include "cli/command_util.h"

namespace tfhost::cli {

void AddServeFlags(FlagParser& flags, ServeFlags& f) {
  flags.AddInt("port", &f.port, "PORT", "gRPC port (default 8500; 0 turns gRPC on TCP off)");
  flags.AddString("grpc_address", &f.grpc_address, "ADDR",
                  "address the gRPC API listens on: HOST (with --port) or HOST:PORT, [IPv6]:PORT (default 0.0.0.0; "
                  "127.0.0.1 keeps it local)");
  AddDeviceFlag(flags, &f.device);
  AddGpuMemoryFlags(flags, &f.gpu_memory);
  flags.AddString("grpc_socket_path", &f.grpc_socket_path, "PATH",
                  "also serve gRPC on this UNIX domain socket (as TF Serving); with --port=0, only there");
  flags.AddInt("grpc_max_message_bytes", &f.grpc_max_message_bytes, "BYTES",
               "largest gRPC request or response; larger ones fail with RESOURCE_EXHAUSTED (default and most "
               "2147483647, TF Serving's fixed limit)");
  flags.AddString("grpc_channel_arguments", &f.grpc_channel_arguments, "K=V,...",
                  "gRPC server arguments, e.g. grpc.max_connection_age_ms=2000 (TF Serving's flag)");
  flags.AddInt("grpc_max_threads", &f.grpc_max_threads, "N",
               "most threads running gRPC calls; calls beyond get RESOURCE_EXHAUSTED (default 0: grpc grows its "
               "pool with demand)");
  flags.AddInt("rest_api_port", &f.rest_api_port, "PORT", "REST/HTTP port (default 8501; 0 turns REST off)");
  flags.AddString("rest_api_address", &f.rest_api_address, "ADDR", "address the REST API listens on (default 0.0.0.0)");
  flags.AddString("model_name", &f.model_name, "NAME", "name of the model given by --model_base_path (default 'default')");
  flags.AddString("model_base_path", &f.model_base_path, "DIR",
                  "folder of numeric version subfolders (TF Serving layout) to serve as --model_name");
  flags.AddString("model_config_file", &f.model_config_file, "FILE",
                  "ModelServerConfig in protobuf text format (several models, version policies, labels)");
  flags.AddInt("model_config_file_poll_wait_seconds", &f.model_config_file_poll_wait_seconds, "S",
               "re-read --model_config_file every S seconds and apply changes (0 = never)");
  flags.AddInt("file_system_poll_wait_seconds", &f.file_system_poll_wait_seconds, "S",
               "look for new or removed version folders every S seconds (default 1; 0 = only at config changes)");
  flags.AddBool("enable_batching", &f.enable_batching, "batch concurrent requests to one model (dynamic batching)");
  flags.AddBool("enable_per_model_batching_parameters", &f.enable_per_model_batching_parameters,
                "a model's own batching_params.pbtxt (in a version's assets.extra/, else in its base path) replaces "
                "the global batching parameters for that model (TF Serving's flag; needs batching on)");
  flags.AddString("batching_parameters_file", &f.batching_parameters_file, "FILE",
                  "BatchingParameters in protobuf text format (implies --enable_batching)");
  flags.AddString("batching_mode", &f.batching_mode, "MODE",
                  "fixed (TF Serving's scheduler, the default) or adaptive (implies --enable_batching)");
  flags.AddInt("target_latency_ms", &f.target_latency_ms, "MS",
               "p99 latency the adaptive batching mode holds (needed with --batching_mode=adaptive)");
  flags.AddString("monitoring_config_file", &f.monitoring_config_file, "FILE",
                  "MonitoringConfig in protobuf text format (prometheus_config { enable path })");
  flags.AddString("ssl_config_file", &f.ssl_config_file, "FILE",
                  "SSLConfig in protobuf text format (server_key, server_cert, custom_ca: PEM text; client_verify): "
                  "TLS for gRPC and HTTPS for the REST API (TF Serving's flag)");
  flags.AddBool("enable_model_warmup", &f.enable_model_warmup,
                "replay assets.extra/tf_serving_warmup_requests before a version is served (default true)");
  flags.AddBool("prefer_tflite_model", &f.prefer_tflite_model,
                "serve a version folder's model.tflite instead of its SavedModel when it has one (TF Serving's "
                "flag; float32 TFLite models, docs/formats.md)");
  flags.AddInt("num_request_iterations_for_warmup", &f.num_request_iterations_for_warmup, "N",
               "replay each warm-up record N times (TF Serving's flag; used when > 0, default 1)");
  flags.AddBool("allow_version_labels_for_unavailable_models", &f.allow_version_labels_for_unavailable_models,
                "let a new version label name a version that is not AVAILABLE yet (TF Serving's flag; default: "
                "labels may only name AVAILABLE versions)");
  flags.AddBool("force_allow_any_version_labels_for_unavailable_models",
                &f.force_allow_any_version_labels_for_unavailable_models,
                "let any version label, also one in use, name a version that is not AVAILABLE (TF Serving's flag)");
  flags.AddInt("rest_api_num_threads", &f.rest_api_num_threads, "N",
               "threads serving HTTP requests (default: 4 per CPU, at least 8)");
  flags.AddInt("rest_api_worker_threads", &f.rest_api_worker_threads, "N",
               "threads that run REST model requests batching does not take (and classify/regress), so HTTP "
               "threads never wait on a model (default: 4 per CPU, at least 8)");
  flags.AddInt("rest_api_timeout_in_ms", &f.rest_api_timeout_in_ms, "MS",
               "answer 504 when a REST request takes longer (default 30000; 0 = no limit)");
  flags.AddInt("tensorflow_intra_op_parallelism", &f.tensorflow_intra_op_parallelism, "N",
               "threads one op may use (0 = one per CPU)");
  flags.AddInt("tensorflow_inter_op_parallelism", &f.tensorflow_inter_op_parallelism, "N",
               "ops run at once within one request (0 = default)");
  flags.AddInt("max_num_load_retries", &f.max_num_load_retries, "N", "retries after a failed model load (default 5)");
  flags.AddInt("load_retry_interval_micros", &f.load_retry_interval_micros, "US",
               "pause between load retries in microseconds (default 60000000)");
  flags.AddInt("rest_api_max_body_mb", &f.rest_api_max_body_mb, "MB",
               "largest request body accepted; larger ones get 413 (default 64)");
  flags.AddInt("shutdown_timeout_ms", &f.shutdown_timeout_ms, "MS",
               "on SIGTERM/SIGINT, how long in-flight requests may take to finish (default 10000)");
  flags.AddInt("heap_trim_interval_seconds", &f.heap_trim_interval_seconds, "S",
               "every S seconds, give the memory malloc keeps free back to the system, so that a long-running "
               "server's resident size follows what it uses (0 = never; default 10)");
  flags.AddInt("request_log_max_file_bytes", &f.request_log_max_file_bytes, "BYTES",
               "a request log file (a model's logging_config) is closed and a new one started once it holds "
               "this many bytes of records (default 134217728, at most 2147483647)");
  flags.AddInt("request_log_max_file_seconds", &f.request_log_max_file_seconds, "S",
               "... or once it has been open S seconds, so that logs of a quiet server appear (default 60)");
  flags.AddInt("max_request_elements", &f.max_request_elements, "N",
               "most values the input tensors of one request may hold together; more get 400 / INVALID_ARGUMENT "
               "(default " + std::to_string(serving::RequestLimits{}.max_elements) + ")");
  flags.AddInt("max_request_tensor_mb", &f.max_request_tensor_mb, "MB",
               "most bytes the input tensors of one request may need together (strings count their length); "
               "more get 400 / INVALID_ARGUMENT (default " +
                   std::to_string(serving::RequestLimits{}.max_bytes >> 20) + ")");
  flags.AddInt("max_request_string_bytes", &f.max_request_string_bytes, "BYTES",
               "longest string value (an encoded image, a serialized tf.Example) a request may send; longer get "
               "400 / INVALID_ARGUMENT (default " +
                   std::to_string(serving::RequestLimits{}.max_string_bytes) + ")");
  AddModelLimitFlags(flags, &f.limits);
  AddPrecisionFlag(flags, &f.precision);
  flags.AddString("demo_models_dir", &f.demo_models_dir, "DIR",
                  "where the demo models are written when no model flags are given (default: a cache folder)");
}

Status CheckServeFlags(const ServeFlags& f) {
  auto check = [](int value, int lo, int hi, const char* name) -> Status {
    if (value < lo || value > hi) {
      return InvalidArgument(std::string("--") + name + " must be between " + std::to_string(lo) + " and " +
                             std::to_string(hi) + ", got " + std::to_string(value));
    }
    return OkStatus();
  };
  TFHOST_RETURN_IF_ERROR(check(f.port, 0, 65535, "port"));
  TFHOST_RETURN_IF_ERROR(check(f.rest_api_port, 0, 65535, "rest_api_port"));
  TFHOST_RETURN_IF_ERROR(check(f.model_config_file_poll_wait_seconds, 0, 86400 * 365,
                               "model_config_file_poll_wait_seconds"));
  TFHOST_RETURN_IF_ERROR(check(f.file_system_poll_wait_seconds, 0, 86400 * 365, "file_system_poll_wait_seconds"));
  TFHOST_RETURN_IF_ERROR(check(f.rest_api_num_threads, 0, 4096, "rest_api_num_threads"));
  TFHOST_RETURN_IF_ERROR(check(f.rest_api_worker_threads, 0, 4096, "rest_api_worker_threads"));
  TFHOST_RETURN_IF_ERROR(check(f.num_request_iterations_for_warmup, 0, 1000000, "num_request_iterations_for_warmup"));
  TFHOST_RETURN_IF_ERROR(check(f.rest_api_timeout_in_ms, 0, 1 << 30, "rest_api_timeout_in_ms"));
  TFHOST_RETURN_IF_ERROR(check(f.tensorflow_intra_op_parallelism, 0, 4096, "tensorflow_intra_op_parallelism"));
  TFHOST_RETURN_IF_ERROR(check(f.tensorflow_inter_op_parallelism, 0, 4096, "tensorflow_inter_op_parallelism"));
  TFHOST_RETURN_IF_ERROR(check(f.max_num_load_retries, 0, 1000000, "max_num_load_retries"));
  TFHOST_RETURN_IF_ERROR(check(f.load_retry_interval_micros, 0, 1 << 30, "load_retry_interval_micros"));
  TFHOST_RETURN_IF_ERROR(check(f.rest_api_max_body_mb, 1, 2047, "rest_api_max_body_mb"));
  TFHOST_RETURN_IF_ERROR(check(f.shutdown_timeout_ms, 0, 3600 * 1000, "shutdown_timeout_ms"));
  TFHOST_RETURN_IF_ERROR(check(f.heap_trim_interval_seconds, 0, 86400, "heap_trim_interval_seconds"));
  TFHOST_RETURN_IF_ERROR(check(f.grpc_max_message_bytes, 1, INT_MAX, "grpc_max_message_bytes"));
  TFHOST_RETURN_IF_ERROR(check(f.grpc_max_threads, 0, 65536, "grpc_max_threads"));
  TFHOST_RETURN_IF_ERROR(check(f.request_log_max_file_seconds, 1, 86400 * 365, "request_log_max_file_seconds"));
  TFHOST_RETURN_IF_ERROR(check(f.request_log_max_file_bytes, 1, INT_MAX, "request_log_max_file_bytes"));
  TFHOST_RETURN_IF_ERROR(check(f.max_request_elements, 1, INT_MAX, "max_request_elements"));
  TFHOST_RETURN_IF_ERROR(check(f.max_request_tensor_mb, 1, 1 << 20, "max_request_tensor_mb"));
  TFHOST_RETURN_IF_ERROR(check(f.max_request_string_bytes, 1, INT_MAX, "max_request_string_bytes"));
  TFHOST_RETURN_IF_ERROR(CheckModelLimitFlags(f.limits));
  TFHOST_RETURN_IF_ERROR(CheckPrecisionFlag(f.precision));
  TFHOST_RETURN_IF_ERROR(ParseGpuMemoryFlags(f.gpu_memory).status());
  if (!f.model_base_path.empty() && !f.model_config_file.empty()) {
    return InvalidArgument("give either --model_base_path or --model_config_file, not both");
  }
  if (f.model_config_file_poll_wait_seconds > 0 && f.model_config_file.empty()) {
    return InvalidArgument("--model_config_file_poll_wait_seconds needs --model_config_file");
  }
  if (f.model_name.empty()) return InvalidArgument("--model_name must not be empty");
  return OkStatus();
}

}  // namespace tfhost::cli
