// Throughput measurements behind `tfhost data bench`: the same files read
// raw (read() into a buffer, nothing else), read with both CRCs verified,
// and read + verified + decoded — so the cost of verification and parsing is
// a ratio against the raw read bandwidth measured in the same run — plus the
// fast Example decoder against libprotobuf's generic parse of the same
// in-memory records.
//
// Threads split the files between them (one file is read by one thread);
// the read-ahead mode adds one helper thread per reading thread, so compare
// its wall time at the same number of reading threads, and its CPU time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/status.h"

namespace tfhost::data {

enum class BenchMode {
  kRawRead,         // read() of the file bytes
  kReadVerify,      // TFRecordReader with length and data CRCs
  kReadVerifyMmap,  // the same over a mapping of the file (uncompressed files)
  // kReadVerify with TFRecordReaderOptions::read_ahead: per reading thread,
  // a helper thread read()s the next chunks while the reader checks CRCs.
  kReadVerifyReadAhead,
  kReadParse,       // ... plus the fast decoder over every feature value
  kDecodeFast,      // fast decoder over in-memory records
  kDecodeProtobuf,  // libprotobuf ParseFromString over the same records
};
const char* BenchModeName(BenchMode mode);

struct ThroughputResult {
  BenchMode mode = BenchMode::kRawRead;
  int64_t records = 0;        // 0 for the raw read
  uint64_t file_bytes = 0;    // bytes on disk covered
  uint64_t record_bytes = 0;  // payload bytes (after decompression)
  double seconds = 0;         // best of the repetitions
  // CPU time of the whole process (user + system: the reading threads and
  // any read-ahead helpers) in its cheapest repetition. On a shared, loaded
  // machine wall time includes waiting for a core; CPU time does not, so
  // ratios of it compare the work itself.
  double cpu_seconds = 0;
  // CPU time of the reading threads alone (read-ahead helpers excluded), in
  // their cheapest round. With read-ahead, file bytes per second of it is
  // the wall-time ceiling when every helper has a core of its own.
  double reader_cpu_seconds = 0;
  double reader_cpu_file_mb_per_s() const {
    return reader_cpu_seconds > 0 ? file_bytes / reader_cpu_seconds / 1e6 : 0;
  }
  double records_per_s() const { return seconds > 0 ? records / seconds : 0; }
  double file_mb_per_s() const { return seconds > 0 ? file_bytes / seconds / 1e6 : 0; }
  double record_mb_per_s() const { return seconds > 0 ? record_bytes / seconds / 1e6 : 0; }
  // File bytes per CPU-second (MB).
  double cpu_file_mb_per_s() const { return cpu_seconds > 0 ? file_bytes / cpu_seconds / 1e6 : 0; }
};

struct BenchOptions {
  int threads = 1;
  int repeat = 3;
  // In-memory decode modes load at most this many payload bytes.
  uint64_t max_memory_bytes = uint64_t{1} << 30;
};

// Runs one mode over `files`, `repeat` times, keeping the fastest.
StatusOr<ThroughputResult> MeasureThroughput(const std::vector<std::string>& files, BenchMode mode,
                                             const BenchOptions& options);

// Runs every mode of `modes` over `files` in `repeat` rounds, each round
// running each mode once in order, so that load that comes and goes on a
// shared machine falls on all modes alike and same-run ratios hold. Keeps
// each mode's fastest round (and, separately, its cheapest in CPU time).
// Results are in `modes` order.
StatusOr<std::vector<ThroughputResult>> MeasureInterleaved(const std::vector<std::string>& files,
                                                           const std::vector<BenchMode>& modes,
                                                           const BenchOptions& options);

}  // namespace tfhost::data
