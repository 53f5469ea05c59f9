// Stateful random ops as TensorFlow runs them: RandomUniform,
// RandomStandardNormal, TruncatedNormal and RandomUniformInt. Models need them
// where an init or main op re-runs Keras initializers (TF Serving's
// half_plus_two_mkl export), and training graphs use them for dropout.
//
// Each node keeps one Philox generator in the session's ResourceManager
// (GeneratorResourceName(node)), so, as in TensorFlow, every run of a node
// draws fresh numbers, and a fixed (seed, seed2) gives the same sequence in
// every new session. seed == seed2 == 0 means "nondeterministic": the
// generator is seeded from std::random_device when the node first runs.
#pragma once

#include <string>

#include "ops/op_registry.h"

namespace tfhost::ops::random {

// The ResourceManager key of a random node's generator state.
std::string GeneratorResourceName(const ir::Node& node);

void RegisterRandomOpKernels(OpRegistry& registry);

}  // namespace tfhost::ops::random
