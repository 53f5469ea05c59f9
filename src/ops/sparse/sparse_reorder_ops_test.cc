#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

Tensor I64(std::vector<int64_t> v, Shape s) { return Tensor::FromVector<int64_t>(v, s); }
Tensor I64(std::vector<int64_t> v) { return Tensor::FromVector<int64_t>(v); }
Tensor F(std::vector<float> v) { return Tensor::FromVector<float>(v); }
Tensor Str(std::vector<std::string> v) {
  Tensor t(DType::kString, Shape({static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) t.strings()[i] = v[i];
  return t;
}
ir::AttrMap TAttr(DType t) { return {{"T", MakeAttr(t)}}; }

TEST(SparseReorderTest, SortsRowMajorAndKeepsTiesInInputOrder) {
  // [1, 0] = 1, [0, 2] = 2, [0, 1] = 3, [0, 2] = 4 (repeat of entry 1).
  auto out = RunSingleOp("SparseReorder", {I64({1, 0, 0, 2, 0, 1, 0, 2}, Shape({4, 2})), F({1, 2, 3, 4}), I64({2, 3})},
                         TAttr(DType::kFloat));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], I64({0, 1, 0, 2, 0, 2, 1, 0}, Shape({4, 2}))));
  EXPECT_TRUE(TensorsEqual((*out)[1], F({3, 2, 4, 1})));
}

TEST(SparseReorderTest, OutOfBoundsIndexAndMismatchedValuesAreErrors) {
  auto bad = RunSingleOp("SparseReorder", {I64({0, 3}, Shape({1, 2})), F({1}), I64({2, 3})}, TAttr(DType::kFloat));
  TFHOST_ASSERT_ERROR(bad, StatusCode::kInvalidArgument,
                      "input indices[0, 1] = 3 is out of bounds: need 0 <= index < 3");
  EXPECT_NE(bad.status().ToString().find("out of bounds"), std::string::npos) << bad.status().ToString();
  EXPECT_FALSE(
      RunSingleOp("SparseReorder", {I64({0, 1}, Shape({1, 2})), F({1, 2}), I64({2, 3})}, TAttr(DType::kFloat)).ok());
  TFHOST_EXPECT_ERROR(RunSingleOp("SparseReorder", {I64({0, 1}, Shape({1, 2})), F({1}), I64({2})}, TAttr(DType::kFloat)), StatusCode::kInvalidArgument,
                      "input indices have 2 columns but dense_shape has 1 entries");
}

// tf.sparse.slice's docstring: input shape [2, 6] with
// [0, 0]=a [0, 2]=b [0, 4]=c [0, 5]=d [1, 1]=e [1, 3]=f [1, 4]=g.
Tensor DocIndices() { return I64({0, 0, 0, 2, 0, 4, 0, 5, 1, 1, 1, 3, 1, 4}, Shape({7, 2})); }

TEST(SparseSliceTest, MatchesTensorFlowDocstringExamples) {
  // start [0, 0], size [2, 4] -> shape [2, 4]: [0,0]=a [0,2]=b [1,1]=e [1,3]=f.
  auto a = RunSingleOp("SparseSlice",
                       {DocIndices(), Str({"a", "b", "c", "d", "e", "f", "g"}), I64({2, 6}), I64({0, 0}), I64({2, 4})},
                       TAttr(DType::kString));
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_TRUE(TensorsEqual((*a)[0], I64({0, 0, 0, 2, 1, 1, 1, 3}, Shape({4, 2}))));
  EXPECT_TRUE(TensorsEqual((*a)[1], Str({"a", "b", "e", "f"})));
  EXPECT_TRUE(TensorsEqual((*a)[2], I64({2, 4})));
  // start [0, 4], size [2, 3] -> clipped to shape [2, 2]: [0,0]=c [0,1]=d [1,0]=g.
  auto b = RunSingleOp("SparseSlice",
                       {DocIndices(), Str({"a", "b", "c", "d", "e", "f", "g"}), I64({2, 6}), I64({0, 4}), I64({2, 3})},
                       TAttr(DType::kString));
  ASSERT_TRUE(b.ok()) << b.status().ToString();
  EXPECT_TRUE(TensorsEqual((*b)[0], I64({0, 0, 0, 1, 1, 0}, Shape({3, 2}))));
  EXPECT_TRUE(TensorsEqual((*b)[1], Str({"c", "d", "g"})));
  EXPECT_TRUE(TensorsEqual((*b)[2], I64({2, 2})));
}

TEST(SparseSliceTest, StartPastTheEndGivesEmptyZeroSizedSlice) {
  auto out = RunSingleOp("SparseSlice", {DocIndices(), F({1, 2, 3, 4, 5, 6, 7}), I64({2, 6}), I64({0, 9}), I64({2, 3})},
                         TAttr(DType::kFloat));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape({0, 2}));
  EXPECT_TRUE(TensorsEqual((*out)[2], I64({2, 0})));
}

TEST(SparseSliceTest, NegativeStartOrWrongLengthIsAnError) {
  auto values = F({1, 2, 3, 4, 5, 6, 7});
  EXPECT_FALSE(
      RunSingleOp("SparseSlice", {DocIndices(), values, I64({2, 6}), I64({-1, 0}), I64({2, 3})}, TAttr(DType::kFloat))
          .ok());
  EXPECT_FALSE(
      RunSingleOp("SparseSlice", {DocIndices(), values, I64({2, 6}), I64({0}), I64({2, 3})}, TAttr(DType::kFloat)).ok());
}

TEST(SparseSplitTest, FirstSlicesTakeTheRemainderAndShiftIndices) {
  // tf.sparse.split's documented sizes: dim 1 of [2, 7] into 3 -> [2, 3],
  // [2, 2], [2, 2] (columns 0-2, 3-4, 5-6). Entries [0,0]=a [0,4]=b [0,5]=c
  // [1,1]=d [1,2]=e [1,6]=f: slice 0 = a, d, e; slice 1 = b (col 4 -> 1);
  // slice 2 = c (col 5 -> 0), f (col 6 -> 1).
  ir::AttrMap attrs = TAttr(DType::kString);
  attrs["num_split"] = MakeAttr(int64_t{3});
  auto out = RunSingleOp("SparseSplit",
                         {Tensor::Scalar<int64_t>(1), I64({0, 0, 0, 4, 0, 5, 1, 1, 1, 2, 1, 6}, Shape({6, 2})),
                          Str({"a", "b", "c", "d", "e", "f"}), I64({2, 7})},
                         attrs);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), 9u);
  EXPECT_TRUE(TensorsEqual((*out)[0], I64({0, 0, 1, 1, 1, 2}, Shape({3, 2}))));
  EXPECT_TRUE(TensorsEqual((*out)[1], I64({0, 1}, Shape({1, 2}))));
  EXPECT_TRUE(TensorsEqual((*out)[2], I64({0, 0, 1, 1}, Shape({2, 2}))));
  EXPECT_TRUE(TensorsEqual((*out)[3], Str({"a", "d", "e"})));
  EXPECT_TRUE(TensorsEqual((*out)[4], Str({"b"})));
  EXPECT_TRUE(TensorsEqual((*out)[5], Str({"c", "f"})));
  EXPECT_TRUE(TensorsEqual((*out)[6], I64({2, 3})));
  EXPECT_TRUE(TensorsEqual((*out)[7], I64({2, 2})));
  EXPECT_TRUE(TensorsEqual((*out)[8], I64({2, 2})));
}

TEST(SparseSplitTest, NegativeSplitDimAndTooManySplits) {
  ir::AttrMap attrs = TAttr(DType::kFloat);
  attrs["num_split"] = MakeAttr(int64_t{2});
  auto out = RunSingleOp("SparseSplit", {Tensor::Scalar<int64_t>(-2), I64({0, 0, 1, 1}, Shape({2, 2})), F({1, 2}),
                                         I64({2, 2})},
                         attrs);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], I64({0, 0}, Shape({1, 2}))));
  EXPECT_TRUE(TensorsEqual((*out)[1], I64({0, 1}, Shape({1, 2}))));
  EXPECT_TRUE(TensorsEqual((*out)[4], I64({1, 2})));
  attrs["num_split"] = MakeAttr(int64_t{3});
  auto bad = RunSingleOp("SparseSplit", {Tensor::Scalar<int64_t>(0), I64({0, 0, 1, 1}, Shape({2, 2})), F({1, 2}),
                                         I64({2, 2})},
                         attrs);
  TFHOST_EXPECT_ERROR(bad, StatusCode::kInvalidArgument,
                      "num_split must be between 1 and the size of dim 0 (2), got 3");
}

TEST(SparseConcatTest, MatchesTensorFlowDocstringExampleInRowMajorOrder) {
  // tf.sparse.concat docstring, concat_dim 1: [2, 3] {[0,2]=a [1,0]=b [1,1]=c}
  // and [2, 4] {[0,1]=d [0,2]=e} -> [2, 7] {[0,2]=a [0,4]=d [0,5]=e [1,0]=b [1,1]=c}.
  ir::AttrMap attrs = TAttr(DType::kString);
  attrs["N"] = MakeAttr(int64_t{2});
  attrs["concat_dim"] = MakeAttr(int64_t{1});
  auto out = RunSingleOp("SparseConcat",
                         {I64({0, 2, 1, 0, 1, 1}, Shape({3, 2})), I64({0, 1, 0, 2}, Shape({2, 2})), Str({"a", "b", "c"}),
                          Str({"d", "e"}), I64({2, 3}), I64({2, 4})},
                         attrs);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], I64({0, 2, 0, 4, 0, 5, 1, 0, 1, 1}, Shape({5, 2}))));
  EXPECT_TRUE(TensorsEqual((*out)[1], Str({"a", "d", "e", "b", "c"})));
  EXPECT_TRUE(TensorsEqual((*out)[2], I64({2, 7})));
}

TEST(SparseConcatTest, NegativeConcatDimAndMismatchedShapes) {
  ir::AttrMap attrs = TAttr(DType::kFloat);
  attrs["N"] = MakeAttr(int64_t{2});
  attrs["concat_dim"] = MakeAttr(int64_t{-2});
  auto out = RunSingleOp("SparseConcat",
                         {I64({0, 1}, Shape({1, 2})), I64({0, 0}, Shape({1, 2})), F({1}), F({2}), I64({1, 2}), I64({2, 2})},
                         attrs);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], I64({0, 1, 1, 0}, Shape({2, 2}))));
  EXPECT_TRUE(TensorsEqual((*out)[2], I64({3, 2})));
  auto bad = RunSingleOp("SparseConcat",
                         {I64({0, 1}, Shape({1, 2})), I64({0, 0}, Shape({1, 2})), F({1}), F({2}), I64({1, 2}), I64({2, 3})},
                         attrs);
  TFHOST_ASSERT_ERROR(bad, StatusCode::kInvalidArgument,
                      "input 1 has dense_shape [2, 3] but input 0 has [1, 2]: all dims but concat_dim 0 must agree");
  EXPECT_NE(bad.status().ToString().find("must agree"), std::string::npos) << bad.status().ToString();
}

}  // namespace
}  // namespace tfhost::ops
