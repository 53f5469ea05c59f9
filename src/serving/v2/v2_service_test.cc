#include "serving/v2/v2_service.h"

#include <gtest/gtest.h>

#include <future>

#include "serving/serving_test_util.h"
#include "serving/v2/v2_test_models.h"

namespace tfhost::serving::v2 {
namespace {

using testing::EchoServer;

class V2ServiceTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(server_.status.ok()) << server_.status.ToString(); }

  static InferRequest Fp32Request(std::vector<float> values, std::vector<int64_t> shape) {
    InferRequest r;
    r.model_name = "echo_fp32";
    r.inputs.push_back({"x", Tensor::FromVector(values, Shape(shape))});
    return r;
  }

  EchoServer server_;
  V2Service service_{server_.core.get(), "1.2.3"};
};

TEST_F(V2ServiceTest, EveryDatatypeEchoesThroughItsModel) {
  for (DType dtype : testing::EchoDTypes()) {
    SCOPED_TRACE(DTypeName(dtype));
    Tensor input(dtype, Shape({2, 2}));
    if (dtype == DType::kString) {
      for (int i = 0; i < 4; ++i) input.strings()[i] = std::string("s\0", 2) + std::to_string(i);
    } else {
      auto* bytes = static_cast<unsigned char*>(input.raw_data());
      for (size_t i = 0; i < input.ByteSize(); ++i) bytes[i] = dtype == DType::kBool ? (i % 2) : (i * 37 + 5) & 0xff;
    }
    InferRequest r;
    r.model_name = testing::EchoModelName(dtype);
    r.id = "req-7";
    r.inputs.push_back({"x", input});
    auto result = service_.Infer(std::move(r), Entrypoint::kRest);
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    EXPECT_EQ(result->model_name, testing::EchoModelName(dtype));
    EXPECT_EQ(result->id, "req-7");
    ASSERT_EQ(result->outputs.size(), 1u);
    EXPECT_EQ(result->outputs[0].name, "y");
    EXPECT_TRUE(TensorsEqual(result->outputs[0].tensor, input)) << result->outputs[0].tensor.DebugString();
  }
}

TEST_F(V2ServiceTest, VersionsLabelsAndTheLatestResolveAsInV1) {
  auto latest = service_.Infer(Fp32Request({1, 2}, {1, 2}), Entrypoint::kRest);
  ASSERT_TRUE(latest.ok()) << latest.status().ToString();
  EXPECT_EQ(latest->model_version, "2");
  auto r = Fp32Request({1, 2}, {1, 2});
  r.model_version = "1";
  auto one = service_.Infer(std::move(r), Entrypoint::kRest);
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(one->model_version, "1");
  r = Fp32Request({1, 2}, {1, 2});
  r.model_version = "stable";
  auto labelled = service_.Infer(std::move(r), Entrypoint::kRest);
  ASSERT_TRUE(labelled.ok()) << labelled.status().ToString();
  EXPECT_EQ(labelled->model_version, "1");
}

TEST_F(V2ServiceTest, UnknownModelVersionOrLabelIsNotFoundNamingIt) {
  auto r = Fp32Request({1, 2}, {1, 2});
  r.model_name = "nope";
  auto missing = service_.Infer(std::move(r), Entrypoint::kRest);
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(missing.status().message(), "Servable not found for request: Latest(nope)");
  r = Fp32Request({1, 2}, {1, 2});
  r.model_version = "9";
  auto version = service_.Infer(std::move(r), Entrypoint::kRest);
  EXPECT_EQ(version.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(version.status().message(), "Servable not found for request: Specific(echo_fp32, 9)");
  r = Fp32Request({1, 2}, {1, 2});
  r.model_version = "canary";
  auto label = service_.Infer(std::move(r), Entrypoint::kRest);
  EXPECT_EQ(label.status().code(), StatusCode::kNotFound);
  EXPECT_NE(label.status().message().find("Unrecognized servable version label: canary"), std::string::npos)
      << label.status().message();
  EXPECT_NE(label.status().message().find("model 'echo_fp32'"), std::string::npos);
}

TEST_F(V2ServiceTest, WrongDatatypeNamesInputExpectedAndGiven) {
  InferRequest r;
  r.model_name = "echo_fp32";
  r.inputs.push_back({"x", Tensor::FromVector(std::vector<int32_t>{1, 2}, Shape({1, 2}))});
  auto result = service_.Infer(std::move(r), Entrypoint::kRest);
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(result.status().message(),
            "input 'x': expected datatype FP32 but got INT32 (model 'echo_fp32' version 2 signature "
            "'serving_default')");
}

TEST_F(V2ServiceTest, WrongShapeNamesInputExpectedAndGiven) {
  auto result = service_.Infer(Fp32Request({1, 2, 3}, {1, 3}), Entrypoint::kRest);
  EXPECT_EQ(result.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(result.status().message(),
            "input 'x': expected shape [?,2] but got [1,3] (model 'echo_fp32' version 2 signature "
            "'serving_default'; ? is any size)");
}

TEST_F(V2ServiceTest, UnknownMissingAndDuplicateInputsAndOutputs) {
  InferRequest r = Fp32Request({1, 2}, {1, 2});
  r.inputs[0].name = "z";
  auto unknown = service_.Infer(std::move(r), Entrypoint::kRest);
  EXPECT_EQ(unknown.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(unknown.status().message(),
            "unexpected input 'z': model 'echo_fp32' version 2 signature 'serving_default' has inputs: x");
  r = Fp32Request({1, 2}, {1, 2});
  r.inputs.clear();
  auto missing = service_.Infer(std::move(r), Entrypoint::kRest);
  EXPECT_EQ(missing.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(missing.status().message(),
            "missing input 'x' (datatype FP32, shape [?,2]): model 'echo_fp32' version 2 signature "
            "'serving_default' needs inputs: x");
  r = Fp32Request({1, 2}, {1, 2});
  r.inputs.push_back(r.inputs[0]);
  auto twice = service_.Infer(std::move(r), Entrypoint::kRest);
  EXPECT_EQ(twice.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(twice.status().message().find("input 'x' appears more than once"), std::string::npos);
  r = Fp32Request({1, 2}, {1, 2});
  r.outputs.push_back({"w", false});
  auto output = service_.Infer(std::move(r), Entrypoint::kRest);
  EXPECT_EQ(output.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(output.status().message(),
            "unknown output 'w': model 'echo_fp32' version 2 signature 'serving_default' has outputs: y");
}

TEST_F(V2ServiceTest, SignatureNameParameterPicksAnotherSignature) {
  InferRequest r;
  r.model_name = "echo_int64";
  r.parameters[kSignatureNameParameter] = std::string("second");
  r.inputs.push_back({"a", Tensor::FromVector(std::vector<int64_t>{4, 5, 6})});
  auto result = service_.Infer(std::move(r), Entrypoint::kGrpc);
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  ASSERT_EQ(result->outputs.size(), 1u);
  EXPECT_EQ(result->outputs[0].name, "b");
  r = InferRequest();
  r.model_name = "echo_int64";
  r.parameters[kSignatureNameParameter] = std::string("third");
  auto unknown = service_.Infer(std::move(r), Entrypoint::kGrpc);
  EXPECT_EQ(unknown.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.status().message().find("\"third\" not found in signature def"), std::string::npos);
  r = InferRequest();
  r.model_name = "echo_int64";
  r.parameters[kSignatureNameParameter] = int64_t{3};
  auto not_string = service_.Infer(std::move(r), Entrypoint::kGrpc);
  EXPECT_EQ(not_string.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(not_string.status().message().find("'signature_name' must be a string"), std::string::npos);
}

TEST_F(V2ServiceTest, ReadinessAndMetadata) {
  EXPECT_TRUE(service_.ServerLive());
  EXPECT_TRUE(service_.ServerReady());
  EXPECT_TRUE(*service_.ModelReady("echo_fp32", ""));
  EXPECT_TRUE(*service_.ModelReady("echo_fp32", "1"));
  EXPECT_TRUE(*service_.ModelReady("echo_fp32", "stable"));
  auto unknown = service_.ModelReady("nope", "");
  EXPECT_EQ(unknown.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(unknown.status().message(), "Could not find any versions of model nope");
  EXPECT_EQ(service_.ModelReady("echo_fp32", "5").status().code(), StatusCode::kNotFound);

  auto m = service_.GetModelMetadata("echo_fp32", "");
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(m->name, "echo_fp32");
  EXPECT_EQ(m->versions, (std::vector<std::string>{"1", "2"}));
  EXPECT_EQ(m->platform, "tensorflow_savedmodel");
  ASSERT_EQ(m->inputs.size(), 1u);
  EXPECT_EQ(m->inputs[0].name, "x");
  EXPECT_EQ(m->inputs[0].datatype, "FP32");
  EXPECT_EQ(m->inputs[0].shape, (std::vector<int64_t>{-1, 2}));
  auto bf16 = service_.GetModelMetadata("echo_bf16", "1");
  ASSERT_TRUE(bf16.ok());
  EXPECT_EQ(bf16->outputs[0].datatype, "BF16");
  EXPECT_EQ(bf16->versions, (std::vector<std::string>{"1"}));

  ServerMetadata sm = service_.GetServerMetadata();
  EXPECT_EQ(sm.name, "tfhost");
  EXPECT_EQ(sm.version, "1.2.3");

  // Draining turns readiness off; a request that still reaches the service
  // (its body was arriving at SIGTERM) is answered.
  service_.SetDraining(true);
  EXPECT_FALSE(service_.ServerReady());
  auto late = service_.Infer(Fp32Request({1, 2}, {1, 2}), Entrypoint::kRest);
  ASSERT_TRUE(late.ok()) << late.status().ToString();
  EXPECT_EQ(late->outputs.size(), 1u);
}

TEST_F(V2ServiceTest, RequestsGoThroughTheModelsRunnerAndCountInMetrics) {
  auto gate = std::make_shared<serving::testing::GateRunner>();
  server_.core->SetDefaultRunner(gate);
  gate->Open();
  std::promise<StatusOr<InferResponse>> answer;
  service_.InferAsync(Fp32Request({1, 2}, {1, 2}), Entrypoint::kRest,
                      [&answer](StatusOr<InferResponse> r) { answer.set_value(std::move(r)); });
  auto result = answer.get_future().get();
  ASSERT_TRUE(result.ok()) << result.status().ToString();
  EXPECT_EQ(gate->runs_started(), 1);
  ASSERT_TRUE(service_.Infer(Fp32Request({1, 2}, {1, 2}), Entrypoint::kGrpc).ok());
  EXPECT_EQ(gate->runs_started(), 2);
  std::string metrics = server_.core->MetricsText();
  EXPECT_NE(metrics.find("model_name=\"echo_fp32\""), std::string::npos) << metrics;
  EXPECT_NE(metrics.find("entrypoint=\"REST\""), std::string::npos);
  EXPECT_NE(metrics.find("entrypoint=\"GRPC\""), std::string::npos);
}

TEST(V2ModelSpecTest, VersionStringsBecomeNumbersOrLabels) {
  auto none = ModelSpecFor("m", "", "");
  EXPECT_EQ(none.version_choice_case(), tensorflow::serving::ModelSpec::VERSION_CHOICE_NOT_SET);
  auto number = ModelSpecFor("m", "42", "sig");
  EXPECT_EQ(number.version().value(), 42);
  EXPECT_EQ(number.signature_name(), "sig");
  EXPECT_EQ(ModelSpecFor("m", "v42", "").version_label(), "v42");
}

}  // namespace
}  // namespace tfhost::serving::v2
