// gelu_fusion: finds the GELU activation as TensorFlow, Keras and model
// authors spell it out in element-wise ops and replaces the subgraph by one
// node, so it is one pass over memory and the matmul fusion can fold it into
// the product's epilogue (oneDNN's gelu_erf / gelu_tanh post-ops):
//
//   exact:        0.5 * x * (1 + erf(x / sqrt(2)))     (tf.nn.gelu, Keras,
//                 x * 0.5 * (1 + erf(x * 0.7071...)),   Hugging Face, ...)
//                 0.5 * x * erfc(-x / sqrt(2))
//   approximate:  0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
//                 (x^3 as Pow(x, 3), x * x * x or Square(x) * x; BERT's
//                 x * (0.5 * (1 + tanh(...))), ...)
//
// The result is a _TfhostFusedElementwise node (ops/math/fused_elementwise.cc)
// with the single instruction "GeluExact" or "GeluApproximate", under the
// name of the subgraph's last node. conv_bias_activation_fusion folds it into
// a preceding MatMul/BatchMatMul (fused_ops [..., "GeluExact"]);
// elementwise_fusion merges it with neighbouring element-wise ops.
//
// How a subgraph is recognized: from a float root, the pass collects the
// element-wise ops (Add, AddV2, Sub, Mul, Div, RealDiv, Pow, Square, Neg,
// Erf, Erfc, Tanh) whose every reader is already collected; the other
// operands must be scalar float Consts and one single tensor x (the point
// where x fans out to several readers). A candidate with exactly one
// Erf/Erfc/Tanh is then evaluated with the reference kernels on probe values
// of x from -8 to 8 and accepted when it agrees with one of the two GELU
// formulas everywhere to 1e-5 (they differ by up to 5e-4, so the choice is
// never ambiguous). So any spelling, and any constant folded into another
// form, is recognized without listing them, and nothing that computes
// something else is rewritten. The fused node evaluates the formula directly:
// outputs equal the spelled-out graph's to float rounding (a few ulp), not
// bit for bit.
#pragma once

#include <memory>

#include "passes/pass_manager.h"

namespace tfhost::passes {

// Runs after constant folding (sqrt(2) written as Sqrt(Const) or a Cast of a
// Const must be a Const by then) and before conv_bias_activation_fusion.
std::unique_ptr<GraphPass> MakeGeluFusion();

// The fused_ops name ("GeluExact" / "GeluApproximate") when `node` is the
// single-instruction GELU node this pass writes, else "".
std::string GeluNodeKind(const ir::Node& node);

}  // namespace tfhost::passes
