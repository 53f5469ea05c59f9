// Why tfhost copies a MatMul's second operand off its cache-line alignment
// on oneDNN's gemm-based MatMul (src/backends/cpu/onednn/onednn_matmul.cc):
// times oneDNN's matmul primitive on float32 products of several shapes with
// b page-aligned (as every large tensor buffer is), with b copied to 16 bytes
// past a page boundary on every call (what the kernel does), and with b
// already there (the copy's cost left out). Run it under
// ONEDNN_MAX_CPU_ISA=AVX2 for the gemm kernels (run.sh does, and without it).
//
//   gemm_alignment_ab [RUNS]
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unordered_map>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

namespace {

using dnnl::memory;

// `count` floats starting `offset_bytes` past a page boundary inside `storage`.
float* PlacedBuffer(std::vector<char>& storage, size_t count, size_t offset_bytes) {
  storage.assign(count * sizeof(float) + 4096 + offset_bytes, 0);
  uintptr_t p = reinterpret_cast<uintptr_t>(storage.data());
  p = (p + 4095) & ~uintptr_t{4095};
  return reinterpret_cast<float*>(p + offset_bytes);
}

template <typename Body>
double MedianMicros(int runs, Body&& body) {
  std::vector<double> us;
  for (int r = 0; r < runs + 5; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    body();
    if (r >= 5) us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 50;
  dnnl::engine eng(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(eng);
  const int64_t shapes[][3] = {{1, 512, 512},     {8, 512, 512},    {64, 256, 256},    {128, 256, 256},
                               {32, 1024, 1024},  {128, 768, 3072}, {128, 3072, 768},  {512, 512, 512},
                               {1024, 1024, 1024}};
  std::printf("%-16s %5s %5s %5s %12s %12s %8s %12s %8s\n", "kernel", "m", "k", "n", "aligned us", "copied us",
              "x", "offset us", "x");
  for (const auto& s : shapes) {
    const int64_t m = s[0], k = s[1], n = s[2];
    std::vector<char> a_store, b_store, c_store, moved_store;
    float* a = PlacedBuffer(a_store, m * k, 0);
    float* b = PlacedBuffer(b_store, k * n, 0);
    float* c = PlacedBuffer(c_store, m * n, 0);
    float* moved = PlacedBuffer(moved_store, k * n, 16);
    for (int64_t i = 0; i < m * k; ++i) a[i] = static_cast<float>(i % 13) * 0.01f;
    for (int64_t i = 0; i < k * n; ++i) b[i] = static_cast<float>(i % 97) * 0.01f;
    dnnl::primitive_attr attr;
    attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    const memory::desc a_md({m, k}, memory::data_type::f32, memory::format_tag::ab);
    const memory::desc b_md({k, n}, memory::data_type::f32, memory::format_tag::ab);
    const memory::desc c_md({m, n}, memory::data_type::f32, memory::format_tag::ab);
    dnnl::matmul::primitive_desc pd({a_md, b_md, c_md}, attr, eng);
    dnnl::matmul prim(pd);
    std::vector<char> scratch(pd.scratchpad_desc().get_size() + 64);
    memory a_mem(a_md, eng, a), b_mem(b_md, eng, b), moved_mem(b_md, eng, moved), c_mem(c_md, eng, c);
    memory s_mem(pd.scratchpad_desc(), eng, scratch.data());
    auto run = [&](memory& weights) {
      prim.execute(stream, {{DNNL_ARG_SRC, a_mem}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, c_mem},
                            {DNNL_ARG_SCRATCHPAD, s_mem}});
      stream.wait();
    };
    const double aligned = MedianMicros(runs, [&] { run(b_mem); });
    const double copied = MedianMicros(runs, [&] {
      std::memcpy(moved, b, k * n * sizeof(float));
      run(moved_mem);
    });
    const double offset = MedianMicros(runs, [&] { run(moved_mem); });
    std::printf("%-16s %5lld %5lld %5lld %12.1f %12.1f %8.2f %12.1f %8.2f\n", pd.impl_info_str(),
                static_cast<long long>(m), static_cast<long long>(k), static_cast<long long>(n), aligned, copied,
                aligned / copied, offset, aligned / offset);
  }
  return 0;
}
