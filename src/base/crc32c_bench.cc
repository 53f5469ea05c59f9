// CRC-32C throughput of every implementation this CPU runs (crc32c.h), in
// GB per CPU-second of the calling thread, over about 1 MiB of data (in L2
// or L3): TFRecord-framed records (a length CRC over 8 bytes and a data CRC
// over 400-640 bytes, as in the data bench's shards), and consecutive
// inputs of one fixed size, each continuing from the CRC of the one before
// (so latency counts, as when a stream is checksummed piecewise). Rounds
// alternate the implementations so that load that comes and goes on a
// shared machine falls on all of them alike; each figure is the best round.
// Not built by CMake (*_bench.cc); bench/data/crc32c.sh builds and runs it.
//
//   crc32c_bench [rounds]     (default 7)
#include <time.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "base/crc32c.h"

namespace tfhost::crc32c {
namespace {

double ThreadCpuSeconds() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

uint32_t Next(uint32_t* x) {
  *x ^= *x << 13;
  *x ^= *x >> 17;
  *x ^= *x << 5;
  return *x;
}

// About 1 MiB of framed records with data lengths uniform in [lo, hi].
std::vector<uint8_t> FramedRecords(size_t lo, size_t hi) {
  std::vector<uint8_t> buf;
  uint32_t x = 12345;
  while (buf.size() < (size_t{1} << 20)) {
    size_t n = lo + Next(&x) % (hi - lo + 1);
    size_t at = buf.size();
    buf.resize(at + 16 + n);
    uint64_t len = n;
    std::memcpy(&buf[at], &len, 8);
    for (size_t i = 0; i < n; ++i) buf[at + 12 + i] = static_cast<uint8_t>(Next(&x) >> 5);
    uint32_t header_crc = Mask(Value(&buf[at], 8));
    uint32_t data_crc = Mask(Value(&buf[at + 12], n));
    std::memcpy(&buf[at + 8], &header_crc, 4);
    std::memcpy(&buf[at + 12 + n], &data_crc, 4);
  }
  return buf;
}

// Checks both CRCs of every record, as the TFRecord reader does; returns
// the number of mismatches (0, or the implementation is wrong).
uint64_t VerifyRecords(Impl impl, const std::vector<uint8_t>& buf) {
  uint64_t bad = 0;
  size_t at = 0;
  while (at + 16 <= buf.size()) {
    uint64_t len;
    uint32_t header_crc, data_crc;
    std::memcpy(&len, &buf[at], 8);
    std::memcpy(&header_crc, &buf[at + 8], 4);
    std::memcpy(&data_crc, &buf[at + 12 + len], 4);
    bad += Mask(ExtendWith(impl, 0, &buf[at], 8)) != header_crc;
    bad += Mask(ExtendWith(impl, 0, &buf[at + 12], len)) != data_crc;
    at += 16 + len;
  }
  return bad;
}

// CRCs of consecutive `size`-byte pieces of buf.
uint32_t Pieces(Impl impl, const std::vector<uint8_t>& buf, size_t size) {
  uint32_t acc = 0;
  for (size_t at = 0; at + size <= buf.size(); at += size) acc ^= ExtendWith(impl, acc, &buf[at], size);
  return acc;
}

struct Case {
  std::string label;
  std::vector<uint8_t>* buf;
  size_t piece;  // 0: framed records
};

}  // namespace
}  // namespace tfhost::crc32c

int main(int argc, char** argv) {
  using namespace tfhost::crc32c;
  int rounds = argc > 1 ? std::atoi(argv[1]) : 7;
  std::vector<Impl> impls;
  for (Impl impl : {Impl::kPortable, Impl::kSse42, Impl::kAvx2Vpclmulqdq, Impl::kAvx512Vpclmulqdq}) {
    if (ImplSupported(impl)) impls.push_back(impl);
  }
  std::vector<uint8_t> records = FramedRecords(400, 640);
  std::vector<uint8_t> small_records = FramedRecords(100, 300);
  std::vector<uint8_t> plain = FramedRecords(1000, 1000);
  std::vector<Case> cases = {{"records 400-640 B (+ 8 B headers)", &records, 0},
                             {"records 100-300 B (+ 8 B headers)", &small_records, 0}};
  for (size_t size : {64, 128, 256, 512, 1024, 4096, 65536, 1 << 20}) {
    cases.push_back({"inputs of " + std::to_string(size) + " B", &plain, size});
  }
  std::printf("active: %s\n", ImplName(ActiveImpl()));
  // best[case][impl], GB per CPU-second.
  std::vector<std::vector<double>> best(cases.size(), std::vector<double>(impls.size(), 0));
  uint64_t sink = 0;
  for (int round = 0; round < rounds; ++round) {
    for (size_t c = 0; c < cases.size(); ++c) {
      for (size_t i = 0; i < impls.size(); ++i) {
        const Case& k = cases[c];
        int reps = impls[i] == Impl::kPortable ? 5 : 40;
        double start = ThreadCpuSeconds();
        for (int r = 0; r < reps; ++r) {
          if (k.piece == 0) {
            uint64_t bad = VerifyRecords(impls[i], *k.buf);
            if (bad != 0) {
              std::fprintf(stderr, "%s: %llu CRC mismatches\n", ImplName(impls[i]),
                           static_cast<unsigned long long>(bad));
              return 1;
            }
          } else {
            sink += Pieces(impls[i], *k.buf, k.piece);
          }
        }
        double seconds = ThreadCpuSeconds() - start;
        size_t bytes = k.piece == 0 ? k.buf->size() : k.buf->size() / k.piece * k.piece;
        best[c][i] = std::max(best[c][i], static_cast<double>(bytes) * reps / seconds / 1e9);
      }
    }
  }
  std::printf("%-36s", "GB per CPU-second");
  for (Impl impl : impls) std::printf(" | %26s", ImplName(impl));
  std::printf("\n");
  for (size_t c = 0; c < cases.size(); ++c) {
    std::printf("%-36s", cases[c].label.c_str());
    for (size_t i = 0; i < impls.size(); ++i) std::printf(" | %26.2f", best[c][i]);
    std::printf("\n");
  }
  return sink == 42 ? 2 : 0;  // keeps the piece loops from being dropped
}
