#include "ops/parsing/parse_example.h"

#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "tensorflow/core/example/example.pb.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

tensorflow::TensorShapeProto ShapeProto(std::vector<int64_t> dims) {
  tensorflow::TensorShapeProto p;
  for (int64_t d : dims) p.add_dim()->set_size(d);
  return p;
}

tensorflow::AttrValue ShapesAttr(const std::vector<std::vector<int64_t>>& shapes) {
  tensorflow::AttrValue a;
  for (const auto& s : shapes) *a.mutable_list()->add_shape() = ShapeProto(s);
  return a;
}

// A serialized Example built with libprotobuf, the reference encoder.
struct ExampleBuilder {
  tensorflow::Example ex;
  ExampleBuilder& Floats(const std::string& key, std::vector<float> v) {
    auto* l = (*ex.mutable_features()->mutable_feature())[key].mutable_float_list();
    for (float x : v) l->add_value(x);
    return *this;
  }
  ExampleBuilder& Ints(const std::string& key, std::vector<int64_t> v) {
    auto* l = (*ex.mutable_features()->mutable_feature())[key].mutable_int64_list();
    for (int64_t x : v) l->add_value(x);
    return *this;
  }
  ExampleBuilder& Bytes(const std::string& key, std::vector<std::string> v) {
    auto* l = (*ex.mutable_features()->mutable_feature())[key].mutable_bytes_list();
    for (auto& x : v) l->add_value(x);
    return *this;
  }
  std::string Serialize() const { return ex.SerializeAsString(); }
};

Tensor Strings(std::vector<std::string> v) { return Tensor::FromVector(v); }
Tensor EmptyFloats() { return Tensor(DType::kFloat, Shape({0})); }

// TF1 ParseExample with dense features only.
StatusOr<std::vector<Tensor>> ParseDense(std::vector<std::string> serialized,
                                         std::vector<std::string> keys, std::vector<Tensor> defaults,
                                         std::vector<std::vector<int64_t>> shapes) {
  std::vector<Tensor> inputs{Strings(serialized), Tensor(DType::kString, Shape({0}))};
  std::vector<DType> types;
  for (auto& k : keys) inputs.push_back(Tensor::StringScalar(k));
  for (auto& d : defaults) {
    types.push_back(d.dtype());
    inputs.push_back(d);
  }
  return RunSingleOp("ParseExample", inputs,
                     {{"Nsparse", MakeAttr(0)},
                      {"Ndense", MakeAttr(static_cast<int>(keys.size()))},
                      {"sparse_types", MakeAttr(std::vector<DType>{})},
                      {"Tdense", MakeAttr(types)},
                      {"dense_shapes", ShapesAttr(shapes)}});
}

TEST(ParseExampleTest, HalfPlusTwoClassifyInputParsesToBatchOfOne) {
  // What TF Serving's classify/regress signatures run on half_plus_two.
  std::string ex = ExampleBuilder().Floats("x", {2.0f}).Serialize();
  auto out = ParseDense({ex}, {"x"}, {EmptyFloats()}, {{1}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), 1u);
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<float>({2.0f}, Shape({1, 1}))));
}

TEST(ParseExampleTest, MissingDenseFeatureTakesDefault) {
  std::string with_x2 = ExampleBuilder().Floats("x", {1.0f}).Floats("x2", {5.0f}).Serialize();
  std::string without = ExampleBuilder().Floats("x", {3.0f}).Serialize();
  auto out = ParseDense({with_x2, without, ""}, {"x2"},
                        {Tensor::FromVector<float>({0.0f}, Shape({1}))}, {{1}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<float>({5.0f, 0.0f, 0.0f}, Shape({3, 1}))));
}

TEST(ParseExampleTest, MissingRequiredDenseFeatureIsAnError) {
  std::string ex = ExampleBuilder().Floats("y", {1.0f}).Serialize();
  auto out = ParseDense({ex}, {"x"}, {EmptyFloats()}, {{1}});
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "Name: <unknown>, Feature: x (data type: float) is required but could not be found.");
  EXPECT_NE(out.status().message().find(
                "Feature: x (data type: float) is required but could not be found."),
            std::string::npos)
      << out.status().message();
}

TEST(ParseExampleTest, WrongValueCountNamesKeyAndIndex) {
  std::string ok = ExampleBuilder().Floats("x", {1.0f, 2.0f}).Serialize();
  std::string bad = ExampleBuilder().Floats("x", {1.0f, 2.0f, 3.0f}).Serialize();
  auto out = ParseDense({ok, bad}, {"x"}, {EmptyFloats()}, {{2}});
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "Name: <unknown>, Key: x, Index: 1.  Can't parse serialized Example: number of float values !=");
  const std::string& m = out.status().message();
  EXPECT_NE(m.find("Key: x, Index: 1"), std::string::npos) << m;
  EXPECT_NE(m.find("Can't parse serialized Example"), std::string::npos) << m;
}

TEST(ParseExampleTest, WrongFeatureTypeIsAnError) {
  std::string ex = ExampleBuilder().Ints("x", {1}).Serialize();
  auto out = ParseDense({ex}, {"x"}, {EmptyFloats()}, {{1}});
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "Name: <unknown>, Key: x, Index: 0.  Data types don't match. Data type: int64 but expected type:");
}

TEST(ParseExampleTest, CorruptSerializedBytesFailWithIndex) {
  std::string good = ExampleBuilder().Floats("x", {1.0f}).Serialize();
  std::string corrupt = good.substr(0, good.size() - 2);
  auto out = ParseDense({good, corrupt}, {"x"}, {EmptyFloats()}, {{1}});
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "could not parse serialized tf.train.Example at index 1: malformed Example");
  auto garbage = ParseDense({std::string("\xff\xff\xff", 3)}, {"x"}, {EmptyFloats()}, {{1}});
  TFHOST_EXPECT_ERROR(garbage, StatusCode::kInvalidArgument,
                      "could not parse serialized tf.train.Example at index 0: malformed Example");
}

TEST(ParseExampleTest, DenseInt64StringAndMultiDimShapes) {
  std::string a = ExampleBuilder().Ints("i", {1, 2, 3, 4, 5, 6}).Bytes("s", {"a"}).Serialize();
  std::string b = ExampleBuilder().Ints("i", {7, 8, 9, 10, 11, 12}).Serialize();
  auto out = ParseDense({a, b}, {"i", "s"},
                        {Tensor(DType::kInt64, Shape({0})), Tensor::FromVector<std::string>({"dflt"})},
                        {{2, 3}, {1}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int64_t>({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12},
                                                                  Shape({2, 2, 3}))));
  EXPECT_TRUE(TensorsEqual((*out)[1], Tensor::FromVector<std::string>({"a", "dflt"}, Shape({2, 1}))));
}

TEST(ParseExampleTest, VariableLengthDenseIsPaddedWithDefault) {
  std::string a = ExampleBuilder().Floats("v", {1, 2, 3, 4}).Serialize();
  std::string b = ExampleBuilder().Floats("v", {5, 6}).Serialize();
  auto out = ParseDense({a, b, ""}, {"v"}, {Tensor::Scalar<float>(-1.0f)}, {{-1, 2}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<float>({1, 2, 3, 4, 5, 6, -1, -1, -1, -1, -1, -1},
                                                                Shape({3, 2, 2}))));
  // 3 values do not fill whole rows of 2.
  std::string odd = ExampleBuilder().Floats("v", {1, 2, 3}).Serialize();
  TFHOST_EXPECT_ERROR(ParseDense({odd}, {"v"}, {Tensor::Scalar<float>(0.0f)}, {{-1, 2}}), StatusCode::kInvalidArgument,
                      "Name: <unknown>, Key: v, Index: 0.  Number of float values is not a multiple of stride length. Saw");
}

TEST(ParseExampleTest, SparseFeaturesGiveIndicesValuesAndShapeForBatchOfThree) {
  std::string a = ExampleBuilder().Ints("ids", {10, 11}).Floats("x", {1}).Serialize();
  std::string b = ExampleBuilder().Floats("x", {2}).Serialize();
  std::string c = ExampleBuilder().Ints("ids", {12, 13, 14}).Floats("x", {3}).Serialize();
  std::vector<Tensor> inputs{Strings({a, b, c}), Strings({"a", "b", "c"}),
                             Tensor::StringScalar("ids"), Tensor::StringScalar("x"), EmptyFloats()};
  auto out = RunSingleOp("ParseExample", inputs,
                         {{"Nsparse", MakeAttr(1)},
                          {"Ndense", MakeAttr(1)},
                          {"sparse_types", MakeAttr(std::vector<DType>{DType::kInt64})},
                          {"Tdense", MakeAttr(std::vector<DType>{DType::kFloat})},
                          {"dense_shapes", ShapesAttr({{1}})}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), 4u);
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int64_t>({0, 0, 0, 1, 2, 0, 2, 1, 2, 2},
                                                                  Shape({5, 2}))));
  EXPECT_TRUE(TensorsEqual((*out)[1], Tensor::FromVector<int64_t>({10, 11, 12, 13, 14})));
  EXPECT_TRUE(TensorsEqual((*out)[2], Tensor::FromVector<int64_t>({3, 3})));
  EXPECT_TRUE(TensorsEqual((*out)[3], Tensor::FromVector<float>({1, 2, 3}, Shape({3, 1}))));
}

TEST(ParseExampleTest, ErrorsNameTheExampleWhenNamesAreGiven) {
  std::string bad = ExampleBuilder().Floats("x", {1, 2}).Serialize();
  std::vector<Tensor> inputs{Strings({bad}), Strings({"request-7"}), Tensor::StringScalar("x"),
                             EmptyFloats()};
  auto out = RunSingleOp("ParseExample", inputs,
                         {{"Nsparse", MakeAttr(0)},
                          {"Ndense", MakeAttr(1)},
                          {"sparse_types", MakeAttr(std::vector<DType>{})},
                          {"Tdense", MakeAttr(std::vector<DType>{DType::kFloat})},
                          {"dense_shapes", ShapesAttr({{1}})}});
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "Name: request-7, Key: x, Index: 0.  Can't parse serialized Example: number of float values !=");
}

ir::AttrMap V2Attrs(std::vector<DType> tdense, std::vector<std::vector<int64_t>> shapes,
                    std::vector<DType> sparse, std::vector<DType> ragged, std::vector<DType> splits) {
  return {{"Tdense", MakeAttr(tdense)},
          {"num_sparse", MakeAttr(static_cast<int>(sparse.size()))},
          {"sparse_types", MakeAttr(sparse)},
          {"ragged_value_types", MakeAttr(ragged)},
          {"ragged_split_types", MakeAttr(splits)},
          {"dense_shapes", ShapesAttr(shapes)}};
}

TEST(ParseExampleV2Test, DenseSparseAndRaggedTogether) {
  std::string a = ExampleBuilder().Floats("x", {2}).Bytes("w", {"p", "q"}).Ints("r", {1}).Serialize();
  std::string b = ExampleBuilder().Bytes("w", {"z"}).Ints("r", {2, 3, 4}).Serialize();
  std::vector<Tensor> inputs{Strings({a, b}), Tensor(DType::kString, Shape({0})), Strings({"w"}),
                             Strings({"x"}), Strings({"r"}),
                             Tensor::FromVector<float>({0.5f}, Shape({1}))};
  auto out = RunSingleOp("ParseExampleV2", inputs,
                         V2Attrs({DType::kFloat}, {{1}}, {DType::kString}, {DType::kInt64},
                                 {DType::kInt32}));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), 6u);
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int64_t>({0, 0, 0, 1, 1, 0}, Shape({3, 2}))));
  EXPECT_TRUE(TensorsEqual((*out)[1], Tensor::FromVector<std::string>({"p", "q", "z"})));
  EXPECT_TRUE(TensorsEqual((*out)[2], Tensor::FromVector<int64_t>({2, 2})));
  EXPECT_TRUE(TensorsEqual((*out)[3], Tensor::FromVector<float>({2.0f, 0.5f}, Shape({2, 1}))));
  EXPECT_TRUE(TensorsEqual((*out)[4], Tensor::FromVector<int64_t>({1, 2, 3, 4})));
  EXPECT_TRUE(TensorsEqual((*out)[5], Tensor::FromVector<int32_t>({0, 1, 4})));
}

TEST(ParseExampleV2Test, ScalarSerializedDropsBatchDimension) {
  std::string a = ExampleBuilder().Floats("x", {2, 3}).Ints("s", {7, 8}).Serialize();
  std::vector<Tensor> inputs{Tensor::StringScalar(a), Tensor(DType::kString, Shape({0})),
                             Strings({"s"}), Strings({"x"}), Tensor(DType::kString, Shape({0})),
                             EmptyFloats()};
  auto out = RunSingleOp("ParseExampleV2", inputs,
                         V2Attrs({DType::kFloat}, {{2}}, {DType::kInt64}, {}, {}));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int64_t>({0, 1}, Shape({2, 1}))));
  EXPECT_TRUE(TensorsEqual((*out)[2], Tensor::FromVector<int64_t>({2})));
  EXPECT_TRUE(TensorsEqual((*out)[3], Tensor::FromVector<float>({2, 3})));
}

TEST(ParseExampleV2Test, KeyCountMustMatchAttrs) {
  std::vector<Tensor> inputs{Strings({""}), Tensor(DType::kString, Shape({0})), Strings({}),
                             Strings({"x", "y"}), Strings({}), EmptyFloats()};
  auto out = RunSingleOp("ParseExampleV2", inputs, V2Attrs({DType::kFloat}, {{1}}, {}, {}, {}));
  TFHOST_EXPECT_ERROR(out, StatusCode::kInvalidArgument,
                      "dense_keys must be a string vector of 1 keys, got string[2] {, ...}");
}

TEST(ParseSingleExampleTest, ParsesOneExampleWithoutBatchDim) {
  std::string a = ExampleBuilder().Floats("x", {4}).Ints("s", {5, 6, 7}).Serialize();
  auto out = RunSingleOp("ParseSingleExample", {Tensor::StringScalar(a), EmptyFloats()},
                         {{"num_sparse", MakeAttr(1)},
                          {"sparse_keys", MakeAttr(std::vector<std::string>{"s"})},
                          {"dense_keys", MakeAttr(std::vector<std::string>{"x"})},
                          {"sparse_types", MakeAttr(std::vector<DType>{DType::kInt64})},
                          {"Tdense", MakeAttr(std::vector<DType>{DType::kFloat})},
                          {"dense_shapes", ShapesAttr({{}})}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int64_t>({0, 1, 2}, Shape({3, 1}))));
  EXPECT_TRUE(TensorsEqual((*out)[1], Tensor::FromVector<int64_t>({5, 6, 7})));
  EXPECT_TRUE(TensorsEqual((*out)[2], Tensor::FromVector<int64_t>({3})));
  EXPECT_TRUE(TensorsEqual((*out)[3], Tensor::Scalar<float>(4.0f)));
}

}  // namespace
}  // namespace tfhost::ops
