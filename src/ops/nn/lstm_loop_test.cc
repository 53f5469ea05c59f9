#include "ops/nn/lstm_loop.h"

#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "ops/nn/lstm_cell.h"
#include "ops/run_single_op.h"
#include "ops/tensor_array/tensor_list.h"

namespace tfhost::ops::nn {
namespace {

using tensor_array::TensorList;

Tensor Wave(const Shape& shape, float scale, float shift) {
  Tensor t(DType::kFloat, shape);
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = std::sin(0.37f * i + shift) * scale;
  return t;
}

// A list of `n` elements: `items` first, the rest unset.
Tensor List(std::vector<Tensor> items, int64_t n, const ir::PartialShape& element_shape) {
  auto list = std::make_shared<TensorList>();
  list->element_dtype = DType::kFloat;
  list->element_shape = element_shape;
  list->items = std::move(items);
  list->items.resize(n);
  return tensor_array::ListTensor(std::move(list));
}

const TensorList& ListOf(const Tensor& t) { return static_cast<const TensorList&>(*t.variants()[0]); }

// A layer of `units` over `steps` steps of `rows` rows, as Keras's loop
// variables order them: counter, limit, time, outputs, h, c, then the
// projection list, the recurrent kernel and the bias.
struct Layer {
  int64_t rows, units, steps;
  std::vector<Tensor> projected;  // x_t times the input kernel, [rows, 4 units]
  Tensor kernel, bias, h0, c0;

  Layer(int64_t rows_in, int64_t units_in, int64_t steps_in) : rows(rows_in), units(units_in), steps(steps_in) {
    for (int64_t t = 0; t < steps; ++t) projected.push_back(Wave(Shape({rows, 4 * units}), 1.5f, 0.3f * t));
    kernel = Wave(Shape({units, 4 * units}), 0.4f, 1.1f);
    bias = Wave(Shape({4 * units}), 0.2f, 2.0f);
    h0 = Wave(Shape({rows, units}), 0.5f, 0.7f);
    c0 = Wave(Shape({rows, units}), 0.8f, 0.9f);
  }

  std::vector<Tensor> Inputs(int32_t limit, int64_t output_slots) const {
    return {Tensor::Scalar<int32_t>(0),
            Tensor::Scalar<int32_t>(limit),
            Tensor::Scalar<int32_t>(0),
            List({}, output_slots, ir::PartialShape::Known({-1, units})),
            h0,
            c0,
            List(projected, steps, ir::PartialShape::Known({-1, 4 * units})),
            kernel,
            bias};
  }
};

ir::AttrMap Attrs(int64_t steps, int64_t output_slot = -1) {
  ir::AttrMap attrs;
  std::vector<DType> types = {DType::kInt32, DType::kInt32,   DType::kInt32, DType::kVariant, DType::kFloat,
                              DType::kFloat, DType::kVariant, DType::kFloat, DType::kFloat};
  attrs["T"] = MakeAttr(types);
  for (int k = 0; k < 9; ++k) attrs[kLstmLoopRoleAttrs[k]] = MakeAttr(static_cast<int64_t>(k));
  attrs["steps"] = MakeAttr(steps);
  attrs["output_slot"] = MakeAttr(output_slot);
  return attrs;
}

Tensor One(const std::string& op, std::vector<Tensor> in, ir::AttrMap attrs, int output = 0) {
  auto out = RunSingleOp(op, std::move(in), std::move(attrs));
  EXPECT_TRUE(out.ok()) << op << ": " << out.status().ToString();
  return out.ok() ? (*out)[output] : Tensor();
}

void ExpectBitEqual(const Tensor& a, const Tensor& b) {
  ASSERT_TRUE(a.valid() && b.valid());
  ASSERT_EQ(a.shape(), b.shape());
  for (int64_t i = 0; i < a.NumElements(); ++i) EXPECT_EQ(a.data<float>()[i], b.data<float>()[i]) << i;
}

TEST(LstmLoopTest, GivesTheStepOpsValuesBitForBitWithEveryLoopVariable) {
  const Layer layer(3, 5, 4);
  auto out = RunSingleOp(kLstmLoopOp, layer.Inputs(100, layer.steps), Attrs(layer.steps));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), 9u);
  // The same steps through the reference MatMul and _TfhostLstmCell.
  const ir::AttrMap f32 = {{"T", MakeAttr(DType::kFloat)}};
  Tensor h = layer.h0, c = layer.c0;
  for (int64_t t = 0; t < layer.steps; ++t) {
    Tensor y = One("MatMul", {h, layer.kernel}, f32);
    Tensor h_next = One(kLstmCellOp, {layer.projected[t], y, layer.bias, c}, f32, 0);
    c = One(kLstmCellOp, {layer.projected[t], y, layer.bias, c}, f32, 1);
    h = h_next;
    ExpectBitEqual(ListOf((*out)[3]).items[t], h);
  }
  ExpectBitEqual((*out)[4], h);
  ExpectBitEqual((*out)[5], c);
  EXPECT_EQ((*out)[0].data<int32_t>()[0], 4);  // counter
  EXPECT_EQ((*out)[1].data<int32_t>()[0], 100);  // limit, passed through
  EXPECT_EQ((*out)[2].data<int32_t>()[0], 4);  // time
  EXPECT_TRUE((*out)[7].SharesBufferWith(layer.kernel));
}

TEST(LstmLoopTest, TheCounterLimitStopsTheLoopAsTheConditionWould) {
  const Layer layer(1, 4, 6);
  auto out = RunSingleOp(kLstmLoopOp, layer.Inputs(2, layer.steps), Attrs(layer.steps));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].data<int32_t>()[0], 2);
  EXPECT_EQ((*out)[2].data<int32_t>()[0], 2);
  const TensorList& outputs = ListOf((*out)[3]);
  EXPECT_TRUE(outputs.items[1].valid());
  EXPECT_FALSE(outputs.items[2].valid());
  // A limit already reached runs no step: every output is its input.
  auto none = RunSingleOp(kLstmLoopOp, layer.Inputs(0, layer.steps), Attrs(layer.steps));
  ASSERT_TRUE(none.ok());
  ExpectBitEqual((*none)[4], layer.h0);
  EXPECT_EQ((*none)[2].data<int32_t>()[0], 0);
}

TEST(LstmLoopTest, AFixedOutputSlotKeepsOnlyTheLastH) {
  const Layer layer(2, 3, 5);
  auto out = RunSingleOp(kLstmLoopOp, layer.Inputs(100, 1), Attrs(layer.steps, /*output_slot=*/0));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  const TensorList& outputs = ListOf((*out)[3]);
  ASSERT_EQ(outputs.items.size(), 1u);
  ExpectBitEqual(outputs.items[0], (*out)[4]);
}

TEST(LstmLoopTest, RowsBroadcastFromOneAsTheCellBroadcastsThem) {
  // h0 and c0 of one row, inputs of three: step 0 broadcasts, then h has 3.
  Layer layer(3, 4, 3);
  layer.h0 = Wave(Shape({1, 4}), 0.5f, 0.1f);
  layer.c0 = Wave(Shape({1, 4}), 0.5f, 0.2f);
  auto out = RunSingleOp(kLstmLoopOp, layer.Inputs(100, layer.steps), Attrs(layer.steps));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[4].shape(), Shape({3, 4}));
}

// A list of bool [rows, 1] masks: row r is masked out from step cut[r] on.
Tensor MaskList(int64_t rows, int64_t steps, const std::vector<int64_t>& cut) {
  std::vector<Tensor> items;
  for (int64_t t = 0; t < steps; ++t) {
    Tensor m(DType::kBool, Shape({rows, 1}));
    for (int64_t r = 0; r < rows; ++r) m.data<bool>()[r] = t < cut[r];
    items.push_back(m);
  }
  auto list = std::make_shared<TensorList>();
  list->element_dtype = DType::kBool;
  list->element_shape = ir::PartialShape::Known({-1, 1});
  list->items = std::move(items);
  return tensor_array::ListTensor(std::move(list));
}

TEST(LstmLoopTest, AMaskedLayerKeepsEachRowsStatesAndOutputWhereItsMaskIsFalseAsSelectV2Would) {
  const Layer layer(3, 4, 5);
  std::vector<Tensor> inputs = layer.Inputs(100, layer.steps);
  const Tensor output0 = Wave(Shape({3, 4}), 0.3f, 0.4f);
  inputs.push_back(MaskList(3, layer.steps, {5, 2, 0}));
  inputs.push_back(output0);
  ir::AttrMap attrs = Attrs(layer.steps);
  std::vector<DType> types = {DType::kInt32, DType::kInt32, DType::kInt32, DType::kVariant, DType::kFloat, DType::kFloat,
                              DType::kVariant, DType::kFloat, DType::kFloat, DType::kVariant, DType::kFloat};
  attrs["T"] = MakeAttr(types);
  attrs["mask_index"] = MakeAttr(int64_t{9});
  attrs["output_state_index"] = MakeAttr(int64_t{10});
  attrs["mask_units"] = MakeAttr(int64_t{1});
  auto out = RunSingleOp(kLstmLoopOp, inputs, attrs);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // The step through the ops Keras's masked body runs.
  const ir::AttrMap f32 = {{"T", MakeAttr(DType::kFloat)}};
  const TensorList& masks = ListOf(inputs[9]);
  Tensor h = layer.h0, c = layer.c0, o = output0;
  for (int64_t t = 0; t < layer.steps; ++t) {
    Tensor y = One("MatMul", {h, layer.kernel}, f32);
    Tensor h_new = One(kLstmCellOp, {layer.projected[t], y, layer.bias, c}, f32, 0);
    Tensor c_new = One(kLstmCellOp, {layer.projected[t], y, layer.bias, c}, f32, 1);
    const Tensor& m = masks.items[t];
    o = One("SelectV2", {m, h_new, o}, f32);
    h = One("SelectV2", {m, h_new, h}, f32);
    c = One("SelectV2", {m, c_new, c}, f32);
    ExpectBitEqual(ListOf((*out)[3]).items[t], o);
  }
  ExpectBitEqual((*out)[4], h);
  ExpectBitEqual((*out)[5], c);
  ExpectBitEqual((*out)[10], o);
  // Row 2 was masked from the start: its output stays output0's row.
  EXPECT_EQ((*out)[10].data<float>()[8], output0.data<float>()[8]);
  // A mask tiled to a width that does not broadcast is refused.
  attrs["mask_units"] = MakeAttr(int64_t{3});
  auto bad = RunSingleOp(kLstmLoopOp, inputs, attrs);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("the mask is tiled to 3 columns (attr mask_units), which do not broadcast "
                                        "against the layer's 4 units"),
            std::string::npos)
      << bad.status().ToString();
}

TEST(LstmLoopTest, BadInputsAreErrorsNamingTheNodeTheStepAndWhatWasExpected) {
  const Layer layer(1, 4, 3);
  // The steps bound past the projected list: step 3 reads past its end.
  auto past = RunSingleOp(kLstmLoopOp, layer.Inputs(100, 8), Attrs(8));
  ASSERT_FALSE(past.ok());
  EXPECT_EQ(past.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(past.status().message().find("step 3: index 3 is out of range for the projected input's list of 3"),
            std::string::npos)
      << past.status().ToString();
  EXPECT_NE(past.status().message().find(kLstmLoopOp), std::string::npos);
  // An outputs list shorter than the steps.
  auto short_out = RunSingleOp(kLstmLoopOp, layer.Inputs(100, 2), Attrs(layer.steps));
  ASSERT_FALSE(short_out.ok());
  EXPECT_EQ(short_out.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(short_out.status().message().find("step 2: index 2 is out of range for the outputs' list of 2"),
            std::string::npos)
      << short_out.status().ToString();
  // h whose width does not match the kernel.
  std::vector<Tensor> wide = layer.Inputs(100, layer.steps);
  wide[4] = Wave(Shape({1, 5}), 1, 0);
  auto bad_h = RunSingleOp(kLstmLoopOp, wide, Attrs(layer.steps));
  ASSERT_FALSE(bad_h.ok());
  EXPECT_EQ(bad_h.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad_h.status().message().find("step 0: h [1,5] cannot multiply the recurrent kernel [4,16]"),
            std::string::npos)
      << bad_h.status().ToString();
  // A counter that is not an int32 scalar.
  std::vector<Tensor> vector_counter = layer.Inputs(100, layer.steps);
  vector_counter[0] = Tensor(DType::kInt32, Shape({2}));
  auto bad_counter = RunSingleOp(kLstmLoopOp, vector_counter, Attrs(layer.steps));
  ASSERT_FALSE(bad_counter.ok());
  EXPECT_EQ(bad_counter.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad_counter.status().message().find("the iteration counter (input 0) must be an int32 scalar"),
            std::string::npos)
      << bad_counter.status().ToString();
  // Two roles on one input.
  ir::AttrMap twice = Attrs(layer.steps);
  twice["c_index"] = MakeAttr(int64_t{4});
  auto bad_roles = RunSingleOp(kLstmLoopOp, layer.Inputs(100, layer.steps), twice);
  ASSERT_FALSE(bad_roles.ok());
  EXPECT_EQ(bad_roles.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad_roles.status().message().find("attr c_index names input 4, which another role already names"),
            std::string::npos)
      << bad_roles.status().ToString();
  // A bias of the wrong width.
  std::vector<Tensor> narrow = layer.Inputs(100, layer.steps);
  narrow[8] = Wave(Shape({12}), 1, 0);
  auto bad_bias = RunSingleOp(kLstmLoopOp, narrow, Attrs(layer.steps));
  ASSERT_FALSE(bad_bias.ok());
  EXPECT_EQ(bad_bias.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad_bias.status().message().find("the recurrent kernel [4,16] and bias [12] must be"), std::string::npos)
      << bad_bias.status().ToString();
}

}  // namespace
}  // namespace tfhost::ops::nn
