#include "ops/array/array_test_util.h"
#include "base/test_status.h"

namespace tfhost::ops::array {
namespace {

using test_util::F32;
using test_util::Floats;
using test_util::I32;
using test_util::I64;
using test_util::Iota;
using test_util::RunOp;
using test_util::RunError;

ir::AttrMap GatherAttrs(DType params, DType indices, int batch_dims = 0) {
  return {{"Tparams", MakeAttr(params)},
          {"Tindices", MakeAttr(indices)},
          {"Taxis", MakeAttr(DType::kInt32)},
          {"batch_dims", MakeAttr(batch_dims)}};
}

TEST(GatherV2Test, GathersRowsAndColumns) {
  auto rows = RunOp("GatherV2", {Iota({3, 2}), I64({2, 0, 2}), Tensor::Scalar<int32_t>(0)},
                  GatherAttrs(DType::kFloat, DType::kInt64));
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].shape(), Shape({3, 2}));
  EXPECT_EQ(Floats(rows[0]), (std::vector<float>{4, 5, 0, 1, 4, 5}));
  auto cols = RunOp("GatherV2", {Iota({3, 2}), I32({1}, {1, 1}), Tensor::Scalar<int32_t>(-1)},
                  GatherAttrs(DType::kFloat, DType::kInt32));
  EXPECT_EQ(cols[0].shape(), Shape({3, 1, 1}));
  EXPECT_EQ(Floats(cols[0]), (std::vector<float>{1, 3, 5}));
}

TEST(GatherV2Test, BatchDimsOnePicksPerBatchIndices) {
  // params [2, 3], indices [2, 2], batch_dims=1, axis=1: out[b, j] = params[b, indices[b, j]].
  auto out = RunOp("GatherV2", {Iota({2, 3}), I32({2, 0, 1, 1}, {2, 2}), Tensor::Scalar<int32_t>(1)},
                 GatherAttrs(DType::kFloat, DType::kInt32, 1));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), Shape({2, 2}));
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{2, 0, 4, 4}));
}

TEST(GatherV2Test, OutOfRangeIndexIsAnErrorNamingIt) {
  Status st = RunError("GatherV2", {Iota({3}), I32({1, 3}), Tensor::Scalar<int32_t>(0)},
                       GatherAttrs(DType::kFloat, DType::kInt32));
  TFHOST_ASSERT_ERROR(st, StatusCode::kInvalidArgument, "indices[1] = 3 is not in [0, 3)");
  EXPECT_FALSE(RunError("GatherV2", {Iota({3}), I32({-1}), Tensor::Scalar<int32_t>(0)},
                        GatherAttrs(DType::kFloat, DType::kInt32))
                   .ok());
}

// Fuzzer finding: with batch_dims 1, the dims of an empty [0, 2^42, 2^40, 1]
// params between the batch and the axis multiplied past int64 (UBSan)
// before a gather that copies nothing.
TEST(GatherV2Test, AnEmptyParamsWithHugeOuterDimsGathersNothingWithoutOverflow) {
  const int64_t a = int64_t{1} << 42, b = int64_t{1} << 40;
  const Tensor params(DType::kFloat, Shape({0, a, b, 1}));
  auto out = RunOp("GatherV2", {params, I32({}, {0}), Tensor::Scalar<int32_t>(3)},
                   {{"Tparams", MakeAttr(DType::kFloat)}, {"Tindices", MakeAttr(DType::kInt32)},
                    {"Taxis", MakeAttr(DType::kInt32)}, {"batch_dims", MakeAttr(int64_t{1})}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), Shape({0, a, b}));
}

TEST(GatherTest, OldGatherUsesAxisZeroAndStrings) {
  auto out = RunOp("Gather", {test_util::Str({"a", "b", "c"}, {3}), I32({2, 2, 0})},
                 {{"Tparams", MakeAttr(DType::kString)}, {"Tindices", MakeAttr(DType::kInt32)}});
  EXPECT_EQ(test_util::Strings(out[0]), (std::vector<std::string>{"c", "c", "a"}));
}

TEST(GatherNdTest, IndexVectorsSelectElementsOrSlices) {
  ir::AttrMap attrs = {{"Tparams", MakeAttr(DType::kFloat)}, {"Tindices", MakeAttr(DType::kInt64)}};
  auto elems = RunOp("GatherNd", {Iota({2, 3}), I64({1, 2, 0, 1}, {2, 2})}, attrs);
  EXPECT_EQ(Floats(elems[0]), (std::vector<float>{5, 1}));
  auto rows = RunOp("GatherNd", {Iota({2, 3}), I64({1}, {1, 1})}, attrs);
  EXPECT_EQ(rows[0].shape(), Shape({1, 3}));
  EXPECT_EQ(Floats(rows[0]), (std::vector<float>{3, 4, 5}));
  TFHOST_EXPECT_ERROR(RunError("GatherNd", {Iota({2, 3}), I64({2, 0}, {1, 2})}, attrs), StatusCode::kInvalidArgument,
                      "index vector 0 [2, 0] does not index into shape [2,3]");
}

TEST(ScatterNdTest, DuplicateIndicesAdd) {
  auto out = RunOp("ScatterNd", {I32({4, 3, 1, 4}, {4, 1}), F32({9, 10, 11, 12}, {4}), I32({6})},
                 {{"T", MakeAttr(DType::kFloat)}, {"Tindices", MakeAttr(DType::kInt32)}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Floats(out[0]), (std::vector<float>{0, 11, 0, 10, 21, 0}));
}

TEST(ScatterNdTest, SliceUpdatesAndBadIndexError) {
  ir::AttrMap attrs = {{"T", MakeAttr(DType::kInt64)}, {"Tindices", MakeAttr(DType::kInt64)}};
  auto out = RunOp("ScatterNd", {I64({1}, {1, 1}), I64({7, 8}, {1, 2}), I64({2, 2})}, attrs);
  EXPECT_EQ(test_util::Ints(out[0]), (std::vector<int64_t>{0, 0, 7, 8}));
  TFHOST_EXPECT_ERROR(RunError("ScatterNd", {I64({2}, {1, 1}), I64({7, 8}, {1, 2}), I64({2, 2})}, attrs), StatusCode::kInvalidArgument,
                      "index vector 0 [2] does not index into shape [2,2]");
  // updates of the wrong shape.
  TFHOST_EXPECT_ERROR(RunError("ScatterNd", {I64({1}, {1, 1}), I64({7}, {1, 1}), I64({2, 2})}, attrs), StatusCode::kInvalidArgument,
                      "updates shape [1,1] must be [1,2] for indices shape [1,1] and shape [2,2]");
  // A negative output dim is rejected before allocating.
  TFHOST_EXPECT_ERROR(RunError("ScatterNd", {I64({0}, {1, 1}), I64({7}, {1}), I64({-2})}, attrs), StatusCode::kInvalidArgument,
                      "scatter_nd shape: dimension -2 is negative; expected a fully known shape");
}

ir::AttrMap TS(DType t) { return {{"T", MakeAttr(t)}, {"Tindices", MakeAttr(DType::kInt32)}}; }

// Found by graph_kernel_fuzz: depth-0 indices of shape [2^40, 0] name 2^40
// index vectors without holding an element, and the kernel made a vector of
// 2^40 offsets. Empty slices combine nothing: the output is the tensor.
TEST(TensorScatterTest, EmptyUpdatesWithHugeIndexBatchGiveTheTensorWithoutAllocating) {
  const int64_t huge = int64_t{1} << 40;
  Tensor empty = Tensor::FromVector<float>({}, Shape({0}));
  Tensor idx(DType::kInt32, Shape({huge, 0}));
  Tensor upd(DType::kFloat, Shape({huge, 0}));
  for (const char* op : {"TensorScatterUpdate", "TensorScatterAdd", "TensorScatterMax"}) {
    auto out = RunSingleOp(op, {empty, idx, upd}, TS(DType::kFloat));
    ASSERT_TRUE(out.ok()) << op << ": " << out.status().ToString();
    EXPECT_EQ((*out)[0].shape(), Shape({0})) << op;
  }
  // Indices of depth 1 selecting nothing leave the tensor as it was.
  Tensor ones = Tensor::FromVector<float>({1, 2, 3});
  auto same = RunSingleOp("TensorScatterAdd",
                          {ones, Tensor(DType::kInt32, Shape({0, 1})), Tensor(DType::kFloat, Shape({0}))},
                          TS(DType::kFloat));
  ASSERT_TRUE(same.ok()) << same.status().ToString();
  EXPECT_TRUE(TensorsEqual((*same)[0], ones));
}

TEST(TensorScatterTest, UpdateAddSubMinMaxIntoACopy) {
  // tf.tensor_scatter_nd_update doc: tensor [0..7]? here ones(8), indices
  // [[4], [3], [1], [7]], updates [9, 10, 11, 12] -> [1, 11, 1, 10, 9, 1, 1, 12].
  Tensor ones = Tensor::FromVector<float>({1, 1, 1, 1, 1, 1, 1, 1});
  Tensor idx = Tensor::FromVector<int32_t>({4, 3, 1, 7}, Shape({4, 1}));
  Tensor upd = Tensor::FromVector<float>({9, 10, 11, 12});
  auto u = RunSingleOp("TensorScatterUpdate", {ones, idx, upd}, TS(DType::kFloat));
  ASSERT_TRUE(u.ok()) << u.status().ToString();
  EXPECT_TRUE(TensorsEqual((*u)[0], Tensor::FromVector<float>({1, 11, 1, 10, 9, 1, 1, 12})));
  auto a = RunSingleOp("TensorScatterAdd", {ones, idx, upd}, TS(DType::kFloat));
  ASSERT_TRUE(a.ok());
  EXPECT_TRUE(TensorsEqual((*a)[0], Tensor::FromVector<float>({1, 12, 1, 11, 10, 1, 1, 13})));
  auto s = RunSingleOp("TensorScatterSub", {ones, idx, upd}, TS(DType::kFloat));
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(TensorsEqual((*s)[0], Tensor::FromVector<float>({1, -10, 1, -9, -8, 1, 1, -11})));
  // Rows of a matrix; duplicate index: Max keeps the larger, Min the smaller.
  Tensor m = Tensor::FromVector<int32_t>({5, 5, 5, 5}, Shape({2, 2}));
  Tensor rows = Tensor::FromVector<int32_t>({1, 1}, Shape({2, 1}));
  Tensor vals = Tensor::FromVector<int32_t>({3, 9, 7, 1}, Shape({2, 2}));
  auto mx = RunSingleOp("TensorScatterMax", {m, rows, vals}, TS(DType::kInt32));
  ASSERT_TRUE(mx.ok()) << mx.status().ToString();
  EXPECT_TRUE(TensorsEqual((*mx)[0], Tensor::FromVector<int32_t>({5, 5, 7, 9}, Shape({2, 2}))));
  auto mn = RunSingleOp("TensorScatterMin", {m, rows, vals}, TS(DType::kInt32));
  ASSERT_TRUE(mn.ok());
  EXPECT_TRUE(TensorsEqual((*mn)[0], Tensor::FromVector<int32_t>({5, 5, 3, 1}, Shape({2, 2}))));
  EXPECT_FALSE(RunSingleOp("TensorScatterUpdate", {ones, Tensor::FromVector<int32_t>({8}, Shape({1, 1})),
                                                   Tensor::FromVector<float>({1})},
                           TS(DType::kFloat)).ok());
  TFHOST_EXPECT_ERROR(RunSingleOp("TensorScatterUpdate", {ones, idx, Tensor::FromVector<float>({1, 2})}, TS(DType::kFloat)), StatusCode::kInvalidArgument,
                      "updates shape [2] must be [4] for indices shape [4,1] and tensor shape [8]");
}

}  // namespace
}  // namespace tfhost::ops::array
