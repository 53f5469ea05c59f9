// fma_peak: this machine's peak fp32 GFLOP/s per core, measured, so that
// `tfhost bench --peak-gflops` and docs/perf.md can state what fraction of
// the peak a model or a MatMul reaches.
//
//   fma_peak [--threads N] [--seconds S] [--rounds R] [--isa auto|avx512|avx2] [--json]
//
// 1. FMA loop: each thread (pinned to one CPU where allowed) runs
//    independent chains acc = acc * m + a in registers. Enough chains hide
//    the FMA latency on two FMA pipes (16 zmm or 12 ymm accumulators), and
//    every chain starts from a different value, so the compiler cannot merge
//    them into one. The ISA is picked at run time (__builtin_cpu_supports);
//    each kernel is compiled for its ISA alone with __attribute__((target)),
//    so the binary runs on CPUs without AVX-512 (and says so).
// 2. oneDNN's dnnl_sgemm on small square shapes whose operands stay in
//    cache (64^3 .. 512^3, repeated), on the same thread count: a real GEMM
//    as a cross-check of what the FMA loop calls the peak.
//
// Each figure is the best of R rounds: on a shared machine the best round is
// the one least disturbed by other processes, which is what a peak means.
// Two clocks: wall time, and CPU time (each thread's own for the FMA loop,
// the process's for sgemm, divided by the thread count). On a machine that
// other processes share, CPU time leaves out the time a thread waited to be
// scheduled, so the CPU-time figure is the core's capability and the one
// reported as the peak; the wall-time figure is what this run got.
#include <immintrin.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <oneapi/dnnl/dnnl.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double CpuSeconds(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

// GFLOP/s of one round by both clocks.
struct Rate {
  double wall = 0, cpu = 0;
};

// Each kernel runs `iters` iterations and returns a value that depends on
// every accumulator (so none is dead code), and its FLOPs per iteration.
constexpr int kAvx512Chains = 16;
constexpr int kAvx2Chains = 12;
constexpr double kAvx512FlopsPerIter = kAvx512Chains * 16 * 2.0;
constexpr double kAvx2FlopsPerIter = kAvx2Chains * 8 * 2.0;

__attribute__((target("avx512f"), noinline)) float FmaLoopAvx512(int64_t iters, float seed) {
  // m < 1 and a small: every chain converges to a / (1 - m) without overflow
  // or denormals, whatever the iteration count.
  const __m512 m = _mm512_set1_ps(0.999999f);
  const __m512 a = _mm512_set1_ps(1e-6f * seed);
  __m512 acc[kAvx512Chains];
#pragma GCC unroll 16
  for (int c = 0; c < kAvx512Chains; ++c) acc[c] = _mm512_set1_ps(seed + 0.01f * static_cast<float>(c + 1));
  for (int64_t i = 0; i < iters; ++i) {
#pragma GCC unroll 16
    for (int c = 0; c < kAvx512Chains; ++c) acc[c] = _mm512_fmadd_ps(acc[c], m, a);
  }
  __m512 sum = acc[0];
#pragma GCC unroll 16
  for (int c = 1; c < kAvx512Chains; ++c) sum = _mm512_add_ps(sum, acc[c]);
  float lanes[16];
  _mm512_storeu_ps(lanes, sum);
  float total = 0;
  for (float v : lanes) total += v;
  return total;
}

__attribute__((target("avx2,fma"), noinline)) float FmaLoopAvx2(int64_t iters, float seed) {
  const __m256 m = _mm256_set1_ps(0.999999f);
  const __m256 a = _mm256_set1_ps(1e-6f * seed);
  __m256 acc[kAvx2Chains];
#pragma GCC unroll 12
  for (int c = 0; c < kAvx2Chains; ++c) acc[c] = _mm256_set1_ps(seed + 0.01f * static_cast<float>(c + 1));
  for (int64_t i = 0; i < iters; ++i) {
#pragma GCC unroll 12
    for (int c = 0; c < kAvx2Chains; ++c) acc[c] = _mm256_fmadd_ps(acc[c], m, a);
  }
  __m256 sum = acc[0];
#pragma GCC unroll 12
  for (int c = 1; c < kAvx2Chains; ++c) sum = _mm256_add_ps(sum, acc[c]);
  float lanes[8];
  _mm256_storeu_ps(lanes, sum);
  float total = 0;
  for (float v : lanes) total += v;
  return total;
}

enum class Isa { kAvx512, kAvx2 };

const char* IsaName(Isa isa) { return isa == Isa::kAvx512 ? "avx512" : "avx2"; }

bool Supported(Isa isa) {
  __builtin_cpu_init();
  if (isa == Isa::kAvx512) return __builtin_cpu_supports("avx512f");
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

float RunFma(Isa isa, int64_t iters, float seed) {
  return isa == Isa::kAvx512 ? FmaLoopAvx512(iters, seed) : FmaLoopAvx2(iters, seed);
}

double FlopsPerIter(Isa isa) { return isa == Isa::kAvx512 ? kAvx512FlopsPerIter : kAvx2FlopsPerIter; }

void PinToCpu(int index) {
  cpu_set_t allowed;
  if (sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return;
  int seen = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &allowed)) continue;
    if (seen++ == index) {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(cpu, &one);
      pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
      return;
    }
  }
}

std::atomic<float> g_sink{0};

// One round on `threads` threads started together; returns total GFLOP/s.
Rate FmaRound(Isa isa, int threads, int64_t iters) {
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<double> seconds(threads, 0), cpu_seconds(threads, 0);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      PinToCpu(t);
      ready.fetch_add(1);
      while (!go.load()) {
      }
      auto t0 = Clock::now();
      double c0 = CpuSeconds(CLOCK_THREAD_CPUTIME_ID);
      float v = RunFma(isa, iters, 1.0f + 0.125f * static_cast<float>(t));
      cpu_seconds[t] = std::max(CpuSeconds(CLOCK_THREAD_CPUTIME_ID) - c0, 1e-9);
      seconds[t] = SecondsSince(t0);
      g_sink.store(g_sink.load() + v);
    });
  }
  while (ready.load() < threads) {
  }
  go.store(true);
  for (auto& th : pool) th.join();
  // Every thread did the same work; the slowest one bounds the round.
  const double flops = FlopsPerIter(isa) * static_cast<double>(iters);
  double slowest = *std::max_element(seconds.begin(), seconds.end());
  Rate rate{flops * threads / slowest / 1e9, 0};
  for (double c : cpu_seconds) rate.cpu += flops / c / 1e9;
  return rate;
}

struct GemmResult {
  int n = 0;
  Rate gflops;
  bool ok = true;
};

GemmResult SgemmBest(int n, int threads, double seconds_per_round, int rounds) {
  std::vector<float> a(static_cast<size_t>(n) * n), b(a.size()), c(a.size(), 0.f);
  for (size_t i = 0; i < a.size(); ++i) {
    a[i] = static_cast<float>((i * 7) % 13) / 13.f;
    b[i] = static_cast<float>((i * 5) % 11) / 11.f;
  }
  GemmResult result{n, {}, true};
  auto call = [&] {
    return dnnl_sgemm('N', 'N', n, n, n, 1.f, a.data(), n, b.data(), n, 0.f, c.data(), n) == dnnl_success;
  };
  for (int i = 0; i < 3; ++i) {  // warm caches and oneDNN's kernel selection
    if (!call()) return {n, {}, false};
  }
  // Calls per round from one timed call, so each round lasts about the same.
  auto t0 = Clock::now();
  call();
  double one = std::max(SecondsSince(t0), 1e-7);
  int64_t reps = std::max<int64_t>(1, static_cast<int64_t>(seconds_per_round / one));
  const double flops = 2.0 * n * n * n * static_cast<double>(reps);
  for (int r = 0; r < rounds; ++r) {
    auto start = Clock::now();
    double c0 = CpuSeconds(CLOCK_PROCESS_CPUTIME_ID);
    for (int64_t i = 0; i < reps; ++i) call();
    double s = SecondsSince(start);
    double cpu = std::max(CpuSeconds(CLOCK_PROCESS_CPUTIME_ID) - c0, 1e-9);
    result.gflops.wall = std::max(result.gflops.wall, flops / s / 1e9);
    // CPU time of all threads (their spin-waits too) shared over `threads` cores.
    result.gflops.cpu = std::max(result.gflops.cpu, flops / (cpu / threads) / 1e9);
  }
  return result;
}

void Usage(const char* msg) {
  if (msg) std::fprintf(stderr, "fma_peak: %s\n", msg);
  std::fprintf(stderr,
               "usage: fma_peak [--threads N] [--seconds S] [--rounds R] [--isa auto|avx512|avx2] "
               "[--sizes 64,128,256,512] [--json]\n");
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 1, rounds = 5;
  double seconds = 0.2;
  std::string isa_flag = "auto", sizes_flag = "64,128,256,512";
  bool json = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) Usage((a + " needs a value").c_str());
      return argv[++i];
    };
    if (a == "--threads") {
      threads = std::atoi(value().c_str());
    } else if (a == "--seconds") {
      seconds = std::atof(value().c_str());
    } else if (a == "--rounds") {
      rounds = std::atoi(value().c_str());
    } else if (a == "--isa") {
      isa_flag = value();
    } else if (a == "--sizes") {
      sizes_flag = value();
    } else if (a == "--json") {
      json = true;
    } else if (a == "--help" || a == "-h") {
      Usage(nullptr);
    } else {
      Usage(("unknown argument " + a).c_str());
    }
  }
  if (threads < 1 || threads > 1024) Usage("--threads must be in 1..1024");
  if (!(seconds > 0) || seconds > 60) Usage("--seconds must be in (0, 60]");
  if (rounds < 1 || rounds > 1000) Usage("--rounds must be in 1..1000");
  std::vector<int> sizes;
  for (size_t pos = 0; pos <= sizes_flag.size();) {
    size_t comma = sizes_flag.find(',', pos);
    std::string item = sizes_flag.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    int n = std::atoi(item.c_str());
    if (n < 1 || n > 4096) Usage("--sizes must be integers in 1..4096");
    sizes.push_back(n);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }

  std::vector<Isa> isas;
  if (isa_flag == "auto") {
    for (Isa isa : {Isa::kAvx512, Isa::kAvx2}) {
      if (Supported(isa)) isas.push_back(isa);
    }
  } else if (isa_flag == "avx512" || isa_flag == "avx2") {
    Isa isa = isa_flag == "avx512" ? Isa::kAvx512 : Isa::kAvx2;
    if (!Supported(isa)) {
      std::fprintf(stderr, "fma_peak: this CPU lacks %s\n", isa_flag.c_str());
      return 1;
    }
    isas.push_back(isa);
  } else {
    Usage("--isa must be auto, avx512 or avx2");
  }
  if (isas.empty()) {
    std::fprintf(stderr, "fma_peak: this CPU has neither AVX-512F nor AVX2+FMA; nothing to measure\n");
    return 1;
  }

  // Iterations per round from a short single-thread calibration.
  std::vector<Rate> fma_gflops;
  for (Isa isa : isas) {
    int64_t iters = 1 << 16;
    for (;;) {
      auto t0 = Clock::now();
      g_sink.store(g_sink.load() + RunFma(isa, iters, 1.f));
      double s = SecondsSince(t0);
      if (s > 0.02 || iters > (int64_t{1} << 40)) {
        iters = std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(iters) * seconds / s));
        break;
      }
      iters *= 4;
    }
    Rate best;
    for (int r = 0; r < rounds; ++r) {
      Rate round = FmaRound(isa, threads, iters);
      best.wall = std::max(best.wall, round.wall);
      best.cpu = std::max(best.cpu, round.cpu);
    }
    fma_gflops.push_back(best);
  }

  omp_set_num_threads(threads);
  std::vector<GemmResult> gemms;
  for (int n : sizes) gemms.push_back(SgemmBest(n, threads, seconds, rounds));

  // The widest ISA present is the machine's peak.
  const double peak_total = fma_gflops[0].cpu;
  const double peak_per_core = peak_total / threads;
  char cpu[256] = "unknown";
  if (FILE* f = std::fopen("/proc/cpuinfo", "r")) {
    char line[512];
    while (std::fgets(line, sizeof(line), f)) {
      if (std::strncmp(line, "model name", 10) == 0) {
        const char* colon = std::strchr(line, ':');
        if (colon) {
          std::snprintf(cpu, sizeof(cpu), "%s", colon + 2);
          cpu[std::strcspn(cpu, "\n")] = 0;
        }
        break;
      }
    }
    std::fclose(f);
  }
  double load[3] = {0, 0, 0};
  getloadavg(load, 3);
  if (json) {
    std::printf("{\n  \"cpu\": \"%s\",\n  \"threads\": %d,\n  \"rounds\": %d,\n  \"load_average\": %.2f,\n", cpu,
                threads, rounds, load[0]);
    std::printf("  \"peak_isa\": \"%s\",\n  \"peak_gflops\": %.3f,\n  \"peak_gflops_per_core\": %.3f,\n"
                "  \"peak_gflops_wall\": %.3f,\n",
                IsaName(isas[0]), peak_total, peak_per_core, fma_gflops[0].wall);
    std::printf("  \"fma\": [");
    for (size_t i = 0; i < isas.size(); ++i) {
      std::printf("%s{\"isa\": \"%s\", \"gflops\": %.3f, \"gflops_per_core\": %.3f, \"gflops_wall\": %.3f}",
                  i ? ", " : "", IsaName(isas[i]), fma_gflops[i].cpu, fma_gflops[i].cpu / threads,
                  fma_gflops[i].wall);
    }
    std::printf("],\n  \"sgemm\": [");
    for (size_t i = 0; i < gemms.size(); ++i) {
      std::printf("%s{\"n\": %d, \"ok\": %s, \"gflops\": %.3f, \"gflops_wall\": %.3f, "
                  "\"fraction_of_peak\": %.4f}",
                  i ? ", " : "", gemms[i].n, gemms[i].ok ? "true" : "false", gemms[i].gflops.cpu,
                  gemms[i].gflops.wall, gemms[i].gflops.cpu / peak_total);
    }
    std::printf("]\n}\n");
    return 0;
  }
  std::printf("# %s, %d thread(s), best of %d rounds of %.2f s, load average %.2f\n", cpu, threads, rounds,
              seconds, load[0]);
  std::printf("GFLOP/s by CPU time (the peak; wall time in brackets, what this run got)\n");
  for (size_t i = 0; i < isas.size(); ++i) {
    std::printf("FMA %-6s  %9.2f GFLOP/s  (%8.2f per core)  [wall %9.2f]\n", IsaName(isas[i]), fma_gflops[i].cpu,
                fma_gflops[i].cpu / threads, fma_gflops[i].wall);
  }
  for (const auto& g : gemms) {
    if (!g.ok) {
      std::printf("sgemm %4d^3  failed (dnnl_sgemm returned an error)\n", g.n);
      continue;
    }
    std::printf("sgemm %4d^3  %9.2f GFLOP/s  (%5.1f%% of the %s FMA peak)  [wall %9.2f]\n", g.n, g.gflops.cpu,
                100.0 * g.gflops.cpu / peak_total, IsaName(isas[0]), g.gflops.wall);
  }
  std::printf("peak per core: %.2f GFLOP/s (%s)\n", peak_per_core, IsaName(isas[0]));
  return 0;
}
