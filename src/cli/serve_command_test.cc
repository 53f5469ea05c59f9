// `tfhost serve`: flag handling in-process, and the real binary on a free
// port: readiness, REST answers, demo mode, and SIGTERM draining an
// in-flight request before exiting 0.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "base/test_fixtures.h"
#include "base/test_http_client.h"
#include "cli/cli.h"
#include "cli/command_util.h"

namespace tfhost::cli {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

TEST(ServeCommandTest, UnknownFlagIsAUsageErrorWithASuggestion) {
  std::ostringstream out, err;
  EXPECT_EQ(ServeCommand({"--rest_api_prot=8501"}, out, err), kExitUsage);
  EXPECT_NE(err.str().find("did you mean '--rest_api_port'"), std::string::npos) << err.str();
}

TEST(ServeCommandTest, OutOfRangeAndContradictoryFlagsAreUsageErrors) {
  for (std::vector<std::string> args : std::vector<std::vector<std::string>>{
           {"--rest_api_port", "70000"},
           {"--port=-1"},
           {"--rest_api_port=0", "--port=0"},
           {"--model_base_path=/x", "--model_config_file=/y"},
           {"--model_config_file_poll_wait_seconds=5"},
           {"--batching_mode=sometimes"},
           {"--precision=fp16"},
       }) {
    std::ostringstream out, err;
    EXPECT_EQ(ServeCommand(args, out, err), kExitUsage) << args[0] << ": " << err.str();
  }
  for (const auto& [flag, message] : std::vector<std::pair<std::string, std::string>>{
           {"--grpc_address=127.0.0.1:0", "--grpc_address '127.0.0.1:0': the port must be 1..65535, got '0'"},
           {"--grpc_address=localhost:", "--grpc_address 'localhost:': the port must be 1..65535, got ''"},
           {"--grpc_address=[::1", "--grpc_address '[::1': '[' without ']'"},
           {"--grpc_address=:8500", "--grpc_address ':8500' has no host"},
           {"--device=tpu", "--device 'tpu' is not one of: cpu, gpu, gpu:N, auto"},
           {"--enable_per_model_batching_parameters",
            "--enable_per_model_batching_parameters needs batching on (--enable_batching, "
            "--batching_parameters_file or --batching_mode)"},
           {"--request_log_max_file_seconds=0", "--request_log_max_file_seconds must be between 1 and 31536000, got 0"},
           {"--max_request_elements=0", "--max_request_elements must be between 1 and 2147483647, got 0"},
           {"--max_request_tensor_mb=0", "--max_request_tensor_mb must be between 1 and 1048576, got 0"},
           {"--max_request_string_bytes=0", "--max_request_string_bytes must be between 1 and 2147483647, got 0"},
           {"--max_loop_iterations=-5", "--max_loop_iterations must be between 0 and 2147483647, got -5"},
           {"--per_process_gpu_memory_fraction=1.5",
            "--per_process_gpu_memory_fraction must be a number in [0, 1], got '1.5'"},
           {"--per_process_gpu_memory_fraction=-0.1",
            "--per_process_gpu_memory_fraction must be a number in [0, 1], got '-0.1'"},
           {"--per_process_gpu_memory_fraction=most",
            "--per_process_gpu_memory_fraction must be a number in [0, 1], got 'most'"},
           {"--gpu_allow_growth=yes", "--gpu_allow_growth must be true or false, got 'yes'"},
           {"--gpu_algorithm_search=fastest",
            "--gpu_algorithm_search must be heuristic or exhaustive, got 'fastest'"},
       }) {
    std::ostringstream out, err;
    EXPECT_EQ(ServeCommand({flag}, out, err), kExitUsage) << flag;
    EXPECT_NE(err.str().find("tfhost serve: " + message + "\n"), std::string::npos) << err.str();
  }
}

TEST(ServeCommandTest, HelpListsTfServingFlagNames) {
  std::ostringstream out, err;
  EXPECT_EQ(ServeCommand({"--help"}, out, err), kExitOk);
  for (const char* flag :
       {"--port", "--rest_api_port", "--model_name", "--model_base_path", "--model_config_file",
        "--model_config_file_poll_wait_seconds", "--file_system_poll_wait_seconds", "--enable_batching",
        "--batching_parameters_file", "--monitoring_config_file", "--enable_model_warmup", "--rest_api_num_threads",
        "--rest_api_timeout_in_ms", "--tensorflow_intra_op_parallelism", "--tensorflow_inter_op_parallelism",
        "--max_num_load_retries", "--load_retry_interval_micros", "--num_request_iterations_for_warmup",
        "--allow_version_labels_for_unavailable_models", "--force_allow_any_version_labels_for_unavailable_models",
        "--grpc_socket_path", "--ssl_config_file", "--enable_per_model_batching_parameters",
        "--per_process_gpu_memory_fraction", "--gpu_allow_growth", "--gpu_algorithm_cache",
        "--gpu_algorithm_search"}) {
    // Long names put their help on the next line.
    const bool listed = out.str().find(std::string(flag) + " ") != std::string::npos ||
                        out.str().find(std::string(flag) + "\n") != std::string::npos;
    EXPECT_TRUE(listed) << flag;
  }
}

TEST(ServeCommandTest, HelpSaysTheGpuMemoryFlagsDoNothingWithoutAGpu) {
  std::ostringstream out, err;
  EXPECT_EQ(ServeCommand({"--help"}, out, err), kExitOk);
  const std::string help = out.str();
  for (const char* flag : {"--per_process_gpu_memory_fraction", "--gpu_allow_growth", "--gpu_algorithm_cache",
                           "--gpu_algorithm_search"}) {
    const size_t at = help.find(flag);
    ASSERT_NE(at, std::string::npos) << flag;
    EXPECT_NE(help.find("No effect without a usable GPU", at), std::string::npos) << help.substr(at, 400);
  }
}

TEST(ServeCommandTest, MissingModelConfigFileFailsBeforeServing) {
  std::ostringstream out, err;
  EXPECT_EQ(ServeCommand({"--model_config_file=/nonexistent/models.config"}, out, err), kExitFailure);
  EXPECT_NE(err.str().find("/nonexistent/models.config"), std::string::npos) << err.str();
}

TEST(ServeCommandTest, UnreadableSslConfigFileFailsBeforeAnyModelLoads) {
  std::ostringstream out, err;
  EXPECT_EQ(ServeCommand({"--ssl_config_file=/nonexistent/ssl.pbtxt", "--model_base_path=/nonexistent/model"}, out,
                         err),
            kExitFailure);
  EXPECT_NE(err.str().find("--ssl_config_file '/nonexistent/ssl.pbtxt' cannot be read (expected an SSLConfig text "
                           "file)"),
            std::string::npos)
      << err.str();
  EXPECT_EQ(err.str().find("loading"), std::string::npos) << err.str();
}

// ---- the real binary ----

int FreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
  socklen_t len = sizeof(addr);
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  ::close(fd);
  return ntohs(addr.sin_port);
}

// A whole response as text (head, blank line, body); "" when none came.
std::string Raw(const testing::HttpReply& r) { return r.head.empty() ? "" : r.head + "\r\n\r\n" + r.body; }

std::string Request(int port, const std::string& method, const std::string& path, const std::string& body = "") {
  return Raw(testing::HttpExchange(port, method, path, body));
}

// A `tfhost serve` child process whose output goes to a file.
class ServeProcess {
 public:
  // `env`: NAME=VALUE settings for the child alone.
  ServeProcess(const std::vector<std::string>& args, const fs::path& log, const std::vector<std::string>& env = {})
      : log_(log) {
    pid_ = ::fork();
    if (pid_ == 0) {
      for (const std::string& setting : env) {
        const size_t eq = setting.find('=');
        ::setenv(setting.substr(0, eq).c_str(), setting.substr(eq + 1).c_str(), 1);
      }
      FILE* f = std::fopen(log.c_str(), "w");
      if (f != nullptr) {
        ::dup2(fileno(f), 1);
        ::dup2(fileno(f), 2);
      }
      std::vector<std::string> full = {TFHOST_BINARY, "serve"};
      full.insert(full.end(), args.begin(), args.end());
      std::vector<char*> argv;
      for (auto& a : full) argv.push_back(a.data());
      argv.push_back(nullptr);
      ::execv(TFHOST_BINARY, argv.data());
      ::_exit(127);
    }
  }
  ~ServeProcess() {
    if (pid_ > 0 && !exited_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  void Signal(int sig) { ::kill(pid_, sig); }
  // Exit code, or -1 if it did not exit within `timeout` (or died by signal).
  int Wait(std::chrono::milliseconds timeout) {
    auto until = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < until) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        exited_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
      }
      std::this_thread::sleep_for(20ms);
    }
    return -1;
  }
  bool WaitReady(int port, std::chrono::milliseconds timeout) {
    auto until = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < until) {
      if (Request(port, "GET", "/readyz").find("200 OK") != std::string::npos) return true;
      int status;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        exited_ = true;
        return false;
      }
      std::this_thread::sleep_for(50ms);
    }
    return false;
  }
  // Whether the log shows `text` within `timeout` (a line printed after the
  // REST port is up, such as gRPC's, may come after /readyz answers).
  bool WaitForLog(const std::string& text, std::chrono::milliseconds timeout) const {
    auto until = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < until) {
      if (Log().find(text) != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }

  std::string Log() const {
    std::ifstream in(log_);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

 private:
  fs::path log_;
  pid_t pid_ = -1;
  bool exited_ = false;
};

fs::path TempDir() {
  std::string pattern = (fs::temp_directory_path() / "tfhost_serve_test_XXXXXX").string();
  char* made = ::mkdtemp(pattern.data());
  return made ? fs::path(made) : fs::path();
}

TEST(ServeBinaryTest, ServesTheModelAndDrainsAnInFlightRequestOnSigterm) {
  std::string model = testing::FixturePath("models/tfserving/saved_model_half_plus_two_cpu");
  TFHOST_REQUIRE_FIXTURE(model);
  fs::path dir = TempDir();
  int port = FreePort();
  ServeProcess server({"--model_name=half_plus_two", "--model_base_path", model, "--rest_api_address=127.0.0.1",
                       "--rest_api_port=" + std::to_string(port), "--port=0", "--shutdown_timeout_ms=10000"},
                      dir / "serve.log");
  ASSERT_TRUE(server.WaitReady(port, 60s)) << server.Log();

  std::string predict = Request(port, "POST", "/v1/models/half_plus_two:predict", R"({"instances": [1.0, 2.0, 5.0]})");
  EXPECT_NE(predict.find("200 OK"), std::string::npos) << predict;
  EXPECT_NE(predict.find(R"({"predictions": [2.5,3.0,4.5]})"), std::string::npos) << predict;
  std::string missing = Request(port, "POST", "/v1/models/half:predict", R"({"instances": [1.0]})");
  EXPECT_NE(missing.find("404"), std::string::npos) << missing;
  EXPECT_NE(missing.find("Servable not found for request: Latest(half)"), std::string::npos) << missing;
  EXPECT_NE(server.Log().find("gRPC is not served"), std::string::npos) << server.Log();
  // The startup examples are ready to paste: a real predict body built from
  // the signature, no placeholder.
  EXPECT_NE(server.Log().find("curl -d '{\"instances\": [[0.0]]}' -X POST http://localhost:" + std::to_string(port) +
                              "/v1/models/half_plus_two:predict"),
            std::string::npos)
      << server.Log();
  EXPECT_EQ(server.Log().find("[...]"), std::string::npos) << server.Log();

  // A request whose body is still arriving when SIGTERM comes must be
  // answered before the process exits.
  std::string body = R"({"instances": [[4.0]]})";
  testing::HttpConnection inflight(port);
  ASSERT_TRUE(inflight.connected());
  inflight.Send("POST /v1/models/half_plus_two:predict HTTP/1.1\r\nHost: x\r\nContent-Length: " +
                std::to_string(body.size()) + "\r\n\r\n" + body.substr(0, 5));
  std::this_thread::sleep_for(200ms);
  server.Signal(SIGTERM);
  std::this_thread::sleep_for(300ms);
  inflight.Send(body.substr(5));
  std::string answer = Raw(inflight.Read());
  EXPECT_NE(answer.find("200 OK"), std::string::npos) << answer;
  EXPECT_NE(answer.find(R"({"predictions": [[4.0]]})"), std::string::npos) << answer;
  EXPECT_NE(answer.find("Connection: close"), std::string::npos) << answer;
  EXPECT_EQ(server.Wait(20s), 0) << server.Log();
  std::string log = server.Log();
  EXPECT_NE(log.find("received SIGTERM"), std::string::npos) << log;
  EXPECT_NE(log.find("all requests finished"), std::string::npos) << log;
  fs::remove_all(dir);
}

// A SavedModel copied straight into --model_base_path (no numbered version
// folder) does not stop the server: it logs how to lay versions out and
// serves the model once DIR/1/ appears, as TF Serving does.
TEST(ServeBinaryTest, ModelWithoutVersionFolderWaitsAndIsServedWhenOneAppears) {
  std::string model = testing::FixturePath("models/tfserving/saved_model_half_plus_two_cpu/00000123");
  TFHOST_REQUIRE_FIXTURE(model);
  fs::path dir = TempDir();
  fs::path base = dir / "half";
  fs::copy(model, base, fs::copy_options::recursive);
  int port = FreePort();
  ServeProcess server({"--model_name=half", "--model_base_path", base.string(), "--rest_api_address=127.0.0.1",
                       "--rest_api_port=" + std::to_string(port), "--port=0", "--file_system_poll_wait_seconds=1"},
                      dir / "serve.log");
  const std::string waiting = "tfhost serve: model \"half\" is waiting for a version: no numeric version folders under " +
                              base.string() + ": put each version in a numbered folder (" + (base / "1").string() +
                              "/, " + (base / "2").string() + "/, ...); looking again every 1 s\n";
  auto until = std::chrono::steady_clock::now() + 60s;
  while (server.Log().find("Try:") == std::string::npos && std::chrono::steady_clock::now() < until) {
    std::this_thread::sleep_for(50ms);
  }
  EXPECT_NE(server.Log().find(waiting), std::string::npos) << server.Log();
  EXPECT_EQ(server.Wait(200ms), -1) << "exited: " << server.Log();
  // Publish version 1 atomically (stage, then rename), as
  // docs/model_management.md says.
  fs::copy(model, dir / "staging", fs::copy_options::recursive);
  fs::rename(dir / "staging", base / "1");
  ASSERT_TRUE(server.WaitReady(port, 60s)) << server.Log();
  std::string predict = Request(port, "POST", "/v1/models/half:predict", R"({"instances": [1.0, 2.0]})");
  EXPECT_NE(predict.find(R"({"predictions": [2.5,3.0]})"), std::string::npos) << predict;
  server.Signal(SIGTERM);
  EXPECT_EQ(server.Wait(20s), 0) << server.Log();
  fs::remove_all(dir);
}

// gRPC on a chosen address and on TF Serving's UNIX socket, both named in
// the log.
TEST(ServeBinaryTest, GrpcListensOnTheGivenAddressAndUnixSocket) {
  fs::path dir = TempDir();
  int port = FreePort(), grpc_port = FreePort();
  const std::string socket = (dir / "grpc.sock").string();
  ServeProcess server({"--demo_models_dir", (dir / "demo").string(), "--rest_api_address=127.0.0.1",
                       "--rest_api_port=" + std::to_string(port),
                       "--grpc_address=127.0.0.1:" + std::to_string(grpc_port), "--grpc_socket_path=" + socket},
                      dir / "serve.log");
  ASSERT_TRUE(server.WaitReady(port, 60s)) << server.Log();
  // serve starts REST before gRPC: wait for gRPC's line, not only for /readyz.
  EXPECT_TRUE(server.WaitForLog("tfhost serve: gRPC API listening on 127.0.0.1:" + std::to_string(grpc_port) +
                                    " and unix:" + socket + " (max message",
                                20s))
      << server.Log();
  EXPECT_TRUE(fs::is_socket(socket));
  server.Signal(SIGTERM);
  EXPECT_EQ(server.Wait(20s), 0) << server.Log();
  fs::remove_all(dir);
}

TEST(ServeBinaryTest, WithoutModelFlagsServesTheDemoModelsAndPrintsCurlCommands) {
  fs::path dir = TempDir();
  int port = FreePort();
  ServeProcess server({"--demo_models_dir", (dir / "demo").string(), "--port=0", "--rest_api_address=127.0.0.1",
                       "--rest_api_port=" + std::to_string(port)},
                      dir / "serve.log");
  ASSERT_TRUE(server.WaitReady(port, 60s)) << server.Log();
  std::string list = Request(port, "GET", "/v1/models");
  for (const char* name : {"half_plus_two", "mlp", "cnn"}) {
    EXPECT_NE(list.find(std::string("\"") + name + "\""), std::string::npos) << list;
  }
  std::string predict =
      Request(port, "POST", "/v1/models/half_plus_two:predict", R"({"instances": [[1.0], [2.0], [5.0]]})");
  EXPECT_NE(predict.find(R"({"predictions": [[2.5],[3.0],[4.5]]})"), std::string::npos) << predict;
  EXPECT_NE(server.Log().find("curl -d '{\"instances\""), std::string::npos) << server.Log();
  server.Signal(SIGINT);
  EXPECT_EQ(server.Wait(20s), 0) << server.Log();
  fs::remove_all(dir);
}

// --precision bf16 reaches the model loader: the served MLP's answer stays
// within the bf16 bound of docs/perf.md (2e-2 relative) of the float32 run
// of the same model in-process.
TEST(ServeBinaryTest, Bf16PrecisionServesTheDemoMlpWithinTheBf16BoundOfFloat32) {
  fs::path dir = TempDir();
  int port = FreePort();
  ServeProcess server({"--demo_models_dir", (dir / "demo").string(), "--port=0", "--rest_api_address=127.0.0.1",
                       "--rest_api_port=" + std::to_string(port), "--precision=bf16"},
                      dir / "serve.log");
  ASSERT_TRUE(server.WaitReady(port, 60s)) << server.Log();
  std::string answer =
      Request(port, "POST", "/v1/models/mlp:predict", R"({"instances": [[0.5, -1.25, 2.0, 3.5]]})");
  ASSERT_NE(answer.find("200 OK"), std::string::npos) << answer;
  size_t at = answer.find("[[");
  ASSERT_NE(at, std::string::npos) << answer;
  std::vector<double> served;
  std::istringstream in(answer.substr(at + 2));
  for (double v; served.size() < 3 && in >> v;) {
    served.push_back(v);
    in.ignore(1);  // ','
  }
  server.Signal(SIGINT);
  EXPECT_EQ(server.Wait(20s), 0) << server.Log();

  auto model = LoadModelForCli((dir / "demo" / "mlp").string(), CliLoad{});
  ASSERT_TRUE(model.ok()) << model.status().ToString();
  Tensor x(DType::kFloat, Shape({1, 4}));
  const float values[] = {0.5f, -1.25f, 2.0f, 3.5f};
  std::copy(values, values + 4, x.data<float>());
  auto out = (*model)->RunSignature("serving_default", {{"x", x}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const Tensor& probabilities = out->at("probabilities");
  ASSERT_EQ(served.size(), 3u) << answer;
  for (int i = 0; i < 3; ++i) {
    const double want = probabilities.data<float>()[i];
    EXPECT_NEAR(served[static_cast<size_t>(i)], want, 2e-2 * std::fabs(want)) << "class " << i << " of " << answer;
  }
  fs::remove_all(dir);
}

TEST(ServeBinaryTest, ServesTfServingsGoodModelConfigWithItsMonitoringConfig) {
  std::string configs = testing::FixturePath("tfserving-configs");
  std::string two = testing::FixturePath("models/tfserving/saved_model_half_plus_two_cpu");
  std::string three = testing::FixturePath("models/tfserving/saved_model_half_plus_three");
  TFHOST_REQUIRE_FIXTURE(configs);
  TFHOST_REQUIRE_FIXTURE(two);
  TFHOST_REQUIRE_FIXTURE(three);
  fs::path dir = TempDir();
  std::ifstream in(configs + "/good_model_config.txt");
  std::stringstream text;
  text << in.rdbuf();
  std::string config = text.str();
  for (auto [var, path] : {std::pair<std::string, std::string>{"${TEST_HALF_PLUS_TWO_DIR}", two},
                           std::pair<std::string, std::string>{"${TEST_HALF_PLUS_THREE_DIR}", three}}) {
    for (size_t at; (at = config.find(var)) != std::string::npos;) config.replace(at, var.size(), path);
  }
  std::ofstream(dir / "models.config") << config;
  int port = FreePort();
  ServeProcess server({"--model_config_file", (dir / "models.config").string(), "--monitoring_config_file",
                       configs + "/monitoring_config.txt", "--port=0", "--rest_api_address=127.0.0.1",
                       "--rest_api_port=" + std::to_string(port)},
                      dir / "serve.log");
  ASSERT_TRUE(server.WaitReady(port, 60s)) << server.Log();
  EXPECT_NE(Request(port, "POST", "/v1/models/half_plus_two:predict", R"({"instances": [2.0]})")
                .find(R"({"predictions": [3.0]})"),
            std::string::npos);
  EXPECT_NE(Request(port, "POST", "/v1/models/half_plus_three:predict", R"({"instances": [2.0]})")
                .find(R"({"predictions": [4.0]})"),
            std::string::npos);
  std::string metrics = Request(port, "GET", "/monitoring/prometheus/metrics");
  EXPECT_NE(metrics.find(":tensorflow:serving:request_count"), std::string::npos) << metrics.substr(0, 500);
  server.Signal(SIGTERM);
  EXPECT_EQ(server.Wait(20s), 0) << server.Log();
  fs::remove_all(dir);
}

// The GPU memory flags through the binary: the stand-in CUDA plugin's one
// fake GPU (4 GiB, src/backends/testing) gets --per_process_gpu_memory_fraction
// of it, all at the first allocation without growth, and /metrics shows its
// allocator labelled by device.
TEST(ServeBinaryTest, GpuMemoryFlagsReachTheGpuAndItsAllocatorIsInTheMetrics) {
  std::string model = testing::FixturePath("models/tfserving/saved_model_half_plus_two_cpu");
  TFHOST_REQUIRE_FIXTURE(model);
  fs::path dir = TempDir();
  int port = FreePort();
  ServeProcess server({"--model_name=half_plus_two", "--model_base_path", model, "--rest_api_address=127.0.0.1",
                       "--rest_api_port=" + std::to_string(port), "--port=0", "--device=gpu",
                       "--per_process_gpu_memory_fraction", "0.01", "--gpu_allow_growth", "false"},
                      dir / "serve.log", {std::string("TFHOST_PLUGIN_PATH=") + TFHOST_FAKE_CUDA_PLUGIN_DIR});
  ASSERT_TRUE(server.WaitReady(port, 60s)) << server.Log();
  std::string predict = Request(port, "POST", "/v1/models/half_plus_two:predict", R"({"instances": [1.0, 2.0, 5.0]})");
  EXPECT_NE(predict.find(R"({"predictions": [2.5,3.0,4.5]})"), std::string::npos) << predict;
  const std::string metrics = Request(port, "GET", "/monitoring/prometheus/metrics");
  const std::string labels = "{device=\"gpu:0\",backend=\"cuda:0\"} ";
  const int64_t limit = static_cast<int64_t>(static_cast<double>(int64_t{4} << 30) * 0.01);
  EXPECT_NE(metrics.find(":tfhost:serving:device_memory_limit_bytes" + labels + std::to_string(limit) + "\n"),
            std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find(":tfhost:serving:device_memory_reserved_bytes" + labels + std::to_string(limit / 256 * 256) +
                         "\n"),
            std::string::npos)
      << metrics;
  EXPECT_NE(metrics.find(":tfhost:serving:device_memory_allocation_failures" + labels + "0\n"), std::string::npos)
      << metrics;
  server.Signal(SIGTERM);
  EXPECT_EQ(server.Wait(20s), 0) << server.Log();
  fs::remove_all(dir);
}

TEST(ServeBinaryTest, BadModelConfigFailsWithTheParseError) {
  std::string bad = testing::FixturePath("tfserving-configs/bad_model_config.txt");
  TFHOST_REQUIRE_FIXTURE(bad);
  fs::path dir = TempDir();
  ServeProcess server({"--model_config_file", bad, "--port=0", "--rest_api_port=" + std::to_string(FreePort())},
                      dir / "serve.log");
  EXPECT_EQ(server.Wait(20s), 1) << server.Log();
  EXPECT_NE(server.Log().find("bad_model_config.txt"), std::string::npos) << server.Log();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace tfhost::cli
