#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "ops/tensor_array/tensor_list.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

Tensor Shape1(std::vector<int32_t> dims) { return Tensor::FromVector<int32_t>(dims); }
ir::AttrMap Elem(DType t = DType::kFloat) { return {{"element_dtype", MakeAttr(t)}}; }

Tensor Run1(const std::string& op, std::vector<Tensor> in, ir::AttrMap attrs = Elem()) {
  auto out = RunSingleOp(op, std::move(in), attrs);
  EXPECT_TRUE(out.ok()) << op << ": " << out.status().ToString();
  return out.ok() ? (*out)[0] : Tensor();
}

std::vector<float> Floats(const Tensor& t) { return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements()); }

TEST(TensorListOpsTest, FromTensorGetItemLengthAndStackRoundTrip) {
  Tensor t = Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, Shape({3, 2}));
  Tensor list = Run1("TensorListFromTensor", {t, Shape1({2})});
  EXPECT_EQ(list.dtype(), DType::kVariant);
  EXPECT_EQ(Run1("TensorListLength", {list}, {}).data<int32_t>()[0], 3);
  EXPECT_EQ(Floats(Run1("TensorListGetItem", {list, Tensor::Scalar<int32_t>(1), Shape1({2})})),
            std::vector<float>({3, 4}));
  Tensor stacked = Run1("TensorListStack", {list, Shape1({2})});
  EXPECT_TRUE(TensorsEqual(stacked, t));
  Tensor shape = Run1("TensorListElementShape", {list}, {{"shape_type", MakeAttr(DType::kInt32)}});
  EXPECT_EQ(shape.data<int32_t>()[0], 2);
}

TEST(TensorListOpsTest, SetItemLeavesTheInputListUnchanged) {
  Tensor list = Run1("TensorListReserve", {Shape1({2}), Tensor::Scalar<int32_t>(2)});
  Tensor updated = Run1("TensorListSetItem", {list, Tensor::Scalar<int32_t>(1), Tensor::FromVector<float>({7, 8})});
  // Unset element 0 reads as zeros (the element shape [2] is fully known).
  EXPECT_EQ(Floats(Run1("TensorListStack", {updated, Shape1({2})})), std::vector<float>({0, 0, 7, 8}));
  EXPECT_EQ(Floats(Run1("TensorListStack", {list, Shape1({2})})), std::vector<float>({0, 0, 0, 0}));
}

TEST(TensorListOpsTest, SetItemPushBackAndPopBackOnTheOnlyReferenceUpdateTheListInPlace) {
  // A loop body that owns its list hands SetItem the only reference: the
  // item is set in the same list instead of a copy of all of it.
  Tensor list = Run1("TensorListReserve", {Shape1({2}), Tensor::Scalar<int32_t>(3)});
  const VariantValue* before = list.variants()[0].get();
  std::vector<Tensor> inputs;  // not an initializer list, which would copy the list
  inputs.push_back(std::move(list));
  inputs.push_back(Tensor::Scalar<int32_t>(2));
  inputs.push_back(Tensor::FromVector<float>({7, 8}));
  Tensor updated = Run1("TensorListSetItem", std::move(inputs));
  EXPECT_EQ(updated.variants()[0].get(), before);
  EXPECT_EQ(Floats(Run1("TensorListStack", {updated, Shape1({2})})), std::vector<float>({0, 0, 0, 0, 7, 8}));
  // PushBack and PopBack likewise; a list someone else holds is copied.
  inputs.clear();
  inputs.push_back(std::move(updated));
  inputs.push_back(Tensor::FromVector<float>({9, 10}));
  Tensor pushed = Run1("TensorListPushBack", std::move(inputs));
  EXPECT_EQ(pushed.variants()[0].get(), before);
  Tensor kept = pushed;
  inputs.clear();
  inputs.push_back(std::move(pushed));
  inputs.push_back(Shape1({2}));
  auto popped = RunSingleOp("TensorListPopBack", std::move(inputs), Elem());
  ASSERT_TRUE(popped.ok()) << popped.status().ToString();
  EXPECT_NE((*popped)[0].variants()[0].get(), before);
  EXPECT_EQ(Floats((*popped)[1]), std::vector<float>({9, 10}));
  EXPECT_EQ(Run1("TensorListLength", {kept}, {}).data<int32_t>()[0], 4);
  EXPECT_EQ(Run1("TensorListLength", {(*popped)[0]}, {}).data<int32_t>()[0], 3);
}

TEST(TensorListOpsTest, PushBackPopBackAndConcat) {
  Tensor list = Run1("EmptyTensorList", {Tensor::Scalar<int32_t>(-1), Tensor::Scalar<int32_t>(-1)});
  list = Run1("TensorListPushBack", {list, Tensor::FromVector<float>({1, 2})});
  list = Run1("TensorListPushBack", {list, Tensor::FromVector<float>({3})});
  auto concat = RunSingleOp("TensorListConcatV2", {list, Tensor::Scalar<int32_t>(-1), Tensor(DType::kInt64, Shape({0}))},
                            {{"element_dtype", MakeAttr(DType::kFloat)}, {"shape_type", MakeAttr(DType::kInt32)}});
  ASSERT_TRUE(concat.ok()) << concat.status().ToString();
  EXPECT_EQ(Floats((*concat)[0]), std::vector<float>({1, 2, 3}));
  EXPECT_EQ((*concat)[1].data<int64_t>()[1], 1);
  auto popped = RunSingleOp("TensorListPopBack", {list, Tensor::Scalar<int32_t>(-1)}, Elem());
  ASSERT_TRUE(popped.ok()) << popped.status().ToString();
  EXPECT_EQ(Floats((*popped)[1]), std::vector<float>({3}));
  EXPECT_EQ(Run1("TensorListLength", {(*popped)[0]}, {}).data<int32_t>()[0], 1);
}

TEST(TensorListOpsTest, BadIndicesDTypesAndShapesAreErrors) {
  Tensor list = Run1("TensorListReserve", {Shape1({2}), Tensor::Scalar<int32_t>(2)});
  TFHOST_EXPECT_ERROR(RunSingleOp("TensorListGetItem", {list, Tensor::Scalar<int32_t>(2), Shape1({2})}, Elem()), StatusCode::kInvalidArgument,
                      "index 2 is out of range for a list of 2 elements");
  EXPECT_FALSE(RunSingleOp("TensorListSetItem", {list, Tensor::Scalar<int32_t>(-1), Tensor::FromVector<float>({1, 2})},
                           Elem()).ok());
  EXPECT_FALSE(
      RunSingleOp("TensorListSetItem", {list, Tensor::Scalar<int32_t>(0), Tensor::FromVector<float>({1, 2, 3})}, Elem())
          .ok());
  TFHOST_EXPECT_ERROR(RunSingleOp("TensorListGetItem", {list, Tensor::Scalar<int32_t>(0), Shape1({2})}, Elem(DType::kInt32)), StatusCode::kInvalidArgument,
                      "element_dtype is int32 but the list holds float32");
  TFHOST_EXPECT_ERROR(RunSingleOp("TensorListReserve", {Shape1({2}), Tensor::Scalar<int32_t>(-3)}, Elem()), StatusCode::kInvalidArgument,
                      "num_elements must be in [0, 67108864], got -3");
  TFHOST_EXPECT_ERROR(RunSingleOp("TensorListLength", {Tensor::Scalar<float>(1)}, {}), StatusCode::kInvalidArgument,
                      "input 0 'input_handle' (dtype from the schema) is float32, expected variant");
  Tensor empty = Run1("EmptyTensorList", {Tensor::Scalar<int32_t>(-1), Tensor::Scalar<int32_t>(-1)});
  TFHOST_EXPECT_ERROR(RunSingleOp("TensorListPopBack", {empty, Tensor::Scalar<int32_t>(-1)}, Elem()), StatusCode::kInvalidArgument,
                      "cannot pop from an empty list");
  // Stacking unset elements of unknown shape has no zeros to offer.
  Tensor unknown = Run1("TensorListReserve", {Tensor::Scalar<int32_t>(-1), Tensor::Scalar<int32_t>(2)});
  TFHOST_EXPECT_ERROR(RunSingleOp("TensorListStack", {unknown, Tensor::Scalar<int32_t>(-1)}, Elem()), StatusCode::kInvalidArgument,
                      "cannot stack 2 unset elements: the element shape <unknown> is not fully defined");
}

TEST(TensorListOpsTest, ScatterAndSplitBuildListsFromRows) {
  Tensor rows = Tensor::FromVector<float>({1, 2, 3, 4}, Shape({2, 2}));
  ir::AttrMap attrs = {{"element_dtype", MakeAttr(DType::kFloat)}, {"shape_type", MakeAttr(DType::kInt32)}};
  // Rows go to indices 2 and 0 of a 3-element list; element 1 stays unset.
  auto scattered = RunSingleOp("TensorListScatterV2",
                               {rows, Tensor::FromVector<int32_t>({2, 0}), Shape1({2}), Tensor::Scalar<int32_t>(3)}, attrs);
  ASSERT_TRUE(scattered.ok()) << scattered.status().ToString();
  EXPECT_EQ(Floats(Run1("TensorListStack", {(*scattered)[0], Shape1({2})})), std::vector<float>({3, 4, 0, 0, 1, 2}));
  Tensor list = Run1("TensorListReserve", {Shape1({2}), Tensor::Scalar<int32_t>(2)});
  Tensor into = Run1("TensorListScatterIntoExistingList", {list, rows, Tensor::FromVector<int32_t>({1, 0})});
  EXPECT_EQ(Floats(Run1("TensorListStack", {into, Shape1({2})})), std::vector<float>({3, 4, 1, 2}));
  // Split [3, 1] rows into pieces of 1 and 2 rows.
  auto split = RunSingleOp("TensorListSplit",
                           {Tensor::FromVector<float>({5, 6, 7}, Shape({3, 1})), Tensor::Scalar<int32_t>(-1),
                            Tensor::FromVector<int64_t>({1, 2})},
                           attrs);
  ASSERT_TRUE(split.ok()) << split.status().ToString();
  EXPECT_EQ(Floats(Run1("TensorListGetItem", {(*split)[0], Tensor::Scalar<int32_t>(1), Tensor::Scalar<int32_t>(-1)})),
            std::vector<float>({6, 7}));
  EXPECT_FALSE(RunSingleOp("TensorListSplit",
                           {Tensor::FromVector<float>({5, 6, 7}, Shape({3, 1})), Tensor::Scalar<int32_t>(-1),
                            Tensor::FromVector<int64_t>({1, 1})},
                           attrs)
                   .ok());
}

TEST(TensorListOpsTest, TensorFlow20ScatterAndConcatNames) {
  Tensor rows = Tensor::FromVector<float>({1, 2, 3, 4}, Shape({2, 2}));
  ir::AttrMap attrs = {{"element_dtype", MakeAttr(DType::kFloat)}, {"shape_type", MakeAttr(DType::kInt32)}};
  // TensorListScatter has no num_elements: the list ends at the largest index.
  auto scattered = RunSingleOp("TensorListScatter", {rows, Tensor::FromVector<int32_t>({1, 0}), Shape1({2})}, attrs);
  ASSERT_TRUE(scattered.ok()) << scattered.status().ToString();
  EXPECT_EQ(Floats(Run1("TensorListStack", {(*scattered)[0], Shape1({2})})), std::vector<float>({3, 4, 1, 2}));
  // TensorListConcat reads the element shape from its attr.
  auto concat = RunSingleOp("TensorListConcat", {(*scattered)[0]}, {{"element_dtype", MakeAttr(DType::kFloat)}});
  ASSERT_TRUE(concat.ok()) << concat.status().ToString();
  EXPECT_EQ(Floats((*concat)[0]), std::vector<float>({3, 4, 1, 2}));
  EXPECT_TRUE(TensorsEqual((*concat)[1], Tensor::FromVector<int64_t>({2, 2})));
}

}  // namespace
}  // namespace tfhost::ops
