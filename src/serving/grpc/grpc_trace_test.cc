// gRPC calls traced (base/trace/), read back from the Chrome JSON: a v1
// Predict and a v2 ModelInfer to the demo half_plus_two behind batching each
// get a request span that encloses their queue wait, their batch's model run
// and that run's node slices.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include "base/test_temp_dir.h"
#include "base/trace/chrome_json.h"
#include "base/trace/recorder.h"
#include "base/trace/trace_test_util.h"
#include "inference/grpc_service.grpc.pb.h"
#include "loaders/savedmodel/demo_models.h"
#include "serving/batching/batching_runner.h"
#include "serving/grpc/grpc_server.h"
#include "serving/server_core.h"
#include "tensorflow_serving/apis/prediction_service.grpc.pb.h"

namespace tfhost::serving {
namespace {

namespace ts = tensorflow::serving;
using trace::testing::ParsedSlice;
using trace::testing::ParsedTrace;

class GrpcTraceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(loaders::WriteDemoModels(dir_.path()).ok());
    ServerCoreOptions o;
    o.model_server_config = SingleModelConfig("half_plus_two", dir_.Sub("half_plus_two"));
    o.manager.file_system_poll_wait_seconds = 0;
    o.manager.max_num_load_retries = 0;
    o.manager.log_sink = [](const std::string&) {};
    auto core = ServerCore::Create(std::move(o));
    ASSERT_TRUE(core.ok()) << core.status().ToString();
    core_ = std::move(*core);
    batching::BatchingRunnerOptions b;
    b.config.num_batch_threads = 1;
    b.config.batch_timeout_micros = 1000;
    auto runner = batching::BatchingRunner::Create(b);
    ASSERT_TRUE(runner.ok()) << runner.status().ToString();
    batcher_ = *runner;
    core_->SetDefaultRunner(batcher_);
    GrpcServerOptions options;
    options.address = "127.0.0.1";
    options.port = 0;
    auto server = GrpcServer::Start(options, core_.get());
    ASSERT_TRUE(server.ok()) << server.status().ToString();
    server_ = std::move(*server);
    channel_ = grpc::CreateChannel("127.0.0.1:" + std::to_string(server_->port()), grpc::InsecureChannelCredentials());
  }
  void TearDown() override {
    trace::Recorder::Global().Stop();
    server_.reset();
    if (core_) core_->SetDefaultRunner(nullptr);
    batcher_.reset();
    core_.reset();
  }

  // The one request span named `name`, checked to enclose its queue wait,
  // its batch's run and the run's nodes.
  static void ExpectRequestEnclosesItsWork(const ParsedTrace& t, const std::string& name) {
    const ParsedSlice* request = nullptr;
    for (const ParsedSlice* r : t.WithCategory("request")) {
      if (r->name == name) request = r;
    }
    ASSERT_NE(request, nullptr) << "no span " << name;
    EXPECT_EQ(request->Arg("grpc_status"), "0");
    const ParsedSlice* wait = nullptr;
    for (const ParsedSlice* s : t.WithCategory("batching")) {
      if (s->name == "queue wait" && s->Arg("request") == request->Arg("id")) wait = s;
    }
    ASSERT_NE(wait, nullptr) << name;
    EXPECT_EQ(wait->tid, request->tid);
    EXPECT_TRUE(request->Encloses(*wait)) << name;
    int nodes = 0;
    for (const ParsedSlice* run : t.WithCategory("session")) {
      if (run->Arg("parent") != wait->Arg("batch")) continue;
      EXPECT_TRUE(request->Encloses(*run)) << name;
      for (const ParsedSlice* n : t.WithCategory("node")) {
        if (n->Arg("run") != run->Arg("id")) continue;
        ++nodes;
        EXPECT_TRUE(request->Encloses(*n)) << name << ": " << n->name;
      }
    }
    EXPECT_GT(nodes, 0) << name;
  }

  testing::TempDir dir_{"tfhost_grpc_trace"};
  std::unique_ptr<ServerCore> core_;
  std::shared_ptr<batching::BatchingRunner> batcher_;
  std::unique_ptr<GrpcServer> server_;
  std::shared_ptr<grpc::Channel> channel_;
};

TEST_F(GrpcTraceTest, V1PredictAndV2ModelInferSpansEncloseTheirBatchsNodeSlices) {
  ASSERT_TRUE(server_);
  ASSERT_TRUE(trace::Recorder::Global().Start("test").ok());

  ts::PredictRequest predict;
  predict.mutable_model_spec()->set_name("half_plus_two");
  tensorflow::TensorProto& x = (*predict.mutable_inputs())["x"];
  x.set_dtype(tensorflow::DT_FLOAT);
  x.mutable_tensor_shape()->add_dim()->set_size(2);
  x.mutable_tensor_shape()->add_dim()->set_size(1);
  x.add_float_val(1.0f);
  x.add_float_val(2.0f);
  ts::PredictResponse predicted;
  grpc::ClientContext c1;
  c1.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  grpc::Status s1 = ts::PredictionService::NewStub(channel_)->Predict(&c1, predict, &predicted);
  ASSERT_TRUE(s1.ok()) << s1.error_message();

  inference::ModelInferRequest infer;
  infer.set_model_name("half_plus_two");
  auto* in = infer.add_inputs();
  in->set_name("x");
  in->set_datatype("FP32");
  in->add_shape(1);
  in->add_shape(1);
  in->mutable_contents()->add_fp32_contents(3.0f);
  inference::ModelInferResponse inferred;
  grpc::ClientContext c2;
  c2.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  grpc::Status s2 = inference::GRPCInferenceService::NewStub(channel_)->ModelInfer(&c2, infer, &inferred);
  ASSERT_TRUE(s2.ok()) << s2.error_message();

  ParsedTrace t = trace::testing::ParseChromeJson(trace::ToChromeJson(trace::Recorder::Global().Stop(), "test"));
  ASSERT_TRUE(t.ok);
  ExpectRequestEnclosesItsWork(t, "gRPC Predict");
  ExpectRequestEnclosesItsWork(t, "gRPC v2 inference");
}

}  // namespace
}  // namespace tfhost::serving
