// Graph passes: rewrites of a loaded ir::Graph that keep every output the
// model can be asked for bit-for-bit (or within a kernel's stated tolerance)
// while doing less work at run time. The loader runs PassManager::Default()
// between shape inference and Session creation (loaders/graph_to_session.cc);
// LoadOptions::optimize_graph = false skips it so tests can compare.
//
// What a pass may never touch (PassContext::MustKeep / IsProtected): nodes the
// caller can fetch or feed by name (the loader's roots and placeholders),
// stateful ops per their OpDef, control-flow primitives (Switch, Merge, Enter,
// Exit, NextIteration, LoopCond), functional ops (anything with a func attr)
// and ops producing or consuming resource/variant handles.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "base/status.h"
#include "ir/graph.h"

namespace tfhost::passes {

struct PassContext {
  // Node names that must survive under their own name with the same outputs.
  // Empty `keep` with keep_all = true means every name is fetchable.
  std::unordered_set<std::string> keep;
  bool keep_all = false;
  // Whether nodes nothing reads are kept as if named in `keep` (PassManager::Run):
  // a model's graph may be fetched by names its roots missed. A function
  // body is called only through its arguments and results, so there a node
  // nothing reads is dead, as TensorFlow's function pruning treats it.
  bool keep_unconsumed = true;
  // Largest total byte size of a folded node's outputs (constant folding).
  int64_t max_folded_bytes = 10 << 20;
  // Whether a backend faster than the reference kernels takes `node`, for
  // fusions whose fused op is only worth it with such a kernel
  // (lstm_loop_fusion); null: assume one does. The loader asks its
  // backends (loaders/graph_to_session.cc).
  std::function<bool(const ir::Node&)> has_fast_kernel;

  // Builds the context the loader uses: `roots` as node or tensor names
  // ("n", "n:1", "^n"); empty roots = every node may be fetched.
  static PassContext FromRoots(const ir::Graph& graph, const std::vector<std::string>& roots);

  bool MustKeep(const ir::Node& node) const;
};

// Stateful per OpDef (tfhost's registry), control flow, functional, or
// touching resource/variant tensors: such nodes are never rewritten, removed
// or evaluated at load time.
bool IsProtected(const ir::Graph& graph, const ir::Node& node);
bool IsControlFlowOp(const std::string& op);

// Nodes with every node after its inputs, ignoring NextIteration back edges
// (TF1 while loops are cycles otherwise). Empty when the graph has another
// cycle: passes then leave the graph alone and the runtime reports it.
std::vector<int> PassOrder(const ir::Graph& graph);

class GraphPass {
 public:
  virtual ~GraphPass() = default;
  virtual std::string name() const = 0;
  virtual Status Run(ir::Graph* graph, const PassContext& ctx) = 0;
};

struct PassStats {
  std::string pass;
  int nodes_before = 0;
  int nodes_after = 0;
};

class PassManager {
 public:
  // arithmetic_identities, identity_elimination, reshape_batch_inference,
  // loop_projection_hoisting, lstm_loop_fusion, constant_folding,
  // reshape_shape_folding, arithmetic_identities and identity_elimination
  // again, common_subexpression_elimination, pad_folding,
  // batch_norm_folding, matmul_transpose_folding, gelu_fusion, reshape_sinking,
  // conv_bias_activation_fusion, residual_add_fusion, expand_depthwise_fusion,
  // lstm_cell_fusion, layer_norm_fusion, masked_softmax_fusion,
  // elementwise_fusion, then dead-node pruning.
  // docs/graph_passes.md explains each.
  static PassManager Default();
  // --precision bf16, after Default(): the precision pass, then, when
  // `bf16_activations` (bf16 kernels will run: fast kernels on a CPU with
  // native bf16), bf16 activation chaining.
  static PassManager Bf16(bool bf16_activations);

  void Add(std::unique_ptr<GraphPass> pass) { passes_.push_back(std::move(pass)); }
  // Runs the passes in order; `stats` (may be null) gets one row per pass.
  // Nodes nothing consumes on entry are added to the keep set.
  // A failing pass fails the whole run, naming the pass.
  Status Run(ir::Graph* graph, const PassContext& ctx, std::vector<PassStats>* stats = nullptr) const;

 private:
  std::vector<std::unique_ptr<GraphPass>> passes_;
};

// Removes nodes nobody consumes that are neither kept nor protected,
// repeatedly (what folding and rewiring leave behind).
Status PruneDeadNodes(ir::Graph* graph, const PassContext& ctx);

std::unique_ptr<GraphPass> MakeArithmeticIdentities();
std::unique_ptr<GraphPass> MakeIdentityElimination();
std::unique_ptr<GraphPass> MakeConstantFolding();
std::unique_ptr<GraphPass> MakeCommonSubexpressionElimination();
std::unique_ptr<GraphPass> MakePadFolding();
std::unique_ptr<GraphPass> MakeReshapeBatchInference();
std::unique_ptr<GraphPass> MakeMatMulTransposeFolding();
std::unique_ptr<GraphPass> MakeEinsumLowering();
std::unique_ptr<GraphPass> MakeExpandDepthwiseFusion();
std::unique_ptr<GraphPass> MakeLoopProjectionHoisting();
std::unique_ptr<GraphPass> MakeBatchNormFolding();
std::unique_ptr<GraphPass> MakeReshapeSinking();
std::unique_ptr<GraphPass> MakeConvBiasActivationFusion();
std::unique_ptr<GraphPass> MakeLstmCellFusion();
std::unique_ptr<GraphPass> MakeLstmLoopFusion();
std::unique_ptr<GraphPass> MakeLayerNormFusion();
std::unique_ptr<GraphPass> MakeReshapeShapeFolding();
std::unique_ptr<GraphPass> MakeMaskedSoftmaxFusion();
std::unique_ptr<GraphPass> MakeElementwiseFusion();
// Not in Default(): the loader adds it for LoadOptions::precision "bf16" and
// "fp32-strict". kBf16 marks wide float32 convolutions and matrix products
// with the string attr `_tfhost_precision` = "bf16" (fast kernels then
// compute in bf16; reference kernels ignore it); kFp32Strict marks every
// float32 one with `_tfhost_fp32_strict` = true (no TF32 on a GPU); kFp32
// leaves the graph alone. precision.cc.
enum class Precision { kFp32, kFp32Strict, kBf16 };
std::unique_ptr<GraphPass> MakePrecisionPass(Precision precision);
// Not in Default(): after the precision pass, where bf16 kernels run (fast
// kernels, native bf16). Stores the output of a bf16 convolution in bf16
// when only bf16 convolutions read it. bf16_activation_chaining.cc.
std::unique_ptr<GraphPass> MakeBf16ActivationChaining();

// The internal op elementwise_fusion emits (ops/math/fused_elementwise.cc).
inline constexpr char kFusedElementwiseOp[] = "_TfhostFusedElementwise";

}  // namespace tfhost::passes
