// StringToHashBucketFast and StringToHashBucketStrong: feature-column hashing
// of strings into buckets. Estimator and TFX graphs bake the bucket of every
// vocabulary word into the trained weights, so a different hash would silently
// give every input the wrong embedding: the hashes must be TensorFlow's, bit
// for bit.
//
//   Fast:   FarmHash Fingerprint64(s) % num_buckets (TensorFlow's
//           Fingerprint64 is farmhash's fingerprint, which the system
//           libfarmhash provides).
//   Strong: SipHash-2-4 keyed with (key[0], key[1]) % num_buckets.
//   StringToHashBucket (deprecated, still in old graphs): TensorFlow's
//           Hash64, which is MurmurHash64A with seed 0xDECAFCAFFE.
#include <farmhash.h>

#include <cstring>

#include "ops/op_registry.h"
#include "ops/string/string_ops.h"

namespace tfhost::ops {
namespace string_internal {

namespace {
inline uint64_t Rotl(uint64_t x, int b) { return (x << b) | (x >> (64 - b)); }
inline void SipRound(uint64_t& v0, uint64_t& v1, uint64_t& v2, uint64_t& v3) {
  v0 += v1; v1 = Rotl(v1, 13); v1 ^= v0; v0 = Rotl(v0, 32);
  v2 += v3; v3 = Rotl(v3, 16); v3 ^= v2;
  v0 += v3; v3 = Rotl(v3, 21); v3 ^= v0;
  v2 += v1; v1 = Rotl(v1, 17); v1 ^= v2; v2 = Rotl(v2, 32);
}
inline uint64_t LoadLe64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}
}  // namespace

uint64_t Fingerprint64(std::string_view s) { return util::Fingerprint64(s.data(), s.size()); }

// SipHash-2-4 as specified by Aumasson and Bernstein: the key is the two
// little-endian 64-bit halves k0, k1.
uint64_t SipHash24(uint64_t k0, uint64_t k1, std::string_view s) {
  uint64_t v0 = 0x736f6d6570736575ULL ^ k0;
  uint64_t v1 = 0x646f72616e646f6dULL ^ k1;
  uint64_t v2 = 0x6c7967656e657261ULL ^ k0;
  uint64_t v3 = 0x7465646279746573ULL ^ k1;
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t m = LoadLe64(p + i);
    v3 ^= m;
    SipRound(v0, v1, v2, v3);
    SipRound(v0, v1, v2, v3);
    v0 ^= m;
  }
  uint64_t last = static_cast<uint64_t>(n & 0xff) << 56;
  for (size_t j = 0; i + j < n; ++j) last |= static_cast<uint64_t>(p[i + j]) << (8 * j);
  v3 ^= last;
  SipRound(v0, v1, v2, v3);
  SipRound(v0, v1, v2, v3);
  v0 ^= last;
  v2 ^= 0xff;
  for (int r = 0; r < 4; ++r) SipRound(v0, v1, v2, v3);
  return v0 ^ v1 ^ v2 ^ v3;
}

uint64_t MurmurHash64A(std::string_view s, uint64_t seed) {
  constexpr uint64_t m = 0xc6a4a7935bd1e995ULL;
  constexpr int r = 47;
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  size_t n = s.size();
  uint64_t h = seed ^ (n * m);
  while (n >= 8) {
    uint64_t k = LoadLe64(p);
    p += 8;
    n -= 8;
    k *= m;
    k ^= k >> r;
    k *= m;
    h ^= k;
    h *= m;
  }
  if (n > 0) {
    for (size_t j = n; j-- > 0;) h ^= static_cast<uint64_t>(p[j]) << (8 * j);
    h *= m;
  }
  h ^= h >> r;
  h *= m;
  h ^= h >> r;
  return h;
}

}  // namespace string_internal

namespace {

StatusOr<uint64_t> NumBuckets(const KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(int64_t n, ctx.Attr<int64_t>("num_buckets"));
  if (n < 1) return ctx.Error("num_buckets must be >= 1, got " + std::to_string(n));
  return static_cast<uint64_t>(n);
}

Status StringToHashBucketFast(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(uint64_t buckets, NumBuckets(ctx));
  const Tensor& in = ctx.input(0);
  Tensor out(DType::kInt64, in.shape());
  for (int64_t i = 0; i < in.NumElements(); ++i) {
    out.data<int64_t>()[i] = static_cast<int64_t>(string_internal::Fingerprint64(in.strings()[i]) % buckets);
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status StringToHashBucket(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(uint64_t buckets, NumBuckets(ctx));
  const Tensor& in = ctx.input(0);
  Tensor out(DType::kInt64, in.shape());
  for (int64_t i = 0; i < in.NumElements(); ++i) {
    out.data<int64_t>()[i] =
        static_cast<int64_t>(string_internal::MurmurHash64A(in.strings()[i], 0xDECAFCAFFEULL) % buckets);
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status StringToHashBucketStrong(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(uint64_t buckets, NumBuckets(ctx));
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> key, ctx.Attr<std::vector<int64_t>>("key"));
  if (key.size() != 2) {
    return ctx.Error("key must have size 2, got " + std::to_string(key.size()));
  }
  const Tensor& in = ctx.input(0);
  Tensor out(DType::kInt64, in.shape());
  for (int64_t i = 0; i < in.NumElements(); ++i) {
    uint64_t h = string_internal::SipHash24(static_cast<uint64_t>(key[0]), static_cast<uint64_t>(key[1]),
                                            in.strings()[i]);
    out.data<int64_t>()[i] = static_cast<int64_t>(h % buckets);
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterStringHashOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("StringToHashBucket")
                        .Input("string_tensor: string")
                        .Output("output: int64")
                        .Attr("num_buckets: int >= 1"),
                    StringToHashBucket);
  registry.Register(ir::OpDefBuilder("StringToHashBucketFast")
                        .Input("input: string")
                        .Output("output: int64")
                        .Attr("num_buckets: int >= 1"),
                    StringToHashBucketFast);
  registry.Register(ir::OpDefBuilder("StringToHashBucketStrong")
                        .Input("input: string")
                        .Output("output: int64")
                        .Attr("num_buckets: int >= 1")
                        .Attr("key: list(int)"),
                    StringToHashBucketStrong);
}

}  // namespace tfhost::ops
