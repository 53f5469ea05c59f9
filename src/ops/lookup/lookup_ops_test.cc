#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "ops/lookup/lookup_table.h"
#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

Tensor Handle(const std::string& name) {
  Tensor h(DType::kResource, Shape());
  h.strings()[0] = name;
  return h;
}

Tensor Strings(const std::vector<std::string>& v, Shape shape) {
  Tensor t(DType::kString, std::move(shape));
  for (size_t i = 0; i < v.size(); ++i) t.strings()[i] = v[i];
  return t;
}
Tensor Strings(const std::vector<std::string>& v) { return Strings(v, Shape({static_cast<int64_t>(v.size())})); }

ir::AttrMap TableAttrs(DType key, DType value, const std::string& shared_name = "") {
  ir::AttrMap attrs = {{"key_dtype", MakeAttr(key)}, {"value_dtype", MakeAttr(value)}};
  if (!shared_name.empty()) attrs["shared_name"] = MakeAttr(shared_name);
  return attrs;
}

bool Contains(const Status& s, const std::string& text) { return s.message().find(text) != std::string::npos; }

// Runs LookupTableFindV2 (or `op`) with Tin/Tout taken from keys and default.
StatusOr<std::vector<Tensor>> RunFind(std::vector<Tensor> inputs, ResourceManager* rm,
                                      const std::string& op = "LookupTableFindV2") {
  ir::AttrMap attrs = {{"Tin", MakeAttr(inputs[1].dtype())}, {"Tout", MakeAttr(inputs[2].dtype())}};
  return RunSingleOp(op, std::move(inputs), std::move(attrs), rm);
}

// A string -> int64 hash table named "vocab" holding a:0, b:1, c:2.
void MakeVocab(ResourceManager& rm) {
  auto h = RunSingleOp("HashTableV2", {}, TableAttrs(DType::kString, DType::kInt64, "vocab"), &rm);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  auto init = RunSingleOp("InitializeTableV2", {(*h)[0], Strings({"a", "b", "c"}),
                                                Tensor::FromVector<int64_t>({0, 1, 2})}, {}, &rm);
  ASSERT_TRUE(init.ok()) << init.status().ToString();
}

TEST(HashTableV2Test, HandleNamesSharedNameElseNodeName) {
  ResourceManager rm;
  auto named = RunSingleOp("HashTableV2", {}, TableAttrs(DType::kString, DType::kInt64, "hash_table_vocab"), &rm);
  ASSERT_TRUE(named.ok()) << named.status().ToString();
  EXPECT_EQ((*named)[0].dtype(), DType::kResource);
  EXPECT_TRUE((*named)[0].shape().IsScalar());
  EXPECT_EQ((*named)[0].strings()[0], "hash_table_vocab");

  auto unnamed = RunSingleOp("HashTableV2", {}, TableAttrs(DType::kString, DType::kInt64), &rm);
  ASSERT_TRUE(unnamed.ok());
  EXPECT_EQ((*unnamed)[0].strings()[0], "test_HashTableV2");
  EXPECT_TRUE(rm.Lookup<lookup::LookupTable>("hash_table_vocab").ok());
}

TEST(HashTableV2Test, SameNameWithOtherDTypesIsAnError) {
  ResourceManager rm;
  ASSERT_TRUE(RunSingleOp("HashTableV2", {}, TableAttrs(DType::kString, DType::kInt64, "t"), &rm).ok());
  auto out = RunSingleOp("HashTableV2", {}, TableAttrs(DType::kString, DType::kFloat, "t"), &rm);
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "table 't' already exists as a string -> int64 hash table, not a string -> float32 hash table");
  EXPECT_TRUE(Contains(out.status(), "table 't' already exists as a string -> int64 hash table"))
      << out.status().message();
  // Creating it again with the same types is fine: the table persists.
  EXPECT_TRUE(RunSingleOp("HashTableV2", {}, TableAttrs(DType::kString, DType::kInt64, "t"), &rm).ok());
}

TEST(HashTableV2Test, UnsupportedKeyDTypeIsAnError) {
  auto out = RunSingleOp("HashTableV2", {}, TableAttrs(DType::kFloat, DType::kInt64));
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "lookup tables support int32, int64 and string keys, not float32");
  EXPECT_TRUE(Contains(out.status(), "int32, int64 and string keys, not float32")) << out.status().message();
}

TEST(LookupTableFindV2Test, KnownKeysMapAndUnknownKeysTakeTheDefaultInTheKeysShape) {
  ResourceManager rm;
  MakeVocab(rm);
  auto out = RunFind({Handle("vocab"), Strings({"c", "zzz", "a", "b"}, Shape({2, 2})), Tensor::Scalar<int64_t>(-1)}, &rm);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int64_t>({2, -1, 0, 1}, Shape({2, 2}))))
      << (*out)[0].DebugString();
}

TEST(LookupTableFindV2Test, DefaultValueMayGiveOneDefaultPerKey) {
  ResourceManager rm;
  MakeVocab(rm);
  auto out = RunFind({Handle("vocab"), Strings({"x", "b", "y"}), Tensor::FromVector<int64_t>({10, 11, 12})}, &rm);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int64_t>({10, 1, 12})));

  auto bad = RunFind({Handle("vocab"), Strings({"x", "b", "y"}), Tensor::FromVector<int64_t>({10, 11})}, &rm);
  TFHOST_ASSERT_ERROR(bad, StatusCode::kInvalidArgument,
                      "default_value has shape [2]; expected [] (one default) or [3] (one per key)");
  EXPECT_TRUE(Contains(bad.status(), "default_value has shape [2]")) << bad.status().message();
}

TEST(LookupTableFindV2Test, UninitializedTableIsFailedPrecondition) {
  ResourceManager rm;
  auto h = RunSingleOp("HashTableV2", {}, TableAttrs(DType::kString, DType::kInt64, "t"), &rm);
  ASSERT_TRUE(h.ok());
  auto out = RunFind({(*h)[0], Strings({"a"}), Tensor::Scalar<int64_t>(-1)}, &rm);
  TFHOST_ASSERT_ERROR(out, StatusCode::kFailedPrecondition,
                      "node 'test_LookupTableFindV2' (LookupTableFindV2): the string -> int64 hash table is not "
                      "initialized (its initializer has not run)");
  EXPECT_TRUE(Contains(out.status(), "not initialized")) << out.status().message();
}

TEST(LookupTableFindV2Test, MissingTableIsAnErrorNamingIt) {
  ResourceManager rm;
  auto out = RunFind({Handle("nope"), Strings({"a"}), Tensor::Scalar<int64_t>(-1)}, &rm);
  TFHOST_ASSERT_ERROR(out, StatusCode::kFailedPrecondition,
                      "table 'nope' does not exist (the op that creates it has not run)");
  EXPECT_TRUE(Contains(out.status(), "table 'nope' does not exist")) << out.status().message();
}

TEST(LookupTableFindV2Test, KeysOrDefaultOfTheWrongDTypeAreErrors) {
  ResourceManager rm;
  MakeVocab(rm);
  auto keys = RunFind({Handle("vocab"), Tensor::FromVector<int64_t>({1}),
                                                Tensor::Scalar<int64_t>(-1)}, &rm);
  TFHOST_ASSERT_ERROR(keys, StatusCode::kInvalidArgument,
                      "keys have dtype int64 but the string -> int64 hash table has string keys");
  EXPECT_TRUE(Contains(keys.status(), "keys have dtype int64 but the string -> int64 hash table has string keys"))
      << keys.status().message();
  auto def = RunFind({Handle("vocab"), Strings({"a"}), Tensor::Scalar<int32_t>(-1)}, &rm);
  TFHOST_ASSERT_ERROR(def, StatusCode::kInvalidArgument,
                      "default_value has dtype int32 but the string -> int64 hash table has int64 values");
  EXPECT_TRUE(Contains(def.status(), "default_value has dtype int32")) << def.status().message();
}

TEST(LookupTableFindV2Test, EverySupportedValueDTypeRoundTrips) {
  ResourceManager rm;
  struct Case {
    DType key, value;
    Tensor keys, values, default_value, query, expected;
  };
  std::vector<Case> cases = {
      {DType::kInt64, DType::kString, Tensor::FromVector<int64_t>({7, 8}), Strings({"seven", "eight"}),
       Tensor::StringScalar("UNK"), Tensor::FromVector<int64_t>({8, 9}), Strings({"eight", "UNK"})},
      {DType::kInt32, DType::kFloat, Tensor::FromVector<int32_t>({1, 2}), Tensor::FromVector<float>({0.5f, 1.5f}),
       Tensor::Scalar<float>(-1), Tensor::FromVector<int32_t>({2, 3}), Tensor::FromVector<float>({1.5f, -1})},
      {DType::kString, DType::kDouble, Strings({"pi"}), Tensor::FromVector<double>({3.14159}),
       Tensor::Scalar<double>(0), Strings({"pi", "e"}), Tensor::FromVector<double>({3.14159, 0})},
      {DType::kString, DType::kBool, Strings({"yes", "no"}), Tensor::FromVector<bool>({true, false}),
       Tensor::Scalar<bool>(false), Strings({"yes", "no", "maybe"}), Tensor::FromVector<bool>({true, false, false})},
      {DType::kInt64, DType::kInt32, Tensor::FromVector<int64_t>({-5}), Tensor::FromVector<int32_t>({42}),
       Tensor::Scalar<int32_t>(0), Tensor::FromVector<int64_t>({-5, 5}), Tensor::FromVector<int32_t>({42, 0})},
  };
  int n = 0;
  for (const auto& c : cases) {
    std::string name = "t" + std::to_string(n++);
    SCOPED_TRACE(name);
    ASSERT_TRUE(RunSingleOp("HashTableV2", {}, TableAttrs(c.key, c.value, name), &rm).ok());
    auto init = RunSingleOp("InitializeTableV2", {Handle(name), c.keys, c.values}, {}, &rm);
    ASSERT_TRUE(init.ok()) << init.status().ToString();
    auto out = RunFind({Handle(name), c.query, c.default_value}, &rm);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    EXPECT_TRUE(TensorsEqual((*out)[0], c.expected)) << (*out)[0].DebugString();
  }
}

TEST(InitializeTableV2Test, RunningAgainWithTheSameContentIsANoOpAndOtherContentFails) {
  ResourceManager rm;
  MakeVocab(rm);
  // Same entries in another order: fine, as in TensorFlow.
  auto again = RunSingleOp("InitializeTableV2", {Handle("vocab"), Strings({"c", "a", "b"}),
                                                 Tensor::FromVector<int64_t>({2, 0, 1})}, {}, &rm);
  EXPECT_TRUE(again.ok()) << again.status().ToString();
  auto other = RunSingleOp("InitializeTableV2", {Handle("vocab"), Strings({"a", "b", "c"}),
                                                 Tensor::FromVector<int64_t>({0, 1, 5})}, {}, &rm);
  TFHOST_ASSERT_ERROR(other, StatusCode::kFailedPrecondition,
                      "node 'test_InitializeTableV2' (InitializeTableV2): the string -> int64 hash table was already "
                      "initialized with different data");
  EXPECT_TRUE(Contains(other.status(), "already initialized with different data")) << other.status().message();
  auto fewer = RunSingleOp("InitializeTableV2", {Handle("vocab"), Strings({"a"}), Tensor::FromVector<int64_t>({0})},
                           {}, &rm);
  TFHOST_EXPECT_ERROR(fewer, StatusCode::kFailedPrecondition,
                      "the string -> int64 hash table was already initialized with different data");
}

TEST(InitializeTableV2Test, DuplicateKeyWithAnotherValueIsAnErrorNamingTheEntry) {
  ResourceManager rm;
  ASSERT_TRUE(RunSingleOp("HashTableV2", {}, TableAttrs(DType::kString, DType::kInt64, "t"), &rm).ok());
  auto out = RunSingleOp("InitializeTableV2", {Handle("t"), Strings({"a", "b", "a"}),
                                               Tensor::FromVector<int64_t>({0, 1, 2})}, {}, &rm);
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "keys[2]: key 'a' maps to 2 here but to 0 at entry 0; a hash table maps each key once");
  EXPECT_TRUE(Contains(out.status(), "keys[2]: key 'a' maps to 2 here but to 0 at entry 0")) << out.status().message();
  // The same pair twice is harmless.
  auto dup = RunSingleOp("InitializeTableV2", {Handle("t"), Strings({"a", "a"}), Tensor::FromVector<int64_t>({4, 4})},
                         {}, &rm);
  ASSERT_TRUE(dup.ok()) << dup.status().ToString();
  auto size = RunSingleOp("LookupTableSizeV2", {Handle("t")}, {}, &rm);
  ASSERT_TRUE(size.ok());
  EXPECT_EQ((*size)[0].data<int64_t>()[0], 1);
}

TEST(InitializeTableV2Test, KeysAndValuesMustBeVectorsOfOneLength) {
  ResourceManager rm;
  ASSERT_TRUE(RunSingleOp("HashTableV2", {}, TableAttrs(DType::kString, DType::kInt64, "t"), &rm).ok());
  auto out = RunSingleOp("InitializeTableV2", {Handle("t"), Strings({"a", "b"}), Tensor::FromVector<int64_t>({0})},
                         {}, &rm);
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "values have shape [1] but keys of shape [2] need values of shape [2]");
  EXPECT_TRUE(Contains(out.status(), "values have shape [1] but keys of shape [2] need values of shape [2]"))
      << out.status().message();
  auto matrix = RunSingleOp("InitializeTableV2", {Handle("t"), Strings({"a", "b"}, Shape({1, 2})),
                                                  Tensor::FromVector<int64_t>({0, 1}, Shape({1, 2}))}, {}, &rm);
  TFHOST_ASSERT_ERROR(matrix, StatusCode::kInvalidArgument, "keys must be a vector, got shape [1,2]");
  EXPECT_TRUE(Contains(matrix.status(), "keys must be a vector")) << matrix.status().message();
}

TEST(LookupTableSizeV2Test, CountsEntriesAndIsZeroBeforeInitialization) {
  ResourceManager rm;
  ASSERT_TRUE(RunSingleOp("HashTableV2", {}, TableAttrs(DType::kString, DType::kInt64, "empty"), &rm).ok());
  auto empty = RunSingleOp("LookupTableSizeV2", {Handle("empty")}, {}, &rm);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(TensorsEqual((*empty)[0], Tensor::Scalar<int64_t>(0)));
  MakeVocab(rm);
  auto size = RunSingleOp("LookupTableSizeV2", {Handle("vocab")}, {}, &rm);
  ASSERT_TRUE(size.ok());
  EXPECT_TRUE(TensorsEqual((*size)[0], Tensor::Scalar<int64_t>(3)));
}

TEST(LookupTableExportV2Test, ExportsEveryEntry) {
  ResourceManager rm;
  MakeVocab(rm);
  auto out = RunSingleOp("LookupTableExportV2", {Handle("vocab")},
                         {{"Tkeys", MakeAttr(DType::kString)}, {"Tvalues", MakeAttr(DType::kInt64)}}, &rm);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ((*out)[0].shape(), Shape({3}));
  ASSERT_EQ((*out)[1].shape(), Shape({3}));
  std::map<std::string, int64_t> entries;
  for (int i = 0; i < 3; ++i) entries[(*out)[0].strings()[i]] = (*out)[1].data<int64_t>()[i];
  EXPECT_EQ(entries, (std::map<std::string, int64_t>{{"a", 0}, {"b", 1}, {"c", 2}}));

  auto wrong = RunSingleOp("LookupTableExportV2", {Handle("vocab")},
                           {{"Tkeys", MakeAttr(DType::kString)}, {"Tvalues", MakeAttr(DType::kInt32)}}, &rm);
  TFHOST_EXPECT_ERROR(wrong, StatusCode::kInvalidArgument,
                      "Tkeys/Tvalues are string/int32 but the table is a string -> int64 hash table");
}

TEST(LookupTableImportV2Test, FillsAHashTableOnce) {
  ResourceManager rm;
  ASSERT_TRUE(RunSingleOp("HashTableV2", {}, TableAttrs(DType::kInt64, DType::kString, "t"), &rm).ok());
  auto imp = RunSingleOp("LookupTableImportV2", {Handle("t"), Tensor::FromVector<int64_t>({3}), Strings({"three"})},
                         {}, &rm);
  ASSERT_TRUE(imp.ok()) << imp.status().ToString();
  auto out = RunFind({Handle("t"), Tensor::FromVector<int64_t>({3}), Tensor::StringScalar("")}, &rm);
  ASSERT_TRUE(out.ok());
  EXPECT_EQ((*out)[0].strings()[0], "three");
}

TEST(HashTableV2Test, InsertAndRemoveAreRejected) {
  ResourceManager rm;
  MakeVocab(rm);
  auto ins = RunSingleOp("LookupTableInsertV2", {Handle("vocab"), Strings({"d"}), Tensor::FromVector<int64_t>({3})},
                         {}, &rm);
  TFHOST_ASSERT_ERROR(ins, StatusCode::kUnimplemented,
                      "a string -> int64 hash table is read-only once initialized; only mutable tables accept inserts");
  auto rem = RunSingleOp("LookupTableRemoveV2", {Handle("vocab"), Strings({"a"})}, {}, &rm);
  TFHOST_EXPECT_ERROR(rem, StatusCode::kUnimplemented,
                      "a string -> int64 hash table is read-only once initialized; only mutable tables remove keys");
}

TEST(MutableHashTableV2Test, InsertOverwritesRemoveDeletesImportReplaces) {
  ResourceManager rm;
  auto h = RunSingleOp("MutableHashTableV2", {}, TableAttrs(DType::kString, DType::kFloat, "m"), &rm);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  // A mutable table needs no initialization.
  auto find = [&](const std::vector<std::string>& keys) {
    auto out = RunFind({Handle("m"), Strings(keys), Tensor::Scalar<float>(-1)}, &rm);
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    return out.ok() ? (*out)[0].ToDoubleVector() : std::vector<double>{};
  };
  EXPECT_EQ(find({"a"}), std::vector<double>{-1});
  ASSERT_TRUE(RunSingleOp("LookupTableInsertV2", {Handle("m"), Strings({"a", "b"}), Tensor::FromVector<float>({1, 2})},
                          {}, &rm).ok());
  ASSERT_TRUE(RunSingleOp("LookupTableInsertV2", {Handle("m"), Strings({"b", "c"}), Tensor::FromVector<float>({20, 3})},
                          {}, &rm).ok());
  EXPECT_EQ(find({"a", "b", "c", "d"}), (std::vector<double>{1, 20, 3, -1}));
  ASSERT_TRUE(RunSingleOp("LookupTableRemoveV2", {Handle("m"), Strings({"a", "zzz"})}, {}, &rm).ok());
  EXPECT_EQ(find({"a", "b"}), (std::vector<double>{-1, 20}));
  // A removed key's slot is reused without disturbing the others.
  ASSERT_TRUE(RunSingleOp("LookupTableInsertV2", {Handle("m"), Strings({"e"}), Tensor::FromVector<float>({5})}, {}, &rm)
                  .ok());
  EXPECT_EQ(find({"b", "c", "e"}), (std::vector<double>{20, 3, 5}));
  auto size = RunSingleOp("LookupTableSizeV2", {Handle("m")}, {}, &rm);
  ASSERT_TRUE(size.ok());
  EXPECT_EQ((*size)[0].data<int64_t>()[0], 3);

  ASSERT_TRUE(RunSingleOp("LookupTableImportV2", {Handle("m"), Strings({"x"}), Tensor::FromVector<float>({9})}, {}, &rm)
                  .ok());
  EXPECT_EQ(find({"x", "b"}), (std::vector<double>{9, -1}));

  auto init = RunSingleOp("InitializeTableV2", {Handle("m"), Strings({"q"}), Tensor::FromVector<float>({1})}, {}, &rm);
  TFHOST_ASSERT_ERROR(init, StatusCode::kInvalidArgument,
                      "a string -> float32 mutable hash table is not initializable; insert into it instead");
  EXPECT_TRUE(Contains(init.status(), "not initializable")) << init.status().message();
}

TEST(MutableHashTableOfTensorsV2Test, FindReturnsOneVectorPerKey) {
  ResourceManager rm;
  ir::AttrMap attrs = TableAttrs(DType::kInt64, DType::kFloat, "emb");
  tensorflow::AttrValue shape;
  shape.mutable_shape()->add_dim()->set_size(2);
  attrs["value_shape"] = shape;
  ASSERT_TRUE(RunSingleOp("MutableHashTableOfTensorsV2", {}, attrs, &rm).ok());
  ASSERT_TRUE(RunSingleOp("LookupTableInsertV2", {Handle("emb"), Tensor::FromVector<int64_t>({1, 2}),
                                                  Tensor::FromVector<float>({1, 1, 2, 2}, Shape({2, 2}))}, {}, &rm)
                  .ok());
  auto out = RunFind({Handle("emb"), Tensor::FromVector<int64_t>({2, 7, 1}),
                                               Tensor::FromVector<float>({0, -1})}, &rm);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<float>({2, 2, 0, -1, 1, 1}, Shape({3, 2}))))
      << (*out)[0].DebugString();

  auto bad = RunSingleOp("LookupTableInsertV2", {Handle("emb"), Tensor::FromVector<int64_t>({3}),
                                                 Tensor::FromVector<float>({1, 2, 3})}, {}, &rm);
  TFHOST_ASSERT_ERROR(bad, StatusCode::kInvalidArgument,
                      "values have shape [3] but keys of shape [1] need values of shape [1,2]");
  EXPECT_TRUE(Contains(bad.status(), "need values of shape [1,2]")) << bad.status().message();
}

TEST(HashTableTest, Tf1RefOpsShareTheTablesThroughAContainerNameHandle) {
  ResourceManager rm;
  auto h = RunSingleOp("HashTable", {}, TableAttrs(DType::kString, DType::kInt64, "v1"), &rm);
  ASSERT_TRUE(h.ok()) << h.status().ToString();
  ASSERT_EQ((*h)[0].shape(), Shape({2}));
  EXPECT_EQ((*h)[0].strings()[1], "v1");
  ASSERT_TRUE(RunSingleOp("InitializeTable", {(*h)[0], Strings({"x"}), Tensor::FromVector<int64_t>({4})}, {}, &rm).ok());
  auto out = RunFind({(*h)[0], Strings({"x", "y"}), Tensor::Scalar<int64_t>(-1)}, &rm, "LookupTableFind");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int64_t>({4, -1})));
  // The V2 ops see the same table through a resource handle.
  auto size = RunSingleOp("LookupTableSizeV2", {Handle("v1")}, {}, &rm);
  ASSERT_TRUE(size.ok());
  EXPECT_EQ((*size)[0].data<int64_t>()[0], 1);
}

TEST(LookupOpsSchemaTest, ArgAndAttrNamesAndDefaultsFollowTensorFlow) {
  const OpRegistration* reg = OpRegistry::Global().Find("InitializeTableFromTextFileV2");
  ASSERT_NE(reg, nullptr);
  ASSERT_EQ(reg->def.input_arg_size(), 2);
  EXPECT_EQ(reg->def.input_arg(0).name(), "table_handle");
  EXPECT_EQ(reg->def.input_arg(1).name(), "filename");
  std::map<std::string, const tensorflow::AttrValue*> defaults;
  for (const auto& a : reg->def.attr()) defaults[a.name()] = a.has_default_value() ? &a.default_value() : nullptr;
  ASSERT_EQ(defaults.size(), 5u);
  EXPECT_EQ(defaults["key_index"], nullptr);
  EXPECT_EQ(defaults["value_index"], nullptr);
  ASSERT_NE(defaults["vocab_size"], nullptr);
  EXPECT_EQ(defaults["vocab_size"]->i(), -1);
  ASSERT_NE(defaults["delimiter"], nullptr);
  EXPECT_EQ(defaults["delimiter"]->s(), "\t");
  ASSERT_NE(defaults["offset"], nullptr);
  EXPECT_EQ(defaults["offset"]->i(), 0);
  for (const char* op : {"HashTableV2", "MutableHashTableV2", "MutableHashTableOfTensorsV2", "InitializeTableV2",
                         "LookupTableFindV2", "LookupTableSizeV2", "LookupTableInsertV2", "LookupTableRemoveV2",
                         "LookupTableImportV2", "LookupTableExportV2", "HashTable", "InitializeTable",
                         "InitializeTableFromTextFile", "LookupTableFind", "LookupTableSize"}) {
    const OpRegistration* r = OpRegistry::Global().Find(op);
    ASSERT_NE(r, nullptr) << op;
    EXPECT_TRUE(r->def.is_stateful() || std::string(op).find("V2") == std::string::npos) << op;
  }
  const OpRegistration* find = OpRegistry::Global().Find("LookupTableFindV2");
  EXPECT_EQ(find->def.input_arg(2).name(), "default_value");
  EXPECT_EQ(find->def.output_arg(0).name(), "values");
}

}  // namespace
}  // namespace tfhost::ops
