#include "data/predict/feed.h"
#include "base/test_status.h"

#include <gtest/gtest.h>

namespace tfhost::data::predict {
namespace {

TensorInfo Info(std::string key, std::string tensor, DType dtype, ir::PartialShape shape) {
  TensorInfo t;
  t.key = std::move(key);
  t.tensor_name = std::move(tensor);
  t.dtype = dtype;
  t.shape = std::move(shape);
  return t;
}

SignatureInfo RegressSignature() {
  SignatureInfo s;
  s.name = "regress_x_to_y";
  s.method_name = "tensorflow/serving/regress";
  s.inputs = {Info("inputs", "tf_example:0", DType::kString, ir::PartialShape::Unknown())};
  s.outputs = {Info("outputs", "y:0", DType::kFloat, ir::PartialShape::Known({-1, 1}))};
  return s;
}

SignatureInfo CnnSignature() {
  SignatureInfo s;
  s.name = "serving_default";
  s.method_name = "tensorflow/serving/predict";
  s.inputs = {Info("x", "x:0", DType::kFloat, ir::PartialShape::Known({-1, 8, 8, 1}))};
  s.outputs = {Info("probs", "probs:0", DType::kFloat, ir::PartialShape::Known({-1, 3}))};
  return s;
}

struct Records {
  std::string file = "data.tfrecord";
  std::vector<std::string> bytes;
  std::vector<RecordRef> Refs(bool json = false) const {
    std::vector<RecordRef> r;
    for (size_t i = 0; i < bytes.size(); ++i) {
      RecordRef ref;
      ref.bytes = bytes[i];
      ref.is_json = json;
      ref.file = &file;
      ref.index = static_cast<int64_t>(i);
      ref.line = static_cast<int64_t>(i) + 1;
      r.push_back(ref);
    }
    return r;
  }
};

std::string ExampleBytes(FeatureMap features) { return EncodeExample(Example{std::move(features)}); }

TEST(ChooseFeedModeTest, StringSignaturesOfClassifyRegressOrExampleKeysTakeSerializedExamples) {
  EXPECT_EQ(*ChooseFeedMode(RegressSignature(), std::nullopt), FeedMode::kSerializedExamples);
  SignatureInfo predict = RegressSignature();
  predict.method_name = "tensorflow/serving/predict";
  predict.inputs[0].key = "examples";
  predict.inputs[0].shape = ir::PartialShape::Known({-1});
  EXPECT_EQ(*ChooseFeedMode(predict, std::nullopt), FeedMode::kSerializedExamples);
  // A predict signature whose string input is called something else takes
  // that feature's bytes.
  predict.inputs[0].key = "sentence";
  EXPECT_EQ(*ChooseFeedMode(predict, std::nullopt), FeedMode::kFeatures);
  EXPECT_EQ(*ChooseFeedMode(predict, FeedMode::kSerializedExamples), FeedMode::kSerializedExamples);
  EXPECT_EQ(*ChooseFeedMode(CnnSignature(), std::nullopt), FeedMode::kFeatures);
  auto bad = ChooseFeedMode(CnnSignature(), FeedMode::kSerializedExamples);
  TFHOST_ASSERT_ERROR(bad, StatusCode::kInvalidArgument, "'x' (float32 [?,8,8,1])");
}

TEST(FeederTest, SerializedExamplesGoInUnchangedAsAStringVector) {
  auto feeder = Feeder::Create(RegressSignature(), FeedMode::kSerializedExamples);
  ASSERT_TRUE(feeder.ok()) << feeder.status().message();
  Records recs;
  recs.bytes = {ExampleBytes({{"x", Feature::Floats({1})}}), ExampleBytes({{"x", Feature::Floats({2})}})};
  auto batch = feeder->Feed(recs.Refs());
  ASSERT_TRUE(batch.ok()) << batch.status().message();
  const Tensor& t = batch->inputs.at("inputs");
  EXPECT_EQ(t.shape(), Shape({2}));
  EXPECT_EQ(t.strings()[0], recs.bytes[0]);
  EXPECT_EQ(t.strings()[1], recs.bytes[1]);
}

TEST(FeederTest, JsonLinesAreEncodedAsExamplesForStringSignatures) {
  auto feeder = Feeder::Create(RegressSignature(), FeedMode::kSerializedExamples);
  ASSERT_TRUE(feeder.ok());
  Records recs;
  recs.bytes = {R"({"x": 2.0})"};
  auto batch = feeder->Feed(recs.Refs(/*json=*/true));
  ASSERT_TRUE(batch.ok()) << batch.status().message();
  auto ex = DecodeExample(batch->inputs.at("inputs").strings()[0]);
  ASSERT_TRUE(ex.ok());
  EXPECT_EQ(ex->features.at("x"), Feature::Floats({2.0f}));
}

TEST(FeederTest, FeatureValuesAreReshapedToTheInputsRowShape) {
  auto feeder = Feeder::Create(CnnSignature(), FeedMode::kFeatures);
  ASSERT_TRUE(feeder.ok()) << feeder.status().message();
  Records recs;
  for (int r = 0; r < 3; ++r) {
    std::vector<float> v(64);
    for (int i = 0; i < 64; ++i) v[i] = static_cast<float>(r * 100 + i);
    recs.bytes.push_back(ExampleBytes({{"x", Feature::Floats(v)}}));
  }
  auto batch = feeder->Feed(recs.Refs());
  ASSERT_TRUE(batch.ok()) << batch.status().message();
  const Tensor& t = batch->inputs.at("x");
  EXPECT_EQ(t.shape(), Shape({3, 8, 8, 1}));
  EXPECT_EQ(t.data<float>()[64 * 2 + 5], 205.0f);
}

TEST(FeederTest, WrongValueCountNamesRecordFeatureAndExpectedShape) {
  auto feeder = Feeder::Create(CnnSignature(), FeedMode::kFeatures);
  ASSERT_TRUE(feeder.ok());
  Records recs;
  recs.bytes = {ExampleBytes({{"x", Feature::Floats(std::vector<float>(64))}}),
                ExampleBytes({{"x", Feature::Floats(std::vector<float>(63))}})};
  auto batch = feeder->Feed(recs.Refs());
  TFHOST_ASSERT_ERROR(batch, StatusCode::kInvalidArgument,
                      "file 'data.tfrecord' record 1: feature 'x' has 63 values; signature input 'x' (float32 [?,8,8,1])");
  const std::string& m = batch.status().message();
  EXPECT_NE(m.find("file 'data.tfrecord' record 1"), std::string::npos) << m;
  EXPECT_NE(m.find("feature 'x' has 63 values"), std::string::npos) << m;
  EXPECT_NE(m.find("float32 [?,8,8,1]"), std::string::npos) << m;
  EXPECT_NE(m.find("wants 64 per record"), std::string::npos) << m;
}

TEST(FeederTest, MissingFeatureNamesRecordAndInput) {
  auto feeder = Feeder::Create(CnnSignature(), FeedMode::kFeatures);
  ASSERT_TRUE(feeder.ok());
  Records recs;
  recs.bytes = {ExampleBytes({{"image", Feature::Floats(std::vector<float>(64))}})};
  auto batch = feeder->Feed(recs.Refs());
  TFHOST_ASSERT_ERROR(batch, StatusCode::kInvalidArgument,
                      "file 'data.tfrecord' record 0 has no feature 'x' for signature input 'x' (float32 [?,8,8,1])");
  EXPECT_NE(batch.status().message().find("record 0 has no feature 'x' for signature input 'x' (float32 [?,8,8,1])"),
            std::string::npos)
      << batch.status().message();
}

TEST(FeederTest, KindsConvertToTheInputDtypeAndOutOfRangeValuesAreErrors) {
  SignatureInfo s;
  s.name = "s";
  s.inputs = {Info("a", "a:0", DType::kInt32, ir::PartialShape::Known({-1, 2})),
              Info("b", "b:0", DType::kDouble, ir::PartialShape::Known({-1})),
              Info("c", "c:0", DType::kString, ir::PartialShape::Known({-1})),
              Info("d", "d:0", DType::kBool, ir::PartialShape::Known({-1}))};
  s.outputs = {Info("y", "y:0", DType::kFloat, ir::PartialShape::Known({-1}))};
  auto feeder = Feeder::Create(s, FeedMode::kFeatures);
  ASSERT_TRUE(feeder.ok()) << feeder.status().message();
  Records ok;
  // int32 from int64 and from whole floats; double from int64; bool from 0/1.
  ok.bytes = {R"({"a": [1, -2], "b": 7, "c": "hi", "d": 1})", R"({"a": [3.0, 4.0], "b": 0.5, "c": "", "d": 0})"};
  auto batch = feeder->Feed(ok.Refs(true));
  ASSERT_TRUE(batch.ok()) << batch.status().message();
  const Tensor& a = batch->inputs.at("a");
  EXPECT_EQ(a.shape(), Shape({2, 2}));
  EXPECT_EQ(a.data<int32_t>()[1], -2);
  EXPECT_EQ(a.data<int32_t>()[3], 4);
  EXPECT_EQ(batch->inputs.at("b").data<double>()[0], 7.0);
  EXPECT_EQ(batch->inputs.at("c").strings()[0], "hi");
  EXPECT_TRUE(batch->inputs.at("d").data<bool>()[0]);

  Records big;
  big.bytes = {R"({"a": [1, 3000000000], "b": 1, "c": "x", "d": 0})"};
  auto e1 = feeder->Feed(big.Refs(true));
  TFHOST_ASSERT_ERROR(e1, StatusCode::kInvalidArgument, "3000000000 (index 1) does not fit int32");
  Records frac;
  frac.bytes = {R"({"a": [1.5, 2.0], "b": 1, "c": "x", "d": 0})"};
  TFHOST_EXPECT_ERROR(feeder->Feed(frac.Refs(true)), StatusCode::kInvalidArgument,
                      "file 'data.tfrecord' line 1 (record 0): feature 'a' (signature input 'a' (int32 [?,2])) value 1.5");
  Records str;
  str.bytes = {R"({"a": [1, 2], "b": "text", "c": "x", "d": 0})"};
  auto e3 = feeder->Feed(str.Refs(true));
  TFHOST_ASSERT_ERROR(e3, StatusCode::kInvalidArgument,
                      "file 'data.tfrecord' line 1 (record 0): feature 'b' (signature input 'b' (float64 [?])) is a bytes");
  EXPECT_NE(e3.status().message().find("is a bytes feature; the input wants float64"), std::string::npos)
      << e3.status().message();
}

TEST(FeederTest, InputIsFoundByTensorNameWhenNoFeatureHasItsKey) {
  SignatureInfo s;
  s.name = "regress_x2_to_y3";
  s.method_name = "tensorflow/serving/regress";
  s.inputs = {Info("inputs", "x2:0", DType::kFloat, ir::PartialShape::Known({-1, 1}))};
  s.outputs = {Info("outputs", "y3:0", DType::kFloat, ir::PartialShape::Known({-1, 1}))};
  ASSERT_EQ(*ChooseFeedMode(s, std::nullopt), FeedMode::kFeatures);
  auto feeder = Feeder::Create(s, FeedMode::kFeatures);
  ASSERT_TRUE(feeder.ok());
  Records recs;
  recs.bytes = {ExampleBytes({{"x2", Feature::Floats({4})}})};
  auto batch = feeder->Feed(recs.Refs());
  ASSERT_TRUE(batch.ok()) << batch.status().message();
  EXPECT_EQ(batch->inputs.at("inputs").shape(), Shape({1, 1}));
}

TEST(FeederTest, UnknownRankInputsTakeEqualLengthRows) {
  SignatureInfo s;
  s.name = "s";
  s.inputs = {Info("v", "v:0", DType::kInt64, ir::PartialShape::Unknown())};
  s.outputs = {Info("y", "y:0", DType::kFloat, ir::PartialShape::Known({-1}))};
  auto feeder = Feeder::Create(s, FeedMode::kFeatures);
  ASSERT_TRUE(feeder.ok());
  Records same;
  same.bytes = {R"({"v": [1,2,3]})", R"({"v": [4,5,6]})"};
  auto batch = feeder->Feed(same.Refs(true));
  ASSERT_TRUE(batch.ok());
  EXPECT_EQ(batch->inputs.at("v").shape(), Shape({2, 3}));
  Records ragged;
  ragged.bytes = {R"({"v": [1,2,3]})", R"({"v": [4]})"};
  auto bad = feeder->Feed(ragged.Refs(true));
  TFHOST_ASSERT_ERROR(bad, StatusCode::kInvalidArgument, "rows must have equal lengths");
}

TEST(FeederTest, ScalarInputsAndMultipleUnknownRowDimsAreRejectedUpFront) {
  SignatureInfo s = CnnSignature();
  s.inputs[0].shape = ir::PartialShape::Scalar();
  TFHOST_EXPECT_ERROR(Feeder::Create(s, FeedMode::kFeatures), StatusCode::kInvalidArgument,
                      "signature input 'x' (float32 []) is a scalar; predict stacks records along a first (batch) dimension");
  s.inputs[0].shape = ir::PartialShape::Known({-1, -1, -1});
  TFHOST_EXPECT_ERROR(Feeder::Create(s, FeedMode::kFeatures), StatusCode::kInvalidArgument,
                      "signature input 'x' (float32 [?,?,?]) has more than one unknown dimension besides the batch; a");
}

TEST(FeederTest, SplitGivesOneExamplePerRowWithKeptFeatures) {
  SignatureInfo s = CnnSignature();
  s.outputs.push_back(Info("label", "label:0", DType::kInt32, ir::PartialShape::Known({-1})));
  s.outputs.push_back(Info("name", "name:0", DType::kString, ir::PartialShape::Known({-1})));
  FeedOptions fo;
  fo.keep_features = {"id"};
  auto feeder = Feeder::Create(s, FeedMode::kFeatures, fo);
  ASSERT_TRUE(feeder.ok()) << feeder.status().message();
  Records recs;
  recs.bytes = {ExampleBytes({{"x", Feature::Floats(std::vector<float>(64))}, {"id", Feature::Int64s({7})}}),
                ExampleBytes({{"x", Feature::Floats(std::vector<float>(64))}, {"id", Feature::Int64s({8})}})};
  auto batch = feeder->Feed(recs.Refs());
  ASSERT_TRUE(batch.ok()) << batch.status().message();
  std::map<std::string, Tensor> outputs;
  outputs["probs"] = Tensor::FromVector<float>({0.1f, 0.2f, 0.7f, 1, 0, 0}, Shape({2, 3}));
  outputs["label"] = Tensor::FromVector<int32_t>({2, 0}, Shape({2}));
  Tensor names(DType::kString, Shape({2}));
  names.strings()[0] = "cat";
  names.strings()[1] = "dog";
  outputs["name"] = names;
  auto examples = feeder->Split(outputs, 2, std::move(batch->kept));
  ASSERT_TRUE(examples.ok()) << examples.status().message();
  ASSERT_EQ(examples->size(), 2u);
  EXPECT_EQ((*examples)[0].features.at("probs"), Feature::Floats({0.1f, 0.2f, 0.7f}));
  EXPECT_EQ((*examples)[1].features.at("label"), Feature::Int64s({0}));
  EXPECT_EQ((*examples)[1].features.at("name"), Feature::Bytes({"dog"}));
  EXPECT_EQ((*examples)[1].features.at("id"), Feature::Int64s({8}));

  outputs["label"] = Tensor::FromVector<int32_t>({2, 0, 1}, Shape({3}));
  auto bad = feeder->Split(outputs, 2, {});
  TFHOST_ASSERT_ERROR(bad, StatusCode::kInvalidArgument,
                      "output 'label' has shape [3] for a batch of 2 records; predict needs outputs whose first dimension");
}

TEST(FeederTest, UnknownOutputAndKeptFeatureClashingWithAnOutputAreRejected) {
  FeedOptions fo;
  fo.outputs = {"nope"};
  auto e1 = Feeder::Create(CnnSignature(), FeedMode::kFeatures, fo);
  TFHOST_ASSERT_ERROR(e1, StatusCode::kInvalidArgument,
                      "signature 'serving_default' has no output 'nope' (outputs: probs)");
  FeedOptions keep;
  keep.keep_features = {"probs"};
  TFHOST_EXPECT_ERROR(Feeder::Create(CnnSignature(), FeedMode::kFeatures, keep), StatusCode::kInvalidArgument,
                      "kept feature 'probs' has the name of an output; each output Example holds one feature per name");
}

}  // namespace
}  // namespace tfhost::data::predict
