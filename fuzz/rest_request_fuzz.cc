// Fuzzes the REST API of `tfhost serve` in process: arbitrary bytes as the
// request line and body of a REST request, through RestApiHandler::HandleAsync
// (the path `tfhost serve` uses: routing, case-insensitive paths, JSON
// predict/classify/regress parsing, tensor conversion, the model run on the
// worker pool, JSON answers and error bodies) over a ServerCore serving
// tfhost's demo models (half_plus_two, mlp, cnn), written once to the scratch
// folder so the harness needs no fixtures.
//
// Input: "<METHOD> <TARGET>\n<BODY>"; without a newline the whole input is a
// POST body to /v1/models/half_plus_two:predict. Every answer must be a valid
// HTTP status with a body, and error answers must be {"error": ...}.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <memory>
#include <string>
#include <string_view>

#include "fuzz/fuzz_file_util.h"
#include "loaders/savedmodel/demo_models.h"
#include "serving/rest/rest_api_handler.h"
#include "serving/server_core.h"

namespace {

struct Server {
  std::unique_ptr<tfhost::serving::ServerCore> core;
  std::unique_ptr<tfhost::serving::RestApiHandler> rest;
};

Server& TheServer() {
  static Server* server = [] {
    const std::string dir = tfhost::fuzz::ScratchDir() + "/demo";
    auto written = tfhost::loaders::WriteDemoModels(dir);
    if (!written.ok()) {
      std::fprintf(stderr, "fuzz harness: cannot write demo models: %s\n", written.status().ToString().c_str());
      std::abort();
    }
    tfhost::serving::ServerCoreOptions options;
    for (const std::string& name : tfhost::loaders::DemoModelNames()) {
      auto* model = options.model_server_config.mutable_model_config_list()->add_config();
      model->set_name(name);
      model->set_base_path(dir + "/" + name);
      model->set_model_platform("tensorflow");
    }
    options.manager.file_system_poll_wait_seconds = 0;
    options.manager.log_sink = [](const std::string&) {};
    options.worker_threads = 2;
    auto core = tfhost::serving::ServerCore::Create(std::move(options));
    if (!core.ok()) {
      std::fprintf(stderr, "fuzz harness: cannot serve the demo models: %s\n", core.status().ToString().c_str());
      std::abort();
    }
    auto* s = new Server;
    s->core = std::move(*core);
    s->rest = std::make_unique<tfhost::serving::RestApiHandler>(s->core.get(), tfhost::serving::RestApiOptions{});
    return s;
  }();
  return *server;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Server& server = TheServer();
  std::string_view all(reinterpret_cast<const char*>(data), size);
  std::string method = "POST";
  std::string target = "/v1/models/half_plus_two:predict";
  std::string body(all);
  if (size_t nl = all.find('\n'); nl != std::string_view::npos) {
    std::string_view line = all.substr(0, nl);
    size_t space = line.find(' ');
    method = std::string(line.substr(0, space));
    target = space == std::string_view::npos ? "" : std::string(line.substr(space + 1));
    body = std::string(all.substr(nl + 1));
  }
  auto answer = std::make_shared<std::promise<tfhost::serving::RestResponse>>();
  auto future = answer->get_future();
  server.rest->HandleAsync(method, target, std::move(body),
                           [answer](tfhost::serving::RestResponse r) { answer->set_value(std::move(r)); });
  tfhost::serving::RestResponse r = future.get();  // a second answer would throw: promise already satisfied
  if (r.status < 200 || r.status > 599) std::abort();
  if (r.status >= 400 && r.body.rfind("{\"error\": ", 0) != 0) std::abort();
  return 0;
}
