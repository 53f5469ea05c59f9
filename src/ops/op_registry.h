// The registry of ops tfhost can run: each entry is a TensorFlow op name with
// its schema (tensorflow.OpDef, written in REGISTER_OP spelling) and its
// reference kernel. Families register themselves from src/ops/<family>/.
//
// Thread-safety: Global() is built once on first use and read-only after.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ir/op_def_builder.h"
#include "ir/op_def_util.h"
#include "ops/op_kernel.h"

namespace tfhost::ops {

struct OpRegistration {
  tensorflow::OpDef def;
  KernelFn kernel;
  // Runs even when inputs are dead (Merge); other kernels are skipped and
  // their outputs marked dead.
  bool handles_dead_inputs = false;
};

class OpRegistry {
 public:
  static const OpRegistry& Global();

  const OpRegistration* Find(const std::string& op) const;
  // Schema lookup for ir::InferTypes and the function inliner.
  ir::OpDefLookup Lookup() const;
  std::vector<std::string> OpNames() const;

  // Registers one op: the only way a kernel enters tfhost. Every node of a
  // registered op runs under the kernel contract (ops/kernel_contract.h):
  // input/output counts and input dtypes checked against this schema before
  // the node first runs, allocation failure reported as ResourceExhausted
  // naming the node. A malformed schema or a null kernel is a bug in tfhost
  // itself: it aborts at start-up with the op name (and a unit test parses
  // every schema).
  void Register(const ir::OpDefBuilder& schema, KernelFn kernel, bool handles_dead_inputs = false);
  // Registers `alias` with the same kernel and the schema renamed.
  void RegisterAlias(const std::string& alias, const std::string& op);

 private:
  std::map<std::string, OpRegistration> ops_;
};

// One function per op family (src/ops/<family>/register.cc).
void RegisterArrayOps(OpRegistry& registry);
void RegisterMathOps(OpRegistry& registry);
void RegisterNnOps(OpRegistry& registry);
void RegisterStateOps(OpRegistry& registry);
void RegisterParsingOps(OpRegistry& registry);
void RegisterStringOps(OpRegistry& registry);
void RegisterControlFlowOps(OpRegistry& registry);
void RegisterRandomOps(OpRegistry& registry);
void RegisterLookupOps(OpRegistry& registry);
void RegisterSparseOps(OpRegistry& registry);
void RegisterImageOps(OpRegistry& registry);
void RegisterAudioOps(OpRegistry& registry);
void RegisterTextOps(OpRegistry& registry);

}  // namespace tfhost::ops
