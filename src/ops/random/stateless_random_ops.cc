// Kernels of the stateless random ops. They fill outputs the way TensorFlow's
// FillPhiloxRandom does (random_op_cpu.h), starting from the generator built
// from the seed or from the key/counter inputs, with no reservation skip:
//  - fixed-size distributions (uniform, normal, uniform int, full int) turn
//    block g of the stream into output group g (4 floats/halves/int32s or 2
//    doubles/int64s per block); a short last group uses a whole block too;
//  - truncated normal rejects samples, so group g reads words one at a time
//    from its own stream starting g * group_size * 256 / 4 blocks in.
#include "ops/random/stateless_random_ops.h"

#include <algorithm>
#include <cmath>
#include <new>
#include <string>

#include "ops/random/random_distributions.h"

namespace tfhost::ops::random {

namespace {

// Outputs are bounded so that a shape read from a model cannot ask for an
// unbounded allocation (2^32 floats is 16 GiB).
constexpr int64_t kMaxOutputElements = int64_t{1} << 32;

Status CheckInputCount(const KernelContext& ctx, int n) {
  if (ctx.num_inputs() != n) {
    return ctx.Error("expected " + std::to_string(n) + " inputs, got " + std::to_string(ctx.num_inputs()));
  }
  return OkStatus();
}

// Input `i` holds the output shape: a 1-D int32/int64 tensor whose dtype is
// the type attr `attr` (T for V1, Tshape for V2).
StatusOr<Shape> ReadShapeInput(const KernelContext& ctx, int i, const char* attr) {
  const Tensor& t = ctx.input(i);
  TFHOST_ASSIGN_OR_RETURN(DType want, ctx.AttrOr<DType>(attr, DType::kInt32));
  if (want != DType::kInt32 && want != DType::kInt64) {
    return ctx.Error(std::string("attr ") + attr + " must be int32 or int64, got " + DTypeShortName(want));
  }
  if (t.dtype() != want) {
    return ctx.Error("shape must be " + DTypeShortName(want) + " (attr " + attr + "), got " +
                     DTypeShortName(t.dtype()));
  }
  if (t.rank() != 1) return ctx.Error("shape must be 1-D, got shape " + t.shape().ToString());
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> dims, t.ToInt64Vector());
  auto shape = MakeShape(dims, "output shape", kMaxOutputElements);
  if (!shape.ok()) return ctx.Error(shape.status().message());
  return shape;
}

// The `seed` input (index i) of the V1 ops and of the key/counter helpers: a
// shape-[2] tensor of the dtype attr Tseed names, read as two uint64 values
// (signed types sign-extend, as TensorFlow's implicit conversion does).
StatusOr<PhiloxRandom> ReadSeed(const KernelContext& ctx, int i, bool allow_unsigned) {
  const Tensor& t = ctx.input(i);
  TFHOST_ASSIGN_OR_RETURN(DType want, ctx.AttrOr<DType>("Tseed", DType::kInt64));
  const bool ok_type = want == DType::kInt32 || want == DType::kInt64 ||
                       (allow_unsigned && (want == DType::kUInt32 || want == DType::kUInt64));
  if (!ok_type) {
    return ctx.Error(std::string("attr Tseed must be int32 or int64") + (allow_unsigned ? " (or uint32/uint64)" : "") +
                     ", got " + DTypeShortName(want));
  }
  if (t.dtype() != want) {
    return ctx.Error("seed must be " + DTypeShortName(want) + " (attr Tseed), got " + DTypeShortName(t.dtype()));
  }
  if (t.rank() != 1 || t.dim(0) != 2) {
    return ctx.Error("seed must have shape [2], not " + t.shape().ToString());
  }
  uint64_t s[2];
  for (int k = 0; k < 2; ++k) {
    switch (want) {
      case DType::kInt32: s[k] = static_cast<uint64_t>(static_cast<int64_t>(t.data<int32_t>()[k])); break;
      case DType::kInt64: s[k] = static_cast<uint64_t>(t.data<int64_t>()[k]); break;
      case DType::kUInt32: s[k] = t.data<uint32_t>()[k]; break;
      default: s[k] = t.data<uint64_t>()[k]; break;
    }
  }
  PhiloxRandom::Key key;
  PhiloxRandom::Block counter;
  SeedToKeyCounter(s[0], s[1], &key, &counter);
  return PhiloxRandom(counter, key);
}

// The key (i), counter (i + 1) and alg (i + 2) inputs of the V2 ops. Returns
// the generator, or an error for bad shapes/dtypes. The algorithm itself is
// checked later (only when there is something to draw), as in TensorFlow.
struct KeyCounterAlg {
  PhiloxRandom gen;
  int32_t alg = kRngAlgPhilox;
};
StatusOr<KeyCounterAlg> ReadKeyCounterAlg(const KernelContext& ctx, int i) {
  const Tensor& key = ctx.input(i);
  const Tensor& counter = ctx.input(i + 1);
  const Tensor& alg_t = ctx.input(i + 2);
  if (alg_t.rank() != 0) {
    return ctx.Error("input " + std::to_string(i + 2) + " (alg) must have shape [], not " + alg_t.shape().ToString());
  }
  if (alg_t.dtype() != DType::kInt32) {
    return ctx.Error("alg must be int32, got " + DTypeShortName(alg_t.dtype()));
  }
  KeyCounterAlg out;
  out.alg = alg_t.data<int32_t>()[0];
  if (out.alg == kRngAlgAutoSelect) out.alg = kRngAlgPhilox;  // the CPU choice
  if (key.dtype() != DType::kUInt64 || counter.dtype() != DType::kUInt64) {
    return ctx.Error("key and counter must be uint64, got " + DTypeShortName(key.dtype()) + " and " +
                     DTypeShortName(counter.dtype()));
  }
  if (key.rank() != 1 || key.dim(0) != 1) {
    return ctx.Error("key must have shape [1], not " + key.shape().ToString() +
                     ". (Note that batched keys are not supported yet.)");
  }
  const int64_t counter_size = out.alg == kRngAlgThreefry ? 1 : 2;
  if (counter.rank() != 1 || counter.dim(0) < counter_size) {
    return ctx.Error("counter must be a vector with length at least " + std::to_string(counter_size) +
                     "; got shape: " + counter.shape().ToString());
  }
  if (out.alg == kRngAlgPhilox) {
    const uint64_t k = key.data<uint64_t>()[0];
    const uint64_t c0 = counter.data<uint64_t>()[0], c1 = counter.data<uint64_t>()[1];
    out.gen = PhiloxRandom({static_cast<uint32_t>(c0), static_cast<uint32_t>(c0 >> 32), static_cast<uint32_t>(c1),
                            static_cast<uint32_t>(c1 >> 32)},
                           {static_cast<uint32_t>(k), static_cast<uint32_t>(k >> 32)});
  }
  return out;
}

StatusOr<Tensor> AllocateOutput(const KernelContext& ctx, DType dtype, const Shape& shape) {
  try {
    return Tensor(dtype, shape);
  } catch (const std::bad_alloc&) {
    return ResourceExhausted(ir::NodeContext(ctx.node()) + ": out of memory allocating output " +
                             DTypeShortName(dtype) + shape.ToString());
  }
}

bool IsFloatOutput(DType d) {
  return d == DType::kFloat || d == DType::kDouble || d == DType::kHalf || d == DType::kBFloat16;
}
bool IsIntOutput(DType d, bool allow_unsigned) {
  return d == DType::kInt32 || d == DType::kInt64 ||
         (allow_unsigned && (d == DType::kUInt32 || d == DType::kUInt64));
}

// The generator: from `seed` (V1, input 1) or key/counter/alg (V2, inputs 1-3).
// `alg` receives the algorithm id (always Philox for V1).
StatusOr<PhiloxRandom> ReadGenerator(const KernelContext& ctx, bool v2, bool unsigned_seed, int32_t* alg) {
  if (!v2) {
    *alg = kRngAlgPhilox;
    return ReadSeed(ctx, 1, unsigned_seed);
  }
  TFHOST_ASSIGN_OR_RETURN(KeyCounterAlg kca, ReadKeyCounterAlg(ctx, 1));
  *alg = kca.alg;
  return kca.gen;
}

Status CheckAlgorithm(const KernelContext& ctx, int32_t alg) {
  if (alg != kRngAlgPhilox) {
    return ctx.Error("Unsupported algorithm id: " + std::to_string(alg) + " (tfhost implements Philox, id 1, and "
                     "auto-select, id 3)");
  }
  return OkStatus();
}

// StatelessRandomUniform/Normal/TruncatedNormal and their V2 forms.
Status FloatKernel(KernelContext& ctx, Distribution dist, bool v2) {
  TFHOST_RETURN_IF_ERROR(CheckInputCount(ctx, v2 ? 4 : 2));
  TFHOST_ASSIGN_OR_RETURN(DType dtype, ctx.AttrOr<DType>("dtype", DType::kFloat));
  if (!IsFloatOutput(dtype)) {
    return ctx.Error("dtype must be half, bfloat16, float or double, got " + DTypeShortName(dtype));
  }
  int32_t alg = 0;
  TFHOST_ASSIGN_OR_RETURN(PhiloxRandom gen, ReadGenerator(ctx, v2, false, &alg));
  TFHOST_ASSIGN_OR_RETURN(Shape shape, ReadShapeInput(ctx, 0, v2 ? "Tshape" : "T"));
  TFHOST_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, dtype, shape));
  if (out.NumElements() > 0) {
    TFHOST_RETURN_IF_ERROR(CheckAlgorithm(ctx, alg));
    FillFloatTensor(ctx.intra_op(), dist, gen, out);
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

// StatelessRandomUniformInt(V2): minval and maxval are inputs 2-3 (V1) or 4-5 (V2).
Status UniformIntKernel(KernelContext& ctx, bool v2) {
  TFHOST_RETURN_IF_ERROR(CheckInputCount(ctx, v2 ? 6 : 4));
  TFHOST_ASSIGN_OR_RETURN(DType dtype, ctx.Attr<DType>("dtype"));
  if (!IsIntOutput(dtype, v2)) {
    return ctx.Error(std::string("dtype must be int32 or int64") + (v2 ? ", uint32 or uint64" : "") + ", got " +
                     DTypeShortName(dtype));
  }
  int32_t alg = 0;
  TFHOST_ASSIGN_OR_RETURN(PhiloxRandom gen, ReadGenerator(ctx, v2, false, &alg));
  TFHOST_ASSIGN_OR_RETURN(Shape shape, ReadShapeInput(ctx, 0, v2 ? "Tshape" : "T"));
  const int first = v2 ? 4 : 2;
  const char* names[2] = {"minval", "maxval"};
  for (int k = 0; k < 2; ++k) {
    const Tensor& t = ctx.input(first + k);
    if (t.dtype() != dtype) {
      return ctx.Error(std::string(names[k]) + " must be " + DTypeShortName(dtype) + " (attr dtype), got " +
                       DTypeShortName(t.dtype()));
    }
    if (t.rank() != 0) return ctx.Error(std::string(names[k]) + " must be 0-D, got shape " + t.shape().ToString());
  }
  TFHOST_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, dtype, shape));
  const int64_t n = out.NumElements();
  if (n > 0) {  // TensorFlow checks the range only when there is something to draw
    TFHOST_RETURN_IF_ERROR(CheckAlgorithm(ctx, alg));
    Status status = OkStatus();
    auto fill = [&](auto zero) {
      using T = decltype(zero);
      const T lo = ctx.input(first).data<T>()[0], hi = ctx.input(first + 1).data<T>()[0];
      if (!(lo < hi)) {
        status = ctx.Error("Need minval < maxval, got " + std::to_string(lo) + " >= " + std::to_string(hi));
        return;
      }
      FillUniformInt<T>(ctx.intra_op(), gen, lo, hi, out.data<T>(), n);
    };
    switch (dtype) {
      case DType::kInt32: fill(int32_t{0}); break;
      case DType::kInt64: fill(int64_t{0}); break;
      case DType::kUInt32: fill(uint32_t{0}); break;
      default: fill(uint64_t{0}); break;
    }
    TFHOST_RETURN_IF_ERROR(status);
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

// StatelessRandomUniformFullInt(V2).
Status FullIntKernel(KernelContext& ctx, bool v2) {
  TFHOST_RETURN_IF_ERROR(CheckInputCount(ctx, v2 ? 4 : 2));
  TFHOST_ASSIGN_OR_RETURN(DType dtype, ctx.AttrOr<DType>("dtype", DType::kUInt64));
  if (!IsIntOutput(dtype, true)) {
    return ctx.Error("dtype must be int32, int64, uint32 or uint64, got " + DTypeShortName(dtype));
  }
  int32_t alg = 0;
  TFHOST_ASSIGN_OR_RETURN(PhiloxRandom gen, ReadGenerator(ctx, v2, true, &alg));
  TFHOST_ASSIGN_OR_RETURN(Shape shape, ReadShapeInput(ctx, 0, v2 ? "Tshape" : "T"));
  TFHOST_ASSIGN_OR_RETURN(Tensor out, AllocateOutput(ctx, dtype, shape));
  const int64_t n = out.NumElements();
  if (n > 0) {
    TFHOST_RETURN_IF_ERROR(CheckAlgorithm(ctx, alg));
    switch (dtype) {
      case DType::kInt32: FillFullInt(ctx.intra_op(), gen, out.data<int32_t>(), n); break;
      case DType::kInt64: FillFullInt(ctx.intra_op(), gen, out.data<int64_t>(), n); break;
      case DType::kUInt32: FillFullInt(ctx.intra_op(), gen, out.data<uint32_t>(), n); break;
      default: FillFullInt(ctx.intra_op(), gen, out.data<uint64_t>(), n); break;
    }
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

// StatelessRandomGetKeyCounter(Alg): key [1] and counter [2] as uint64 words
// (low 32 bits first), alg a scalar (Philox on CPU).
Status GetKeyCounterKernel(KernelContext& ctx, bool with_alg) {
  TFHOST_RETURN_IF_ERROR(CheckInputCount(ctx, 1));
  TFHOST_ASSIGN_OR_RETURN(PhiloxRandom gen, ReadSeed(ctx, 0, false));
  Tensor key(DType::kUInt64, Shape({1}));
  Tensor counter(DType::kUInt64, Shape({2}));
  const auto& k = gen.key();
  const auto& c = gen.counter();
  key.data<uint64_t>()[0] = k[0] | (static_cast<uint64_t>(k[1]) << 32);
  counter.data<uint64_t>()[0] = c[0] | (static_cast<uint64_t>(c[1]) << 32);
  counter.data<uint64_t>()[1] = c[2] | (static_cast<uint64_t>(c[3]) << 32);
  ctx.set_output(0, std::move(key));
  ctx.set_output(1, std::move(counter));
  if (with_alg) ctx.set_output(2, Tensor::Scalar<int32_t>(kRngAlgPhilox));
  return OkStatus();
}

ir::OpDefBuilder FloatSchemaV1(const char* name) {
  ir::OpDefBuilder b(name);
  b.Input("shape: T")
      .Input("seed: Tseed")
      .Output("output: dtype")
      .Attr("dtype: {half, bfloat16, float, double} = DT_FLOAT")
      .Attr("T: {int32, int64} = DT_INT32")
      .Attr("Tseed: {int32, int64} = DT_INT64");
  return b;
}

ir::OpDefBuilder FloatSchemaV2(const char* name) {
  ir::OpDefBuilder b(name);
  b.Input("shape: Tshape")
      .Input("key: uint64")
      .Input("counter: uint64")
      .Input("alg: int32")
      .Output("output: dtype")
      .Attr("dtype: {half, bfloat16, float, double} = DT_FLOAT")
      .Attr("Tshape: {int32, int64} = DT_INT32");
  return b;
}

}  // namespace

void SeedToKeyCounter(uint64_t seed0, uint64_t seed1, PhiloxRandom::Key* key, PhiloxRandom::Block* counter) {
  const PhiloxRandom::Block mix = PhiloxRandom::Compute(
      {static_cast<uint32_t>(seed0), static_cast<uint32_t>(seed0 >> 32), static_cast<uint32_t>(seed1),
       static_cast<uint32_t>(seed1 >> 32)},
      {0x3ec8f720u, 0x02461e29u});
  *key = {mix[0], mix[1]};
  *counter = {0, 0, mix[2], mix[3]};
}

void RegisterStatelessRandomOpKernels(OpRegistry& registry) {
  struct FloatOp { const char* name; Distribution dist; };
  for (const FloatOp& op : {FloatOp{"StatelessRandomUniform", Distribution::kUniform},
                            FloatOp{"StatelessRandomNormal", Distribution::kNormal},
                            FloatOp{"StatelessTruncatedNormal", Distribution::kTruncatedNormal}}) {
    const Distribution dist = op.dist;
    registry.Register(FloatSchemaV1(op.name), [dist](KernelContext& ctx) { return FloatKernel(ctx, dist, false); });
    const std::string v2 = std::string(op.name) + "V2";
    registry.Register(FloatSchemaV2(v2.c_str()), [dist](KernelContext& ctx) { return FloatKernel(ctx, dist, true); });
  }
  registry.Register(ir::OpDefBuilder("StatelessRandomUniformInt")
                        .Input("shape: T")
                        .Input("seed: Tseed")
                        .Input("minval: dtype")
                        .Input("maxval: dtype")
                        .Output("output: dtype")
                        .Attr("dtype: {int32, int64}")
                        .Attr("T: {int32, int64}")
                        .Attr("Tseed: {int32, int64} = DT_INT64"),
                    [](KernelContext& ctx) { return UniformIntKernel(ctx, false); });
  registry.Register(ir::OpDefBuilder("StatelessRandomUniformIntV2")
                        .Input("shape: Tshape")
                        .Input("key: uint64")
                        .Input("counter: uint64")
                        .Input("alg: int32")
                        .Input("minval: dtype")
                        .Input("maxval: dtype")
                        .Output("output: dtype")
                        .Attr("dtype: {int32, int64, uint32, uint64}")
                        .Attr("Tshape: {int32, int64} = DT_INT32"),
                    [](KernelContext& ctx) { return UniformIntKernel(ctx, true); });
  registry.Register(ir::OpDefBuilder("StatelessRandomUniformFullInt")
                        .Input("shape: T")
                        .Input("seed: Tseed")
                        .Output("output: dtype")
                        .Attr("dtype: {int32, int64, uint32, uint64} = DT_UINT64")
                        .Attr("T: {int32, int64} = DT_INT32")
                        .Attr("Tseed: {int32, int64, uint32, uint64} = DT_INT64"),
                    [](KernelContext& ctx) { return FullIntKernel(ctx, false); });
  registry.Register(ir::OpDefBuilder("StatelessRandomUniformFullIntV2")
                        .Input("shape: Tshape")
                        .Input("key: uint64")
                        .Input("counter: uint64")
                        .Input("alg: int32")
                        .Output("output: dtype")
                        .Attr("dtype: {int32, int64, uint32, uint64} = DT_UINT64")
                        .Attr("Tshape: {int32, int64} = DT_INT32"),
                    [](KernelContext& ctx) { return FullIntKernel(ctx, true); });
  registry.Register(ir::OpDefBuilder("StatelessRandomGetKeyCounterAlg")
                        .Input("seed: Tseed")
                        .Output("key: uint64")
                        .Output("counter: uint64")
                        .Output("alg: int32")
                        .Attr("Tseed: {int32, int64} = DT_INT64"),
                    [](KernelContext& ctx) { return GetKeyCounterKernel(ctx, true); });
  registry.Register(ir::OpDefBuilder("StatelessRandomGetKeyCounter")
                        .Input("seed: Tseed")
                        .Output("key: uint64")
                        .Output("counter: uint64")
                        .Attr("Tseed: {int32, int64} = DT_INT64"),
                    [](KernelContext& ctx) { return GetKeyCounterKernel(ctx, false); });
  registry.Register(ir::OpDefBuilder("StatelessRandomGetAlg").Output("alg: int32"), [](KernelContext& ctx) {
    TFHOST_RETURN_IF_ERROR(CheckInputCount(ctx, 0));
    ctx.set_output(0, Tensor::Scalar<int32_t>(kRngAlgPhilox));
    return OkStatus();
  });
}

}  // namespace tfhost::ops::random
