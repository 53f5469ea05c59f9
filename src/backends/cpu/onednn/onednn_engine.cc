#include "backends/cpu/onednn/onednn_engine.h"

#include <immintrin.h>
#include <omp.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>

#include "ir/attrs.h"
#include "ops/nn/fused_activation.h"

namespace tfhost::backends::onednn {

const dnnl::engine& Engine() {
  static const dnnl::engine* engine = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *engine;
}

void SetThreadsFor(const ops::KernelContext& ctx) {
  const int n = ctx.intra_op() != nullptr ? ctx.intra_op()->num_threads() + 1 : 1;
  // omp_set_num_threads sets a per-thread ICV; skip the call when unchanged.
  thread_local int last = -1;
  if (n != last) {
    omp_set_num_threads(n);
    last = n;
  }
}

void Execute(const dnnl::primitive& prim, const dnnl::memory::desc& scratchpad,
             std::unordered_map<int, dnnl::memory> args) {
  // A stream per thread: streams are cheap but not free to create, and a
  // stream must not be used by two threads at once.
  thread_local dnnl::stream stream(Engine());
  // The scratchpad is a per-thread buffer (ThreadBuffer slot 0): a fresh one
  // per call was a malloc/free per primitive, and for large ones an mmap
  // whose pages faulted in again on every call.
  const size_t need = scratchpad.get_size();
  if (need > 0) args.emplace(DNNL_ARG_SCRATCHPAD, dnnl::memory(scratchpad, Engine(), ThreadBuffer(0, need)));
  prim.execute(stream, args);
  stream.wait();
}

dnnl::memory::desc PlainDesc(const dnnl::memory::dims& dims) {
  dnnl::memory::dims strides(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) strides[i] = strides[i + 1] * dims[i + 1];
  return dnnl::memory::desc(dims, dnnl::memory::data_type::f32, strides);
}

dnnl::memory Wrap(const dnnl::memory::desc& desc, const Tensor& t) {
  return dnnl::memory(desc, Engine(), const_cast<void*>(t.raw_data()));
}

bool NodeWantsBf16(const ir::Node& node) {
  auto p = ir::GetAttrOr<std::string>(node, kPrecisionAttr, "");
  return p.ok() && *p == "bf16";
}

bool CpuHasBf16() {
  static const bool has = [] {
    const auto isa = static_cast<unsigned>(dnnl::get_effective_cpu_isa());
    const auto bf16 = static_cast<unsigned>(dnnl::cpu_isa::avx512_core_bf16);
    // ISA values are supersets of each other's bits (AMX includes bf16).
    return (isa & bf16) == bf16 && __builtin_cpu_supports("avx512bf16");
  }();
  return has;
}

void* ThreadBuffer(int slot, size_t bytes) {
  struct Buffer {
    std::unique_ptr<char, decltype(&std::free)> data{nullptr, &std::free};
    size_t size = 0;
  };
  thread_local Buffer buffers[2];
  Buffer& b = buffers[slot & 1];
  if (bytes > b.size) {
    const size_t rounded = (bytes + 4095) / 4096 * 4096;
    b.data.reset();
    b.size = 0;
    b.data.reset(static_cast<char*>(std::aligned_alloc(64, rounded)));
    if (b.data == nullptr) throw std::bad_alloc();
    b.size = rounded;
  }
  return b.data.get();
}

void ReorderInto(const dnnl::memory::desc& from, const Tensor& t, const dnnl::memory& out) {
  dnnl::memory user = Wrap(from, t);
  Execute(dnnl::reorder(user, out), dnnl::memory::desc(), {{DNNL_ARG_FROM, user}, {DNNL_ARG_TO, out}});
}

dnnl::memory ReorderedCopy(const dnnl::memory::desc& from, const Tensor& t, const dnnl::memory::desc& to_md) {
  dnnl::memory out(to_md, Engine());
  ReorderInto(from, t, out);
  return out;
}

namespace {

// float -> bf16, round to nearest even (NaN stays NaN).
uint16_t ToBf16Scalar(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x40);
  u += 0x7fffu + ((u >> 16) & 1);
  return static_cast<uint16_t>(u >> 16);
}

__attribute__((target("avx512f,avx512bf16"))) void ConvertRangeBf16(const float* src, uint16_t* dst,
                                                                       int64_t n) {
  int64_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m512 lo = _mm512_loadu_ps(src + i);
    const __m512 hi = _mm512_loadu_ps(src + i + 16);
    _mm512_storeu_si512(dst + i, (__m512i)_mm512_cvtne2ps_pbh(hi, lo));
  }
  for (; i < n; ++i) dst[i] = ToBf16Scalar(src[i]);
}

void ConvertRangeScalar(const float* src, uint16_t* dst, int64_t n) {
  for (int64_t i = 0; i < n; ++i) dst[i] = ToBf16Scalar(src[i]);
}

}  // namespace

dnnl::memory ConvertToBf16(const Tensor& t, const dnnl::memory::desc& to_md, const ops::KernelContext& ctx) {
  dnnl::memory out(to_md, Engine());
  ConvertToBf16Into(t, out, ctx);
  return out;
}

void ConvertToBf16Into(const Tensor& t, const dnnl::memory& out, const ops::KernelContext& ctx) {
  const float* src = t.data<float>();
  auto* dst = static_cast<uint16_t*>(out.get_data_handle());
  const int64_t n = t.NumElements();
  static const bool vector = CpuHasBf16();
  auto convert = [&](int64_t begin, int64_t end) {
    if (vector) {
      ConvertRangeBf16(src + begin, dst + begin, end - begin);
    } else {
      ConvertRangeScalar(src + begin, dst + begin, end - begin);
    }
  };
  if (ctx.intra_op() != nullptr && n >= (1 << 16)) {
    ctx.intra_op()->ParallelFor(n, 1 << 15, convert);
  } else {
    convert(0, n);
  }
}

void ParallelCopy(const ops::KernelContext& ctx, void* dst, const void* src, int64_t bytes) {
  auto copy = [&](int64_t begin, int64_t end) {
    std::memcpy(static_cast<char*>(dst) + begin, static_cast<const char*>(src) + begin, end - begin);
  };
  if (ctx.intra_op() != nullptr && bytes >= (int64_t{1} << 20)) {
    ctx.intra_op()->ParallelFor(bytes, int64_t{1} << 18, copy);
  } else {
    copy(0, bytes);
  }
}

bool AttrIsFloat(const ir::Node& node, const std::string& key) {
  auto t = ir::GetAttr<DType>(node, key);
  return t.ok() && *t == DType::kFloat;
}

bool ParseEpilogue(const ir::Node& node, bool allow_batch_norm, Epilogue* out, bool allow_sum) {
  auto fused_ops = ir::GetAttrOr<std::vector<std::string>>(node, "fused_ops", {});
  auto num_args = ir::GetAttrOr<int64_t>(node, "num_args", 0);
  auto num_host_args = ir::GetAttrOr<int64_t>(node, "num_host_args", 0);
  auto epsilon = ir::GetAttrOr<float>(node, "epsilon", 0.0001f);
  auto leaky_alpha = ir::GetAttrOr<float>(node, "leakyrelu_alpha", 0.2f);
  if (!fused_ops.ok() || !num_args.ok() || !num_host_args.ok() || !epsilon.ok() || !leaky_alpha.ok()) {
    return false;
  }
  if (*num_host_args != 0) return false;
  Epilogue e;
  e.epsilon = *epsilon;
  size_t op = 0;
  const std::vector<std::string>& ops = *fused_ops;
  if (op < ops.size() && ops[op] == "BiasAdd") {
    e.affine = Epilogue::Affine::kBias;
    e.num_args = 1;
    ++op;
  } else if (op < ops.size() && ops[op] == "FusedBatchNorm") {
    if (!allow_batch_norm) return false;
    e.affine = Epilogue::Affine::kBatchNorm;
    e.num_args = 4;
    ++op;
  }
  if (op < ops.size() && ops[op] == "Add") {
    if (!allow_sum) return false;
    e.has_sum = true;
    ++e.num_args;
    ++op;
  }
  if (op < ops.size()) {
    auto act = ops::nn::ParseFusedActivation(ops[op]);
    if (!act.ok()) return false;
    e.has_eltwise = true;
    switch (*act) {
      case ops::nn::Activation::kRelu:
        e.eltwise = dnnl::algorithm::eltwise_relu;
        break;
      case ops::nn::Activation::kRelu6:
        e.eltwise = dnnl::algorithm::eltwise_clip;
        e.alpha = 0;
        e.beta = 6;
        break;
      case ops::nn::Activation::kElu:
        e.eltwise = dnnl::algorithm::eltwise_elu;
        e.alpha = 1;
        break;
      case ops::nn::Activation::kLeakyRelu:
        e.eltwise = dnnl::algorithm::eltwise_relu;
        e.alpha = *leaky_alpha;
        break;
      case ops::nn::Activation::kSigmoid:
        e.eltwise = dnnl::algorithm::eltwise_logistic;
        break;
      case ops::nn::Activation::kTanh:
        e.eltwise = dnnl::algorithm::eltwise_tanh;
        break;
      case ops::nn::Activation::kSwish:  // x * sigmoid(alpha * x)
        e.eltwise = dnnl::algorithm::eltwise_swish;
        e.alpha = 1;
        break;
      case ops::nn::Activation::kGeluExact:
        e.eltwise = dnnl::algorithm::eltwise_gelu_erf;
        break;
      case ops::nn::Activation::kGeluApproximate:
        e.eltwise = dnnl::algorithm::eltwise_gelu_tanh;
        break;
      default:  // Prelu (tensor alpha): the reference kernel runs
        return false;
    }
    ++op;
  }
  if (op != ops.size()) return false;
  // The reference consumes exactly e.num_args args and errors when fewer are
  // declared; extra declared args are ignored by it but unusual enough that
  // declining is the safer answer.
  if (*num_args != e.num_args) return false;
  *out = e;
  return true;
}

bool IsFloatVector(const Tensor& t, int64_t n) {
  return t.valid() && t.dtype() == DType::kFloat && t.rank() <= 1 && t.NumElements() == n;
}

bool FoldBatchNorm(const Tensor& scale, const Tensor& offset, const Tensor& mean,
                   const Tensor& variance, float epsilon, int64_t channels, Tensor* fold_scale,
                   Tensor* fold_shift) {
  for (const Tensor* t : {&scale, &offset, &mean, &variance}) {
    if (!IsFloatVector(*t, channels)) return false;
  }
  *fold_scale = Tensor(DType::kFloat, Shape({channels}));
  *fold_shift = Tensor(DType::kFloat, Shape({channels}));
  const float* s = scale.data<float>();
  const float* o = offset.data<float>();
  const float* m = mean.data<float>();
  const float* v = variance.data<float>();
  float* fs = fold_scale->data<float>();
  float* fo = fold_shift->data<float>();
  for (int64_t c = 0; c < channels; ++c) {
    const double k = double(s[c]) / std::sqrt(double(v[c]) + double(epsilon));
    fs[c] = static_cast<float>(k);
    fo[c] = static_cast<float>(double(o[c]) - double(m[c]) * k);
  }
  return true;
}

dnnl::post_ops MakePostOps(const Epilogue& e, int rank, int64_t channels) {
  dnnl::post_ops po;
  if (e.affine == Epilogue::Affine::kBatchNorm) {
    dnnl::memory::dims dims(rank, 1);
    dims[1] = channels;
    po.append_binary(dnnl::algorithm::binary_mul, PlainDesc(dims));
    po.append_binary(dnnl::algorithm::binary_add, PlainDesc(dims));
  }
  if (e.has_sum) po.append_sum(1.0f);
  if (e.has_eltwise) po.append_eltwise(1.0f, e.eltwise, e.alpha, e.beta);
  return po;
}

}  // namespace tfhost::backends::onednn
