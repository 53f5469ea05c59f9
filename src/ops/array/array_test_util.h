// Test-only helpers for the array op tests: short tensor constructors and a
// RunSingleOp wrapper that reports the failing status.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ops/run_single_op.h"

namespace tfhost::ops::array::test_util {

inline Tensor F32(const std::vector<float>& v, Shape s) { return Tensor::FromVector(v, std::move(s)); }
inline Tensor I32(const std::vector<int32_t>& v, Shape s) { return Tensor::FromVector(v, std::move(s)); }
inline Tensor I64(const std::vector<int64_t>& v, Shape s) { return Tensor::FromVector(v, std::move(s)); }
inline Tensor I32(const std::vector<int32_t>& v) { return Tensor::FromVector(v); }
inline Tensor I64(const std::vector<int64_t>& v) { return Tensor::FromVector(v); }
inline Tensor Str(const std::vector<std::string>& v, Shape s) {
  return Tensor::FromVector(v, std::move(s));
}
// 0, 1, 2, ... as float32 of the given shape.
inline Tensor Iota(Shape s) {
  Tensor t(DType::kFloat, std::move(s));
  for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = static_cast<float>(i);
  return t;
}

inline std::vector<float> Floats(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
}
inline std::vector<int64_t> Ints(const Tensor& t) { return *t.ToInt64Vector(); }
inline std::vector<std::string> Strings(const Tensor& t) {
  return std::vector<std::string>(t.strings(), t.strings() + t.NumElements());
}

// Runs `op` and expects success; returns the outputs (empty on failure).
inline std::vector<Tensor> RunOp(const std::string& op, std::vector<Tensor> inputs,
                               ir::AttrMap attrs) {
  auto result = RunSingleOp(op, std::move(inputs), std::move(attrs));
  EXPECT_TRUE(result.ok()) << op << ": " << result.status().ToString();
  if (!result.ok()) return {};
  return *result;
}

// Runs `op` and returns its error (OK if it unexpectedly succeeded).
inline Status RunError(const std::string& op, std::vector<Tensor> inputs, ir::AttrMap attrs) {
  auto result = RunSingleOp(op, std::move(inputs), std::move(attrs));
  return result.ok() ? OkStatus() : result.status();
}

}  // namespace tfhost::ops::array::test_util
