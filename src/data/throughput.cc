#include "data/throughput.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <memory>
#include <mutex>
#include <thread>

#include "data/example.h"
#include "data/tfrecord_reader.h"
#include "tensorflow/core/example/example.pb.h"

namespace tfhost::data {
namespace {

namespace parsing = ops::parsing;

struct Totals {
  int64_t records = 0;
  uint64_t file_bytes = 0;
  uint64_t record_bytes = 0;
  uint64_t checksum = 0;  // keeps the optimiser from dropping work
  double cpu_seconds = 0;
  double reader_cpu_seconds = 0;
};

double ThreadCpuSeconds() {
  timespec ts;
  if (::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// Process-wide, so that read-ahead helper threads are counted.
double ProcessCpuSeconds() {
  timespec ts;
  if (::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0;
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

Status RawRead(const std::string& path, Totals* t) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return NotFound("cannot open '" + path + "': " + std::strerror(errno));
  constexpr size_t kChunk = 1 << 20;
  std::unique_ptr<char[]> buf(new char[kChunk]);
  while (true) {
    ssize_t got = ::read(fd, buf.get(), kChunk);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) {
      ::close(fd);
      return Unavailable("reading '" + path + "' failed");
    }
    if (got == 0) break;
    t->file_bytes += static_cast<uint64_t>(got);
    t->checksum += static_cast<unsigned char>(buf[got - 1]);
  }
  ::close(fd);
  return OkStatus();
}

// Decodes every feature value of one record with the fast decoder, into
// reused vectors (values are materialised, as a consumer would need them).
struct ParseScratch {
  std::vector<parsing::DecodedFeature> features;
  std::vector<FeatureListView> lists;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string_view> bytes;
};

Status Materialise(const parsing::FeatureValues& v, ParseScratch* s, Totals* t) {
  s->floats.clear();
  s->ints.clear();
  s->bytes.clear();
  switch (v.kind()) {
    case FeatureKind::kFloat: TFHOST_RETURN_IF_ERROR(v.AppendFloats(&s->floats)); break;
    case FeatureKind::kInt64: TFHOST_RETURN_IF_ERROR(v.AppendInt64s(&s->ints)); break;
    case FeatureKind::kBytes: TFHOST_RETURN_IF_ERROR(v.AppendBytes(&s->bytes)); break;
    case FeatureKind::kNone: break;
  }
  t->checksum += s->floats.size() + s->ints.size() + s->bytes.size();
  return OkStatus();
}

Status FastParse(std::string_view record, int64_t index, ParseScratch* s, Totals* t) {
  TFHOST_RETURN_IF_ERROR(parsing::DecodeExample(record, index, &s->features));
  for (const auto& f : s->features) TFHOST_RETURN_IF_ERROR(Materialise(f.values, s, t));
  if (HasFeatureLists(record)) {
    TFHOST_RETURN_IF_ERROR(DecodeFeatureLists(record, index, &s->lists));
    for (const auto& l : s->lists) {
      for (const auto& step : l.steps) TFHOST_RETURN_IF_ERROR(Materialise(step, s, t));
    }
  }
  return OkStatus();
}

Status ReadFile(const std::string& path, bool parse, bool mmap, bool read_ahead, Totals* t) {
  TFRecordReaderOptions options;
  options.mmap = mmap;
  options.read_ahead = read_ahead;
  TFHOST_ASSIGN_OR_RETURN(auto reader, TFRecordReader::Open(path, options));
  std::string_view record;
  ParseScratch scratch;
  while (true) {
    TFHOST_ASSIGN_OR_RETURN(bool got, reader->ReadView(&record));
    if (!got) break;
    ++t->records;
    t->record_bytes += record.size();
    if (parse) TFHOST_RETURN_IF_ERROR(FastParse(record, t->records - 1, &scratch, t));
  }
  t->file_bytes += reader->raw_bytes_consumed();
  return OkStatus();
}

// Runs fn(file_index, totals) over the files on `threads` threads.
template <typename Fn>
StatusOr<Totals> RunParallel(size_t n, int threads, Fn fn) {
  std::atomic<size_t> next{0};
  std::mutex mu;
  Totals sum;
  Status first_error;
  double cpu_start = ProcessCpuSeconds();
  auto worker = [&]() {
    Totals local;
    double thread_cpu_start = ThreadCpuSeconds();
    while (true) {
      size_t i = next.fetch_add(1);
      if (i >= n) break;
      Status s = fn(i, &local);
      if (!s.ok()) {
        std::lock_guard<std::mutex> lock(mu);
        if (first_error.ok()) first_error = s;
        break;
      }
    }
    double thread_cpu = ThreadCpuSeconds() - thread_cpu_start;
    std::lock_guard<std::mutex> lock(mu);
    sum.reader_cpu_seconds += thread_cpu;
    sum.records += local.records;
    sum.file_bytes += local.file_bytes;
    sum.record_bytes += local.record_bytes;
    sum.checksum += local.checksum;
  };
  int count = std::max(1, std::min<int>(threads, static_cast<int>(n)));
  std::vector<std::thread> pool;
  for (int i = 1; i < count; ++i) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
  sum.cpu_seconds = ProcessCpuSeconds() - cpu_start;
  if (!first_error.ok()) return first_error;
  return sum;
}

StatusOr<std::vector<std::string>> LoadRecords(const std::vector<std::string>& files, uint64_t max_bytes,
                                               uint64_t* file_bytes) {
  std::vector<std::string> records;
  uint64_t total = 0;
  *file_bytes = 0;
  for (const auto& path : files) {
    TFHOST_ASSIGN_OR_RETURN(auto reader, TFRecordReader::Open(path));
    std::string_view r;
    while (total < max_bytes) {
      TFHOST_ASSIGN_OR_RETURN(bool got, reader->ReadView(&r));
      if (!got) break;
      records.emplace_back(r);
      total += r.size();
    }
    *file_bytes += reader->raw_bytes_consumed();
  }
  return records;
}

}  // namespace

const char* BenchModeName(BenchMode mode) {
  switch (mode) {
    case BenchMode::kRawRead: return "raw read";
    case BenchMode::kReadVerify: return "read+verify";
    case BenchMode::kReadVerifyMmap: return "read+verify (mmap)";
    case BenchMode::kReadVerifyReadAhead: return "read+verify (read-ahead)";
    case BenchMode::kReadParse: return "read+verify+parse";
    case BenchMode::kDecodeFast: return "decode fast (in memory)";
    case BenchMode::kDecodeProtobuf: return "decode libprotobuf (in memory)";
  }
  return "?";
}

StatusOr<ThroughputResult> MeasureThroughput(const std::vector<std::string>& files, BenchMode mode,
                                             const BenchOptions& options) {
  if (files.empty()) return InvalidArgument("no files to measure");
  ThroughputResult result;
  result.mode = mode;
  int repeat = std::max(1, options.repeat);
  std::vector<std::string> records;
  uint64_t loaded_file_bytes = 0;
  if (mode == BenchMode::kDecodeFast || mode == BenchMode::kDecodeProtobuf) {
    TFHOST_ASSIGN_OR_RETURN(records, LoadRecords(files, options.max_memory_bytes, &loaded_file_bytes));
  }
  double best = 0;
  for (int rep = 0; rep < repeat; ++rep) {
    auto start = std::chrono::steady_clock::now();
    StatusOr<Totals> totals = Totals();
    switch (mode) {
      case BenchMode::kRawRead:
        totals = RunParallel(files.size(), options.threads, [&](size_t i, Totals* t) { return RawRead(files[i], t); });
        break;
      case BenchMode::kReadVerify:
      case BenchMode::kReadVerifyMmap:
      case BenchMode::kReadVerifyReadAhead:
      case BenchMode::kReadParse: {
        bool parse = mode == BenchMode::kReadParse;
        bool mmap = mode == BenchMode::kReadVerifyMmap;
        bool read_ahead = mode == BenchMode::kReadVerifyReadAhead;
        totals = RunParallel(files.size(), options.threads, [&](size_t i, Totals* t) {
          return ReadFile(files[i], parse, mmap, read_ahead, t);
        });
        break;
      }
      case BenchMode::kDecodeFast:
      case BenchMode::kDecodeProtobuf: {
        // Records are split into one contiguous range per thread.
        size_t parts = static_cast<size_t>(std::max(1, options.threads));
        totals = RunParallel(parts, options.threads, [&](size_t part, Totals* t) -> Status {
          size_t begin = records.size() * part / parts, end = records.size() * (part + 1) / parts;
          ParseScratch scratch;
          tensorflow::Example example;
          tensorflow::SequenceExample sequence;
          for (size_t i = begin; i < end; ++i) {
            const std::string& r = records[i];
            if (mode == BenchMode::kDecodeFast) {
              TFHOST_RETURN_IF_ERROR(FastParse(r, static_cast<int64_t>(i), &scratch, t));
            } else if (HasFeatureLists(r)) {
              if (!sequence.ParseFromString(r)) return InvalidArgument("libprotobuf rejected record " + std::to_string(i));
              t->checksum += static_cast<uint64_t>(sequence.feature_lists().feature_list_size());
            } else {
              if (!example.ParseFromString(r)) return InvalidArgument("libprotobuf rejected record " + std::to_string(i));
              t->checksum += static_cast<uint64_t>(example.features().feature_size());
            }
            ++t->records;
            t->record_bytes += r.size();
          }
          return OkStatus();
        });
        if (totals.ok()) totals->file_bytes = loaded_file_bytes;
        break;
      }
    }
    if (!totals.ok()) return totals.status();
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (rep == 0 || totals->cpu_seconds < result.cpu_seconds) result.cpu_seconds = totals->cpu_seconds;
    if (rep == 0 || totals->reader_cpu_seconds < result.reader_cpu_seconds) {
      result.reader_cpu_seconds = totals->reader_cpu_seconds;
    }
    if (rep == 0 || seconds < best) {
      best = seconds;
      result.records = totals->records;
      result.file_bytes = totals->file_bytes;
      result.record_bytes = totals->record_bytes;
    }
  }
  result.seconds = best;
  return result;
}

StatusOr<std::vector<ThroughputResult>> MeasureInterleaved(const std::vector<std::string>& files,
                                                           const std::vector<BenchMode>& modes,
                                                           const BenchOptions& options) {
  std::vector<ThroughputResult> best(modes.size());
  BenchOptions once = options;
  once.repeat = 1;
  for (int round = 0; round < std::max(1, options.repeat); ++round) {
    for (size_t i = 0; i < modes.size(); ++i) {
      TFHOST_ASSIGN_OR_RETURN(ThroughputResult r, MeasureThroughput(files, modes[i], once));
      if (round == 0) {
        best[i] = r;
        continue;
      }
      double cpu = std::min(best[i].cpu_seconds, r.cpu_seconds);
      double reader_cpu = std::min(best[i].reader_cpu_seconds, r.reader_cpu_seconds);
      if (r.seconds < best[i].seconds) best[i] = r;
      best[i].cpu_seconds = cpu;
      best[i].reader_cpu_seconds = reader_cpu;
    }
  }
  return best;
}

}  // namespace tfhost::data
