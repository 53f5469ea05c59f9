// gRPC Predict load generator for `tfhost serve` (issue 5, item 10): keeps
// --streams calls in flight on one HTTP/2 connection (grpc++ async API, one
// completion-queue thread), each slot starting its next call as soon as the
// last one answers, for --duration_s after --warmup_s, then prints one JSON
// line: requests, errors, req/s and latency percentiles in ms.
//
//   serving_grpc_load --target=127.0.0.1:8500 [--model=half_plus_two]
//                     [--streams=64] [--duration_s=30] [--warmup_s=2] [--batch=1]
//                     [--input=x] [--row_shape=1]
// Each request is a float tensor `input` of shape [batch, row_shape...]
// (row_shape a comma list, e.g. 224,224,3 for an image model), all 0.5.
//
// Exit status 0 when the run had no errors, 1 otherwise, 2 on bad flags.
#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "tensorflow_serving/apis/prediction_service.grpc.pb.h"

namespace {

namespace ts = tensorflow::serving;
using Clock = std::chrono::steady_clock;

struct Flags {
  std::string target = "127.0.0.1:8500";
  std::string model = "half_plus_two";
  int streams = 64;
  double duration_s = 30;
  double warmup_s = 2;
  int batch = 1;
  std::string input = "x";
  std::vector<int64_t> row_shape = {1};
};

bool ParseShape(const std::string& text, std::vector<int64_t>* out) {
  out->clear();
  size_t pos = 0;
  int64_t elements = 1;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    std::string part = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    char* end = nullptr;
    long long v = std::strtoll(part.c_str(), &end, 10);
    if (part.empty() || *end != '\0' || v < 1 || v > (1 << 24)) return false;
    elements *= v;
    if (elements > (int64_t{1} << 28)) return false;
    out->push_back(v);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return !out->empty();
}

bool ParseFlags(int argc, char** argv, Flags* f) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    size_t eq = arg.find('=');
    if (arg.rfind("--", 0) != 0 || eq == std::string::npos) return false;
    std::string key = arg.substr(2, eq - 2), value = arg.substr(eq + 1);
    char* end = nullptr;
    if (key == "target") {
      f->target = value;
    } else if (key == "model") {
      f->model = value;
    } else if (key == "streams") {
      f->streams = static_cast<int>(std::strtol(value.c_str(), &end, 10));
    } else if (key == "duration_s") {
      f->duration_s = std::strtod(value.c_str(), &end);
    } else if (key == "warmup_s") {
      f->warmup_s = std::strtod(value.c_str(), &end);
    } else if (key == "batch") {
      f->batch = static_cast<int>(std::strtol(value.c_str(), &end, 10));
    } else if (key == "input") {
      f->input = value;
    } else if (key == "row_shape") {
      if (!ParseShape(value, &f->row_shape)) return false;
    } else {
      return false;
    }
    if (end != nullptr && *end != '\0') return false;
  }
  return f->streams >= 1 && f->streams <= 10000 && f->duration_s > 0 && f->warmup_s >= 0 && f->batch >= 1 &&
         f->batch <= 1 << 20;
}

// One in-flight call; its address is the completion-queue tag.
struct Slot {
  grpc::ClientContext context;
  ts::PredictResponse response;
  grpc::Status status;
  std::unique_ptr<grpc::ClientAsyncResponseReader<ts::PredictResponse>> reader;
  Clock::time_point start;
};

double Percentile(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  size_t i = static_cast<size_t>(p / 100.0 * static_cast<double>(sorted.size() - 1) + 0.5);
  return sorted[std::min(i, sorted.size() - 1)];
}

}  // namespace

int main(int argc, char** argv) {
  Flags f;
  if (!ParseFlags(argc, argv, &f)) {
    std::fprintf(stderr,
                 "usage: %s --target=HOST:PORT [--model=NAME] [--streams=64] [--duration_s=30] [--warmup_s=2] "
                 "[--batch=1] [--input=x] [--row_shape=1]\n",
                 argv[0]);
    return 2;
  }
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  auto channel = grpc::CreateCustomChannel(f.target, grpc::InsecureChannelCredentials(), args);
  auto stub = ts::PredictionService::NewStub(channel);
  if (!channel->WaitForConnected(std::chrono::system_clock::now() + std::chrono::seconds(10))) {
    std::fprintf(stderr, "serving_grpc_load: cannot connect to %s\n", f.target.c_str());
    return 1;
  }

  ts::PredictRequest request;
  request.mutable_model_spec()->set_name(f.model);
  tensorflow::TensorProto& x = (*request.mutable_inputs())[f.input];
  x.set_dtype(tensorflow::DT_FLOAT);
  x.mutable_tensor_shape()->add_dim()->set_size(f.batch);
  int64_t elements = f.batch;
  for (int64_t d : f.row_shape) {
    x.mutable_tensor_shape()->add_dim()->set_size(d);
    elements *= d;
  }
  if (elements == f.batch) {
    for (int i = 0; i < f.batch; ++i) x.add_float_val(1.0f);  // the half_plus_two default, as before
  } else {
    std::vector<float> values(static_cast<size_t>(elements), 0.5f);
    x.set_tensor_content(std::string(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(float)));
  }

  grpc::CompletionQueue cq;
  auto start_call = [&](Slot* slot) {
    slot->start = Clock::now();
    slot->context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    slot->reader = stub->PrepareAsyncPredict(&slot->context, request, &cq);
    slot->reader->StartCall();
    slot->reader->Finish(&slot->response, &slot->status, slot);
  };

  const Clock::time_point begin = Clock::now();
  const Clock::time_point measure_from = begin + std::chrono::duration_cast<Clock::duration>(
                                                     std::chrono::duration<double>(f.warmup_s));
  const Clock::time_point end = measure_from + std::chrono::duration_cast<Clock::duration>(
                                                   std::chrono::duration<double>(f.duration_s));
  for (int i = 0; i < f.streams; ++i) start_call(new Slot());

  std::vector<double> latencies_ms;
  latencies_ms.reserve(1 << 20);
  int64_t errors = 0;
  std::map<std::string, int64_t> error_kinds;
  int open = f.streams;
  void* tag = nullptr;
  bool ok = false;
  while (open > 0 && cq.Next(&tag, &ok)) {
    Slot* slot = static_cast<Slot*>(tag);
    Clock::time_point now = Clock::now();
    if (slot->start >= measure_from && now <= end) {
      if (ok && slot->status.ok()) {
        latencies_ms.push_back(std::chrono::duration<double, std::milli>(now - slot->start).count());
      } else {
        ++errors;
        ++error_kinds[std::to_string(slot->status.error_code()) + " " + slot->status.error_message()];
      }
    }
    delete slot;
    if (now < end) {
      start_call(new Slot());
    } else {
      --open;
    }
  }
  cq.Shutdown();
  while (cq.Next(&tag, &ok)) {
  }

  std::sort(latencies_ms.begin(), latencies_ms.end());
  double seconds = f.duration_s;
  std::printf(
      "{\"target\": \"%s\", \"model\": \"%s\", \"streams\": %d, \"batch\": %d, \"seconds\": %.1f, \"requests\": %zu, "
      "\"errors\": %lld, \"req_per_s\": %.1f, \"p50_ms\": %.3f, \"p90_ms\": %.3f, \"p99_ms\": %.3f, "
      "\"max_ms\": %.3f}\n",
      f.target.c_str(), f.model.c_str(), f.streams, f.batch, seconds, latencies_ms.size(),
      static_cast<long long>(errors), static_cast<double>(latencies_ms.size()) / seconds,
      Percentile(latencies_ms, 50), Percentile(latencies_ms, 90), Percentile(latencies_ms, 99),
      latencies_ms.empty() ? 0.0 : latencies_ms.back());
  for (const auto& [kind, n] : error_kinds) std::fprintf(stderr, "error x%lld: %s\n", static_cast<long long>(n), kind.c_str());
  return errors == 0 && !latencies_ms.empty() ? 0 : 1;
}
