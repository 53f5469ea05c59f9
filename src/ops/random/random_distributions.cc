#include "ops/random/random_distributions.h"

namespace tfhost::ops::random {

namespace {

// Groups below this run on the calling thread: a hand-off costs more than
// generating a few thousand values.
constexpr int64_t kMinGroupsPerChunk = 4096;

// float, half and bfloat16 (S is the storage type, `convert` rounds a float
// sample onto it, `uniform` maps one word to one uniform of that type).
template <typename S, typename Convert, typename Uniform>
void FillFloatLike(ThreadPool* pool, Distribution dist, const PhiloxRandom& gen, S* out, int64_t n, Convert convert,
                   Uniform uniform) {
  switch (dist) {
    case Distribution::kUniform:
      FillFixed<4>(pool, gen, out, n, [&](const PhiloxRandom::Block& b, S* g) {
        for (int i = 0; i < 4; ++i) g[i] = uniform(b[i]);
      });
      break;
    case Distribution::kNormal:
      FillFixed<4>(pool, gen, out, n, [&](const PhiloxRandom::Block& b, S* g) {
        float f[4];
        BoxMullerFloat(b[0], b[1], &f[0], &f[1]);
        BoxMullerFloat(b[2], b[3], &f[2], &f[3]);
        for (int i = 0; i < 4; ++i) g[i] = convert(f[i]);
      });
      break;
    case Distribution::kTruncatedNormal:
      FillVariable<4>(pool, gen, out, n, [&](SingleSampleGenerator& words, S* g) {
        int filled = 0;
        while (true) {
          const uint32_t x0 = words();
          const uint32_t x1 = words();
          float f[2];
          BoxMullerFloat(x0, x1, &f[0], &f[1]);
          for (float v : f) {
            if (std::fabs(v) < kTruncateFloat) {
              g[filled++] = convert(v);
              if (filled == 4) return;
            }
          }
        }
      });
      break;
  }
}

void FillDouble(ThreadPool* pool, Distribution dist, const PhiloxRandom& gen, double* out, int64_t n) {
  switch (dist) {
    case Distribution::kUniform:
      FillFixed<2>(pool, gen, out, n, [](const PhiloxRandom::Block& b, double* g) {
        g[0] = Uint64ToDouble(b[0], b[1]);
        g[1] = Uint64ToDouble(b[2], b[3]);
      });
      break;
    case Distribution::kNormal:
      FillFixed<2>(pool, gen, out, n, [](const PhiloxRandom::Block& b, double* g) {
        BoxMullerDouble(b[0], b[1], b[2], b[3], &g[0], &g[1]);
      });
      break;
    case Distribution::kTruncatedNormal:
      FillVariable<2>(pool, gen, out, n, [](SingleSampleGenerator& words, double* g) {
        int filled = 0;
        while (true) {
          const uint32_t x0 = words(), x1 = words(), x2 = words(), x3 = words();
          double d[2];
          BoxMullerDouble(x0, x1, x2, x3, &d[0], &d[1]);
          for (double v : d) {
            if (std::fabs(v) < kTruncateDouble) {
              g[filled++] = v;
              if (filled == 2) return;
            }
          }
        }
      });
      break;
  }
}

}  // namespace

void ForGroups(ThreadPool* pool, int64_t groups, const std::function<void(int64_t, int64_t)>& fn) {
  if (pool == nullptr || groups <= kMinGroupsPerChunk) {
    fn(0, groups);
  } else {
    pool->ParallelFor(groups, kMinGroupsPerChunk, fn);
  }
}

void FillFloatTensor(ThreadPool* pool, Distribution dist, const PhiloxRandom& gen, Tensor& out) {
  const int64_t n = out.NumElements();
  switch (out.dtype()) {
    case DType::kFloat:
      FillFloatLike(pool, dist, gen, out.data<float>(), n, [](float f) { return f; }, Uint32ToFloat);
      break;
    case DType::kDouble:
      FillDouble(pool, dist, gen, out.data<double>(), n);
      break;
    case DType::kHalf:
      FillFloatLike(pool, dist, gen, out.data<uint16_t>(), n, FloatToHalf, Uint16ToHalfBits);
      break;
    default:  // kBFloat16
      FillFloatLike(pool, dist, gen, out.data<uint16_t>(), n, FloatToBFloat16, Uint16ToBFloat16Bits);
      break;
  }
}

}  // namespace tfhost::ops::random
