#include "ops/op_registry.h"

#include <cstdio>
#include <cstdlib>

namespace tfhost::ops {

const OpRegistry& OpRegistry::Global() {
  static const OpRegistry* registry = [] {
    auto* r = new OpRegistry();
    RegisterArrayOps(*r);
    RegisterMathOps(*r);
    RegisterNnOps(*r);
    RegisterStateOps(*r);
    RegisterParsingOps(*r);
    RegisterStringOps(*r);
    RegisterControlFlowOps(*r);
    RegisterRandomOps(*r);
    RegisterLookupOps(*r);
    RegisterSparseOps(*r);
    RegisterImageOps(*r);
    RegisterAudioOps(*r);
    RegisterTextOps(*r);
    return r;
  }();
  return *registry;
}

const OpRegistration* OpRegistry::Find(const std::string& op) const {
  auto it = ops_.find(op);
  return it == ops_.end() ? nullptr : &it->second;
}

ir::OpDefLookup OpRegistry::Lookup() const {
  return [this](const std::string& op) -> const tensorflow::OpDef* {
    const OpRegistration* r = Find(op);
    return r ? &r->def : nullptr;
  };
}

std::vector<std::string> OpRegistry::OpNames() const {
  std::vector<std::string> names;
  for (const auto& [k, v] : ops_) names.push_back(k);
  return names;
}

void OpRegistry::Register(const ir::OpDefBuilder& schema, KernelFn kernel, bool handles_dead_inputs) {
  auto def = schema.Finalize();
  if (!def.ok()) {
    std::fprintf(stderr, "tfhost: bad op schema: %s\n", def.status().ToString().c_str());
    std::abort();
  }
  if (!kernel) {
    std::fprintf(stderr, "tfhost: op %s registered without a kernel\n", def->name().c_str());
    std::abort();
  }
  if (ops_.count(def->name())) {
    std::fprintf(stderr, "tfhost: op %s registered twice\n", def->name().c_str());
    std::abort();
  }
  std::string name = def->name();
  ops_[name] = OpRegistration{std::move(*def), std::move(kernel), handles_dead_inputs};
}

void OpRegistry::RegisterAlias(const std::string& alias, const std::string& op) {
  auto it = ops_.find(op);
  if (it == ops_.end() || ops_.count(alias)) {
    std::fprintf(stderr, "tfhost: bad op alias %s -> %s\n", alias.c_str(), op.c_str());
    std::abort();
  }
  OpRegistration copy = it->second;
  copy.def.set_name(alias);
  ops_[alias] = std::move(copy);
}

}  // namespace tfhost::ops
