// Operands are described to oneDNN in place (transposes and batch
// broadcasting are strides and size-1 dims), so no operand is copied. One
// primitive per (x shape, y shape) is cached per node.
//
// oneDNN 2.6's gemm-based MatMul (`gemm:jit`, what it picks below AVX-512)
// reads the second operand up to 1.9x slower when it starts on a cache line,
// as every tensor buffer here does: for large products that operand is
// copied to a buffer 16 bytes past a line first (kMisalignBMinRows below).
//
// bf16 nodes (NodeWantsBf16, on a CPU with native bf16) convert both operands
// to bf16 (row-major) and write a float32 product: the second operand (the
// weights of a MatMul) is converted once per buffer and kept, the first on
// every call. Bias and post-ops stay float32.
//
// A float32 second operand of rank 2 (weights, also under a broadcasting
// BatchMatMul) is given to oneDNN in the layout its primitive asks for
// (format_tag::any), reordered once per buffer and kept, as the convolution
// does with filters: the AVX-512 brgemm kernels otherwise repack it on every
// call. Measured on one core (oneDNN 2.6, avx512_core): 128 x 768 x 3072
// (BERT-base's feed-forward) 64 -> 190 GFLOP/s, 128 x 3072 x 768 167 -> 196,
// 128 x 768 x 768 183 -> 200.
#include "backends/cpu/onednn/onednn_matmul.h"

#include <algorithm>
#include <string>

#include "backends/cpu/onednn/onednn_engine.h"
#include "ir/attrs.h"

namespace tfhost::backends::onednn {
namespace {

using dnnl::memory;

struct MatMulConfig {
  bool batch = false;      // BatchMatMul*: adj_x/adj_y, rank >= 2
  bool broadcast = false;  // V2/V3: batch dims broadcast
  bool transpose_a = false, transpose_b = false;
  bool bf16 = false;  // node marked bf16 and the CPU has it
  Epilogue epilogue;       // _FusedMatMul / _TfhostFusedBatchMatMul
  // fused_ops ["Add" (, act)]: arg 0 is a tensor addend broadcast to the
  // output, a binary_add post-op before the eltwise one.
  bool addend = false;
};

struct MatMulEntry {
  bool ok = false;
  dnnl::matmul prim;
  memory::desc a_md, b_md, c_md, bias_md, addend_md, scratchpad_md;
  Shape out_shape;
  int64_t n = 0;
  // bf16: a_md/b_md are the primitive's bf16 operands; the user descriptors
  // the float32 tensors as stored.
  bool bf16 = false;
  // float32 b in the primitive's own layout (b_md), from b_user_md.
  bool pack_b = false;
  memory::desc a_user_md, b_user_md;
  std::mutex b_mu;
  Tensor b_source;                 // operand the cached copy came from
  std::shared_ptr<memory> b_copy;  // b in b_md's layout and type
  // float32 gemm:jit: pass b from a copy off its cache-line alignment.
  bool misalign_b = false;
};

// Measured with ONEDNN_MAX_CPU_ISA=AVX2 (bench/onednn_gemm_alignment,
// docs/perf.md, "GEMM operand alignment"), copy included: 512^3 runs
// 1.24-1.34x faster,
// 1024^3 the same; products with fewer rows or narrower outputs gain less
// than the copy costs (128 x 256 x 256: 0.70-0.98x; 8 rows: 0.2-0.7x), and
// the AVX-512 (brg) kernels gain nothing. 16 bytes past a line was the
// fastest offset tried (64 and 256 bytes were as slow as aligned or slower).
constexpr int64_t kMisalignBMinRows = 256;
constexpr int64_t kMisalignBMinColumns = 512;
constexpr int64_t kMisalignBMinElements = int64_t{1} << 18;
constexpr size_t kMisalignedOperand = 16;  // bytes

// Strides of the logical (untransposed) operand over a row-major tensor of
// `stored` dims: the stored strides with the last two swapped when
// `transposed` (the tensor holds [..., cols, rows]).
memory::dims OperandStrides(const memory::dims& stored, bool transposed) {
  const int r = static_cast<int>(stored.size());
  memory::dims strides(r, 1);
  for (int i = r - 2; i >= 0; --i) strides[i] = strides[i + 1] * stored[i + 1];
  if (transposed) std::swap(strides[r - 1], strides[r - 2]);
  return strides;
}

constexpr int kMaxRank = 12;  // DNNL_MAX_NDIMS

std::shared_ptr<MatMulEntry> BuildEntry(const MatMulConfig& cfg, const Tensor& a, const Tensor& b, const Tensor* addend,
                                        bool bf16) {
  auto entry = std::make_shared<MatMulEntry>();
  const int ar = a.rank(), br = b.rank();
  if (ar < 2 || br < 2 || (!cfg.batch && (ar != 2 || br != 2))) return entry;
  const int r = std::max(ar, br);
  if (r > kMaxRank) return entry;
  // BatchMatMul (V1) needs equal batch dims; the reference reports others.
  if (cfg.batch && !cfg.broadcast &&
      (ar != br || !std::equal(a.shape().dims().begin(), a.shape().dims().end() - 2, b.shape().dims().begin()))) {
    return entry;
  }
  // Operand dims padded to rank r with leading 1s, in stored order.
  memory::dims ad(r - ar, 1), bd(r - br, 1);
  ad.insert(ad.end(), a.shape().dims().begin(), a.shape().dims().end());
  bd.insert(bd.end(), b.shape().dims().begin(), b.shape().dims().end());
  const int64_t m = cfg.transpose_a ? ad[r - 1] : ad[r - 2];
  const int64_t k = cfg.transpose_a ? ad[r - 2] : ad[r - 1];
  const int64_t kb = cfg.transpose_b ? bd[r - 1] : bd[r - 2];
  const int64_t n = cfg.transpose_b ? bd[r - 2] : bd[r - 1];
  if (k != kb || m == 0 || n == 0 || k == 0) return entry;
  memory::dims cd(r);
  for (int i = 0; i < r - 2; ++i) {
    if (ad[i] != bd[i] && ad[i] != 1 && bd[i] != 1) return entry;
    if (ad[i] == 0 || bd[i] == 0) return entry;
    cd[i] = std::max(ad[i], bd[i]);
  }
  cd[r - 2] = m;
  cd[r - 1] = n;
  // Logical [.., m, k] and [.., k, n] over the stored layouts.
  const memory::dims a_strides = OperandStrides(ad, cfg.transpose_a);
  const memory::dims b_strides = OperandStrides(bd, cfg.transpose_b);
  memory::dims a_logical = ad, b_logical = bd;
  a_logical[r - 2] = m;
  a_logical[r - 1] = k;
  b_logical[r - 2] = k;
  b_logical[r - 1] = n;
  entry->a_md = memory::desc(a_logical, memory::data_type::f32, a_strides);
  entry->b_md = memory::desc(b_logical, memory::data_type::f32, b_strides);
  entry->c_md = PlainDesc(cd);
  entry->bf16 = bf16;
  if (bf16) {
    entry->a_user_md = entry->a_md;
    entry->b_user_md = entry->b_md;
    entry->a_md = memory::desc(a_logical, memory::data_type::bf16, OperandStrides(a_logical, false));
    entry->b_md = memory::desc(b_logical, memory::data_type::bf16, OperandStrides(b_logical, false));
  }
  entry->n = n;
  // Output shape: the broadcast batch dims at the larger operand's rank.
  entry->out_shape = Shape(std::vector<int64_t>(cd.begin(), cd.end()));
  const Epilogue& e = cfg.epilogue;
  try {
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    if (cfg.addend) {
      // The addend padded to rank r; it may broadcast into the output but
      // not enlarge it.
      if (addend == nullptr || addend->rank() > r) return entry;
      memory::dims dd(r - addend->rank(), 1);
      dd.insert(dd.end(), addend->shape().dims().begin(), addend->shape().dims().end());
      for (int i = 0; i < r; ++i) {
        if (dd[i] != 1 && dd[i] != cd[i]) return entry;
      }
      entry->addend_md = PlainDesc(dd);
      dnnl::post_ops po;
      po.append_binary(dnnl::algorithm::binary_add, entry->addend_md);
      if (e.has_eltwise) po.append_eltwise(1.0f, e.eltwise, e.alpha, e.beta);
      attr.set_post_ops(po);
    } else {
      attr.set_post_ops(MakePostOps(e, r, n));
    }
    if (e.affine == Epilogue::Affine::kBias) {
      memory::dims bias_dims(r, 1);
      bias_dims[r - 1] = n;
      entry->bias_md = PlainDesc(bias_dims);
    }
    auto make_pd = [&](const memory::desc& b_md) {
      const dnnl::matmul::desc desc = e.affine == Epilogue::Affine::kBias
                                          ? dnnl::matmul::desc(entry->a_md, b_md, entry->bias_md, entry->c_md)
                                          : dnnl::matmul::desc(entry->a_md, b_md, entry->c_md);
      return dnnl::matmul::primitive_desc(desc, attr, Engine());
    };
    dnnl::matmul::primitive_desc pd = make_pd(entry->b_md);
    if (!bf16 && br == 2) {
      dnnl::matmul::primitive_desc packed = make_pd(memory::desc(b_logical, memory::data_type::f32, memory::format_tag::any));
      if (packed.weights_desc() != entry->b_md) {
        entry->pack_b = true;
        entry->b_user_md = entry->b_md;
        entry->b_md = packed.weights_desc();
        pd = packed;
      }
    }
    entry->misalign_b = !bf16 && !entry->pack_b && r == 2 && !cfg.transpose_b && m >= kMisalignBMinRows && n >= kMisalignBMinColumns &&
                        k * n >= kMisalignBMinElements && std::string(pd.impl_info_str()).rfind("gemm:jit", 0) == 0;
    entry->scratchpad_md = pd.scratchpad_desc();
    entry->prim = dnnl::matmul(pd);
  } catch (const dnnl::error&) {
    return entry;
  }
  entry->ok = true;
  return entry;
}

// The second operand in the primitive's layout and type (bf16 or packed
// float32): reordered once per buffer (a Const weight is the same buffer on
// every run; holding b_source keeps it alive, so an equal buffer means the
// same values).
std::shared_ptr<memory> CachedOperand(MatMulEntry& entry, const Tensor& b) {
  std::lock_guard<std::mutex> lock(entry.b_mu);
  if (entry.b_copy && entry.b_source.SharesBufferWith(b)) return entry.b_copy;
  auto converted = std::make_shared<memory>(ReorderedCopy(entry.b_user_md, b, entry.b_md));
  entry.b_source = b;
  entry.b_copy = converted;
  return converted;
}

class MatMulKernel {
 public:
  MatMulKernel(MatMulConfig cfg, ops::KernelFn reference)
      : cfg_(std::move(cfg)), reference_(std::move(reference)),
        cache_(std::make_shared<ShapeCache<MatMulEntry>>()) {}

  Status operator()(ops::KernelContext& ctx) const {
    return RunGuarded(ctx, [&] { return Run(ctx); });
  }

 private:
  Status Run(ops::KernelContext& ctx) const {
    // Before any primitive is created: some oneDNN implementations (the
    // gemm-based MatMul) fix their thread split when they are built.
    SetThreadsFor(ctx);
    const Epilogue& e = cfg_.epilogue;
    if (ctx.num_inputs() < 2 + e.num_args) return reference_(ctx);
    const Tensor& a = ctx.input(0);
    const Tensor& b = ctx.input(1);
    if (a.dtype() != DType::kFloat || b.dtype() != DType::kFloat) return reference_(ctx);
    const Tensor* addend = cfg_.addend ? &ctx.input(2) : nullptr;
    if (addend != nullptr && addend->dtype() != DType::kFloat) return reference_(ctx);
    std::vector<int64_t> key = a.shape().dims();
    key.push_back(-1);  // separates the shapes (ranks may differ)
    key.insert(key.end(), b.shape().dims().begin(), b.shape().dims().end());
    if (addend != nullptr) {
      key.push_back(-1);
      key.insert(key.end(), addend->shape().dims().begin(), addend->shape().dims().end());
    }
    std::shared_ptr<MatMulEntry> entry = cache_->Find(key);
    if (entry == nullptr) {
      entry = BuildEntry(cfg_, a, b, addend, cfg_.bf16);
      // No bf16 primitive for these shapes: float32 rather than the reference.
      if (!entry->ok && cfg_.bf16) entry = BuildEntry(cfg_, a, b, addend, false);
      cache_->Insert(key, entry);
    }
    if (!entry->ok) return reference_(ctx);
    std::unordered_map<int, memory> args;
    if (e.affine == Epilogue::Affine::kBias) {
      const Tensor& bias = ctx.input(2);
      if (!IsFloatVector(bias, entry->n)) return reference_(ctx);
      args.emplace(DNNL_ARG_BIAS, Wrap(entry->bias_md, bias));
    }
    if (addend != nullptr) args.emplace(DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1, Wrap(entry->addend_md, *addend));
    Tensor c = Tensor::Uninitialized(DType::kFloat, entry->out_shape);  // oneDNN writes every element
    if (entry->bf16) {
      // Untransposed, the row-major bf16 operand is a dense copy of a.
      args.emplace(DNNL_ARG_SRC, cfg_.transpose_a ? ReorderedCopy(entry->a_user_md, a, entry->a_md)
                                                  : ConvertToBf16(a, entry->a_md, ctx));
      args.emplace(DNNL_ARG_WEIGHTS, *CachedOperand(*entry, b));
    } else if (entry->pack_b) {
      args.emplace(DNNL_ARG_SRC, Wrap(entry->a_md, a));
      args.emplace(DNNL_ARG_WEIGHTS, *CachedOperand(*entry, b));
    } else if (entry->misalign_b) {
      // Slot 1 of this thread (slot 0 is Execute's scratchpad).
      char* copy = static_cast<char*>(ThreadBuffer(1, b.ByteSize() + kMisalignedOperand)) + kMisalignedOperand;
      ParallelCopy(ctx, copy, b.raw_data(), static_cast<int64_t>(b.ByteSize()));
      args.emplace(DNNL_ARG_SRC, Wrap(entry->a_md, a));
      args.emplace(DNNL_ARG_WEIGHTS, memory(entry->b_md, Engine(), copy));
    } else {
      args.emplace(DNNL_ARG_SRC, Wrap(entry->a_md, a));
      args.emplace(DNNL_ARG_WEIGHTS, Wrap(entry->b_md, b));
    }
    args.emplace(DNNL_ARG_DST, Wrap(entry->c_md, c));
    Execute(entry->prim, entry->scratchpad_md, std::move(args));
    ctx.set_output(0, std::move(c));
    return OkStatus();
  }

  MatMulConfig cfg_;
  ops::KernelFn reference_;
  std::shared_ptr<ShapeCache<MatMulEntry>> cache_;
};

// The fused epilogue of _FusedMatMul / _TfhostFusedBatchMatMul: the shared
// ParseEpilogue (GELU included, as oneDNN's gelu_erf / gelu_tanh post-ops),
// plus _TfhostFusedBatchMatMul's leading "Add" of a broadcast addend.
bool ParseMatMulEpilogue(const ir::Node& node, Epilogue* out, bool* addend = nullptr) {
  auto fused = ir::GetAttrOr<std::vector<std::string>>(node, "fused_ops", {});
  if (!fused.ok()) return false;
  if (addend != nullptr && !fused->empty() && (*fused)[0] == "Add") {
    // ["Add" (, act)]: parse the activation alone, then count the addend.
    auto num_args = ir::GetAttrOr<int64_t>(node, "num_args", 0);
    if (!num_args.ok() || *num_args != 1 || fused->size() > 2) return false;
    ir::Node rest = node;
    tensorflow::AttrValue list;
    list.mutable_list();
    if (fused->size() == 2) list.mutable_list()->add_s((*fused)[1]);
    rest.attrs["fused_ops"] = list;
    rest.attrs["num_args"].set_i(0);
    if (!ParseMatMulEpilogue(rest, out)) return false;
    out->num_args = 1;
    *addend = true;
    return true;
  }
  return ParseEpilogue(node, /*allow_batch_norm=*/false, out);
}

}  // namespace

ops::KernelFn MakeMatMulKernel(const ir::Node& node, const ops::KernelFn& reference) {
  MatMulConfig cfg;
  if (node.op == "MatMul" || node.op == "_FusedMatMul") {
    if (!AttrIsFloat(node, "T")) return {};
    auto ta = ir::GetAttrOr<bool>(node, "transpose_a", false);
    auto tb = ir::GetAttrOr<bool>(node, "transpose_b", false);
    if (!ta.ok() || !tb.ok()) return {};
    cfg.transpose_a = *ta;
    cfg.transpose_b = *tb;
    if (node.op == "_FusedMatMul" && !ParseMatMulEpilogue(node, &cfg.epilogue)) return {};
  } else {
    cfg.batch = true;
    cfg.broadcast = node.op != "BatchMatMul";
    if (node.op == kFusedBatchMatMulOp && !ParseMatMulEpilogue(node, &cfg.epilogue, &cfg.addend)) return {};
    if (node.op == "BatchMatMulV3") {
      if (!AttrIsFloat(node, "Ta") || !AttrIsFloat(node, "Tb") || !AttrIsFloat(node, "Tout")) return {};
    } else if (!AttrIsFloat(node, "T")) {
      return {};
    }
    auto adj_x = ir::GetAttrOr<bool>(node, "adj_x", false);
    auto adj_y = ir::GetAttrOr<bool>(node, "adj_y", false);
    if (!adj_x.ok() || !adj_y.ok()) return {};
    cfg.transpose_a = *adj_x;
    cfg.transpose_b = *adj_y;
  }
  cfg.bf16 = NodeWantsBf16(node) && CpuHasBf16();
  return MatMulKernel(std::move(cfg), reference);
}

}  // namespace tfhost::backends::onednn
