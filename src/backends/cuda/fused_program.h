// _TfhostFusedElementwise on the CUDA backend: the node's program (ops,
// operands, alphas; ops/math/fused_elementwise.cc defines it) and its
// inputs' broadcasting, packed into one fixed-size struct that the kernel
// takes by value, and the per-element evaluation written once for the device
// and the host (fused_program_test.cc runs it against the reference kernel).
// Each output element evaluates the whole program in registers: inputs are
// read once and only the result is written, as the CPU kernel's blocks do.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backends/cuda/elementwise_functors.h"

#if !defined(__CUDACC__)
#include "base/shape.h"
#include "base/status.h"
#include "ir/attrs.h"
#include "ir/graph.h"
#endif

namespace tfhost::backends::cuda {

struct FusedProgram {
  static constexpr int kMaxInputs = 8;
  static constexpr int kMaxInstructions = 32;
  static constexpr int kMaxRank = 8;
  struct Instruction {
    int8_t binary = 0;  // 1: op is a BinaryOp, 0: a UnaryOp
    int8_t op = 0;
    int16_t a = -1, b = -1;  // slots: < num_inputs an input, else instruction (slot - num_inputs)
    float alpha = 0.2f;
  };
  int num_inputs = 0;
  int num_instructions = 0;
  Instruction ins[kMaxInstructions];
  // Broadcasting: the output's dims, and per input its element stride per
  // output dim (0 where it is broadcast). `direct` inputs have the output's
  // shape (offset i); `scalar` ones one element.
  int rank = 0;
  int64_t dims[kMaxRank] = {};
  int64_t strides[kMaxInputs][kMaxRank] = {};
  bool direct[kMaxInputs] = {};
  bool scalar[kMaxInputs] = {};
};

struct FusedInputs {
  const float* data[FusedProgram::kMaxInputs] = {};
};

// Output element i of the program.
TFHOST_HD float EvalFused(const FusedProgram& p, const FusedInputs& in, int64_t i) {
  float slot[FusedProgram::kMaxInputs + FusedProgram::kMaxInstructions];
  for (int k = 0; k < p.num_inputs; ++k) {
    int64_t off = i;
    if (p.scalar[k]) {
      off = 0;
    } else if (!p.direct[k]) {
      off = StridedOffset(p.dims, p.strides[k], p.rank, i);
    }
    slot[k] = in.data[k][off];
  }
  float y = 0.0f;
  for (int j = 0; j < p.num_instructions; ++j) {
    const FusedProgram::Instruction& ins = p.ins[j];
    y = ins.binary ? ApplyBinary(static_cast<BinaryOp>(ins.op), slot[ins.a], slot[ins.b])
                   : ApplyUnary(static_cast<UnaryOp>(ins.op), slot[ins.a], ins.alpha);
    slot[p.num_inputs + j] = y;
  }
  return y;
}

#if !defined(__CUDACC__)
// The op of one instruction as the GPU spells it; false when it has none.
inline bool FusedOpOf(const std::string& name, FusedProgram::Instruction* ins) {
  UnaryOp u;
  BinaryOp b;
  if (BinaryOpOf(name.c_str(), &b)) {
    ins->binary = 1;
    ins->op = static_cast<int8_t>(b);
    return true;
  }
  if (UnaryOpOf(name.c_str(), &u) || FusedActivationOf(name.c_str(), &u)) {
    ins->binary = 0;
    ins->op = static_cast<int8_t>(u);
    return true;
  }
  if (name == "LeakyRelu") {
    ins->binary = 0;
    ins->op = static_cast<int8_t>(UnaryOp::kLeakyRelu);
    return true;
  }
  return false;
}

// The program of a _TfhostFusedElementwise node over `num_inputs` inputs,
// without shapes (what Supports checks). Errors say what the GPU lacks.
inline StatusOr<FusedProgram> ParseFusedProgram(const ir::Node& node, int num_inputs) {
  FusedProgram p;
  auto ops = ir::GetAttr<std::vector<std::string>>(node, "ops");
  auto operands = ir::GetAttr<std::vector<int64_t>>(node, "operands");
  auto alphas = ir::GetAttrOr<std::vector<float>>(node, "alphas", {});
  if (!ops.ok() || !operands.ok() || !alphas.ok()) return InvalidArgument("ops, operands and alphas must be lists");
  if (num_inputs < 1 || num_inputs > FusedProgram::kMaxInputs) {
    return Unimplemented("the GPU's fused program takes 1 to " + std::to_string(FusedProgram::kMaxInputs) +
                         " inputs, not " + std::to_string(num_inputs));
  }
  const int n = static_cast<int>(ops->size());
  if (n < 1 || n > FusedProgram::kMaxInstructions || operands->size() != 2 * ops->size() ||
      (!alphas->empty() && alphas->size() != ops->size())) {
    return Unimplemented("the GPU's fused program takes 1 to " + std::to_string(FusedProgram::kMaxInstructions) +
                         " instructions with 2 operands each, not " + std::to_string(n));
  }
  p.num_inputs = num_inputs;
  p.num_instructions = n;
  for (int k = 0; k < n; ++k) {
    FusedProgram::Instruction& ins = p.ins[k];
    if (!FusedOpOf((*ops)[k], &ins)) return Unimplemented("no GPU kernel for fused op " + (*ops)[k]);
    const int64_t a = (*operands)[2 * k], b = (*operands)[2 * k + 1];
    if (a < 0 || a >= num_inputs + k || (ins.binary && (b < 0 || b >= num_inputs + k))) {
      return InvalidArgument("instruction " + std::to_string(k) + " reads a slot that is not an input or an earlier "
                             "instruction");
    }
    ins.a = static_cast<int16_t>(a);
    ins.b = static_cast<int16_t>(ins.binary ? b : -1);
    if (!alphas->empty()) ins.alpha = (*alphas)[k];
  }
  return p;
}

// Adds the inputs' shapes: sets *out to their broadcast shape and each
// input's indexing. InvalidArgument quoting the shapes that do not broadcast.
inline Status SetFusedShapes(FusedProgram* p, const std::vector<Shape>& inputs, Shape* out) {
  Shape joined = inputs[0];
  for (size_t k = 1; k < inputs.size(); ++k) {
    if (inputs[k] == joined) continue;
    auto both = BroadcastShapes(joined, inputs[k]);
    if (!both.ok()) {
      return InvalidArgument("inputs do not broadcast together: " + joined.ToString() + " and " +
                             inputs[k].ToString());
    }
    joined = std::move(*both);
  }
  if (joined.rank() > FusedProgram::kMaxRank) {
    return InvalidArgument("the GPU's fused program broadcasts at most " + std::to_string(FusedProgram::kMaxRank) +
                           " dims, got " + joined.ToString());
  }
  p->rank = joined.rank();
  for (int d = 0; d < p->rank; ++d) p->dims[d] = joined.dim(d);
  for (size_t k = 0; k < inputs.size(); ++k) {
    p->direct[k] = inputs[k] == joined;
    p->scalar[k] = !p->direct[k] && inputs[k].num_elements() == 1;
    int64_t stride = 1;
    for (int d = p->rank - 1; d >= 0; --d) {
      const int kd = d - (p->rank - inputs[k].rank());
      const int64_t size = kd >= 0 ? inputs[k].dim(kd) : 1;
      p->strides[k][d] = size == 1 ? 0 : stride;
      stride *= size;
    }
  }
  *out = joined;
  return OkStatus();
}
#endif

}  // namespace tfhost::backends::cuda
