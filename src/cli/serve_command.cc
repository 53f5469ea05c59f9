// `tfhost serve`: a TensorFlow Serving replacement with TF Serving's flag
// names. Loads the models (--model_name/--model_base_path, or
// --model_config_file; with neither, tfhost's demo models), serves the REST
// API over HTTP/1.1 and the gRPC API (PredictionService, ModelService), and on
// SIGTERM/SIGINT stops accepting, drains in-flight requests on both (bounded
// by --shutdown_timeout_ms) and exits 0.
#include <google/protobuf/text_format.h>
#include <malloc.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <thread>

#include "base/heap_trimmer.h"
#include "cli/cli.h"
#include "cli/command_util.h"
#include "cli/serve_emit.h"
#include "cli/serve_flags.h"
#include "cli/stop_watchdog.h"
#include "cli/trace_flag.h"
#include "loaders/savedmodel/demo_models.h"
#include "serving/batching/batching_parameters.h"
#include "serving/batching/batching_runner.h"
#include "serving/batching/per_model_batching.h"
#include "serving/graceful_stop.h"
#include "serving/grpc/grpc_server.h"
#include "serving/http/http_server.h"
#include "serving/rest/rest_api_handler.h"
#include "serving/server_core.h"
#include "tensorflow_serving/config/monitoring_config.pb.h"

namespace tfhost::cli {

namespace {

namespace fs = std::filesystem;
using serving::ServerCore;

constexpr char kDefaultMetricsPath[] = "/monitoring/prometheus/metrics";
// How long past --shutdown_timeout_ms the stop may take before the watchdog
// ends the process: a model run in flight at the deadline, then unloading.
constexpr std::chrono::seconds kStopGrace{30};

StatusOr<std::string> ReadSmallFile(const std::string& path, const char* what) {
  std::error_code ec;
  auto size = fs::file_size(path, ec);
  if (ec) return NotFound(std::string(what) + " '" + path + "' cannot be read: " + ec.message());
  if (size > (16u << 20)) return InvalidArgument(std::string(what) + " '" + path + "' is larger than 16 MiB");
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  if (!in) return NotFound(std::string(what) + " '" + path + "' cannot be read");
  return ss.str();
}

// The metrics path, or "" when monitoring is off. Without a config file
// tfhost serves metrics at TF Serving's default path (TF Serving serves none
// then); a config with enable: false turns them off.
StatusOr<std::string> MetricsPath(const std::string& monitoring_config_file) {
  if (monitoring_config_file.empty()) return std::string(kDefaultMetricsPath);
  TFHOST_ASSIGN_OR_RETURN(std::string text, ReadSmallFile(monitoring_config_file, "--monitoring_config_file"));
  tensorflow::serving::MonitoringConfig config;
  if (!google::protobuf::TextFormat::ParseFromString(text, &config)) {
    return InvalidArgument("--monitoring_config_file '" + monitoring_config_file +
                           "' is not a MonitoringConfig in protobuf text format "
                           "(expected e.g. prometheus_config { enable: true path: \"/metrics\" })");
  }
  if (!config.prometheus_config().enable()) return std::string();
  std::string path = config.prometheus_config().path();
  if (path.empty()) return std::string(kDefaultMetricsPath);
  if (path[0] != '/') {
    return InvalidArgument("--monitoring_config_file: prometheus_config.path must start with '/', got '" + path + "'");
  }
  return path;
}

std::string DefaultDemoDir() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/tfhost/demo_models";
  if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/tfhost/demo_models";
  return "/tmp/tfhost-demo-models-" + std::to_string(::getuid());
}

// Writes the demo models and returns a config serving each of them.
StatusOr<serving::ModelServerConfig> DemoConfig(const std::string& dir, std::ostream& err) {
  TFHOST_ASSIGN_OR_RETURN(std::vector<std::string> written, loaders::WriteDemoModels(dir));
  serving::ModelServerConfig config;
  for (const std::string& name : loaders::DemoModelNames()) {
    auto* model = config.mutable_model_config_list()->add_config();
    model->set_name(name);
    model->set_base_path((fs::path(dir) / name).string());
    model->set_model_platform("tensorflow");
  }
  err << "tfhost serve: no --model_base_path or --model_config_file given; serving the demo models written to "
      << dir << "\n";
  return config;
}

// One JSON value of `shape` (dims after the batch dim; unknown ones as 1)
// filled with zeros (0.0 for floating types), "" for strings, false for bools.
std::string ZeroValue(DType dtype, const ir::PartialShape& shape, int from_dim) {
  if (!shape.rank_known() || from_dim >= shape.rank()) {
    if (IsStringLike(dtype)) return "\"\"";
    if (dtype == DType::kBool) return "false";
    const bool real = dtype == DType::kFloat || dtype == DType::kDouble || dtype == DType::kHalf ||
                      dtype == DType::kBFloat16;
    return real ? "0.0" : "0";
  }
  const int64_t n = std::min<int64_t>(shape.dim(from_dim) > 0 ? shape.dim(from_dim) : 1, 16);
  std::string inner = ZeroValue(dtype, shape, from_dim + 1), out = "[";
  for (int64_t i = 0; i < n; ++i) out += (i ? ", " : "") + inner;
  return out + "]";
}

// A predict body for the model's serving_default signature, ready to paste:
// one instance of zeros (a large input is cut to 16 per dim, which the model
// may refuse; the shape is still the one to follow). "" when the model has
// no version loaded or no serving_default signature.
std::string ExamplePredictBody(const serving::ServerCore& core, const std::string& name) {
  tensorflow::serving::ModelSpec spec;
  spec.set_name(name);
  auto servable = core.GetServable(spec);
  if (!servable.ok()) return "";
  const auto& signatures = (*servable)->model->signatures();
  auto it = signatures.find("serving_default");
  if (it == signatures.end() || it->second.inputs.empty()) return "";
  const auto& inputs = it->second.inputs;
  std::string instance;
  if (inputs.size() == 1) {
    instance = ZeroValue(inputs[0].dtype, inputs[0].shape, 1);
  } else {
    instance = "{";
    for (size_t i = 0; i < inputs.size(); ++i) {
      instance += (i ? ", " : "") + std::string("\"") + inputs[i].key + "\": " +
                  ZeroValue(inputs[i].dtype, inputs[i].shape, 1);
    }
    instance += "}";
  }
  return "{\"instances\": [" + instance + "]}";
}

void PrintCurlExamples(std::ostream& out, int port, bool demo, const serving::ModelServerConfig& config,
                       const serving::ServerCore& core, bool https) {
  // Over HTTPS curl needs the server's CA (--cacert) and, with
  // client_verify, a client certificate (--cert/--key); left to the reader.
  std::string base = (https ? "https://localhost:" : "http://localhost:") + std::to_string(port);
  out << "\nTry:\n";
  out << "  curl " << base << "/v1/models\n";
  if (demo) {
    out << "  curl " << base << "/v1/models/half_plus_two/metadata\n";
    out << "  curl -d '{\"instances\": [[1.0], [2.0], [5.0]]}' -X POST " << base
        << "/v1/models/half_plus_two:predict\n";
    out << "  curl -d '{\"instances\": [[1.0, 2.0, 3.0, 4.0]]}' -X POST " << base << "/v1/models/mlp:predict\n";
    out << "  curl -d '{\"signature_name\": \"regress_x_to_y\", \"examples\": [{\"x\": 2.0}]}' -X POST " << base
        << "/v1/models/half_plus_two:regress\n";
  } else if (config.model_config_list().config_size() > 0) {
    const std::string& name = config.model_config_list().config(0).name();
    out << "  curl " << base << "/v1/models/" << name << "\n";
    out << "  curl " << base << "/v1/models/" << name << "/metadata\n";
    const std::string body = ExamplePredictBody(core, name);
    if (!body.empty()) out << "  curl -d '" << body << "' -X POST " << base << "/v1/models/" << name << ":predict\n";
  }
  out << "  curl " << base << "/readyz\n";
  out.flush();
}

// Blocks SIGINT/SIGTERM in this thread (and every thread started after, which
// inherits the mask) so that they can be taken synchronously with
// sigtimedwait; restores the old mask on destruction.
class SignalBlock {
 public:
  SignalBlock() {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    sigaddset(&set_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set_, &old_);
  }
  ~SignalBlock() { pthread_sigmask(SIG_SETMASK, &old_, nullptr); }
  // Waits until SIGINT or SIGTERM arrives; returns its number.
  int Wait() {
    for (;;) {
      timespec timeout{0, 200 * 1000 * 1000};
      siginfo_t info;
      int sig = sigtimedwait(&set_, &info, &timeout);
      if (sig == SIGINT || sig == SIGTERM) return sig;
    }
  }

 private:
  sigset_t set_;
  sigset_t old_;
};

}  // namespace

// --grpc_address HOST, HOST:PORT or [IPv6]:PORT: a port given there
// replaces --port; the host is kept without brackets.
Status SplitGrpcAddress(ServeFlags* f) {
  std::string& a = f->grpc_address;
  if (a.empty()) return InvalidArgument("--grpc_address must not be empty");
  std::string host = a, port;
  if (a.front() == '[') {
    const size_t close = a.find(']');
    if (close == std::string::npos) return InvalidArgument("--grpc_address '" + a + "': '[' without ']'");
    host = a.substr(1, close - 1);
    if (close + 1 < a.size()) {
      if (a[close + 1] != ':') return InvalidArgument("--grpc_address '" + a + "': expected ':PORT' after ']'");
      port = a.substr(close + 2);
    }
  } else if (std::count(a.begin(), a.end(), ':') == 1) {
    host = a.substr(0, a.find(':'));
    port = a.substr(a.find(':') + 1);
  }
  if (!port.empty() || (a.back() == ':')) {
    char* end = nullptr;
    const long value = std::strtol(port.c_str(), &end, 10);
    if (port.empty() || *end != '\0' || value < 1 || value > 65535) {
      return InvalidArgument("--grpc_address '" + a + "': the port must be 1..65535, got '" + port + "'");
    }
    f->port = static_cast<int>(value);
  }
  if (host.empty()) return InvalidArgument("--grpc_address '" + a + "' has no host");
  a = host;
  return OkStatus();
}

// --emit k8s: the manifests for this serve command, instead of serving
// (serve_emit.h). Before --device is applied: this host need not have the
// pods' GPU.
static int EmitManifests(ServeFlags& f, const ServeEmitFlags& emit, const std::vector<std::string>& args,
                         const FlagParser& flags, std::ostream& out, std::ostream& err) {
  if (Status st = SplitGrpcAddress(&f); !st.ok()) return ReportUsage(err, "serve", st.message());
  auto metrics_path = MetricsPath(f.monitoring_config_file);
  if (!metrics_path.ok()) return ReportFailure(err, "serve", metrics_path.status());
  ServeEmitContext c;
  c.args = &args;
  c.parser = &flags;
  c.rest_port = f.rest_api_port;
  c.grpc_port = f.port;
  c.rest_address = f.rest_api_address;
  c.grpc_address = f.grpc_address;
  c.device = f.device;
  c.model_name = f.model_name;
  c.model_base_path = f.model_base_path;
  c.model_config_file = f.model_config_file;
  c.batching_parameters_file = f.batching_parameters_file;
  c.batching_mode = f.batching_mode;
  c.target_latency_ms = f.target_latency_ms;
  c.grpc_channel_arguments = f.grpc_channel_arguments;
  c.monitoring_config_file = f.monitoring_config_file;
  c.metrics_path = *metrics_path;
  c.batching = f.enable_batching || !f.batching_parameters_file.empty() || !f.batching_mode.empty();
  c.shutdown_timeout_ms = f.shutdown_timeout_ms;
  c.stop_grace_seconds = static_cast<int>(kStopGrace.count());
  return EmitServeManifests(emit, c, out, err);
}

int ServeCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  ServeFlags f;
  FlagParser flags("tfhost serve [flags]",
                   "Serves TensorFlow models with TensorFlow Serving's REST API and flag names.\n"
                   "With no --model_base_path / --model_config_file, serves tfhost's demo models.\n"
                   "SIGTERM/SIGINT: stop accepting, finish in-flight requests, exit 0.");
  AddServeFlags(flags, f);
  std::string trace_path;
  AddTraceFlag(flags, &trace_path);
  ServeEmitFlags emit;
  AddServeEmitFlags(flags, &emit);
  if (int code = ParseOrExit(flags, args, "serve", out, err); code >= 0) return code;
  if (Status st = CheckServeFlags(f); !st.ok()) return ReportUsage(err, "serve", st.message());
  if (std::string misuse = EmitOnlyFlagsWithoutEmit(args, emit); !misuse.empty()) {
    return ReportUsage(err, "serve", misuse);
  }
  if (!emit.emit.empty()) return EmitManifests(f, emit, args, flags, out, err);
  // Before the server's threads exist (see ServeMallocArenaLimit).
  if (auto arenas = ServeMallocArenaLimit(std::getenv("MALLOC_ARENA_MAX"), std::getenv("GLIBC_TUNABLES"),
                                          static_cast<int>(std::thread::hardware_concurrency()))) {
    mallopt(M_ARENA_MAX, *arenas);
  }
  if (auto threshold = ServeMallocMmapThreshold(std::getenv("MALLOC_MMAP_THRESHOLD_"), std::getenv("GLIBC_TUNABLES"))) {
    mallopt(M_MMAP_THRESHOLD, static_cast<int>(*threshold));
  }
  auto backends = ApplyDeviceFlags(f.device, f.gpu_memory, "serve", err);
  if (!backends.ok()) return ReportFlagStatus(err, "serve", backends.status());
  NoteBf16Fallback(err, "serve", f.precision);
  if (f.rest_api_port == 0 && f.port == 0 && f.grpc_socket_path.empty()) {
    return ReportUsage(err, "serve",
                       "--port=0 turns gRPC off and --rest_api_port=0 turns REST off: nothing would be served");
  }
  if (Status st = SplitGrpcAddress(&f); !st.ok()) return ReportUsage(err, "serve", st.message());
  auto grpc_channel_arguments = serving::ParseGrpcChannelArguments(f.grpc_channel_arguments);
  if (!grpc_channel_arguments.ok()) return ReportUsage(err, "serve", grpc_channel_arguments.status().message());
  auto metrics_path = MetricsPath(f.monitoring_config_file);
  if (!metrics_path.ok()) return ReportFailure(err, "serve", metrics_path.status());
  // Checked before any model loads: a bad or expired certificate stops the
  // server at once, naming the file.
  std::optional<serving::TlsConfig> tls;
  if (!f.ssl_config_file.empty()) {
    auto read = serving::ReadSslConfigFile(f.ssl_config_file);
    if (!read.ok()) return ReportFailure(err, "serve", read.status());
    tls = std::move(*read);
  }
  std::optional<serving::batching::BatchingConfig> batching;
  if (f.enable_batching || !f.batching_parameters_file.empty() || !f.batching_mode.empty()) {
    auto config = f.batching_parameters_file.empty()
                      ? StatusOr<serving::batching::BatchingConfig>(serving::batching::DefaultBatchingConfig())
                      : serving::batching::LoadBatchingParametersFile(f.batching_parameters_file);
    if (!config.ok()) return ReportFailure(err, "serve", config.status());
    if (!f.batching_mode.empty()) {
      auto mode = serving::batching::ParseBatchingMode(f.batching_mode);
      if (!mode.ok()) return ReportUsage(err, "serve", "--batching_mode: " + mode.status().message());
      config->mode = *mode;
    }
    config->target_latency_ms = f.target_latency_ms;
    if (Status st = serving::batching::ValidateBatchingConfig(*config, "batching flags"); !st.ok()) {
      return ReportUsage(err, "serve", st.message());
    }
    batching = std::move(*config);
  }
  if (f.enable_per_model_batching_parameters && !batching) {
    return ReportUsage(err, "serve",
                       "--enable_per_model_batching_parameters needs batching on (--enable_batching, "
                       "--batching_parameters_file or --batching_mode)");
  }

  serving::ServerCoreOptions options;
  bool demo = false;
  if (!f.model_config_file.empty()) {
    auto config = serving::ReadModelServerConfigFile(f.model_config_file);
    if (!config.ok()) return ReportFailure(err, "serve", config.status());
    options.model_server_config = std::move(*config);
    options.model_config_file = f.model_config_file;
    options.model_config_file_poll_wait_seconds = f.model_config_file_poll_wait_seconds;
  } else if (!f.model_base_path.empty()) {
    options.model_server_config = serving::SingleModelConfig(f.model_name, f.model_base_path);
  } else {
    demo = true;
    auto config = DemoConfig(f.demo_models_dir.empty() ? DefaultDemoDir() : f.demo_models_dir, err);
    if (!config.ok()) return ReportFailure(err, "serve", config.status().WithContext("writing the demo models"));
    options.model_server_config = std::move(*config);
  }
  if (Status st = serving::ValidateModelServerConfig(options.model_server_config); !st.ok()) {
    return ReportFailure(err, "serve", st);
  }
  options.manager.file_system_poll_wait_seconds = f.file_system_poll_wait_seconds;
  options.manager.max_num_load_retries = f.max_num_load_retries;
  options.manager.load_retry_interval_micros = f.load_retry_interval_micros;
  options.manager.load_options.session.backends = *backends;
  options.manager.load_options.session.intra_op_threads = f.tensorflow_intra_op_parallelism;
  options.manager.load_options.precision = f.precision;
  options.manager.load_options.prefer_tflite_model = f.prefer_tflite_model;
  ApplyModelLimitFlags(f.limits, &options.manager.load_options);
  options.inference.request_limits.max_elements = f.max_request_elements;
  options.inference.request_limits.max_bytes = static_cast<int64_t>(f.max_request_tensor_mb) << 20;
  options.inference.request_limits.max_string_bytes = f.max_request_string_bytes;
  if (f.tensorflow_inter_op_parallelism > 0) {
    options.manager.load_options.session.inter_op_threads = f.tensorflow_inter_op_parallelism;
  }
  options.enable_model_warmup = f.enable_model_warmup;
  options.request_logging.max_file_bytes = static_cast<uint64_t>(f.request_log_max_file_bytes);
  options.request_logging.max_file_age = std::chrono::seconds(f.request_log_max_file_seconds);
  options.worker_threads = f.rest_api_worker_threads;
  if (f.num_request_iterations_for_warmup > 0) options.warmup_num_request_iterations = f.num_request_iterations_for_warmup;
  options.version_label_policy = f.force_allow_any_version_labels_for_unavailable_models
                                     ? serving::VersionLabelPolicy::kAllowAny
                                 : f.allow_version_labels_for_unavailable_models
                                     ? serving::VersionLabelPolicy::kAllowNewUnavailable
                                     : serving::VersionLabelPolicy::kRequireAvailable;

  // Made before the core: the initial loads already read the models' files.
  std::unique_ptr<serving::MetricsRegistry> registry = std::make_unique<serving::MetricsRegistry>();
  std::unique_ptr<serving::ServingMetrics> batching_metrics;
  std::unique_ptr<serving::batching::PerModelBatching> per_model;
  if (f.enable_per_model_batching_parameters) {
    options.metrics_registry = registry.get();
    batching_metrics = std::make_unique<serving::ServingMetrics>(registry.get());
    per_model = std::make_unique<serving::batching::PerModelBatching>(*batching, batching_metrics.get());
    options.version_runner =
        [&per_model](const serving::Servable& servable) -> StatusOr<std::shared_ptr<serving::SignatureRunner>> {
      TFHOST_ASSIGN_OR_RETURN(auto runner, per_model->RunnerForVersion(servable));
      return std::shared_ptr<serving::SignatureRunner>(std::move(runner));
    };
  }

  // Before any thread starts, so that every thread inherits the mask and the
  // signals reach only Wait() below.
  SignalBlock signals;

  // From before the models load (loads and warm-up runs are in it) until the
  // servers have drained; GET /v1/trace answers 409 meanwhile.
  auto tracer = CliTrace::Start(trace_path, "tfhost serve");
  if (!tracer.ok()) return ReportFailure(err, "serve", tracer.status());

  err << "tfhost serve: loading " << options.model_server_config.model_config_list().config_size() << " model(s)\n";
  err.flush();
  auto core = ServerCore::Create(std::move(options));
  if (!core.ok()) return ReportFailure(err, "serve", core.status());
  const serving::ModelServerConfig served_config = (*core)->manager().config();
  for (const auto& m : (*core)->manager().ListModels()) {
    if (m.no_version_folders && m.versions.empty()) {
      err << "tfhost serve: model \"" << m.name << "\" is waiting for a version: " << m.scan_error << "\n";
    }
  }
  std::shared_ptr<serving::batching::BatchingRunner> batcher;
  if (batching) {
    serving::batching::BatchingRunnerOptions batching_options;
    batching_options.config = *batching;
    batching_options.metrics = &(*core)->metrics();
    auto runner = serving::batching::BatchingRunner::Create(std::move(batching_options));
    if (!runner.ok()) return ReportFailure(err, "serve", runner.status());
    batcher = *runner;
    (*core)->SetDefaultRunner(batcher);
    err << "tfhost serve: dynamic batching on: " << batcher->config().DebugString() << "\n";
  }

  serving::RestApiOptions rest_options;
  rest_options.metrics_path = *metrics_path;
  rest_options.server_version = VersionString().substr(VersionString().find(' ') + 1);
  // A recording must end before the request times out (504), with a second
  // to spare for writing the answer.
  if (f.rest_api_timeout_in_ms > 0) {
    rest_options.trace_max_seconds = std::min(rest_options.trace_max_seconds, f.rest_api_timeout_in_ms / 1000 - 1);
  }
  serving::RestApiHandler rest(core->get(), rest_options);

  serving::HttpServerOptions http;
  http.address = f.rest_api_address;
  http.port = f.rest_api_port;
  unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
  http.num_threads = f.rest_api_num_threads > 0 ? f.rest_api_num_threads : static_cast<int>(std::max(8u, 4 * cpus));
  http.request_timeout_ms = f.rest_api_timeout_in_ms;
  http.max_body_bytes = static_cast<size_t>(f.rest_api_max_body_mb) << 20;
  http.tls = tls;
  std::unique_ptr<serving::HttpServer> server;
  if (f.rest_api_port != 0) {
    // Asynchronous: a model run never holds an HTTP thread (batch threads
    // or the core's worker pool answer), so health checks and other models
    // stay responsive with few HTTP threads.
    auto started = serving::HttpServer::StartAsync(
        http, [&rest](std::shared_ptr<serving::HttpRequest> request, serving::HttpResponder respond) {
          rest.HandleAsync(request->method, request->target, request->headers, std::move(request->body),
                           [respond = std::move(respond)](serving::RestResponse r) {
                             serving::HttpResponse response;
                             response.status = r.status;
                             response.body = std::move(r.body);
                             response.content_type = std::move(r.content_type);
                             response.headers = std::move(r.headers);
                             respond(std::move(response));
                           });
        });
    if (!started.ok()) return ReportFailure(err, "serve", started.status());
    server = std::move(*started);
  }
  std::unique_ptr<serving::GrpcServer> grpc;
  if (f.port != 0 || !f.grpc_socket_path.empty()) {
    serving::GrpcServerOptions grpc_options;
    grpc_options.address = f.grpc_address;
    grpc_options.port = f.port;
    grpc_options.tcp = f.port != 0;
    grpc_options.socket_path = f.grpc_socket_path;
    grpc_options.max_receive_message_bytes = f.grpc_max_message_bytes;
    grpc_options.max_send_message_bytes = f.grpc_max_message_bytes;
    grpc_options.max_threads = f.grpc_max_threads;
    grpc_options.channel_arguments = std::move(*grpc_channel_arguments);
    grpc_options.server_version = rest_options.server_version;
    grpc_options.tls = tls;
    auto started = serving::GrpcServer::Start(grpc_options, core->get());
    if (!started.ok()) return ReportFailure(err, "serve", started.status());
    grpc = std::move(*started);
    err << "tfhost serve: gRPC API listening on ";
    if (grpc_options.tcp) err << grpc_options.address << ":" << grpc->port();
    if (!grpc_options.socket_path.empty()) err << (grpc_options.tcp ? " and " : "") << "unix:" << grpc_options.socket_path;
    err << " (max message " << f.grpc_max_message_bytes << " bytes"
        << (tls ? tls->client_verify ? ", TLS with client certificates" : ", TLS" : "") << ")\n";
  } else {
    err << "tfhost serve: gRPC is not served (--port=0)\n";
  }
  if (server) {
    err << "tfhost serve: REST API listening on " << (tls ? "https://" : "") << f.rest_api_address << ":"
        << server->port() << " ("
        << http.num_threads << " threads, " << (*core)->workers().num_threads() << " worker threads, timeout " << f.rest_api_timeout_in_ms << " ms)\n";
    if (!metrics_path->empty()) err << "tfhost serve: Prometheus metrics at " << *metrics_path << "\n";
  } else {
    err << "tfhost serve: REST is not served (--rest_api_port=0)\n";
  }
  err.flush();
  if (server) PrintCurlExamples(out, server->port(), demo, served_config, **core, tls.has_value());

  HeapTrimmer trimmer(std::chrono::seconds(f.heap_trim_interval_seconds));
  int sig = signals.Wait();
  err << "tfhost serve: received " << (sig == SIGTERM ? "SIGTERM" : "SIGINT") << "; draining in-flight requests (up to "
      << f.shutdown_timeout_ms << " ms)\n";
  err.flush();
  // The drain deadline, plus time for model runs in flight at the deadline
  // (they are let finish) and for unloading.
  StopWatchdog watchdog(err, std::chrono::milliseconds(f.shutdown_timeout_ms) + kStopGrace);
  watchdog.Phase("draining requests");
  rest.SetDraining(true);
  serving::GracefulStopTargets stop_targets{grpc.get(), server.get(), batcher.get()};
  if (per_model) stop_targets.model_batchers = per_model->runners();
  const bool drained = serving::GracefulStop(stop_targets, std::chrono::milliseconds(f.shutdown_timeout_ms));
  if (batcher) (*core)->SetDefaultRunner(nullptr);
  err << "tfhost serve: " << (drained ? "all requests finished" : "shutdown deadline passed; open requests dropped")
      << "; unloading models\n";
  const Status traced = FinishTrace(*tracer, err);
  watchdog.Phase("unloading models");
  grpc.reset();
  server.reset();
  core->reset();
  err << "tfhost serve: stopped\n";
  err.flush();
  if (!traced.ok()) return ReportFailure(err, "serve", traced);
  return kExitOk;
}

}  // namespace tfhost::cli
