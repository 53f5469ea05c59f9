#include "cli/tensor_input.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cli/npy_io.h"
#include "base/test_status.h"

namespace tfhost::cli {
namespace {

TEST(TensorInputTest, InputFlagKindFollowsValueShape) {
  auto npy = ParseInputFlag("x=data/a.npy");
  ASSERT_TRUE(npy.ok());
  EXPECT_EQ(npy->key, "x");
  EXPECT_EQ(npy->kind, InputFlag::Kind::kNpyFile);
  auto bytes = ParseInputFlag("tf_example:0=@ex.bin");
  ASSERT_TRUE(bytes.ok());
  EXPECT_EQ(bytes->key, "tf_example:0");
  EXPECT_EQ(bytes->kind, InputFlag::Kind::kFileBytes);
  EXPECT_EQ(bytes->value, "ex.bin");
  auto json = ParseInputFlag("x=[[1,2],[3,4]]");
  ASSERT_TRUE(json.ok());
  EXPECT_EQ(json->kind, InputFlag::Kind::kJson);
  EXPECT_EQ(json->value, "[[1,2],[3,4]]");
  TFHOST_EXPECT_ERROR(ParseInputFlag("no_equals"), StatusCode::kInvalidArgument,
                      "--input 'no_equals' must look like KEY=FILE.npy, KEY=@FILE or KEY=<json>");
  TFHOST_EXPECT_ERROR(ParseInputFlag("=1"), StatusCode::kInvalidArgument,
                      "--input '=1' must look like KEY=FILE.npy, KEY=@FILE or KEY=<json>");
}

TEST(TensorInputTest, JsonDtypeFollowsContentWhenUnknown) {
  auto f = TensorFromJson("[[1, 2.5], [3, 4]]", DType::kInvalid, "x");
  ASSERT_TRUE(f.ok()) << f.status().ToString();
  EXPECT_TRUE(TensorsEqual(*f, Tensor::FromVector<float>({1, 2.5f, 3, 4}, Shape({2, 2}))));
  auto i = TensorFromJson("[1, -2, 3]", DType::kInvalid, "x");
  ASSERT_TRUE(i.ok());
  EXPECT_TRUE(TensorsEqual(*i, Tensor::FromVector<int64_t>({1, -2, 3})));
  auto b = TensorFromJson("[true, false]", DType::kInvalid, "x");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->dtype(), DType::kBool);
  auto s = TensorFromJson("[\"a\", {\"b64\": \"aGk=\"}]", DType::kInvalid, "x");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->strings()[0], "a");
  EXPECT_EQ(s->strings()[1], "hi");
  auto scalar = TensorFromJson("7.5", DType::kInvalid, "x");
  ASSERT_TRUE(scalar.ok());
  EXPECT_TRUE(TensorsEqual(*scalar, Tensor::Scalar<float>(7.5f)));
  auto empty = TensorFromJson("[[], []]", DType::kInvalid, "x");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->shape(), Shape({2, 0}));
  EXPECT_EQ(empty->dtype(), DType::kFloat);
}

TEST(TensorInputTest, JsonConvertsToTheExpectedDtype) {
  auto i32 = TensorFromJson("[[1], [2]]", DType::kInt32, "x");
  ASSERT_TRUE(i32.ok());
  EXPECT_TRUE(TensorsEqual(*i32, Tensor::FromVector<int32_t>({1, 2}, Shape({2, 1}))));
  auto d = TensorFromJson("[1, 2]", DType::kDouble, "x");
  ASSERT_TRUE(d.ok());
  EXPECT_TRUE(TensorsEqual(*d, Tensor::FromVector<double>({1, 2})));
  auto u8 = TensorFromJson("[256]", DType::kUInt8, "input 'img'");
  TFHOST_ASSERT_ERROR(u8, StatusCode::kInvalidArgument, "input 'img': element 0 is out of range for uint8");
  auto frac = TensorFromJson("[1.5]", DType::kInt64, "x");
  TFHOST_ASSERT_ERROR(frac, StatusCode::kInvalidArgument, "x: element 0 must be an integer for int64 input");
  auto wrong = TensorFromJson("[\"a\"]", DType::kFloat, "x");
  TFHOST_ASSERT_ERROR(wrong, StatusCode::kInvalidArgument, "x: element 0 must be a number for float32 input");
}

TEST(TensorInputTest, RaggedListsAndBadJsonAreErrorsWithPosition) {
  auto ragged = TensorFromJson("[[1, 2], [3]]", DType::kInvalid, "input 'x'");
  TFHOST_ASSERT_ERROR(ragged, StatusCode::kInvalidArgument, "input 'x': ragged list at [1]: expected 2 entries, got 1");
  EXPECT_NE(ragged.status().message().find("input 'x': ragged list at [1]: expected 2 entries, got 1"),
            std::string::npos)
      << ragged.status().message();
  auto mixed_depth = TensorFromJson("[[1, 2], 3]", DType::kInvalid, "x");
  TFHOST_ASSERT_ERROR(mixed_depth, StatusCode::kInvalidArgument,
                      "x: ragged list at [1]: expected a list of 2 entries, got a single value");
  auto bad = TensorFromJson("[1, 2", DType::kInvalid, "x");
  TFHOST_ASSERT_ERROR(bad, StatusCode::kInvalidArgument,
                      "x: not a .npy path, @FILE or valid JSON (Missing a comma or ']' after an array element. at offset 5)");
  std::string deep(100000, '[');
  TFHOST_EXPECT_ERROR(TensorFromJson(deep, DType::kInvalid, "x"), StatusCode::kInvalidArgument,
                      "x: not a .npy path, @FILE or valid JSON (Invalid value. at");
}

TEST(TensorInputTest, LoadInputReadsNpyAndRawFileBytes) {
  auto dir = std::filesystem::temp_directory_path() / ("tensor_input_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  Tensor t = Tensor::FromVector<float>({1, 2});
  ASSERT_TRUE(WriteNpyFile((dir / "a.npy").string(), t).ok());
  { std::ofstream((dir / "raw.bin").string(), std::ios::binary) << std::string("a\0b", 3); }
  auto npy = LoadInput(*ParseInputFlag("x=" + (dir / "a.npy").string()), DType::kFloat);
  ASSERT_TRUE(npy.ok()) << npy.status().ToString();
  EXPECT_TRUE(TensorsEqual(*npy, t));
  auto raw = LoadInput(*ParseInputFlag("x=@" + (dir / "raw.bin").string()), DType::kString);
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ(raw->shape(), Shape());
  EXPECT_EQ(raw->strings()[0], std::string("a\0b", 3));
  auto missing = LoadInput(*ParseInputFlag("x=@" + (dir / "nope").string()), DType::kString);
  TFHOST_ASSERT_ERROR(missing, StatusCode::kNotFound, "input 'x': cannot open input file");
  std::filesystem::remove_all(dir);
}

TEST(TensorInputTest, SummaryShowsDtypeShapeAndFirstValues) {
  Tensor t = Tensor::FromVector<float>({0.5f, 1, 2, 3}, Shape({2, 2}));
  EXPECT_EQ(SummarizeTensor(t, 3), "float32[2,2] {0.5, 1, 2, ...}");
  EXPECT_EQ(SummarizeTensor(Tensor::FromVector<int64_t>({-9000000000000000001LL})), "int64[1] {-9000000000000000001}");
  Tensor s(DType::kString, Shape({1}));
  s.strings()[0] = std::string("a\"\x01", 3);
  EXPECT_EQ(SummarizeTensor(s), "string[1] {\"a\\x22\\x01\"}");
}

}  // namespace
}  // namespace tfhost::cli
