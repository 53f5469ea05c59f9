#include "serving/rest/json_tensor_codec.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "base/test_status.h"
#include "ir/tensor_proto.h"

namespace tfhost::serving {
namespace {

using tensorflow::serving::ClassificationRequest;
using tensorflow::serving::PredictRequest;
using tensorflow::serving::RegressionRequest;

SignatureInputsFn Inputs(SignatureInputTypes types) {
  return [types](const std::string& name, SignatureInputTypes* out) -> Status {
    if (name != "serving_default" && name != "other") {
      return InvalidArgument("Serving signature name: \"" + name + "\" not found in signature def");
    }
    *out = types;
    return OkStatus();
  };
}

Tensor InputTensor(const PredictRequest& req, const std::string& alias) {
  auto it = req.inputs().find(alias);
  EXPECT_NE(it, req.inputs().end()) << alias;
  if (it == req.inputs().end()) return Tensor();
  auto t = ir::TensorFromProto(it->second);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.ok() ? *t : Tensor();
}

Status Fill(const std::string& json, SignatureInputTypes types, PredictRequest* req,
            JsonPredictFormat* format = nullptr) {
  JsonPredictFormat f;
  return FillPredictRequestFromJson(json, Inputs(std::move(types)), req, format ? format : &f);
}

// The parse's first values live in a small buffer inside the document; a
// body far larger (here ~100 KB, many heap chunks) parses the same way.
TEST(JsonTensorCodecTest, BodyLargerThanTheDocumentsInlineBufferParsesWhole) {
  std::string body = R"({"instances": [)";
  std::vector<float> expected;
  for (int i = 0; i < 20000; ++i) {
    body += (i ? ", [" : "[") + std::to_string(i) + ".5]";
    expected.push_back(static_cast<float>(i) + 0.5f);
  }
  body += "]}";
  PredictRequest req;
  ASSERT_TRUE(Fill(body, {{"x", DType::kFloat}}, &req).ok());
  Tensor x = InputTensor(req, "x");
  EXPECT_TRUE(TensorsEqual(x, Tensor::FromVector<float>(expected, Shape({20000, 1}))));
}

TEST(JsonTensorCodecTest, RowFormatPlainListBecomesBatchOfOneInput) {
  PredictRequest req;
  JsonPredictFormat format;
  ASSERT_TRUE(Fill(R"({"instances": [[1.0, 2], [3, 4.5]]})", {{"x", DType::kFloat}}, &req, &format).ok());
  EXPECT_EQ(format, JsonPredictFormat::kRow);
  Tensor x = InputTensor(req, "x");
  EXPECT_TRUE(TensorsEqual(x, Tensor::FromVector<float>({1, 2, 3, 4.5f}, Shape({2, 2}))));
  EXPECT_EQ(req.model_spec().signature_name(), "");
}

TEST(JsonTensorCodecTest, RowFormatObjectsStackEachNamedInput) {
  PredictRequest req;
  ASSERT_TRUE(Fill(R"({"signature_name": "other", "instances": [{"a": [1, 2], "b": "s1"}, {"a": [3, 4], "b": "s2"}]})",
                   {{"a", DType::kInt64}, {"b", DType::kString}}, &req)
                  .ok());
  EXPECT_EQ(req.model_spec().signature_name(), "other");
  EXPECT_TRUE(TensorsEqual(InputTensor(req, "a"), Tensor::FromVector<int64_t>({1, 2, 3, 4}, Shape({2, 2}))));
  Tensor b = InputTensor(req, "b");
  ASSERT_EQ(b.shape(), Shape({2}));
  EXPECT_EQ(b.strings()[0], "s1");
  EXPECT_EQ(b.strings()[1], "s2");
}

TEST(JsonTensorCodecTest, RowFormatObjectsMustNameTheSameInputs) {
  PredictRequest req;
  Status st = Fill(R"({"instances": [{"a": 1, "b": 2}, {"a": 1}]})", {{"a", DType::kInt32}, {"b", DType::kInt32}},
                   &req);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("instances[1]"), std::string::npos) << st.message();
}

TEST(JsonTensorCodecTest, RowFormatPlainListNeedsSingleInputSignature) {
  PredictRequest req;
  Status st = Fill(R"({"instances": [1, 2]})", {{"a", DType::kInt32}, {"b", DType::kInt32}}, &req);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("2 inputs"), std::string::npos) << st.message();
}

TEST(JsonTensorCodecTest, ColumnarFormatKeepsShapeIncludingScalars) {
  PredictRequest req;
  JsonPredictFormat format;
  ASSERT_TRUE(Fill(R"({"inputs": {"a": 7, "b": [[true], [false]]}})", {{"a", DType::kInt32}, {"b", DType::kBool}},
                   &req, &format)
                  .ok());
  EXPECT_EQ(format, JsonPredictFormat::kColumnar);
  EXPECT_TRUE(TensorsEqual(InputTensor(req, "a"), Tensor::Scalar<int32_t>(7)));
  EXPECT_TRUE(TensorsEqual(InputTensor(req, "b"), Tensor::FromVector<bool>({true, false}, Shape({2, 1}))));
}

TEST(JsonTensorCodecTest, ColumnarBareValueGoesToTheOnlyInput) {
  PredictRequest req;
  ASSERT_TRUE(Fill(R"({"inputs": [2.0, 3.0]})", {{"x", DType::kDouble}}, &req).ok());
  EXPECT_TRUE(TensorsEqual(InputTensor(req, "x"), Tensor::FromVector<double>({2, 3})));
}

TEST(JsonTensorCodecTest, RaggedListErrorNamesThePosition) {
  PredictRequest req;
  Status st = Fill(R"({"instances": [[1, 2, 3], [4, 5]]})", {{"x", DType::kFloat}}, &req);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("instances[1]"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("expected 3"), std::string::npos) << st.message();

  st = Fill(R"({"inputs": [[1, 2], [3, [4]]]})", {{"x", DType::kFloat}}, &req);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("inputs[1][1]"), std::string::npos) << st.message();

  st = Fill(R"({"instances": [[1, 2], 3]})", {{"x", DType::kFloat}}, &req);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("instances[1]"), std::string::npos) << st.message();
}

TEST(JsonTensorCodecTest, WrongDtypesAreRejectedWithTheExpectedType) {
  PredictRequest req;
  Status st = Fill(R"({"instances": ["x", "y"]})", {{"x", DType::kFloat}}, &req);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("not of expected type: float"), std::string::npos) << st.message();
  // Floats never silently truncate into integers.
  st = Fill(R"({"instances": [1.5]})", {{"x", DType::kInt32}}, &req);
  EXPECT_NE(st.message().find("not of expected type: int32"), std::string::npos) << st.message();
  st = Fill(R"({"instances": [1]})", {{"x", DType::kBool}}, &req);
  EXPECT_NE(st.message().find("not of expected type: bool"), std::string::npos) << st.message();
  st = Fill(R"({"instances": [1]})", {{"x", DType::kString}}, &req);
  EXPECT_NE(st.message().find("not of expected type: string"), std::string::npos) << st.message();
}

TEST(JsonTensorCodecTest, IntegersOutOfRangeForTheInputTypeAreRejected) {
  PredictRequest req;
  Status st = Fill(R"({"instances": [300]})", {{"x", DType::kUInt8}}, &req);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("out of range"), std::string::npos) << st.message();
  st = Fill(R"({"instances": [-1]})", {{"x", DType::kUInt32}}, &req);
  EXPECT_NE(st.message().find("out of range"), std::string::npos) << st.message();
  st = Fill(R"({"instances": [1e300]})", {{"x", DType::kFloat}}, &req);
  EXPECT_NE(st.message().find("out of range"), std::string::npos) << st.message();
  ASSERT_TRUE(Fill(R"({"instances": [255, 0]})", {{"x", DType::kUInt8}}, &req).ok());
  EXPECT_TRUE(TensorsEqual(InputTensor(req, "x"), Tensor::FromVector<uint8_t>({255, 0})));
}

TEST(JsonTensorCodecTest, NanAndInfinityLiteralsAreAccepted) {
  PredictRequest req;
  ASSERT_TRUE(Fill(R"({"instances": [NaN, Infinity, -Infinity]})", {{"x", DType::kFloat}}, &req).ok());
  Tensor x = InputTensor(req, "x");
  ASSERT_EQ(x.NumElements(), 3);
  EXPECT_TRUE(std::isnan(x.data<float>()[0]));
  EXPECT_EQ(x.data<float>()[1], std::numeric_limits<float>::infinity());
  EXPECT_EQ(x.data<float>()[2], -std::numeric_limits<float>::infinity());
}

TEST(JsonTensorCodecTest, B64ObjectsDecodeToBinaryStrings) {
  PredictRequest req;
  ASSERT_TRUE(Fill(R"({"instances": [{"b64": "AAH/"}, "plain"]})", {{"s", DType::kString}}, &req).ok());
  Tensor s = InputTensor(req, "s");
  ASSERT_EQ(s.NumElements(), 2);
  EXPECT_EQ(s.strings()[0], std::string("\x00\x01\xff", 3));
  EXPECT_EQ(s.strings()[1], "plain");
  Status st = Fill(R"({"instances": [{"b64": "**"}]})", {{"s", DType::kString}}, &req);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("base64"), std::string::npos) << st.message();
}

TEST(JsonTensorCodecTest, MalformedBodiesGiveTfServingMessages) {
  PredictRequest req;
  Status st = Fill("", {{"x", DType::kFloat}}, &req);
  EXPECT_NE(st.message().find("JSON Parse error: The document is empty"), std::string::npos) << st.message();
  st = Fill(R"({"instances": [1,)", {{"x", DType::kFloat}}, &req);
  EXPECT_NE(st.message().find("JSON Parse error"), std::string::npos) << st.message();
  st = Fill("[1, 2]", {{"x", DType::kFloat}}, &req);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  st = Fill(R"({"signature_name": 100})", {{"x", DType::kFloat}}, &req);
  EXPECT_NE(st.message().find("'signature_name' key must be a string value."), std::string::npos);
  st = Fill(R"({"instances": [1], "inputs": [1]})", {{"x", DType::kFloat}}, &req);
  EXPECT_NE(st.message().find("expecting only one of 'inputs' or 'instances' keys"), std::string::npos);
  st = Fill(R"({"foo": 1})", {{"x", DType::kFloat}}, &req);
  EXPECT_NE(st.message().find("Missing 'inputs' or 'instances' key"), std::string::npos);
  st = Fill(R"({"instances": []})", {{"x", DType::kFloat}}, &req);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  st = Fill(R"({"instances": {"x": 1}})", {{"x", DType::kFloat}}, &req);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  st = Fill(R"({"signature_name": "nope", "instances": [1]})", {{"x", DType::kFloat}}, &req);
  EXPECT_NE(st.message().find("not found in signature def"), std::string::npos);
  st = Fill(R"({"inputs": {"y": 1}})", {{"x", DType::kFloat}}, &req);
  EXPECT_NE(st.message().find("'y'"), std::string::npos) << st.message();
}

TEST(JsonTensorCodecTest, DeepNestingIsAnErrorNotACrash) {
  std::string deep(100000, '[');
  PredictRequest req;
  Status st = Fill("{\"instances\": " + deep + "1" + std::string(100000, ']') + "}", {{"x", DType::kFloat}}, &req);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("nested deeper"), std::string::npos) << st.message();
}

std::string ToJson(const std::map<std::string, Tensor>& tensors, JsonPredictFormat format) {
  google::protobuf::Map<std::string, tensorflow::TensorProto> protos;
  for (const auto& [alias, t] : tensors) ir::TensorToProto(t, &protos[alias]);
  auto json = MakeJsonFromTensors(protos, format);
  EXPECT_TRUE(json.ok()) << json.status().ToString();
  return json.ok() ? *json : "";
}

TEST(JsonTensorCodecTest, RowOutputSingleTensorIsListPerBatchElement) {
  EXPECT_EQ(ToJson({{"y", Tensor::FromVector<float>({3, 3.5f, 4})}}, JsonPredictFormat::kRow),
            R"({"predictions": [3.0,3.5,4.0]})");
  EXPECT_EQ(ToJson({{"y", Tensor::FromVector<float>({2.5f, 3, 4.5f}, Shape({3, 1}))}}, JsonPredictFormat::kRow),
            R"({"predictions": [[2.5],[3.0],[4.5]]})");
}

TEST(JsonTensorCodecTest, RowOutputSeveralTensorsIsObjectPerBatchElement) {
  EXPECT_EQ(ToJson({{"b", Tensor::FromVector<int64_t>({1, 2})}, {"a", Tensor::FromVector<bool>({true, false})}},
                   JsonPredictFormat::kRow),
            R"({"predictions": [{"a": true,"b": 1},{"a": false,"b": 2}]})");
}

TEST(JsonTensorCodecTest, RowOutputRejectsInconsistentBatchAndScalars) {
  google::protobuf::Map<std::string, tensorflow::TensorProto> protos;
  ir::TensorToProto(Tensor::FromVector<float>({1, 2}), &protos["a"]);
  ir::TensorToProto(Tensor::FromVector<float>({1, 2, 3}), &protos["b"]);
  auto json = MakeJsonFromTensors(protos, JsonPredictFormat::kRow);
  TFHOST_ASSERT_ERROR(json, StatusCode::kInvalidArgument, "Tensor name: b has inconsistent batch size: 3 expecting: 2");
  EXPECT_NE(json.status().message().find("inconsistent batch size"), std::string::npos);
  protos.clear();
  ir::TensorToProto(Tensor::Scalar<float>(1), &protos["a"]);
  TFHOST_EXPECT_ERROR(MakeJsonFromTensors(protos, JsonPredictFormat::kRow), StatusCode::kInvalidArgument,
                      "Tensor name: a has no shape information (a scalar output cannot be split into instances; use "
                      "the columnar 'inputs' format)");
  EXPECT_EQ(*MakeJsonFromTensors(protos, JsonPredictFormat::kColumnar), R"({"outputs": 1.0})");
}

TEST(JsonTensorCodecTest, ColumnarOutputIsValueOrObject) {
  EXPECT_EQ(ToJson({{"y", Tensor::FromVector<float>({3, 3.5f})}}, JsonPredictFormat::kColumnar),
            R"({"outputs": [3.0,3.5]})");
  EXPECT_EQ(ToJson({{"y", Tensor::FromVector<int32_t>({1, 2})}, {"z", Tensor::StringScalar("hi")}},
                   JsonPredictFormat::kColumnar),
            R"({"outputs": {"y": [1,2],"z": "hi"}})");
}

TEST(JsonTensorCodecTest, BinaryAndBytesAliasStringsAreBase64Objects) {
  EXPECT_EQ(ToJson({{"s", Tensor::StringScalar(std::string("\xff\x00", 2))}}, JsonPredictFormat::kColumnar),
            R"({"outputs": {"b64": "/wA="}})");
  EXPECT_EQ(ToJson({{"img_bytes", Tensor::StringScalar("abc")}}, JsonPredictFormat::kColumnar),
            R"({"outputs": {"b64": "YWJj"}})");
  EXPECT_EQ(ToJson({{"s", Tensor::StringScalar("caf\xc3\xa9 \"q\"\n")}}, JsonPredictFormat::kColumnar),
            "{\"outputs\": \"caf\xc3\xa9 \\\"q\\\"\\n\"}");
}

TEST(JsonTensorCodecTest, FloatsUseShortestRoundTripWithPointZero) {
  auto f = [](float v) {
    std::string s;
    AppendJsonFloat(v, &s);
    return s;
  };
  auto d = [](double v) {
    std::string s;
    AppendJsonDouble(v, &s);
    return s;
  };
  EXPECT_EQ(f(3.0f), "3.0");
  EXPECT_EQ(f(-4.0f), "-4.0");
  EXPECT_EQ(f(0.1f), "0.1");  // not 0.10000000149011612
  EXPECT_EQ(f(42.0f), "42.0");
  EXPECT_EQ(f(1e20f), "1e+20");
  EXPECT_EQ(f(std::nanf("")), "NaN");
  EXPECT_EQ(f(std::numeric_limits<float>::infinity()), "Infinity");
  EXPECT_EQ(f(-std::numeric_limits<float>::infinity()), "-Infinity");
  EXPECT_EQ(d(0.1), "0.1");
  EXPECT_EQ(d(100.0), "100.0");
}

TEST(JsonTensorCodecTest, ClassifyBodyBuildsExamplesWithContext) {
  ClassificationRequest req;
  ASSERT_TRUE(FillClassificationRequestFromJson(
                  R"({"signature_name": "classify_x_to_y", "context": {"c": "ctx"},
                      "examples": [{"x": 2.0, "n": [1, 2], "b": {"b64": "AA=="}}, {"x": [1, 2.5]}]})",
                  &req)
                  .ok());
  EXPECT_EQ(req.model_spec().signature_name(), "classify_x_to_y");
  ASSERT_TRUE(req.input().has_example_list_with_context());
  const auto& list = req.input().example_list_with_context();
  EXPECT_EQ(list.context().features().feature().at("c").bytes_list().value(0), "ctx");
  ASSERT_EQ(list.examples_size(), 2);
  const auto& f0 = list.examples(0).features().feature();
  EXPECT_EQ(f0.at("x").float_list().value(0), 2.0f);
  EXPECT_EQ(f0.at("n").int64_list().value_size(), 2);
  EXPECT_EQ(f0.at("b").bytes_list().value(0), std::string(1, '\0'));
  // Integers mixed with fractions make a float list.
  EXPECT_EQ(list.examples(1).features().feature().at("x").float_list().value(1), 2.5f);
}

TEST(JsonTensorCodecTest, RegressBodyErrors) {
  RegressionRequest req;
  EXPECT_NE(FillRegressionRequestFromJson(R"({"instances": [1]})", &req).message().find("'examples'"),
            std::string::npos);
  EXPECT_EQ(FillRegressionRequestFromJson(R"({"examples": [{"x": [[1]]}]})", &req).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(FillRegressionRequestFromJson(R"({"examples": [{"x": [1, "a"]}]})", &req).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(FillRegressionRequestFromJson(R"({"examples": [3]})", &req).code(), StatusCode::kInvalidArgument);
  RegressionRequest ok;
  ASSERT_TRUE(FillRegressionRequestFromJson(R"({"examples": [{"x": 80}]})", &ok).ok());
  EXPECT_TRUE(ok.input().has_example_list());
  EXPECT_EQ(ok.input().example_list().examples(0).features().feature().at("x").int64_list().value(0), 80);
}

TEST(JsonTensorCodecTest, ResultsAreWrittenAsTfServingDoes) {
  tensorflow::serving::ClassificationResult c;
  auto* cls = c.add_classifications()->add_classes();
  cls->set_score(3.0f);
  EXPECT_EQ(MakeJsonFromClassificationResult(c), R"({"results": [[["",3.0]]]})");
  tensorflow::serving::RegressionResult r;
  r.add_regressions()->set_value(42.0f);
  r.add_regressions()->set_value(0.5f);
  EXPECT_EQ(MakeJsonFromRegressionResult(r), R"({"results": [42.0,0.5]})");
}

TEST(JsonTensorCodecTest, B64ValuesTakePaddingOptionalStandardBase64AndUtf8IsValidated) {
  for (std::string s : {std::string(""), std::string("a"), std::string("ab"), std::string("abc"),
                        std::string("\x00\xff\x10\x80", 4)}) {
    auto back = DecodeB64Value(Base64Encode(s));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, s);
  }
  EXPECT_EQ(*DecodeB64Value("YWJj"), "abc");
  EXPECT_EQ(*DecodeB64Value("YQ"), "a");  // padding optional
  EXPECT_EQ(DecodeB64Value("Y").status().message(), "invalid base64: truncated (length 1) in 'b64' value");
  EXPECT_EQ(DecodeB64Value("YW-j").status().message(), "invalid base64: unexpected '-' at offset 2 in 'b64' value");
  EXPECT_TRUE(IsValidUtf8("caf\xc3\xa9"));
  EXPECT_FALSE(IsValidUtf8("\xc3"));
  EXPECT_FALSE(IsValidUtf8("\xc0\xaf"));       // overlong
  EXPECT_FALSE(IsValidUtf8("\xed\xa0\x80"));   // surrogate
  EXPECT_EQ(MakeJsonError("bad \"x\""), R"({"error": "bad \"x\""})");
}

// Request bodies are untrusted: byte flips, insertions and truncations of
// valid bodies must give OK or INVALID_ARGUMENT, never a crash (this test
// runs under ASan/UBSan in the sanitizer build).
TEST(JsonTensorCodecTest, MutatedBodiesNeverCrash) {
  const std::vector<std::string> seeds = {
      R"({"instances": [[1.0, 2], [3, NaN]]})",
      R"({"signature_name": "other", "instances": [{"a": [1, 2], "s": {"b64": "AAH/"}}, {"a": [3, 4], "s": "x"}]})",
      R"({"inputs": {"a": [[1], [2]], "s": ["p", {"b64": "YQ=="}]}})",
      R"({"context": {"c": "ctx"}, "examples": [{"x": 2.0, "n": [1, 2], "b": {"b64": "AA=="}}]})",
  };
  const std::string alphabet = "[]{}\",:0123456789.-eE+NaIfinty b64\\ux";
  std::mt19937 rng(12345);
  int ok = 0;
  for (int iter = 0; iter < 20000; ++iter) {
    std::string body = seeds[iter % seeds.size()];
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !body.empty(); ++e) {
      size_t at = rng() % body.size();
      switch (rng() % 4) {
        case 0: body[at] = alphabet[rng() % alphabet.size()]; break;
        case 1: body.insert(body.begin() + at, alphabet[rng() % alphabet.size()]); break;
        case 2: body.erase(at, 1 + rng() % 3); break;
        default: body.resize(at); break;
      }
    }
    PredictRequest req;
    JsonPredictFormat format;
    Status st = FillPredictRequestFromJson(
        body, Inputs({{"a", DType::kInt64}, {"s", DType::kString}, {"x", DType::kFloat}}), &req, &format);
    EXPECT_TRUE(st.ok() || st.code() == StatusCode::kInvalidArgument) << st.ToString();
    ok += st.ok();
    ClassificationRequest creq;
    Status cst = FillClassificationRequestFromJson(body, &creq);
    EXPECT_TRUE(cst.ok() || cst.code() == StatusCode::kInvalidArgument) << cst.ToString();
    if (st.ok()) {
      // Whatever parsed must also write back.
      for (const auto& [alias, proto] : req.inputs()) EXPECT_TRUE(ir::TensorFromProto(proto).ok()) << alias;
    }
  }
  EXPECT_GT(ok, 0);  // some mutations stay valid, so the OK path is exercised too
}

}  // namespace
}  // namespace tfhost::serving
