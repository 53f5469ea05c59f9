// This machine's roofline, measured: peak fp32 FLOP/s of `threads` cores
// running independent fused multiply-add chains in the widest vector unit
// the CPU has (AVX-512, else AVX2+FMA, else scalar), and the memory
// bandwidth of `threads` cores summing a buffer far larger than the caches.
// `tfhost plan` calibrates its efficiency against these, so the efficiency
// means "fraction of what this machine can do", which is what transfers to
// other CPUs in the catalog. Each measurement runs for about `seconds`.
//
// Thread-safety: MeasureLocalRoof starts and joins its own threads; call it
// from one thread at a time (it measures the whole machine).
#pragma once

namespace tfhost::host::plan {

struct LocalRoof {
  double peak_flops = 0;      // fp32 FLOP/s with `threads` threads
  double bandwidth_bps = 0;   // bytes/s read with `threads` threads
  int threads = 1;
  const char* isa = "scalar";  // "avx512", "avx2", "scalar"
};

LocalRoof MeasureLocalRoof(int threads, double seconds);

}  // namespace tfhost::host::plan
