#include <gtest/gtest.h>

#include "base/buffer_pool.h"
#include "ops/run_single_op.h"
#include "ops/tensor_array/step_container.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

std::vector<float> Floats(const Tensor& t) { return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements()); }

// Creates a TensorArray in the test's own step container.
class TensorArrayOpsTest : public ::testing::Test {
 protected:
  TensorArrayOpsTest() : scope_(&step_) {}
  Tensor Create(int size, ir::AttrMap extra = {}) {
    ir::AttrMap attrs = {{"dtype", MakeAttr(DType::kFloat)}};
    for (auto& [k, v] : extra) attrs[k] = v;
    auto out = RunSingleOp("TensorArrayV3", {Tensor::Scalar<int32_t>(size)}, attrs);
    EXPECT_TRUE(out.ok()) << out.status().ToString();
    return (*out)[0];
  }
  Status Write(const Tensor& h, int index, Tensor value) {
    return RunSingleOp("TensorArrayWriteV3", {h, Tensor::Scalar<int32_t>(index), value, Tensor::Scalar<float>(0)},
                       {{"T", MakeAttr(DType::kFloat)}})
        .status();
  }
  StatusOr<std::vector<Tensor>> Read(const Tensor& h, int index) {
    return RunSingleOp("TensorArrayReadV3", {h, Tensor::Scalar<int32_t>(index), Tensor::Scalar<float>(0)},
                       {{"dtype", MakeAttr(DType::kFloat)}});
  }
  StepContainer step_;
  ScopedStepContainer scope_;
};

TEST_F(TensorArrayOpsTest, WriteReadGatherAndSize) {
  Tensor h = Create(3, {{"clear_after_read", MakeAttr(false)}});
  ASSERT_TRUE(Write(h, 0, Tensor::FromVector<float>({1, 2})).ok());
  ASSERT_TRUE(Write(h, 2, Tensor::FromVector<float>({5, 6})).ok());
  auto r = Read(h, 2);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Floats((*r)[0]), std::vector<float>({5, 6}));
  auto size = RunSingleOp("TensorArraySizeV3", {h, Tensor::Scalar<float>(0)});
  ASSERT_TRUE(size.ok());
  EXPECT_EQ((*size)[0].data<int32_t>()[0], 3);
  auto g = RunSingleOp("TensorArrayGatherV3", {h, Tensor::FromVector<int32_t>({2, 0}), Tensor::Scalar<float>(0)},
                       {{"dtype", MakeAttr(DType::kFloat)}});
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(Floats((*g)[0]), std::vector<float>({5, 6, 1, 2}));
}

TEST_F(TensorArrayOpsTest, TensorFlowRulesOnWritesAndReads) {
  Tensor h = Create(2);
  ASSERT_TRUE(Write(h, 0, Tensor::FromVector<float>({1})).ok());
  // Each index is written once; writes past the size need dynamic_size.
  TFHOST_EXPECT_ERROR(Write(h, 0, Tensor::FromVector<float>({2})), StatusCode::kInvalidArgument,
                      "could not write to TensorArray index 0 because it has already been written to");
  TFHOST_EXPECT_ERROR(Write(h, 2, Tensor::FromVector<float>({2})), StatusCode::kInvalidArgument,
                      "index 2 is out of range for a TensorArray of size 2");
  // clear_after_read (default): the second read fails.
  EXPECT_TRUE(Read(h, 0).ok());
  TFHOST_EXPECT_ERROR(Read(h, 0), StatusCode::kInvalidArgument,
                      "could not read TensorArray index 0 twice because it was cleared after a previous read");
  // Unwritten element of unknown shape: no zeros to return.
  TFHOST_EXPECT_ERROR(Read(h, 1), StatusCode::kInvalidArgument,
                      "TensorArray element 1 was never set and its element shape <unknown> is not fully defined, so no");
  Tensor dynamic = Create(0, {{"dynamic_size", MakeAttr(true)}});
  EXPECT_TRUE(Write(dynamic, 4, Tensor::FromVector<float>({1})).ok());
}

TEST_F(TensorArrayOpsTest, UnwrittenElementOfKnownShapeReadsAsZeros) {
  ir::AttrMap attrs;
  attrs["element_shape"].mutable_shape()->add_dim()->set_size(2);
  Tensor h = Create(2, attrs);
  auto r = Read(h, 1);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Floats((*r)[0]), std::vector<float>({0, 0}));
}

TEST_F(TensorArrayOpsTest, ScatterSplitConcatAndClose) {
  Tensor h = Create(2);
  Tensor value = Tensor::FromVector<float>({1, 2, 3}, Shape({3, 1}));
  auto split = RunSingleOp("TensorArraySplitV3",
                           {h, value, Tensor::FromVector<int64_t>({1, 2}), Tensor::Scalar<float>(0)},
                           {{"T", MakeAttr(DType::kFloat)}});
  ASSERT_TRUE(split.ok()) << split.status().ToString();
  auto concat = RunSingleOp("TensorArrayConcatV3", {h, Tensor::Scalar<float>(0)}, {{"dtype", MakeAttr(DType::kFloat)}});
  ASSERT_TRUE(concat.ok()) << concat.status().ToString();
  EXPECT_EQ(Floats((*concat)[0]), std::vector<float>({1, 2, 3}));
  EXPECT_EQ((*concat)[1].data<int64_t>()[1], 2);

  Tensor h2 = Create(2, {{"clear_after_read", MakeAttr(false)}});
  auto scatter = RunSingleOp("TensorArrayScatterV3",
                             {h2, Tensor::FromVector<int32_t>({1, 0}), Tensor::FromVector<float>({7, 8}, Shape({2, 1})),
                              Tensor::Scalar<float>(0)},
                             {{"T", MakeAttr(DType::kFloat)}});
  ASSERT_TRUE(scatter.ok()) << scatter.status().ToString();
  EXPECT_EQ(Floats((*Read(h2, 0))[0]), std::vector<float>({8}));
  ASSERT_TRUE(RunSingleOp("TensorArrayCloseV3", {h2}).ok());
  auto after = Read(h2, 0);
  TFHOST_ASSERT_ERROR(after, StatusCode::kInvalidArgument, "does not exist in this run");
}

TEST_F(TensorArrayOpsTest, GradArrayIsFoundPerSourceAndAddsRepeatedWrites) {
  Tensor h = Create(3);
  auto grad = RunSingleOp("TensorArrayGradV3", {h, Tensor::Scalar<float>(0)}, {{"source", MakeAttr("gradients")}});
  ASSERT_TRUE(grad.ok()) << grad.status().ToString();
  Tensor g = (*grad)[0];
  // Same size as the forward array; the same source finds the same array.
  auto size = RunSingleOp("TensorArraySizeV3", {g, Tensor::Scalar<float>(0)});
  ASSERT_TRUE(size.ok());
  EXPECT_EQ((*size)[0].data<int32_t>()[0], 3);
  auto again = RunSingleOp("TensorArrayGradV3", {h, Tensor::Scalar<float>(0)}, {{"source", MakeAttr("gradients")}});
  ASSERT_TRUE(again.ok());
  EXPECT_EQ((*again)[0].strings()[0], g.strings()[0]);
  auto other = RunSingleOp("TensorArrayGradV3", {h, Tensor::Scalar<float>(0)}, {{"source", MakeAttr("other")}});
  ASSERT_TRUE(other.ok());
  EXPECT_NE((*other)[0].strings()[0], g.strings()[0]);
  // Writes to one index of a gradient array add up (multiple_writes_aggregate).
  ASSERT_TRUE(Write(g, 1, Tensor::FromVector<float>({1, 2})).ok());
  ASSERT_TRUE(Write(g, 1, Tensor::FromVector<float>({10, 20})).ok());
  TFHOST_EXPECT_ERROR(Write(g, 1, Tensor::FromVector<float>({1})), StatusCode::kInvalidArgument,
                      "could not aggregate a value of shape [1] into index 1 which holds shape [2]");  // shape mismatch cannot aggregate
  TFHOST_EXPECT_ERROR(Write(g, 3, Tensor::FromVector<float>({1, 2})), StatusCode::kInvalidArgument,
                      "index 3 is out of range for a TensorArray of size 3");  // not dynamic
  auto r = Read(g, 1);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(Floats((*r)[0]), std::vector<float>({11, 22}));
}

TEST_F(TensorArrayOpsTest, GradWithShapePrependsToTheElementShape) {
  ir::AttrMap attrs;
  attrs["element_shape"].mutable_shape()->add_dim()->set_size(2);
  Tensor h = Create(1, attrs);
  auto grad = RunSingleOp("TensorArrayGradWithShape",
                          {h, Tensor::Scalar<float>(0), Tensor::FromVector<int32_t>({3})}, {{"source", MakeAttr("s")}});
  ASSERT_TRUE(grad.ok()) << grad.status().ToString();
  auto r = Read((*grad)[0], 0);  // unwritten: zeros of [3, 2]
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)[0].shape(), Shape({3, 2}));
}

TEST_F(TensorArrayOpsTest, V2AndV1NamesUseStringHandles) {
  auto created = RunSingleOp("TensorArrayV2", {Tensor::Scalar<int32_t>(2)},
                             {{"dtype", MakeAttr(DType::kFloat)}, {"clear_after_read", MakeAttr(false)}});
  ASSERT_TRUE(created.ok()) << created.status().ToString();
  ASSERT_EQ(created->size(), 1u);
  Tensor h = (*created)[0];
  EXPECT_EQ(h.dtype(), DType::kString);
  auto unpack = RunSingleOp("TensorArrayUnpack", {h, Tensor::FromVector<float>({4, 5}), Tensor::Scalar<float>(0)},
                            {{"T", MakeAttr(DType::kFloat)}});
  ASSERT_TRUE(unpack.ok()) << unpack.status().ToString();
  auto read = RunSingleOp("TensorArrayReadV2", {h, Tensor::Scalar<int32_t>(1), Tensor::Scalar<float>(0)},
                          {{"dtype", MakeAttr(DType::kFloat)}});
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  EXPECT_EQ(Floats((*read)[0]), std::vector<float>({5}));
  auto pack = RunSingleOp("TensorArrayPack", {h, Tensor::Scalar<float>(0)}, {{"dtype", MakeAttr(DType::kFloat)}});
  ASSERT_TRUE(pack.ok()) << pack.status().ToString();
  EXPECT_EQ(Floats((*pack)[0]), std::vector<float>({4, 5}));
}

// Found by graph_kernel_fuzz: a TensorArray of 2^26 elements allocated 5 GiB
// of empty element slots outside the session's tensor memory limit. The
// slots now count against it, for arrays and lists alike.
TEST(TensorArraySlotsTest, SlotsPastTheSessionsMemoryLimitAreResourceExhaustedNotAllocated) {
  auto pool = BufferPool::Create(BufferPool::kDefaultMaxRetainedBytes, int64_t{1} << 20);
  BufferPool::ScopedCurrent current(pool.get());
  StepContainer step;
  ScopedStepContainer scoped(&step);
  const ir::AttrMap array_attrs = {{"dtype", MakeAttr(DType::kFloat)}};
  auto big = RunSingleOp("TensorArrayV3", {Tensor::Scalar<int32_t>(1 << 24)}, array_attrs);
  TFHOST_ASSERT_ERROR(big, StatusCode::kResourceExhausted, "a TensorArray of 16777216 elements needs");
  EXPECT_NE(big.status().message().find("more than the session's tensor memory limit of 1048576 bytes"),
            std::string::npos)
      << big.status().ToString();
  const ir::AttrMap list_attrs = {{"element_dtype", MakeAttr(DType::kFloat)}, {"shape_type", MakeAttr(DType::kInt32)}};
  auto list = RunSingleOp("TensorListReserve", {Tensor::Scalar<int32_t>(-1), Tensor::Scalar<int32_t>(1 << 24)},
                          list_attrs);
  TFHOST_ASSERT_ERROR(list, StatusCode::kResourceExhausted, "a list of 16777216 elements needs");
  // Within the limit both are made.
  EXPECT_TRUE(RunSingleOp("TensorArrayV3", {Tensor::Scalar<int32_t>(1000)}, array_attrs).ok());
  EXPECT_TRUE(RunSingleOp("TensorListReserve", {Tensor::Scalar<int32_t>(-1), Tensor::Scalar<int32_t>(1000)},
                          list_attrs).ok());
}

}  // namespace
}  // namespace tfhost::ops
