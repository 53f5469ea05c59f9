// Kernels for the stateful random ops. They follow TensorFlow's CPU kernels
// step for step, so a model seeded in TensorFlow draws the same numbers here:
//  - each run reserves 256 Philox blocks per output element from the node's
//    generator (TensorFlow's conservative reservation), so consecutive runs
//    use disjoint counters;
//  - distributions that take a fixed number of words per output group (uniform,
//    normal, uniform int) use one block per group, block g for group g;
//  - truncated normal rejects samples and so takes a variable number of words:
//    group g starts its own stream 256 * group_size / 4 blocks into the
//    reservation and reads words one at a time.
// Because every group's position is fixed in advance, groups may be filled in
// parallel without changing the result.
#include "ops/random/random_ops.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <random>

#include "ops/random/philox_random.h"
#include "ops/random/random_distributions.h"

namespace tfhost::ops::random {

namespace {

// Outputs are bounded so that a shape read from a model cannot ask for an
// unbounded allocation (2^32 floats is 16 GiB).
constexpr int64_t kMaxOutputElements = int64_t{1} << 32;

// One node's generator: where its next run's reservation starts.
class GeneratorResource : public Resource {
 public:
  explicit GeneratorResource(PhiloxRandom gen) : gen_(gen) {}
  std::string TypeName() const override { return "RandomGenerator"; }

  // Returns the generator positioned at this run's reservation of
  // `output_count` elements and moves the stored one past it.
  PhiloxRandom Reserve(int64_t output_count) {
    std::lock_guard<std::mutex> lock(mu_);
    PhiloxRandom local = gen_;
    // Blocks reserved per output element and per run (TensorFlow's value).
    gen_.Skip(static_cast<uint64_t>(output_count) * kReservedBlocksPerOutput);
    return local;
  }

 private:
  std::mutex mu_;
  PhiloxRandom gen_;
};

uint64_t NondeterministicSeed() {
  std::random_device rd;
  return (static_cast<uint64_t>(rd()) << 32) | rd();
}

StatusOr<PhiloxRandom> ReserveForRun(const KernelContext& ctx, int64_t output_count) {
  if (ctx.resources() == nullptr) return ctx.Error("no resource manager to keep the generator state in");
  TFHOST_ASSIGN_OR_RETURN(int64_t seed, ctx.AttrOr<int64_t>("seed", 0));
  TFHOST_ASSIGN_OR_RETURN(int64_t seed2, ctx.AttrOr<int64_t>("seed2", 0));
  auto state = ctx.resources()->LookupOrCreate<GeneratorResource>(
      GeneratorResourceName(ctx.node()), [&] {
        uint64_t s = static_cast<uint64_t>(seed), s2 = static_cast<uint64_t>(seed2);
        if (s == 0 && s2 == 0) {
          s = NondeterministicSeed();
          s2 = NondeterministicSeed();
        }
        return std::make_shared<GeneratorResource>(PhiloxRandom(s, s2));
      });
  if (!state.ok()) return ctx.Error(state.status().message());
  return (*state)->Reserve(output_count);
}

Status CheckInputCount(const KernelContext& ctx, int n) {
  if (ctx.num_inputs() != n) {
    return ctx.Error("expected " + std::to_string(n) + " inputs, got " +
                     std::to_string(ctx.num_inputs()));
  }
  return OkStatus();
}

// Input 0: the output shape, a 1-D int32/int64 tensor of non-negative sizes.
StatusOr<Shape> ReadShapeInput(const KernelContext& ctx) {
  const Tensor& t = ctx.input(0);
  if (t.dtype() != DType::kInt32 && t.dtype() != DType::kInt64) {
    return ctx.Error("shape must be int32 or int64, got " + DTypeShortName(t.dtype()));
  }
  TFHOST_ASSIGN_OR_RETURN(DType attr_t, ctx.AttrOr<DType>("T", t.dtype()));
  if (attr_t != t.dtype()) {
    return ctx.Error("shape has dtype " + DTypeShortName(t.dtype()) + " but attr T is " +
                     DTypeShortName(attr_t));
  }
  if (t.rank() != 1) return ctx.Error("shape must be 1-D, got shape " + t.shape().ToString());
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> dims, t.ToInt64Vector());
  auto shape = MakeShape(dims, "output shape", kMaxOutputElements);
  if (!shape.ok()) return ctx.Error(shape.status().message());
  return shape;
}

StatusOr<Tensor> AllocateOutput(const KernelContext& ctx, DType dtype, const Shape& shape) {
  try {
    return Tensor(dtype, shape);
  } catch (const std::bad_alloc&) {
    return ResourceExhausted(ir::NodeContext(ctx.node()) + ": out of memory allocating output " +
                             DTypeShortName(dtype) + shape.ToString());
  }
}

// RandomUniform, RandomStandardNormal, TruncatedNormal: (shape) -> dtype.
Status RandomFloatKernel(KernelContext& ctx, Distribution dist) {
  TFHOST_RETURN_IF_ERROR(CheckInputCount(ctx, 1));
  TFHOST_ASSIGN_OR_RETURN(DType dtype, ctx.Attr<DType>("dtype"));
  if (dtype != DType::kFloat && dtype != DType::kDouble && dtype != DType::kHalf &&
      dtype != DType::kBFloat16) {
    return ctx.Error("dtype must be half, bfloat16, float or double, got " + DTypeShortName(dtype));
  }
  TFHOST_ASSIGN_OR_RETURN(Shape shape, ReadShapeInput(ctx));
  TFHOST_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, dtype, shape));
  const int64_t n = shape.num_elements();
  TFHOST_ASSIGN_OR_RETURN(PhiloxRandom gen, ReserveForRun(ctx, n));
  FillFloatTensor(ctx.intra_op(), dist, gen, out);
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

// RandomUniformInt: (shape, minval, maxval) -> Tout in [minval, maxval). Like
// TensorFlow, it takes the remainder of random bits modulo the range (slightly
// biased unless the range is a power of two).
Status RandomUniformIntKernel(KernelContext& ctx) {
  TFHOST_RETURN_IF_ERROR(CheckInputCount(ctx, 3));
  TFHOST_ASSIGN_OR_RETURN(DType tout, ctx.Attr<DType>("Tout"));
  if (tout != DType::kInt32 && tout != DType::kInt64) {
    return ctx.Error("Tout must be int32 or int64, got " + DTypeShortName(tout));
  }
  const char* names[2] = {"minval", "maxval"};
  for (int i = 1; i <= 2; ++i) {
    const Tensor& t = ctx.input(i);
    if (t.dtype() != tout) {
      return ctx.Error(std::string(names[i - 1]) + " must be " + DTypeShortName(tout) + ", got " +
                       DTypeShortName(t.dtype()));
    }
    if (t.rank() != 0) {
      return ctx.Error(std::string(names[i - 1]) + " must be a scalar, got shape " +
                       t.shape().ToString());
    }
  }
  TFHOST_ASSIGN_OR_RETURN(Shape shape, ReadShapeInput(ctx));
  TFHOST_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, tout, shape));
  const int64_t n = shape.num_elements();
  if (n == 0) {  // TensorFlow checks the range only when there is something to draw
    ctx.set_output(0, std::move(out));
    return OkStatus();
  }
  const int64_t lo = tout == DType::kInt32 ? ctx.input(1).data<int32_t>()[0] : ctx.input(1).data<int64_t>()[0];
  const int64_t hi = tout == DType::kInt32 ? ctx.input(2).data<int32_t>()[0] : ctx.input(2).data<int64_t>()[0];
  if (lo >= hi) {
    return ctx.Error("need minval < maxval, got minval " + std::to_string(lo) + " >= maxval " +
                     std::to_string(hi));
  }
  TFHOST_ASSIGN_OR_RETURN(PhiloxRandom gen, ReserveForRun(ctx, n));
  if (tout == DType::kInt32) {
    FillUniformInt<int32_t>(ctx.intra_op(), gen, static_cast<int32_t>(lo), static_cast<int32_t>(hi),
                            out.data<int32_t>(), n);
  } else {
    FillUniformInt<int64_t>(ctx.intra_op(), gen, lo, hi, out.data<int64_t>(), n);
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

ir::OpDefBuilder FloatRandomSchema(const char* name) {
  ir::OpDefBuilder b(name);
  b.Input("shape: T")
      .Output("output: dtype")
      .Attr("seed: int = 0")
      .Attr("seed2: int = 0")
      .Attr("dtype: {half, bfloat16, float, double}")
      .Attr("T: {int32, int64}")
      .SetIsStateful();
  return b;
}

}  // namespace

std::string GeneratorResourceName(const ir::Node& node) {
  // A prefix keeps generator states apart from variables, whose names are
  // also node names (or shared_name attrs chosen by the model).
  return "_tfhost_random_generator/" + node.name;
}

void RegisterRandomOpKernels(OpRegistry& registry) {
  registry.Register(FloatRandomSchema("RandomUniform"),
                    [](KernelContext& ctx) { return RandomFloatKernel(ctx, Distribution::kUniform); });
  registry.Register(FloatRandomSchema("RandomStandardNormal"),
                    [](KernelContext& ctx) { return RandomFloatKernel(ctx, Distribution::kNormal); });
  registry.Register(FloatRandomSchema("TruncatedNormal"), [](KernelContext& ctx) {
    return RandomFloatKernel(ctx, Distribution::kTruncatedNormal);
  });
  registry.Register(ir::OpDefBuilder("RandomUniformInt")
                        .Input("shape: T")
                        .Input("minval: Tout")
                        .Input("maxval: Tout")
                        .Output("output: Tout")
                        .Attr("seed: int = 0")
                        .Attr("seed2: int = 0")
                        .Attr("Tout: {int32, int64}")
                        .Attr("T: {int32, int64}")
                        .SetIsStateful(),
                    RandomUniformIntKernel);
}

}  // namespace tfhost::ops::random
