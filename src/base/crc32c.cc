#include "base/crc32c.h"

#include <array>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include <nmmintrin.h>
#define TFHOST_CRC32C_X86 1
#endif

namespace tfhost::crc32c {
namespace {

// Reflected Castagnoli polynomial.
constexpr uint32_t kPoly = 0x82F63B78u;

// Slicing-by-8 tables: table[k][b] is the CRC contribution of byte b followed
// by k zero bytes, so eight input bytes are folded per step.
using Tables = std::array<std::array<uint32_t, 256>, 8>;

constexpr Tables MakeTables() {
  Tables t{};
  for (uint32_t b = 0; b < 256; ++b) {
    uint32_t crc = b;
    for (int i = 0; i < 8; ++i) crc = (crc >> 1) ^ ((crc & 1) ? kPoly : 0);
    t[0][b] = crc;
  }
  for (int k = 1; k < 8; ++k) {
    for (uint32_t b = 0; b < 256; ++b) t[k][b] = (t[k - 1][b] >> 8) ^ t[0][t[k - 1][b] & 0xff];
  }
  return t;
}

constexpr Tables kTables = MakeTables();

inline uint64_t LoadLE64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);  // x86 and every target we build for are little-endian
  return v;
}

#ifdef TFHOST_CRC32C_X86
// --- Shifting a raw CRC state over zero bytes -------------------------------
//
// The raw state update (no pre/post inversion) is linear over GF(2), so
// feeding n zero bytes is a 32x32 bit matrix. That lets independent
// streams be computed in parallel and combined afterwards, e.g. for three:
//   R(s, A ++ B ++ C) = Z_L(Z_L(R(s, A)) ^ R(0, B)) ^ R(0, C),   |A|=|B|=|C|=L,
// where Z_L is "feed L zero bytes". Z_L is applied by four 256-entry tables.

// A GF(2) 32x32 matrix by columns: col[i] is the image of bit i.
struct Matrix {
  uint32_t col[32];
};

uint32_t Apply(const Matrix& m, uint32_t v) {
  uint32_t out = 0;
  for (int i = 0; v != 0; ++i, v >>= 1) {
    if (v & 1) out ^= m.col[i];
  }
  return out;
}

Matrix Multiply(const Matrix& a, const Matrix& b) {  // a after b
  Matrix out;
  for (int i = 0; i < 32; ++i) out.col[i] = Apply(a, b.col[i]);
  return out;
}

// Z_n as a matrix, by square-and-multiply over the one-zero-byte step.
Matrix ZeroBytesOperator(size_t n) {
  Matrix step, result;
  for (int i = 0; i < 32; ++i) {
    uint32_t s = uint32_t{1} << i;
    step.col[i] = (s >> 8) ^ kTables[0][s & 0xff];
    result.col[i] = s;
  }
  while (n > 0) {
    if (n & 1) result = Multiply(step, result);
    step = Multiply(step, step);
    n >>= 1;
  }
  return result;
}

struct ShiftTable {
  uint32_t t[4][256];
  explicit ShiftTable(size_t zero_bytes) {
    Matrix m = ZeroBytesOperator(zero_bytes);
    for (int k = 0; k < 4; ++k) {
      for (uint32_t b = 0; b < 256; ++b) t[k][b] = Apply(m, b << (8 * k));
    }
  }
  uint32_t Shift(uint32_t crc) const {
    return t[0][crc & 0xff] ^ t[1][(crc >> 8) & 0xff] ^ t[2][(crc >> 16) & 0xff] ^ t[3][crc >> 24];
  }
};

// Independent chains hide the crc32 instruction's latency. Measured on the
// development machine (AMD EPYC): 1 chain 3.9 GB/s, 3 chains 11.5, 6 chains
// 20-22, 8 no better. Joining chains costs a table shift per chain, which
// only pays off on long blocks, so long inputs run six chains of 2 KiB and
// what is left three chains of 128 bytes (records of a few hundred bytes);
// the last < 384 bytes run as one chain.
struct ShiftTables {
  ShiftTable shift[2] = {ShiftTable(2048), ShiftTable(128)};
};

const ShiftTables& GetShiftTables() {
  static const ShiftTables* tables = new ShiftTables();
  return *tables;
}

// One block of N streams of `len` bytes each (len a multiple of 8),
// continuing raw state `crc`; the chains are joined by shifting the running
// result over each next stream's length and XORing that stream's CRC.
template <int N>
__attribute__((target("sse4.2"))) inline uint64_t MultiStreamBlock(const uint8_t* p, size_t len, uint64_t crc,
                                                                   const ShiftTable& shift) {
  uint64_t c[N] = {};
  c[0] = crc;
  for (size_t i = 0; i < len; i += 8) {
#pragma GCC unroll 6
    for (int k = 0; k < N; ++k) c[k] = _mm_crc32_u64(c[k], LoadLE64(p + k * len + i));
  }
  uint32_t out = static_cast<uint32_t>(c[0]);
  for (int k = 1; k < N; ++k) out = shift.Shift(out) ^ static_cast<uint32_t>(c[k]);
  return out;
}

// --- Carry-less multiply folding (AVX-512 VPCLMULQDQ) -------------------------
// (GCC 12's AVX-512 headers trip -Wmaybe-uninitialized on their own
// undefined-vector idiom; the warning is about the header, not this code.)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wpsabi"
//
// Moving a 16-byte chunk X forward by D bytes multiplies it by x^(8D) mod P:
// with X's first 8 bytes in the low lane (higher degree), that is
// lo * (x^(8D+64) mod P) + hi * (x^(8D) mod P), and carry-less products of
// the bit-reflected values come out one bit off, hence the -33 below
// (checked against the portable path by crc32c_test). Four 512-bit
// accumulators fold 256 bytes per step; at the end every 16-byte lane is
// folded onto the last one, and the crc32 instruction reduces those 16 bytes.

// x^n mod P in the reflected representation (bit 31 is x^0). n may be
// negative: P's constant term is 1, so x is invertible mod P, and folding by
// fewer than 5 bytes (n = 8 D - 33 < 0) needs x^-k. Multiplying by x shifts
// right and reduces when x^31 falls off; dividing undoes exactly that.
uint32_t XPowMod(int64_t n) {
  uint32_t v = 0x80000000u;
  // Square-and-multiply through the zero-byte matrices would be faster; |n|
  // is at most a few thousand and this runs once.
  for (; n > 0; --n) v = (v >> 1) ^ ((v & 1) ? kPoly : 0);
  for (; n < 0; ++n) v = (v & 0x80000000u) ? ((v ^ kPoly) << 1) | 1 : v << 1;
  return v;
}

struct FoldConstants {
  uint64_t main_lo, main_hi;  // fold by 256 bytes
  uint64_t tail[16][2];       // lane j of the last 256-byte window: fold by 240 - 16 j
  FoldConstants() {
    main_lo = XPowMod(8 * 256 + 64 - 33);
    main_hi = XPowMod(8 * 256 - 33);
    for (int j = 0; j < 15; ++j) {
      int64_t d = 240 - 16 * j;
      tail[j][0] = XPowMod(8 * d + 64 - 33);
      tail[j][1] = XPowMod(8 * d - 33);
    }
    tail[15][0] = tail[15][1] = 0;  // the last lane is added as it is
  }
};

const FoldConstants& GetFoldConstants() {
  static const FoldConstants* k = new FoldConstants();
  return *k;
}

// acc moved forward by 256 bytes, plus the 64 bytes at q.
__attribute__((target("avx512f,vpclmulqdq"))) inline __m512i FoldStep(__m512i acc, __m512i k, const uint8_t* q) {
  __m512i lo = _mm512_clmulepi64_epi128(acc, k, 0x00);
  __m512i hi = _mm512_clmulepi64_epi128(acc, k, 0x11);
  return _mm512_ternarylogic_epi64(lo, hi, _mm512_loadu_si512(q), 0x96);  // lo ^ hi ^ data
}

// Folds data[0, 256 * windows) continuing raw state `crc`; returns the raw
// state after those bytes. windows >= 1.
__attribute__((target("avx512f,vpclmulqdq,sse4.2"))) uint64_t FoldAvx512(const uint8_t* p, size_t windows,
                                                                           uint64_t crc) {
  const FoldConstants& k = GetFoldConstants();
  __m512i a0 = _mm512_loadu_si512(p);
  __m512i a1 = _mm512_loadu_si512(p + 64);
  __m512i a2 = _mm512_loadu_si512(p + 128);
  __m512i a3 = _mm512_loadu_si512(p + 192);
  a0 = _mm512_xor_si512(a0, _mm512_zextsi128_si512(_mm_cvtsi32_si128(static_cast<int>(crc))));
  const __m512i kmain = _mm512_broadcast_i32x4(
      _mm_set_epi64x(static_cast<long long>(k.main_hi), static_cast<long long>(k.main_lo)));
  for (size_t w = 1; w < windows; ++w) {
    p += 256;
    a0 = FoldStep(a0, kmain, p);
    a1 = FoldStep(a1, kmain, p + 64);
    a2 = FoldStep(a2, kmain, p + 128);
    a3 = FoldStep(a3, kmain, p + 192);
  }
  // Fold all sixteen lanes onto the last one.
  __m512i sum = _mm512_setzero_si512();
  __m512i accs[4] = {a0, a1, a2, a3};
  for (int i = 0; i < 4; ++i) {
    const uint64_t* t = &k.tail[4 * i][0];
    __m512i kv = _mm512_set_epi64(static_cast<long long>(t[7]), static_cast<long long>(t[6]),
                                  static_cast<long long>(t[5]), static_cast<long long>(t[4]),
                                  static_cast<long long>(t[3]), static_cast<long long>(t[2]),
                                  static_cast<long long>(t[1]), static_cast<long long>(t[0]));
    __m512i lo = _mm512_clmulepi64_epi128(accs[i], kv, 0x00);
    __m512i hi = _mm512_clmulepi64_epi128(accs[i], kv, 0x11);
    sum = _mm512_ternarylogic_epi64(sum, lo, hi, 0x96);
  }
  __m128i last = _mm512_extracti32x4_epi32(a3, 3);
  __m128i folded = _mm_xor_si128(
      _mm_xor_si128(_mm512_extracti32x4_epi32(sum, 0), _mm512_extracti32x4_epi32(sum, 1)),
      _mm_xor_si128(_mm512_extracti32x4_epi32(sum, 2), _mm512_extracti32x4_epi32(sum, 3)));
  folded = _mm_xor_si128(folded, last);
  uint64_t out = _mm_crc32_u64(0, static_cast<uint64_t>(_mm_cvtsi128_si64(folded)));
  return _mm_crc32_u64(out, static_cast<uint64_t>(_mm_extract_epi64(folded, 1)));
}

// Folding constants for one 512-bit accumulator, 64 bytes per step: the
// main step moves the accumulator forward by 64 bytes; at the end lanes 0-2
// move forward by 48, 32 and 16 bytes onto lane 3.
struct Fold64Constants {
  uint64_t main_lo, main_hi;
  uint64_t tail[8];  // lo, hi per lane; lane 3's are zero (added as it is)
  Fold64Constants() {
    main_lo = XPowMod(8 * 64 + 64 - 33);
    main_hi = XPowMod(8 * 64 - 33);
    for (int j = 0; j < 3; ++j) {
      int64_t d = 48 - 16 * j;
      tail[2 * j] = XPowMod(8 * d + 64 - 33);
      tail[2 * j + 1] = XPowMod(8 * d - 33);
    }
    tail[6] = tail[7] = 0;
  }
};

const Fold64Constants& GetFold64Constants() {
  static const Fold64Constants* k = new Fold64Constants();
  return *k;
}

// kInitPattern[64, 68) are 0xff: loaded from kInitPattern + 64 - z it marks
// bytes [z, z + 4) of a 64-byte block, where the initial CRC state goes.
alignas(64) constexpr uint8_t kInitPattern[192] = {
    0,    0,    0,    0,    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0,    0,    0,    0,    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0xff, 0xff, 0xff, 0xff};

// Raw state after data[0, n) continued from raw state `crc`; n >= 64. Records
// of a few hundred bytes are what this is for. The input is seen as
// z = (-n mod 64) zero bytes followed by the data, so it is whole 64-byte
// blocks: zero bytes in front do not change a CRC whose state is zero, and
// the state `crc` is XORed into the data's first four bytes instead (its
// bytes rotated so that a broadcast lines them up at byte z). The partial
// first block is a masked load, which does not touch (or fault on) the
// masked-off bytes before `p`. One accumulator keeps setup and the final
// reduction to a handful of instructions; the chain (one multiply and one
// XOR per 64 bytes) is short enough that the out-of-order core overlaps
// consecutive records, which are independent.
__attribute__((target("avx512f,avx512bw,vpclmulqdq,sse4.2"))) inline uint64_t Fold64(const uint8_t* p, size_t n,
                                                                                       uint64_t crc) {
  const Fold64Constants& k = GetFold64Constants();
  const size_t z = (64 - n % 64) % 64;
  const uint32_t s = static_cast<uint32_t>(crc);
  const uint32_t rot = (z & 3) == 0 ? s : (s << (8 * (z & 3))) | (s >> (32 - 8 * (z & 3)));
  const __m512i state = _mm512_set1_epi32(static_cast<int>(rot));
  const __m512i init0 = _mm512_and_si512(_mm512_loadu_si512(kInitPattern + 64 - z), state);
  const __m512i init1 = _mm512_and_si512(_mm512_loadu_si512(kInitPattern + 128 - z), state);
  __m512i a = _mm512_xor_si512(_mm512_maskz_loadu_epi8(~uint64_t{0} << z, p - z), init0);
  p += 64 - z;
  size_t blocks = (n - (64 - z)) / 64;  // full blocks after the first
  const __m512i kmain = _mm512_broadcast_i32x4(
      _mm_set_epi64x(static_cast<long long>(k.main_hi), static_cast<long long>(k.main_lo)));
  if (blocks > 0) {
    // init1 is non-zero only when the state straddles into this block.
    a = _mm512_xor_si512(FoldStep(a, kmain, p), init1);
    for (size_t b = 1; b < blocks; ++b) a = FoldStep(a, kmain, p + 64 * b);
  }
  const __m512i ktail = _mm512_loadu_si512(k.tail);
  __m512i lo = _mm512_clmulepi64_epi128(a, ktail, 0x00);
  __m512i hi = _mm512_clmulepi64_epi128(a, ktail, 0x11);
  // Lane 3 is multiplied by zero above; add it back as it is.
  __m512i sum = _mm512_ternarylogic_epi64(lo, hi, _mm512_maskz_mov_epi64(0xC0, a), 0x96);
  __m256i half = _mm256_xor_si256(_mm512_castsi512_si256(sum), _mm512_extracti64x4_epi64(sum, 1));
  __m128i folded = _mm_xor_si128(_mm256_castsi256_si128(half), _mm256_extracti128_si256(half, 1));
  uint64_t out = _mm_crc32_u64(0, static_cast<uint64_t>(_mm_cvtsi128_si64(folded)));
  return _mm_crc32_u64(out, static_cast<uint64_t>(_mm_extract_epi64(folded, 1)));
}

// --- Carry-less multiply folding with 256-bit VPCLMULQDQ (AVX2 machines) -----
//
// CPUs with VPCLMULQDQ but no AVX-512 (AMD Zen 3) have neither 512-bit
// registers nor byte-masked loads, so Fold64's zero-padded first block is
// out. Instead the input is folded from its start in windows of K 32-byte
// accumulators (the state XORed into the first four bytes), and what is
// left after the last whole window, r = 1..32K bytes, is taken as one more
// window that ends where the input ends: the accumulators move forward by r
// bytes (not a whole window), and the bytes of that window that were already
// folded are masked off. There is no data-dependent branch besides the loop
// count, which matters for records of varying length.

constexpr int kAvx2MaxAccumulators = 4;
constexpr size_t kAvx2MaxWindow = 32 * kAvx2MaxAccumulators;

struct Avx2FoldConstants {
  // by[d]: move a 16-byte lane forward by d bytes, d = 0..kAvx2MaxWindow.
  alignas(16) uint64_t by[kAvx2MaxWindow + 1][2];
  // reduceK[i]: accumulator i's two lanes moved onto the last lane of a
  // window of K accumulators (the last lane itself by 0 bytes).
  alignas(32) uint64_t reduce2[2][4];
  alignas(32) uint64_t reduce4[4][4];
  Avx2FoldConstants() {
    for (int64_t d = 0; d <= static_cast<int64_t>(kAvx2MaxWindow); ++d) {
      by[d][0] = XPowMod(8 * d + 64 - 33);
      by[d][1] = XPowMod(8 * d - 33);
    }
    auto fill = [&](uint64_t (*out)[4], int k) {
      for (int i = 0; i < k; ++i) {
        for (int lane = 0; lane < 2; ++lane) {
          int64_t d = 16 * (2 * k - 1 - (2 * i + lane));
          out[i][2 * lane] = by[d][0];
          out[i][2 * lane + 1] = by[d][1];
        }
      }
    };
    fill(reduce2, 2);
    fill(reduce4, 4);
  }
  const uint64_t (*Reduce(int k) const)[4] { return k == 2 ? reduce2 : reduce4; }
};

const Avx2FoldConstants& GetAvx2FoldConstants() {
  static const Avx2FoldConstants* k = new Avx2FoldConstants();
  return *k;
}

// kAvx2TailMask[128, 256) are 0xff; loaded from kAvx2TailMask + 128 - W + r
// it keeps the last r bytes of a W-byte window.
alignas(64) constexpr auto kAvx2TailMask = [] {
  std::array<uint8_t, 2 * kAvx2MaxWindow> m{};
  for (size_t i = kAvx2MaxWindow; i < m.size(); ++i) m[i] = 0xff;
  return m;
}();

// GCC's generic tuning splits an unaligned 256-bit load into two 128-bit
// ones stored and reloaded through the stack, and the reload waits for
// store forwarding that cannot merge them (FoldAvx2<4> ran at half speed);
// vlddqu is never split and is an ordinary unaligned load on AVX2 CPUs.
__attribute__((target("avx2,vpclmulqdq"))) inline __m256i Load256(const void* p) {
  return _mm256_lddqu_si256(static_cast<const __m256i*>(p));
}

// acc moved forward by the distance of `k`, plus `data`.
__attribute__((target("avx2,vpclmulqdq"))) inline __m256i FoldStep256(__m256i acc, __m256i k, __m256i data) {
  __m256i lo = _mm256_clmulepi64_epi128(acc, k, 0x00);
  __m256i hi = _mm256_clmulepi64_epi128(acc, k, 0x11);
  return _mm256_xor_si256(_mm256_xor_si256(lo, hi), data);
}

__attribute__((target("avx2,vpclmulqdq"))) inline __m256i Broadcast128(const uint64_t (&k)[2]) {
  return _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(k)));
}

// Raw state after data[0, n) continued from raw state `crc`; n > 32 K.
template <int K>
__attribute__((target("avx2,vpclmulqdq,sse4.2"))) uint64_t FoldAvx2(const uint8_t* p, size_t n, uint64_t crc) {
  static_assert(K >= 1 && K <= kAvx2MaxAccumulators);
  constexpr size_t kWindow = 32 * K;
  const Avx2FoldConstants& k = GetAvx2FoldConstants();
  const uint8_t* const end = p + n;
  const size_t windows = (n - 1) / kWindow;  // whole windows before the last r bytes
  const size_t r = n - kWindow * windows;    // 1..kWindow
  __m256i a[K];
  for (int i = 0; i < K; ++i) a[i] = Load256(p + 32 * i);
  a[0] = _mm256_xor_si256(a[0], _mm256_zextsi128_si256(_mm_cvtsi32_si128(static_cast<int>(crc))));
  const __m256i kwindow = Broadcast128(k.by[kWindow]);
  for (size_t w = 1; w < windows; ++w) {
    p += kWindow;
#pragma GCC unroll 4
    for (int i = 0; i < K; ++i) a[i] = FoldStep256(a[i], kwindow, Load256(p + 32 * i));
  }
  // The window ending at `end` overlaps the last whole one by kWindow - r
  // bytes; those are masked off and the accumulators move forward by r.
  const __m256i kr = Broadcast128(k.by[r]);
  const uint8_t* mask = kAvx2TailMask.data() + kAvx2MaxWindow - kWindow + r;
#pragma GCC unroll 4
  for (int i = 0; i < K; ++i) {
    __m256i tail = _mm256_and_si256(Load256(end - kWindow + 32 * i), Load256(mask + 32 * i));
    a[i] = FoldStep256(a[i], kr, tail);
  }
  // Every lane onto the last one.
  const uint64_t(*reduce)[4] = k.Reduce(K);
  __m256i sum = _mm256_setzero_si256();
#pragma GCC unroll 4
  for (int i = 0; i < K; ++i) sum = FoldStep256(a[i], Load256(reduce[i]), sum);
  __m128i folded = _mm_xor_si128(_mm256_castsi256_si128(sum), _mm256_extracti128_si256(sum, 1));
  uint64_t out = _mm_crc32_u64(0, static_cast<uint64_t>(_mm_cvtsi128_si64(folded)));
  return _mm_crc32_u64(out, static_cast<uint64_t>(_mm_extract_epi64(folded, 1)));
}

// Below this, folding's setup and final lane reduction cost more than the
// crc32 chains.
constexpr size_t kFoldMinBytes = 2048;
// Below this, the crc32 chains win over the one-accumulator fold.
constexpr size_t kFold64MinBytes = 128;
// AVX2 folding (Zen 3, crc32c_bench): from kAvx2Fold4MinBytes, four
// accumulators (128-byte windows), for their shorter dependency chains; from
// kAvx2FoldMinBytes, two (64-byte windows), which waste less of the last
// window on records of a few hundred bytes (400-640 B records with their
// headers: 16.1 GB per CPU-second against 15.7 with four and 12.6 for the
// chains). Below 80 bytes the chains win (80 B: 11.5 against 11.0 GB/s).
constexpr size_t kAvx2Fold4MinBytes = 1024;
constexpr size_t kAvx2FoldMinBytes = 80;
#pragma GCC diagnostic pop

// The last 0..7 bytes in at most three instructions.
__attribute__((target("sse4.2"))) inline uint32_t FinishTail(uint64_t crc, const uint8_t* p, size_t n) {
  uint32_t c = static_cast<uint32_t>(crc);
  if (n & 4) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    c = _mm_crc32_u32(c, v);
    p += 4;
  }
  if (n & 2) {
    uint16_t v;
    std::memcpy(&v, p, 2);
    c = _mm_crc32_u16(c, v);
    p += 2;
  }
  if (n & 1) c = _mm_crc32_u8(c, *p);
  return c;
}

// Raw state after data[0, n) from raw state `crc`, with the crc32
// instruction alone.
__attribute__((target("sse4.2"))) inline uint32_t Chains(const uint8_t* p, size_t n, uint64_t crc) {
  if (n >= 3 * 128) {
    const ShiftTables& tables = GetShiftTables();
    while (n >= 6 * 2048) {
      crc = MultiStreamBlock<6>(p, 2048, crc, tables.shift[0]);
      p += 6 * 2048;
      n -= 6 * 2048;
    }
    while (n >= 3 * 128) {
      crc = MultiStreamBlock<3>(p, 128, crc, tables.shift[1]);
      p += 3 * 128;
      n -= 3 * 128;
    }
  }
  while (n >= 8) {
    crc = _mm_crc32_u64(crc, LoadLE64(p));
    p += 8;
    n -= 8;
  }
  return FinishTail(crc, p, n);
}

__attribute__((target("sse4.2"))) uint32_t ExtendSse42(uint32_t init_crc, const void* data, size_t n) {
  return Chains(static_cast<const uint8_t*>(data), n, init_crc ^ 0xFFFFFFFFu) ^ 0xFFFFFFFFu;
}

__attribute__((target("sse4.2"))) uint32_t ExtendAvx512(uint32_t init_crc, const void* data, size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  uint64_t crc = init_crc ^ 0xFFFFFFFFu;
  if (n >= kFold64MinBytes) {
    if (n >= kFoldMinBytes) {
      size_t windows = n / 256;
      crc = FoldAvx512(p, windows, crc);
      p += 256 * windows;
      n -= 256 * windows;
    }
    if (n >= 64) return static_cast<uint32_t>(Fold64(p, n, crc)) ^ 0xFFFFFFFFu;
  }
  return Chains(p, n, crc) ^ 0xFFFFFFFFu;
}

__attribute__((target("sse4.2"))) uint32_t ExtendAvx2(uint32_t init_crc, const void* data, size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  uint64_t crc = init_crc ^ 0xFFFFFFFFu;
  if (n >= kAvx2Fold4MinBytes) return static_cast<uint32_t>(FoldAvx2<4>(p, n, crc)) ^ 0xFFFFFFFFu;
  if (n >= kAvx2FoldMinBytes) return static_cast<uint32_t>(FoldAvx2<2>(p, n, crc)) ^ 0xFFFFFFFFu;
  return Chains(p, n, crc) ^ 0xFFFFFFFFu;
}
#endif  // TFHOST_CRC32C_X86

bool Supported(Impl impl) {
#ifdef TFHOST_CRC32C_X86
  __builtin_cpu_init();
  const bool sse42 = __builtin_cpu_supports("sse4.2");
  switch (impl) {
    case Impl::kPortable: return true;
    case Impl::kSse42: return sse42;
    case Impl::kAvx2Vpclmulqdq:
      return sse42 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("vpclmulqdq");
    case Impl::kAvx512Vpclmulqdq:
      return sse42 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("vpclmulqdq");
  }
  return false;
#else
  return impl == Impl::kPortable;
#endif
}

// The fastest one the CPU runs. Where AVX-512 is present its 512-bit fold
// wins over the 256-bit one.
Impl DetectBest() {
  for (Impl impl : {Impl::kAvx512Vpclmulqdq, Impl::kAvx2Vpclmulqdq, Impl::kSse42}) {
    if (Supported(impl)) return impl;
  }
  return Impl::kPortable;
}

// Both are set during static initialisation; a call before that (from
// another file's initialiser) sees kPortable / false and runs the portable
// code, which is slower but correct.
const Impl kActive = DetectBest();
const bool kSupported[4] = {Supported(Impl::kPortable), Supported(Impl::kSse42), Supported(Impl::kAvx2Vpclmulqdq),
                            Supported(Impl::kAvx512Vpclmulqdq)};

}  // namespace

uint32_t ExtendPortable(uint32_t init_crc, const void* data, size_t n) {
  const auto* p = static_cast<const uint8_t*>(data);
  uint32_t crc = init_crc ^ 0xFFFFFFFFu;
  while (n >= 8) {
    uint64_t v = LoadLE64(p) ^ crc;
    crc = kTables[7][v & 0xff] ^ kTables[6][(v >> 8) & 0xff] ^ kTables[5][(v >> 16) & 0xff] ^
          kTables[4][(v >> 24) & 0xff] ^ kTables[3][(v >> 32) & 0xff] ^
          kTables[2][(v >> 40) & 0xff] ^ kTables[1][(v >> 48) & 0xff] ^ kTables[0][v >> 56];
    p += 8;
    n -= 8;
  }
  while (n > 0) {
    crc = (crc >> 8) ^ kTables[0][(crc ^ *p++) & 0xff];
    --n;
  }
  return crc ^ 0xFFFFFFFFu;
}

uint32_t ExtendWith(Impl impl, uint32_t init_crc, const void* data, size_t n) {
#ifdef TFHOST_CRC32C_X86
  // An implementation the CPU lacks would fault on its first instruction;
  // the portable one gives the same result.
  if (kSupported[static_cast<int>(impl)]) {
    switch (impl) {
      case Impl::kPortable: break;
      case Impl::kSse42: return ExtendSse42(init_crc, data, n);
      case Impl::kAvx2Vpclmulqdq: return ExtendAvx2(init_crc, data, n);
      case Impl::kAvx512Vpclmulqdq: return ExtendAvx512(init_crc, data, n);
    }
  }
#else
  (void)impl;
#endif
  return ExtendPortable(init_crc, data, n);
}

uint32_t Extend(uint32_t init_crc, const void* data, size_t n) {
#ifdef TFHOST_CRC32C_X86
  switch (kActive) {
    case Impl::kPortable: break;
    case Impl::kSse42: return ExtendSse42(init_crc, data, n);
    case Impl::kAvx2Vpclmulqdq: return ExtendAvx2(init_crc, data, n);
    case Impl::kAvx512Vpclmulqdq: return ExtendAvx512(init_crc, data, n);
  }
#endif
  return ExtendPortable(init_crc, data, n);
}

#ifdef TFHOST_CRC32C_X86
namespace {
__attribute__((target("sse4.2"))) uint32_t Value64Sse42(uint64_t v) {
  return static_cast<uint32_t>(_mm_crc32_u64(0xFFFFFFFFu, v)) ^ 0xFFFFFFFFu;
}
}  // namespace
#endif

uint32_t Value64(uint64_t v) {
#ifdef TFHOST_CRC32C_X86
  if (kActive != Impl::kPortable) return Value64Sse42(v);
#endif
  uint8_t bytes[8];
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<uint8_t>(v >> (8 * i));
  return ExtendPortable(0, bytes, 8);
}

bool UsingHardware() { return kActive != Impl::kPortable; }

Impl ActiveImpl() { return kActive; }

bool ImplSupported(Impl impl) { return kSupported[static_cast<int>(impl)]; }

const char* ImplName(Impl impl) {
  switch (impl) {
    case Impl::kPortable: return "portable (slicing-by-8)";
    case Impl::kSse42: return "sse4.2 (crc32 chains)";
    case Impl::kAvx2Vpclmulqdq: return "avx2 + 256-bit vpclmulqdq";
    case Impl::kAvx512Vpclmulqdq: return "avx-512 + vpclmulqdq";
  }
  return "unknown";
}

}  // namespace tfhost::crc32c
