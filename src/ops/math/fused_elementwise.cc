// _TfhostFusedElementwise: a chain (or small DAG) of float element-wise ops
// evaluated in one pass over memory. tfhost's elementwise_fusion graph pass
// (src/passes/elementwise_fusion.cc) writes it; models never contain it.
//
// The program is in the attrs:
//   ops:      one op name per instruction, TensorFlow spelling: binary Add,
//             AddV2, Sub, Mul, Div, RealDiv, Maximum, Minimum,
//             SquaredDifference, Pow; unary Neg, Abs, Square, Sqrt, Rsqrt, Exp,
//             Log, Reciprocal, Inv, Floor, Ceil, Erf, Tanh, Sigmoid, Relu,
//             Relu6, Elu, Selu, Softplus, Softsign, LeakyRelu; and GeluExact,
//             GeluApproximate (fused_ops spelling; gelu_fusion writes them).
//   operands: two slots per instruction (the second -1 for unary ops). Slot
//             s < N is input s; slot N + k is instruction k's result (k must
//             be earlier).
//   alphas:   one float per instruction (LeakyRelu's alpha; ignored
//             otherwise), or empty for all 0.2.
// The output is the last instruction's result. Inputs broadcast NumPy-style
// to one output shape; element-wise ops commute with broadcasting, so this is
// exactly what the unfused ops compute, and each instruction uses the same
// expression as its standalone kernel (bit-identical results).
//
// Why it is faster than the separate ops even without SIMD: the output is
// computed in blocks of kBlock elements, every intermediate lives in a
// kBlock-sized scratch buffer reused by liveness (a few KiB, in L1), so each
// input is read once and the output written once, instead of one full
// tensor written and read back per op.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include "ops/math/fused_elementwise.h"

#include "ops/math/broadcast.h"
#include "ops/math/math_ops.h"
#include "ops/math/math_util.h"
#include "ops/nn/fused_activation.h"

namespace tfhost::ops::math {
namespace {

constexpr int64_t kBlock = 512;         // 2 KiB of floats per buffer
constexpr int kMaxInstructions = 256;   // bounds scratch per worker

enum class Code {
  kAdd, kSub, kMul, kDiv, kMax, kMin, kSquaredDiff, kPow,  // binary
  kNeg, kAbs, kSquare, kSqrt, kRsqrt, kExp, kLog, kReciprocal, kFloor, kCeil, kErf, kSigmoid,
  kActivation,  // nn::ApplyActivation
};

struct Instruction {
  Code code;
  FusedUnaryFn fast = nullptr;  // a backend's replacement of the block loop
  nn::Activation act = nn::Activation::kNone;
  float alpha = 0.2f;
  int a = -1, b = -1;  // operand slots
  int buffer = -1;     // scratch buffer of the result (-1: the output)
};

std::optional<std::pair<Code, nn::Activation>> Decode(const std::string& op, int* arity) {
  using A = nn::Activation;
  static const std::map<std::string, std::pair<Code, A>> kBinary = {
      {"Add", {Code::kAdd, A::kNone}},       {"AddV2", {Code::kAdd, A::kNone}},
      {"Sub", {Code::kSub, A::kNone}},       {"Mul", {Code::kMul, A::kNone}},
      {"Div", {Code::kDiv, A::kNone}},       {"RealDiv", {Code::kDiv, A::kNone}},
      {"Maximum", {Code::kMax, A::kNone}},   {"Minimum", {Code::kMin, A::kNone}},
      {"SquaredDifference", {Code::kSquaredDiff, A::kNone}}, {"Pow", {Code::kPow, A::kNone}}};
  static const std::map<std::string, std::pair<Code, A>> kUnary = {
      {"Neg", {Code::kNeg, A::kNone}},         {"Abs", {Code::kAbs, A::kNone}},
      {"Square", {Code::kSquare, A::kNone}},   {"Sqrt", {Code::kSqrt, A::kNone}},
      {"Rsqrt", {Code::kRsqrt, A::kNone}},     {"Exp", {Code::kExp, A::kNone}},
      {"Log", {Code::kLog, A::kNone}},         {"Reciprocal", {Code::kReciprocal, A::kNone}},
      {"Inv", {Code::kReciprocal, A::kNone}},  {"Floor", {Code::kFloor, A::kNone}},
      {"Ceil", {Code::kCeil, A::kNone}},       {"Erf", {Code::kErf, A::kNone}},
      {"Sigmoid", {Code::kSigmoid, A::kNone}}, {"Tanh", {Code::kActivation, A::kTanh}},
      {"Relu", {Code::kActivation, A::kRelu}}, {"Relu6", {Code::kActivation, A::kRelu6}},
      {"Elu", {Code::kActivation, A::kElu}},   {"Selu", {Code::kActivation, A::kSelu}},
      {"Softplus", {Code::kActivation, A::kSoftplus}},
      {"Softsign", {Code::kActivation, A::kSoftsign}},
      {"LeakyRelu", {Code::kActivation, A::kLeakyRelu}},
      // Not TensorFlow ops: the GELU forms passes/gelu_fusion.cc recognizes,
      // with the fused_ops spelling and _FusedMatMul's formula.
      {"GeluExact", {Code::kActivation, A::kGeluExact}},
      {"GeluApproximate", {Code::kActivation, A::kGeluApproximate}}};
  if (auto it = kBinary.find(op); it != kBinary.end()) {
    *arity = 2;
    return it->second;
  }
  if (auto it = kUnary.find(op); it != kUnary.end()) {
    *arity = 1;
    return it->second;
  }
  return std::nullopt;
}

struct Program {
  std::vector<Instruction> instructions;
  int num_buffers = 0;
};

// Parses and checks the program of `node` (attrs ops, operands, alphas)
// over `num_inputs` inputs; assigns scratch buffers by liveness.
StatusOr<Program> ParseProgram(const ir::Node& node, int num_inputs, const FusedUnaryOverrides& overrides) {
  const auto error = [&](const std::string& what) { return InvalidArgument(ir::NodeContext(node) + ": " + what); };
  TFHOST_ASSIGN_OR_RETURN(auto ops, ir::GetAttr<std::vector<std::string>>(node, "ops"));
  TFHOST_ASSIGN_OR_RETURN(auto operands, ir::GetAttr<std::vector<int64_t>>(node, "operands"));
  TFHOST_ASSIGN_OR_RETURN(auto alphas, ir::GetAttrOr<std::vector<float>>(node, "alphas", {}));
  if (ops.empty() || static_cast<int>(ops.size()) > kMaxInstructions) {
    return error("ops must list 1 to " + std::to_string(kMaxInstructions) + " instructions, got " +
                     std::to_string(ops.size()));
  }
  if (operands.size() != 2 * ops.size()) {
    return error("operands must have 2 entries per instruction (" + std::to_string(2 * ops.size()) +
                     "), got " + std::to_string(operands.size()));
  }
  if (!alphas.empty() && alphas.size() != ops.size()) {
    return error("alphas must be empty or have one entry per instruction (" + std::to_string(ops.size()) +
                     "), got " + std::to_string(alphas.size()));
  }
  const int n = static_cast<int>(ops.size());
  std::vector<Instruction> program(n);
  std::vector<int> last_use(n, -1);
  for (int k = 0; k < n; ++k) {
    int arity = 0;
    auto decoded = Decode(ops[k], &arity);
    if (!decoded) {
      return Unimplemented(ir::NodeContext(node) + ": instruction " + std::to_string(k) + " op '" + ops[k] +
                           "' is not a fusable element-wise op");
    }
    Instruction& ins = program[k];
    ins.code = decoded->first;
    ins.act = decoded->second;
    if (!alphas.empty()) ins.alpha = alphas[k];
    if (arity == 1) {
      auto fast = overrides.find(ops[k]);
      if (fast != overrides.end()) ins.fast = fast->second;
    }
    const int64_t slots[2] = {operands[2 * k], operands[2 * k + 1]};
    for (int j = 0; j < 2; ++j) {
      const int64_t s = slots[j];
      if (j >= arity) {
        if (s != -1) {
          return error("instruction " + std::to_string(k) + " (" + ops[k] + ") is unary; operand 1 must be -1, got " +
                           std::to_string(s));
        }
        continue;
      }
      if (s < 0 || s >= num_inputs + k) {
        return error("instruction " + std::to_string(k) + " operand " + std::to_string(j) + " is slot " +
                         std::to_string(s) + ", expected an input (< " + std::to_string(num_inputs) +
                         ") or an earlier instruction (< " + std::to_string(num_inputs + k) + ")");
      }
      if (s >= num_inputs) last_use[s - num_inputs] = k;
    }
    ins.a = static_cast<int>(slots[0]);
    ins.b = static_cast<int>(slots[1]);
  }
  // Buffer allocation: a result's buffer is free after its last reader; the
  // last instruction writes the output.
  std::vector<int> free_buffers;
  int buffers = 0;
  for (int k = 0; k < n; ++k) {
    for (int s : {program[k].a, program[k].b}) {
      if (s >= num_inputs && last_use[s - num_inputs] == k && program[s - num_inputs].buffer >= 0) {
        const int buf = program[s - num_inputs].buffer;
        if (std::find(free_buffers.begin(), free_buffers.end(), buf) == free_buffers.end()) free_buffers.push_back(buf);
      }
    }
    if (k == n - 1) break;
    if (free_buffers.empty()) {
      program[k].buffer = buffers++;
    } else {
      program[k].buffer = free_buffers.back();
      free_buffers.pop_back();
    }
  }
  return Program{std::move(program), buffers};
}

inline float MaxOf(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<float>::quiet_NaN();
  return a > b ? a : b;
}
inline float MinOf(float a, float b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<float>::quiet_NaN();
  return a < b ? a : b;
}
inline float SigmoidOf(float x) {
  if (x >= 0) return 1.f / (1.f + std::exp(-x));
  const float e = std::exp(x);
  return e / (1.f + e);
}

// Sanitized builds compile one clone: an ifunc resolver runs while the
// dynamic loader relocates, before a sanitizer's runtime is up, and an
// instrumented resolver crashes there (every TSan test binary did).
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define TFHOST_ISA_CLONES
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define TFHOST_ISA_CLONES
#endif
#endif
#ifndef TFHOST_ISA_CLONES
#define TFHOST_ISA_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#endif

// One instruction over `len` values; y may alias x or z. Cloned per ISA and
// picked at load time (ifunc), so the plain loops vectorize with AVX2 or
// AVX-512 where the CPU has them; each loop body is one operation, so no
// multiply-add contraction can change a result.
TFHOST_ISA_CLONES
void Execute(const Instruction& ins, const float* x, const float* z, float* y, int64_t len) {
  if (ins.fast != nullptr) {
    ins.fast(x, y, len, ins.alpha);
    return;
  }
  switch (ins.code) {
    case Code::kAdd: for (int64_t i = 0; i < len; ++i) y[i] = x[i] + z[i]; break;
    case Code::kSub: for (int64_t i = 0; i < len; ++i) y[i] = x[i] - z[i]; break;
    case Code::kMul: for (int64_t i = 0; i < len; ++i) y[i] = x[i] * z[i]; break;
    case Code::kDiv: for (int64_t i = 0; i < len; ++i) y[i] = x[i] / z[i]; break;
    case Code::kMax: for (int64_t i = 0; i < len; ++i) y[i] = MaxOf(x[i], z[i]); break;
    case Code::kMin: for (int64_t i = 0; i < len; ++i) y[i] = MinOf(x[i], z[i]); break;
    case Code::kSquaredDiff:
      for (int64_t i = 0; i < len; ++i) {
        const float d = x[i] - z[i];
        y[i] = d * d;
      }
      break;
    case Code::kPow: for (int64_t i = 0; i < len; ++i) y[i] = std::pow(x[i], z[i]); break;
    case Code::kNeg: for (int64_t i = 0; i < len; ++i) y[i] = -x[i]; break;
    case Code::kAbs: for (int64_t i = 0; i < len; ++i) y[i] = std::fabs(x[i]); break;
    case Code::kSquare: for (int64_t i = 0; i < len; ++i) y[i] = x[i] * x[i]; break;
    case Code::kSqrt: for (int64_t i = 0; i < len; ++i) y[i] = std::sqrt(x[i]); break;
    case Code::kRsqrt: for (int64_t i = 0; i < len; ++i) y[i] = 1.f / std::sqrt(x[i]); break;
    case Code::kExp: for (int64_t i = 0; i < len; ++i) y[i] = std::exp(x[i]); break;
    case Code::kLog: for (int64_t i = 0; i < len; ++i) y[i] = std::log(x[i]); break;
    case Code::kReciprocal: for (int64_t i = 0; i < len; ++i) y[i] = 1.f / x[i]; break;
    case Code::kFloor: for (int64_t i = 0; i < len; ++i) y[i] = std::floor(x[i]); break;
    case Code::kCeil: for (int64_t i = 0; i < len; ++i) y[i] = std::ceil(x[i]); break;
    case Code::kErf: for (int64_t i = 0; i < len; ++i) y[i] = std::erf(x[i]); break;
    case Code::kSigmoid: for (int64_t i = 0; i < len; ++i) y[i] = SigmoidOf(x[i]); break;
    case Code::kActivation:
      if (y != x) std::copy(x, x + len, y);
      nn::ApplyActivation<float>(ins.act, ins.alpha, y, len);
      break;
  }
}

// How an input maps onto the output's flat index i.
struct InputView {
  enum Mode { kFull, kScalar, kRepeated } mode = kFull;
  const float* data = nullptr;
  // kRepeated: output element i reads data[(i / inner) % period]. The
  // input's non-1 dims are one run of the output's dims: [C] or [1, 1, C]
  // against [N, H, W, C] (inner 1: a bias), [1, T, 1] against [1, T, D]
  // (a per-row statistic: layer norm's mean and scale).
  int64_t inner = 1;
  int64_t period = 1;
  Tensor materialized;  // other broadcasts, expanded to the output shape
};

StatusOr<InputView> MakeView(const KernelContext& ctx, const Tensor& in, const Shape& out, int k) {
  InputView v;
  if (in.shape() == out) {
    v.data = in.data<float>();
    return v;
  }
  if (in.NumElements() == 1) {
    v.mode = InputView::kScalar;
    v.data = in.data<float>();
    return v;
  }
  // Right-aligned against the output: the first and last dims of the input
  // that are not 1, and whether they equal the output's there.
  const int shift = out.rank() - in.rank();
  int first = 0, last = in.rank() - 1;
  while (first < in.rank() && in.dim(first) == 1) ++first;
  while (last > first && in.dim(last) == 1) --last;
  bool repeated = shift >= 0 && first <= last;
  for (int i = first; repeated && i <= last; ++i) repeated = in.dim(i) == out.dim(shift + i);
  if (repeated) {
    v.mode = InputView::kRepeated;
    v.data = in.data<float>();
    v.period = in.NumElements();
    for (int i = shift + last + 1; i < out.rank(); ++i) v.inner *= out.dim(i);
    return v;
  }
  auto bc = Broadcaster::MakeTo({in.shape()}, out);
  if (!bc.ok()) return ctx.Error("input " + std::to_string(k) + ": " + bc.status().message());
  v.materialized = Tensor(DType::kFloat, out);
  const float* src = in.data<float>();
  float* dst = v.materialized.data<float>();
  bc->ForEach(0, bc->num_elements(), [&](int64_t i, const int64_t* off) { dst[i] = src[off[0]]; });
  v.data = dst;
  return v;
}

// Runs a parsed program on ctx's inputs.
Status RunProgram(KernelContext& ctx, const Program& parsed) {
  const int num_inputs = ctx.num_inputs();
  const std::vector<Instruction>& program = parsed.instructions;
  const int num_buffers = parsed.num_buffers;

  // The output shape: every input broadcast together. A loop body runs this
  // for every step on small tensors, so equal shapes (the common case) cost
  // a comparison and nothing is allocated for them.
  Shape out_shape = ctx.input(0).shape();
  for (int k = 1; k < num_inputs; ++k) {
    const Shape& in = ctx.input(k).shape();
    if (in == out_shape) continue;
    auto joined = BroadcastShapes(out_shape, in);
    if (!joined.ok()) {
      return ctx.Error("inputs do not broadcast together: incompatible shapes for broadcasting: " +
                       out_shape.ToString() + " and " + in.ToString());
    }
    out_shape = std::move(*joined);
  }
  std::vector<InputView> views;
  views.reserve(num_inputs);
  for (int k = 0; k < num_inputs; ++k) {
    TFHOST_ASSIGN_OR_RETURN(InputView v, MakeView(ctx, ctx.input(k), out_shape, k));
    views.push_back(std::move(v));
  }
  Tensor out = Tensor::Uninitialized(DType::kFloat, out_shape);  // every block below writes its range
  float* y = out.data<float>();
  const int64_t n = out.NumElements();

  ParallelElementwise(ctx, n, [&](int64_t begin, int64_t end) {
    // Scratch: the program's buffers, then one per scalar/suffix input. Kept
    // per thread: a loop body runs this for every step on small tensors.
    thread_local std::vector<float> scratch;
    scratch.resize(std::max(scratch.size(), static_cast<size_t>((num_buffers + num_inputs) * kBlock)));
    auto buffer = [&](int b) { return scratch.data() + b * kBlock; };
    for (int k = 0; k < num_inputs; ++k) {
      if (views[k].mode == InputView::kScalar) std::fill_n(buffer(num_buffers + k), kBlock, views[k].data[0]);
    }
    thread_local std::vector<const float*> slot;
    slot.resize(num_inputs + program.size());
    for (int64_t off = begin; off < end; off += kBlock) {
      const int64_t len = std::min(kBlock, end - off);
      for (int k = 0; k < num_inputs; ++k) {
        const InputView& v = views[k];
        if (v.mode == InputView::kFull) {
          slot[k] = v.data + off;
        } else if (v.mode == InputView::kScalar) {
          slot[k] = buffer(num_buffers + k);
        } else {
          // Whole runs at a time, not element by element (those gathers took
          // as long as BERT's layer-norm programs themselves).
          float* b = buffer(num_buffers + k);
          int64_t j = (off / v.inner) % v.period;
          if (v.inner == 1) {
            // One period from j, then the filled part copied after itself
            // (a multiple of the period each time): a few copies even for
            // EfficientNet's 3-channel input scaling.
            const int64_t first = std::min(len, v.period);
            const int64_t head = std::min(first, v.period - j);
            std::copy_n(v.data + j, head, b);
            std::copy_n(v.data, first - head, b + head);
            for (int64_t filled = first; filled < len;) {
              const int64_t n = std::min(filled, len - filled);
              std::copy_n(b, n, b + filled);
              filled += n;
            }
          } else if (v.inner < 16) {
            int64_t r = off % v.inner;
            for (int64_t i = 0; i < len; ++i) {
              b[i] = v.data[j];
              if (++r == v.inner) {
                r = 0;
                if (++j == v.period) j = 0;
              }
            }
          } else {
            int64_t r = off % v.inner;
            for (int64_t i = 0; i < len;) {
              const int64_t run = std::min(len - i, v.inner - r);
              std::fill_n(b + i, run, v.data[j]);
              i += run;
              r = 0;
              if (++j == v.period) j = 0;
            }
          }
          slot[k] = b;
        }
      }
      for (size_t k = 0; k < program.size(); ++k) {
        const Instruction& ins = program[k];
        float* dst = ins.buffer < 0 ? y + off : buffer(ins.buffer);
        Execute(ins, slot[ins.a], ins.b >= 0 ? slot[ins.b] : nullptr, dst, len);
        slot[num_inputs + k] = dst;
      }
    }
  });
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status CheckInputs(KernelContext& ctx) {
  if (ctx.num_inputs() < 1) return ctx.Error("needs at least one input");
  for (int k = 0; k < ctx.num_inputs(); ++k) TFHOST_RETURN_IF_ERROR(ctx.CheckDType(k, DType::kFloat));
  return OkStatus();
}

Status FusedElementwiseKernel(KernelContext& ctx) {
  TFHOST_RETURN_IF_ERROR(CheckInputs(ctx));
  TFHOST_ASSIGN_OR_RETURN(Program program, ParseProgram(ctx.node(), ctx.num_inputs(), {}));
  return RunProgram(ctx, program);
}

}  // namespace

StatusOr<KernelFn> MakeFusedElementwiseKernel(const ir::Node& node, const FusedUnaryOverrides& overrides) {
  TFHOST_ASSIGN_OR_RETURN(int64_t n, ir::GetAttr<int64_t>(node, "N"));
  if (n < 1 || n > kMaxInstructions * 2) {
    return InvalidArgument(ir::NodeContext(node) + ": N must be 1 to " + std::to_string(kMaxInstructions * 2) +
                           ", got " + std::to_string(n));
  }
  const int num_inputs = static_cast<int>(n);
  TFHOST_ASSIGN_OR_RETURN(Program program, ParseProgram(node, num_inputs, overrides));
  return KernelFn([program = std::move(program), num_inputs](KernelContext& ctx) -> Status {
    TFHOST_RETURN_IF_ERROR(CheckInputs(ctx));
    if (ctx.num_inputs() != num_inputs) {
      return ctx.Error("has " + std::to_string(ctx.num_inputs()) + " inputs, its program was made for " +
                       std::to_string(num_inputs));
    }
    return RunProgram(ctx, program);
  });
}

void RegisterFusedElementwiseOp(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("_TfhostFusedElementwise")
                        .Input("inputs: N * T")
                        .Output("y: T")
                        .Attr("T: {float}")
                        .Attr("N: int >= 1")
                        .Attr("ops: list(string)")
                        .Attr("operands: list(int)")
                        .Attr("alphas: list(float) = []"),
                    FusedElementwiseKernel);
}

}  // namespace tfhost::ops::math
