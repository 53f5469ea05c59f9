#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "ops/sparse/sparse_ops.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

// A 2-D SparseTensor from rows of features (row b holds features at 0..k-1),
// as the Python tests' _sparse_tensor helper builds it.
struct Sparse {
  Tensor indices, values, shape;
};
Sparse StringRows(const std::vector<std::vector<std::string>>& rows, int64_t batch = -1) {
  std::vector<int64_t> idx;
  std::vector<std::string> vals;
  int64_t width = 0;
  for (size_t b = 0; b < rows.size(); ++b) {
    for (size_t j = 0; j < rows[b].size(); ++j) {
      idx.push_back(static_cast<int64_t>(b));
      idx.push_back(static_cast<int64_t>(j));
      vals.push_back(rows[b][j]);
      width = std::max<int64_t>(width, static_cast<int64_t>(j) + 1);
    }
  }
  Tensor values(DType::kString, Shape({static_cast<int64_t>(vals.size())}));
  for (size_t i = 0; i < vals.size(); ++i) values.strings()[i] = vals[i];
  return {Tensor::FromVector<int64_t>(idx, Shape({static_cast<int64_t>(vals.size()), 2})), values,
          Tensor::FromVector<int64_t>({batch >= 0 ? batch : static_cast<int64_t>(rows.size()), width})};
}

ir::AttrMap CrossAttrs(int n, std::vector<DType> sparse, std::vector<DType> dense) {
  return {{"N", MakeAttr(n)}, {"sparse_types", MakeAttr(sparse)}, {"dense_types", MakeAttr(dense)}};
}

std::vector<Tensor> SparseInputs(const std::vector<Sparse>& s) {
  std::vector<Tensor> in;
  for (const auto& x : s) in.push_back(x.indices);
  for (const auto& x : s) in.push_back(x.values);
  for (const auto& x : s) in.push_back(x.shape);
  return in;
}

StatusOr<std::vector<Tensor>> Cross(const std::vector<Sparse>& s, bool hashed, int64_t buckets, int64_t key) {
  auto attrs = CrossAttrs(static_cast<int>(s.size()), std::vector<DType>(s.size(), DType::kString), {});
  attrs["hashed_output"] = MakeAttr(hashed);
  attrs["num_buckets"] = MakeAttr(buckets);
  attrs["hash_key"] = MakeAttr(key);
  attrs["out_type"] = MakeAttr(hashed ? DType::kInt64 : DType::kString);
  attrs["internal_type"] = MakeAttr(DType::kString);
  return RunSingleOp("SparseCross", SparseInputs(s), attrs);
}

constexpr int64_t kDefaultHashKey = 0xDECAFCAFFE;  // sparse_ops._DEFAULT_HASH_KEY

TEST(SparseCrossTest, HashedValuesMatchTensorFlowsOwnExpectations) {
  // TensorFlow's sparse_cross_op_test.py pins these values "to prevent
  // unintentional hashing changes".
  std::vector<Sparse> in = {StringRows({{"batch1-FC1-F1"}}), StringRows({{"batch1-FC2-F1"}}),
                            StringRows({{"batch1-FC3-F1"}})};
  struct Case { int64_t buckets, key, want; };
  for (const Case& c : {Case{0, kDefaultHashKey, 1971693436396284976}, Case{0, kDefaultHashKey + 1, 4847552627144134031},
                        Case{100, kDefaultHashKey, 83}, Case{100, kDefaultHashKey + 1, 31}}) {
    auto out = Cross(in, true, c.buckets, c.key);
    ASSERT_TRUE(out.ok()) << out.status().ToString();
    ASSERT_EQ((*out)[1].NumElements(), 1);
    EXPECT_EQ((*out)[1].data<int64_t>()[0], c.want) << c.buckets << " " << c.key;
  }
}

TEST(SparseCrossHashedTest, MatchesTensorFlowsOwnExpectations) {
  // sparse_cross_op_test.py, SparseCrossHashedOpTest: 9186962005966787372 with
  // 0 buckets (salt ignored without strong_hash), 79 with 100 buckets.
  std::vector<Sparse> in = {StringRows({{"batch1-FC1-F1"}}), StringRows({{"batch1-FC2-F1"}}),
                            StringRows({{"batch1-FC3-F1"}})};
  for (auto [buckets, want] : {std::pair<int64_t, int64_t>{0, 9186962005966787372}, {100, 79}}) {
    for (int64_t salt0 : {1, 137}) {
      auto inputs = SparseInputs(in);
      inputs.push_back(Tensor::Scalar<int64_t>(buckets));
      inputs.push_back(Tensor::Scalar<bool>(false));
      inputs.push_back(Tensor::FromVector<int64_t>({salt0, 173}));
      auto out = RunSingleOp("SparseCrossHashed", inputs, CrossAttrs(3, std::vector<DType>(3, DType::kString), {}));
      ASSERT_TRUE(out.ok()) << out.status().ToString();
      EXPECT_EQ((*out)[1].data<int64_t>()[0], want) << buckets;
    }
  }
  // strong_hash changes the values but not where they go.
  std::vector<Sparse> wide = {StringRows({{"a", "b", "c"}}), StringRows({{"d"}}), StringRows({{"e", "f"}})};
  auto run = [&](bool strong, int64_t salt1) {
    auto inputs = SparseInputs(wide);
    inputs.push_back(Tensor::Scalar<int64_t>(1000));
    inputs.push_back(Tensor::Scalar<bool>(strong));
    inputs.push_back(Tensor::FromVector<int64_t>({137, salt1}));
    return RunSingleOp("SparseCrossHashed", inputs, CrossAttrs(3, std::vector<DType>(3, DType::kString), {}));
  };
  auto weak = run(false, 173), strong = run(true, 1);
  ASSERT_TRUE(weak.ok() && strong.ok());
  EXPECT_TRUE(TensorsEqual((*weak)[0], (*strong)[0]));
  EXPECT_FALSE(TensorsEqual((*weak)[1], (*strong)[1]));
  for (int i = 0; i < 6; ++i) {
    EXPECT_GE((*strong)[1].data<int64_t>()[i], 0);
    EXPECT_LT((*strong)[1].data<int64_t>()[i], 1000);
  }
}

TEST(SparseCrossTest, StringCrossesLastColumnFastestAndSkipRowsWithAnEmptyColumn) {
  // sparse_cross_op_test.py test_some_columns_empty / test_permutation_3x1x2.
  std::vector<Sparse> in = {StringRows({{"a1", "a2"}}, 2), StringRows({{"b1"}, {"b2"}}, 2),
                            StringRows({{"c1", "c2"}}, 2)};
  auto out = Cross(in, false, 0, 0);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int64_t>({0, 0, 0, 1, 0, 2, 0, 3}, Shape({4, 2}))));
  std::vector<std::string> want = {"a1_X_b1_X_c1", "a1_X_b1_X_c2", "a2_X_b1_X_c1", "a2_X_b1_X_c2"};
  ASSERT_EQ((*out)[1].NumElements(), 4);
  for (int i = 0; i < 4; ++i) EXPECT_EQ((*out)[1].strings()[i], want[i]);
  EXPECT_TRUE(TensorsEqual((*out)[2], Tensor::FromVector<int64_t>({2, 4})));
}

TEST(SparseCrossV2Test, MixesIntegerSparseWithDenseStringsUsingSep) {
  // test_integer_mixed_string_dense: int64 written in decimal, dense after sparse.
  Sparse ints{Tensor::FromVector<int64_t>({0, 0, 1, 0, 1, 1}, Shape({3, 2})), Tensor::FromVector<int64_t>({11, 333, 55555}),
              Tensor::FromVector<int64_t>({2, 2})};
  Tensor dense(DType::kString, Shape({2, 1}));
  dense.strings()[0] = "x";
  dense.strings()[1] = "y";
  std::vector<Tensor> inputs = {ints.indices, ints.values, ints.shape, dense, Tensor::StringScalar("|")};
  auto out = RunSingleOp("SparseCrossV2", inputs, CrossAttrs(1, {DType::kInt64}, {DType::kString}));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  std::vector<std::string> want = {"11|x", "333|y", "55555|y"};
  for (int i = 0; i < 3; ++i) EXPECT_EQ((*out)[1].strings()[i], want[i]);
  EXPECT_TRUE(TensorsEqual((*out)[2], Tensor::FromVector<int64_t>({2, 2})));
}

TEST(SparseCrossTest, MalformedInputsAreErrors) {
  // Batch sizes disagree.
  std::vector<Sparse> in = {StringRows({{"a"}}, 10), StringRows({{"b"}}, 7)};
  TFHOST_EXPECT_ERROR(Cross(in, false, 0, 0), StatusCode::kInvalidArgument,
                      "Expected batch size 10, got 7 in sparse input 1");
  // A row index outside the batch.
  Sparse bad = StringRows({{"a"}}, 1);
  bad.indices = Tensor::FromVector<int64_t>({5, 0}, Shape({1, 2}));
  TFHOST_EXPECT_ERROR(Cross({bad}, false, 0, 0), StatusCode::kInvalidArgument,
                      "indices[0][0] has row 5, outside the batch of 1");
  // A 1-D sparse input.
  Sparse one_d = StringRows({{"a"}});
  one_d.shape = Tensor::FromVector<int64_t>({1});
  TFHOST_EXPECT_ERROR(Cross({one_d}, false, 0, 0), StatusCode::kInvalidArgument,
                      "Expected D2 of index to be 2: sparse input 0 has rank 1, only 2-D inputs can be crossed");
}

TEST(FingerprintCat64Test, OrderMatters) {
  EXPECT_NE(sparse::FingerprintCat64(1, 2), sparse::FingerprintCat64(2, 1));
}

}  // namespace
}  // namespace tfhost::ops
