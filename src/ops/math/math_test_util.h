// Helpers shared by the math family's tests: build small tensors inline and run
// one op, failing the test (not crashing) when the op fails. Type attrs the
// test leaves out are taken from the inputs.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ops/run_single_op.h"

namespace tfhost::ops::math::math_test {

template <typename T>
Tensor Make(std::vector<T> values, Shape shape) {
  return Tensor::FromVector<T>(values, std::move(shape));
}
inline Tensor F32(std::vector<float> values, Shape shape) { return Make<float>(std::move(values), std::move(shape)); }
inline Tensor I32(std::vector<int32_t> values, Shape shape) { return Make<int32_t>(std::move(values), std::move(shape)); }

// Fills the type attrs (T, Tidx, SrcT, ...) and list lengths (N) that the
// caller left out from the input tensors, as a graph's node would carry them.
inline ir::AttrMap InferAttrs(const std::string& op, const std::vector<Tensor>& inputs,
                              ir::AttrMap attrs) {
  const OpRegistration* reg = OpRegistry::Global().Find(op);
  if (reg == nullptr) return attrs;
  size_t next = 0;
  for (const auto& arg : reg->def.input_arg()) {
    size_t count = 1;
    if (!arg.number_attr().empty()) {
      if (!attrs.count(arg.number_attr())) {
        attrs[arg.number_attr()] = MakeAttr(static_cast<int64_t>(inputs.size() - next));
      }
      count = static_cast<size_t>(attrs[arg.number_attr()].i());
    }
    if (!arg.type_attr().empty() && !attrs.count(arg.type_attr()) && next < inputs.size()) {
      attrs[arg.type_attr()] = MakeAttr(inputs[next].dtype());
    }
    next += count;
  }
  return attrs;
}

// Runs `op` and returns output 0; on failure records the status and returns an
// invalid tensor.
inline Tensor RunOp(const std::string& op, std::vector<Tensor> inputs, ir::AttrMap attrs = {},
                  ThreadPool* pool = nullptr) {
  attrs = InferAttrs(op, inputs, std::move(attrs));
  auto out = RunSingleOp(op, std::move(inputs), std::move(attrs), nullptr, pool);
  EXPECT_TRUE(out.ok()) << op << ": " << out.status().ToString();
  if (!out.ok() || out->empty()) return Tensor();
  return (*out)[0];
}

// Runs `op` expecting failure; returns the status.
inline Status RunOpError(const std::string& op, std::vector<Tensor> inputs, ir::AttrMap attrs = {}) {
  attrs = InferAttrs(op, inputs, std::move(attrs));
  auto out = RunSingleOp(op, std::move(inputs), std::move(attrs));
  EXPECT_FALSE(out.ok()) << op << " unexpectedly succeeded";
  return out.ok() ? OkStatus() : out.status();
}

template <typename T>
std::vector<T> Values(const Tensor& t) {
  if (!t.valid()) return {};
  return std::vector<T>(t.data<T>(), t.data<T>() + t.NumElements());
}

}  // namespace tfhost::ops::math::math_test
