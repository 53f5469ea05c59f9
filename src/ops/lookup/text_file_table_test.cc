#include "ops/lookup/text_file_table.h"

#include <gtest/gtest.h>

#include <fstream>

#include "checkpoint/test_util.h"
#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

using checkpoint::testing::TempDir;

Tensor Handle(const std::string& name) {
  Tensor h(DType::kResource, Shape());
  h.strings()[0] = name;
  return h;
}

Tensor Strings(const std::vector<std::string>& v) {
  Tensor t(DType::kString, Shape({static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) t.strings()[i] = v[i];
  return t;
}

std::string WriteFile(const TempDir& dir, const std::string& name, const std::string& content) {
  std::string path = dir.Join(name);
  std::ofstream(path, std::ios::binary) << content;
  return path;
}

bool Contains(const Status& s, const std::string& text) { return s.message().find(text) != std::string::npos; }

// Creates table `name` (key -> value dtypes) and runs
// InitializeTableFromTextFileV2 on `path` with `attrs` added.
Status InitFromFile(ResourceManager& rm, const std::string& name, DType key, DType value, const std::string& path,
                    ir::AttrMap attrs) {
  auto h = RunSingleOp("HashTableV2", {},
                       {{"key_dtype", MakeAttr(key)}, {"value_dtype", MakeAttr(value)}, {"shared_name", MakeAttr(name)}},
                       &rm);
  if (!h.ok()) return h.status();
  return RunSingleOp("InitializeTableFromTextFileV2", {(*h)[0], Tensor::StringScalar(path)}, std::move(attrs), &rm)
      .status();
}

ir::AttrMap Indices(int64_t key_index, int64_t value_index) {
  return {{"key_index", MakeAttr(key_index)}, {"value_index", MakeAttr(value_index)}};
}

StatusOr<Tensor> Find(ResourceManager& rm, const std::string& name, Tensor keys, Tensor default_value) {
  ir::AttrMap attrs = {{"Tin", MakeAttr(keys.dtype())}, {"Tout", MakeAttr(default_value.dtype())}};
  TFHOST_ASSIGN_OR_RETURN(auto out, RunSingleOp("LookupTableFindV2", {Handle(name), std::move(keys), std::move(default_value)},
                                                std::move(attrs), &rm));
  return out[0];
}

TEST(InitializeTableFromTextFileV2Test, WholeLinesMapToLineNumbersPlusOffset) {
  TempDir dir;
  std::string path = WriteFile(dir, "vocab.txt", "the\nquick brown\nfox\r\n");
  ResourceManager rm;
  ir::AttrMap attrs = Indices(lookup::kWholeLineIndex, lookup::kLineNumberIndex);
  attrs["offset"] = MakeAttr(int64_t{10});
  Status st = InitFromFile(rm, "vocab", DType::kString, DType::kInt64, path, attrs);
  ASSERT_TRUE(st.ok()) << st.ToString();
  auto ids = Find(rm, "vocab", Strings({"fox", "the", "quick brown", "quick", "fox\r"}), Tensor::Scalar<int64_t>(-1));
  ASSERT_TRUE(ids.ok()) << ids.status().ToString();
  EXPECT_TRUE(TensorsEqual(*ids, Tensor::FromVector<int64_t>({12, 10, 11, -1, -1}))) << ids->DebugString();
}

TEST(InitializeTableFromTextFileV2Test, ColumnsAreSplitOnTheDelimiterAndParsedAsTheValueDType) {
  TempDir dir;
  std::string path = WriteFile(dir, "prices.csv", "apple,1.5,x\nbanana, 2.25 ,y\n");
  ResourceManager rm;
  ir::AttrMap attrs = Indices(0, 1);
  attrs["delimiter"] = MakeAttr(",");
  Status st = InitFromFile(rm, "prices", DType::kString, DType::kDouble, path, attrs);
  ASSERT_TRUE(st.ok()) << st.ToString();
  auto out = Find(rm, "prices", Strings({"banana", "apple", "cherry"}), Tensor::Scalar<double>(0));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual(*out, Tensor::FromVector<double>({2.25, 1.5, 0})));

  // Line numbers as keys, a column as string values (an id -> word table).
  ir::AttrMap inverse = Indices(lookup::kLineNumberIndex, 0);
  inverse["delimiter"] = MakeAttr(",");
  st = InitFromFile(rm, "words", DType::kInt64, DType::kString, path, inverse);
  ASSERT_TRUE(st.ok()) << st.ToString();
  auto words = Find(rm, "words", Tensor::FromVector<int64_t>({1, 0, 5}), Tensor::StringScalar("UNK"));
  ASSERT_TRUE(words.ok());
  EXPECT_TRUE(TensorsEqual(*words, Strings({"banana", "apple", "UNK"})));
}

TEST(InitializeTableFromTextFileV2Test, MissingColumnIsAnErrorNamingFileAndLine) {
  TempDir dir;
  std::string path = WriteFile(dir, "vocab.tsv", "a\t1\nb\n");
  ResourceManager rm;
  Status st = InitFromFile(rm, "t", DType::kString, DType::kInt64, path, Indices(0, 1));
  TFHOST_ASSERT_ERROR(st, StatusCode::kInvalidArgument,
                      "line 2 has 1 column(s) separated by '\\t', but key_index 0 and value_index 1 need 2: \"b\"");
  EXPECT_TRUE(Contains(st, path + " line 2 has 1 column(s) separated by '\\t'")) << st.message();
  EXPECT_TRUE(Contains(st, "need 2")) << st.message();
}

TEST(InitializeTableFromTextFileV2Test, BadNumberIsAnErrorNamingFileLineAndToken) {
  TempDir dir;
  std::string path = WriteFile(dir, "vocab.tsv", "a\t1\nb\t2x\n");
  ResourceManager rm;
  Status st = InitFromFile(rm, "t", DType::kString, DType::kInt64, path, Indices(0, 1));
  TFHOST_ASSERT_ERROR(st, StatusCode::kInvalidArgument, "vocab.tsv line 2: value \"2x\" is not a valid int64");
  EXPECT_TRUE(Contains(st, path + " line 2: value \"2x\" is not a valid int64")) << st.message();

  std::string big = WriteFile(dir, "big.tsv", "a\t3000000000\n");
  st = InitFromFile(rm, "t32", DType::kString, DType::kInt32, big, Indices(0, 1));
  TFHOST_ASSERT_ERROR(st, StatusCode::kInvalidArgument, "big.tsv line 1: value \"3000000000\" is not a valid int32");
  EXPECT_TRUE(Contains(st, "line 1: value \"3000000000\" is not a valid int32")) << st.message();
}

TEST(InitializeTableFromTextFileV2Test, EmptyLineIsAnError) {
  TempDir dir;
  std::string path = WriteFile(dir, "vocab.txt", "a\n\nb\n");
  ResourceManager rm;
  Status st = InitFromFile(rm, "t", DType::kString, DType::kInt64, path, Indices(-2, -1));
  TFHOST_ASSERT_ERROR(st, StatusCode::kInvalidArgument,
                      "vocab.txt line 2 is empty; every line of a vocabulary file must hold an entry");
  EXPECT_TRUE(Contains(st, path + " line 2 is empty")) << st.message();
}

TEST(InitializeTableFromTextFileV2Test, DuplicateWordIsAnErrorNamingTheLine) {
  TempDir dir;
  std::string path = WriteFile(dir, "vocab.txt", "a\nb\na\n");
  ResourceManager rm;
  Status st = InitFromFile(rm, "t", DType::kString, DType::kInt64, path, Indices(-2, -1));
  TFHOST_ASSERT_ERROR(st, StatusCode::kInvalidArgument,
                      "vocab.txt line 3: key 'a' maps to 2 here but to 0 at entry 0; a hash table maps each key once");
  EXPECT_TRUE(Contains(st, path + " line 3: key 'a' maps to 2 here but to 0")) << st.message();
}

TEST(InitializeTableFromTextFileV2Test, VocabSizeKeepsTheFirstLinesAndMustNotExceedTheFile) {
  TempDir dir;
  std::string path = WriteFile(dir, "vocab.txt", "a\nb\nc\n");
  ResourceManager rm;
  ir::AttrMap attrs = Indices(-2, -1);
  attrs["vocab_size"] = MakeAttr(int64_t{2});
  ASSERT_TRUE(InitFromFile(rm, "two", DType::kString, DType::kInt64, path, attrs).ok());
  auto size = RunSingleOp("LookupTableSizeV2", {Handle("two")}, {}, &rm);
  ASSERT_TRUE(size.ok());
  EXPECT_EQ((*size)[0].data<int64_t>()[0], 2);

  attrs["vocab_size"] = MakeAttr(int64_t{5});
  Status st = InitFromFile(rm, "five", DType::kString, DType::kInt64, path, attrs);
  TFHOST_ASSERT_ERROR(st, StatusCode::kInvalidArgument, "vocab.txt has 3 lines but vocab_size is 5");
  EXPECT_TRUE(Contains(st, path + " has 3 lines but vocab_size is 5")) << st.message();
}

TEST(InitializeTableFromTextFileV2Test, MissingFileIsNotFoundNamingIt) {
  TempDir dir;
  ResourceManager rm;
  std::string path = dir.Join("nope.txt");
  Status st = InitFromFile(rm, "t", DType::kString, DType::kInt64, path, Indices(-2, -1));
  TFHOST_ASSERT_ERROR(
      st, StatusCode::kNotFound,
      "node 'test_InitializeTableFromTextFileV2' (InitializeTableFromTextFileV2): cannot open vocabulary file");
  EXPECT_TRUE(Contains(st, "cannot open vocabulary file " + path)) << st.message();
}

TEST(InitializeTableFromTextFileV2Test, RunningAgainLeavesTheInitializedTableAsItIs) {
  TempDir dir;
  std::string path = WriteFile(dir, "vocab.txt", "a\nb\n");
  ResourceManager rm;
  ASSERT_TRUE(InitFromFile(rm, "t", DType::kString, DType::kInt64, path, Indices(-2, -1)).ok());
  ASSERT_TRUE(InitFromFile(rm, "t", DType::kString, DType::kInt64, path, Indices(-2, -1)).ok());
  WriteFile(dir, "vocab.txt", "b\na\nc\n");
  ASSERT_TRUE(InitFromFile(rm, "t", DType::kString, DType::kInt64, path, Indices(-2, -1)).ok());
  auto ids = Find(rm, "t", Strings({"a", "b", "c"}), Tensor::Scalar<int64_t>(-1));
  ASSERT_TRUE(ids.ok());
  EXPECT_TRUE(TensorsEqual(*ids, Tensor::FromVector<int64_t>({0, 1, -1})));
}

TEST(InitializeTableFromTextFileV2Test, IndicesMustSuitTheTableDTypes) {
  TempDir dir;
  std::string path = WriteFile(dir, "vocab.txt", "a\n");
  ResourceManager rm;
  Status st = InitFromFile(rm, "t", DType::kString, DType::kInt32, path, Indices(-2, -1));
  TFHOST_ASSERT_ERROR(st, StatusCode::kInvalidArgument,
                      "value_index -1 (line number) needs int64 table values, not int32");
  EXPECT_TRUE(Contains(st, "value_index -1 (line number) needs int64 table values, not int32")) << st.message();

  st = InitFromFile(rm, "f", DType::kString, DType::kFloat, path, Indices(-1, -2));
  TFHOST_ASSERT_ERROR(st, StatusCode::kInvalidArgument,
                      "key_index -1 (line number) needs int64 table keys, not string");

  ir::AttrMap attrs = Indices(-2, -1);
  attrs["delimiter"] = MakeAttr("::");
  st = InitFromFile(rm, "d", DType::kString, DType::kInt64, path, attrs);
  TFHOST_ASSERT_ERROR(st, StatusCode::kInvalidArgument, "delimiter must be exactly one character, got \"::\"");
  EXPECT_TRUE(Contains(st, "delimiter must be exactly one character")) << st.message();
}

TEST(ReadTextFileTableTest, WholeLineCanBeAnIntegerKey) {
  TempDir dir;
  lookup::TextFileTableSpec spec;
  spec.filename = WriteFile(dir, "ids.txt", "17\n-4\n");
  spec.key_index = lookup::kWholeLineIndex;
  spec.key_dtype = DType::kInt64;
  spec.value_index = lookup::kLineNumberIndex;
  auto entries = lookup::ReadTextFileTable(spec);
  ASSERT_TRUE(entries.ok()) << entries.status().ToString();
  EXPECT_TRUE(TensorsEqual(entries->first, Tensor::FromVector<int64_t>({17, -4})));
  EXPECT_TRUE(TensorsEqual(entries->second, Tensor::FromVector<int64_t>({0, 1})));
}

}  // namespace
}  // namespace tfhost::ops
