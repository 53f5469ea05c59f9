#include "data/predict/predict.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>

#include "base/file_util.h"
#include "base/trace/trace.h"
#include "data/example_json.h"
#include "data/tfrecord_writer.h"

namespace tfhost::data::predict {
namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// One stage's work on one batch as a trace slice (category "predict") on
// this thread's track; callers check trace::Enabled() first.
void StageSlice(const char* stage, int64_t start_ns, int64_t end_ns, int64_t batch, int64_t records) {
  trace::Event e;
  e.name = stage;
  e.category = "predict";
  e.tid = trace::ThisThreadId();
  e.start_ns = start_ns;
  e.duration_ns = end_ns - start_ns;
  e.args = trace::Args().Add("batch", batch).Add("records", records).Take();
  trace::Record(std::move(e));
}

int64_t Nanos(Clock::time_point t) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

// A FIFO of at most `cap` items. Close() lets consumers drain what is left;
// Cancel() wakes everyone and makes every later call fail.
template <typename T>
class BoundedQueue {
 public:
  explicit BoundedQueue(size_t cap) : cap_(cap < 1 ? 1 : cap) {}
  // False when cancelled.
  bool Push(T v) {
    std::unique_lock<std::mutex> l(mu_);
    not_full_.wait(l, [&] { return cancelled_ || q_.size() < cap_; });
    if (cancelled_) return false;
    q_.push_back(std::move(v));
    not_empty_.notify_one();
    return true;
  }
  // nullopt when closed and empty, or cancelled.
  std::optional<T> Pop() {
    std::unique_lock<std::mutex> l(mu_);
    not_empty_.wait(l, [&] { return cancelled_ || closed_ || !q_.empty(); });
    if (cancelled_ || q_.empty()) return std::nullopt;
    T v = std::move(q_.front());
    q_.pop_front();
    not_full_.notify_one();
    return v;
  }
  void Close() {
    std::lock_guard<std::mutex> l(mu_);
    closed_ = true;
    not_empty_.notify_all();
  }
  void Cancel() {
    std::lock_guard<std::mutex> l(mu_);
    cancelled_ = true;
    not_empty_.notify_all();
    not_full_.notify_all();
  }

 private:
  const size_t cap_;
  std::mutex mu_;
  std::condition_variable not_empty_, not_full_;
  std::deque<T> q_;
  bool closed_ = false, cancelled_ = false;
};

// Results of parallel workers handed out in sequence order; a worker more
// than `cap` batches ahead of the consumer waits, which bounds memory.
template <typename T>
class OrderedBuffer {
 public:
  explicit OrderedBuffer(int64_t cap) : cap_(cap < 1 ? 1 : cap) {}
  bool Put(int64_t seq, T v) {
    std::unique_lock<std::mutex> l(mu_);
    room_.wait(l, [&] { return cancelled_ || seq < next_ + cap_; });
    if (cancelled_) return false;
    items_.emplace(seq, std::move(v));
    if (seq == next_) ready_.notify_all();
    return true;
  }
  // The next batch in order; nullopt when every producer is done and all
  // was taken, or cancelled.
  std::optional<T> Take() {
    std::unique_lock<std::mutex> l(mu_);
    ready_.wait(l, [&] { return cancelled_ || items_.count(next_) > 0 || (producers_done_ && items_.empty()); });
    if (cancelled_) return std::nullopt;
    auto it = items_.find(next_);
    if (it == items_.end()) return std::nullopt;
    T v = std::move(it->second);
    items_.erase(it);
    ++next_;
    room_.notify_all();
    return v;
  }
  void ProducersDone() {
    std::lock_guard<std::mutex> l(mu_);
    producers_done_ = true;
    ready_.notify_all();
  }
  void Cancel() {
    std::lock_guard<std::mutex> l(mu_);
    cancelled_ = true;
    ready_.notify_all();
    room_.notify_all();
  }

 private:
  const int64_t cap_;
  std::mutex mu_;
  std::condition_variable ready_, room_;
  std::map<int64_t, T> items_;
  int64_t next_ = 0;
  bool producers_done_ = false, cancelled_ = false;
};

// A run of consecutive records of one unit inside a batch.
struct Segment {
  size_t unit = 0;  // index into the pending units
  int64_t count = 0;
  bool ends_unit = false;  // the unit's last record is in this segment
};

struct RecordMeta {
  size_t unit = 0;
  int64_t index = 0;
  int64_t line = 0;
  bool is_json = false;
};

// Records as read: one buffer holding every record's bytes.
struct RawBatch {
  int64_t seq = 0;
  std::string data;
  std::vector<size_t> ends;
  std::vector<RecordMeta> meta;
  std::vector<Segment> segments;
  size_t size() const { return meta.size(); }
};

struct PreparedBatch {
  int64_t seq = 0;
  std::vector<Segment> segments;
  FedBatch fed;
  Status status;  // the batch could not be fed
};

struct ResultBatch {
  int64_t seq = 0;
  std::vector<Segment> segments;
  int64_t size = 0;
  std::map<std::string, Tensor> outputs;
  std::vector<FeatureMap> kept;
};

// JSON Lines, one record per non-blank line.
class JsonLinesReader {
 public:
  static StatusOr<std::unique_ptr<JsonLinesReader>> Open(const std::string& path) {
    FILE* f = std::fopen(path.c_str(), "rb");
    if (f == nullptr) return NotFound("cannot open '" + path + "': " + std::strerror(errno));
    return std::unique_ptr<JsonLinesReader>(new JsonLinesReader(path, f));
  }
  ~JsonLinesReader() {
    std::free(buf_);
    std::fclose(f_);
  }
  // True and a view of the line (valid until the next call); false at the end.
  StatusOr<bool> Next(std::string_view* line) {
    while (true) {
      errno = 0;
      ssize_t n = ::getline(&buf_, &cap_, f_);
      if (n < 0) {
        if (std::ferror(f_)) return DataLoss("reading '" + path_ + "' failed: " + std::strerror(errno));
        return false;
      }
      ++line_no_;
      std::string_view s(buf_, static_cast<size_t>(n));
      while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) {
        s.remove_suffix(1);
      }
      size_t start = s.find_first_not_of(" \t");
      if (start == std::string_view::npos) continue;  // blank line
      *line = s.substr(start);
      return true;
    }
  }
  int64_t line_number() const { return line_no_; }

 private:
  JsonLinesReader(std::string path, FILE* f) : path_(std::move(path)), f_(f) {}
  std::string path_;
  FILE* f_;
  char* buf_ = nullptr;
  size_t cap_ = 0;
  int64_t line_no_ = 0;
};

// One output shard, published atomically whichever the format.
class OutputShard {
 public:
  static StatusOr<std::unique_ptr<OutputShard>> Create(const std::string& path, const PredictOptions& o) {
    auto shard = std::unique_ptr<OutputShard>(new OutputShard());
    shard->format_ = o.output_format;
    shard->path_ = path;
    shard->sync_ = o.sync;
    if (o.output_format == OutputFormat::kTFRecord) {
      TFRecordWriterOptions wo;
      wo.compression = o.output_compression;
      wo.sync = o.sync;
      TFHOST_ASSIGN_OR_RETURN(shard->tfrecord_, TFRecordWriter::Create(path, wo));
      return shard;
    }
    size_t slash = path.rfind('/');
    std::string dir = slash == std::string::npos ? "" : path.substr(0, slash + 1);
    std::string temp = dir + "." + path.substr(slash == std::string::npos ? 0 : slash + 1) + ".tmp-XXXXXX";
    int fd = ::mkstemp(temp.data());
    if (fd < 0) return Unavailable("cannot create a temporary file for '" + path + "': " + std::strerror(errno));
    ::fchmod(fd, 0644);
    shard->fd_ = fd;
    shard->temp_ = temp;
    return shard;
  }
  ~OutputShard() {
    if (fd_ >= 0) {
      ::close(fd_);
      ::unlink(temp_.c_str());
    }
  }
  Status Write(const Example& ex) {
    if (tfrecord_) return tfrecord_->Write(EncodeExample(ex));
    buffer_ += ExampleToJson(ex);
    buffer_ += '\n';
    if (buffer_.size() >= (1 << 20)) return Flush();
    return OkStatus();
  }
  Status Close() {
    if (tfrecord_) return tfrecord_->Close();
    TFHOST_RETURN_IF_ERROR(Flush());
    if (sync_ && ::fsync(fd_) != 0) return Unavailable("fsync of '" + temp_ + "' failed: " + std::strerror(errno));
    ::close(fd_);
    fd_ = -1;
    if (::rename(temp_.c_str(), path_.c_str()) != 0) {
      Status s = Unavailable("cannot rename '" + temp_ + "' to '" + path_ + "': " + std::strerror(errno));
      ::unlink(temp_.c_str());
      return s;
    }
    if (sync_) {
      size_t slash = path_.rfind('/');
      std::string dir = slash == std::string::npos ? "." : (slash == 0 ? "/" : path_.substr(0, slash));
      int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (dfd >= 0) {
        (void)::fsync(dfd);
        ::close(dfd);
      }
    }
    return OkStatus();
  }

 private:
  OutputShard() = default;
  Status Flush() {
    size_t done = 0;
    while (done < buffer_.size()) {
      ssize_t n = ::write(fd_, buffer_.data() + done, buffer_.size() - done);
      if (n < 0) {
        if (errno == EINTR) continue;
        return Unavailable("writing '" + temp_ + "' failed: " + std::strerror(errno));
      }
      done += static_cast<size_t>(n);
    }
    buffer_.clear();
    return OkStatus();
  }
  OutputFormat format_ = OutputFormat::kTFRecord;
  std::string path_, temp_;
  bool sync_ = true;
  int fd_ = -1;
  std::string buffer_;
  std::unique_ptr<TFRecordWriter> tfrecord_;
};

bool FileExists(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Earlier tfhost named GZIP outputs without ".gz". Such a finished output of
// a unit must neither be skipped (the job's names now end in ".gz") nor be
// predicted again beside it (globs over PREFIX-* would read its records
// twice), so the run stops and says how to keep it or redo it.
Status CheckNoOutputUnderTheOldGzipName(const WorkUnit& u) {
  constexpr std::string_view kGz = ".gz";
  if (u.output.size() <= kGz.size() || u.output.compare(u.output.size() - kGz.size(), kGz.size(), kGz) != 0) {
    return OkStatus();
  }
  const std::string old_name = u.output.substr(0, u.output.size() - kGz.size());
  if (FileExists(u.output) || !FileExists(old_name)) return OkStatus();
  char head[12];
  ssize_t n = 0;
  if (int fd = ::open(old_name.c_str(), O_RDONLY | O_CLOEXEC); fd >= 0) {
    n = ::read(fd, head, sizeof(head));
    ::close(fd);
  }
  if (n <= 0 || DetectCompression(std::string_view(head, static_cast<size_t>(n)), old_name) != Compression::kGzip) {
    return OkStatus();  // not a gzip output of ours: some other file, left alone
  }
  return FailedPrecondition("output '" + old_name + "' is a GZIP output named without the '.gz' that GZIP outputs " +
                            "now end in; rename it to '" + u.output + "' to keep it (the unit is then skipped), " +
                            "or delete it to predict the unit again");
}

double ThreadCpuSeconds() {
  timespec ts;
  if (::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// The shared state of one RunPredict call.
class Job {
 public:
  Job(const Feeder& feeder, const RunFn& run, const PredictOptions& o, std::vector<WorkUnit> units,
      PredictStats stats)
      : feeder_(feeder),
        run_(run),
        o_(o),
        units_(std::move(units)),
        raw_(static_cast<size_t>(2 * std::max(1, o.parse_threads))),
        prepared_(std::max(1, o.prefetch_batches)),
        // Results are small next to inputs; a deeper queue lets the engine
        // ride out moments when the writer is descheduled.
        results_(static_cast<size_t>(std::max(16, 4 * o.prefetch_batches))),
        stats_(std::move(stats)) {}

  StatusOr<PredictStats> Run() {
    start_ = Clock::now();
    std::thread reader([this] { ReadLoop(); });
    std::vector<std::thread> parsers;
    std::atomic<int> parsers_left{std::max(1, o_.parse_threads)};
    for (int i = 0; i < std::max(1, o_.parse_threads); ++i) {
      parsers.emplace_back([this, &parsers_left, i] {
        ParseLoop(i);
        if (--parsers_left == 0) prepared_.ProducersDone();
      });
    }
    std::thread writer([this] { WriteLoop(); });
    EngineLoop();
    results_.Close();
    reader.join();
    for (auto& t : parsers) t.join();
    writer.join();
    {
      std::lock_guard<std::mutex> l(mu_);
      stats_.wall_seconds = Seconds(Clock::now() - start_);
      if (!error_.ok()) return error_;
    }
    if (o_.on_progress) o_.on_progress(stats_);
    return stats_;
  }

 private:
  // Errors stop the job in input order: everything before the failing
  // record is still predicted and written, so outputs finished before it
  // stay finished and a rerun skips them.
  void SetError(Status s) {
    std::lock_guard<std::mutex> l(mu_);
    if (error_.ok()) error_ = std::move(s);
  }
  // The engine stopped: nothing upstream is needed any more.
  void CancelUpstream() {
    raw_.Cancel();
    prepared_.Cancel();
  }

  bool PushRaw(RawBatch& b) {
    b.seq = next_seq_++;
    if (trace::Enabled()) {
      const int64_t now = trace::NowNanos();
      StageSlice("read", read_start_ns_, now, b.seq, static_cast<int64_t>(b.size()));
    }
    bool ok = raw_.Push(std::move(b));
    b = RawBatch();
    read_start_ns_ = trace::Enabled() ? trace::NowNanos() : 0;
    return ok;
  }

  void AddRecord(RawBatch& b, size_t unit, std::string_view bytes, int64_t index, int64_t line, bool is_json) {
    b.data.append(bytes.data(), bytes.size());
    b.ends.push_back(b.data.size());
    b.meta.push_back({unit, index, line, is_json});
    if (b.segments.empty() || b.segments.back().unit != unit) b.segments.push_back({unit, 0, false});
    ++b.segments.back().count;
  }

  // Reads every pending unit's records, in order, into batches.
  void ReadLoop() {
    trace::SetThreadName("predict reader");
    read_start_ns_ = trace::Enabled() ? trace::NowNanos() : 0;
    double cpu = ThreadCpuSeconds();
    Status s = ReadAll();
    if (!s.ok()) SetError(std::move(s));  // what was read before still goes through
    raw_.Close();
    std::lock_guard<std::mutex> l(mu_);
    stats_.reader_cpu_seconds += ThreadCpuSeconds() - cpu;
  }

  Status ReadAll() {
    const size_t batch = static_cast<size_t>(std::max(1, o_.batch_size));
    RawBatch b;
    for (size_t u = 0; u < units_.size(); ++u) {
      const WorkUnit& unit = units_[u];
      auto take = [&](int64_t index) { return index % unit.record_modulo == unit.record_remainder; };
      int64_t index = 0;
      if (unit.input_format == InputFormat::kJsonl) {
        TFHOST_ASSIGN_OR_RETURN(auto reader, JsonLinesReader::Open(unit.input));
        std::string_view line;
        while (true) {
          TFHOST_ASSIGN_OR_RETURN(bool got, reader->Next(&line));
          if (!got) break;
          if (take(index)) {
            AddRecord(b, u, line, index, reader->line_number(), true);
            if (b.size() >= batch && !PushRaw(b)) return OkStatus();
          }
          ++index;
        }
      } else {
        TFHOST_ASSIGN_OR_RETURN(auto reader, TFRecordReader::Open(unit.input, o_.reader));
        std::string_view record;
        while (true) {
          TFHOST_ASSIGN_OR_RETURN(bool got, reader->ReadView(&record));
          if (!got) break;
          if (take(index)) {
            AddRecord(b, u, record, index, 0, false);
            if (b.size() >= batch && !PushRaw(b)) return OkStatus();
          }
          ++index;
        }
      }
      if (!b.segments.empty() && b.segments.back().unit == u) {
        b.segments.back().ends_unit = true;
      } else {
        b.segments.push_back({u, 0, true});
      }
    }
    if (!b.segments.empty()) PushRaw(b);
    return OkStatus();
  }

  void ParseLoop(int index) {
    trace::SetThreadName("predict parse " + std::to_string(index));
    double cpu = ThreadCpuSeconds();
    ParseBatches();
    std::lock_guard<std::mutex> l(mu_);
    stats_.parse_cpu_seconds += ThreadCpuSeconds() - cpu;
  }

  void ParseBatches() {
    while (true) {
      std::optional<RawBatch> raw = raw_.Pop();
      if (!raw) return;
      PreparedBatch p;
      p.seq = raw->seq;
      p.segments = std::move(raw->segments);
      const int64_t start_ns = trace::Enabled() ? trace::NowNanos() : 0;
      if (raw->size() > 0) {
        std::vector<RecordRef> refs(raw->size());
        size_t begin = 0;
        for (size_t i = 0; i < raw->size(); ++i) {
          const RecordMeta& m = raw->meta[i];
          refs[i].bytes = std::string_view(raw->data).substr(begin, raw->ends[i] - begin);
          refs[i].is_json = m.is_json;
          refs[i].file = &units_[m.unit].input;
          refs[i].index = m.index;
          refs[i].line = m.line;
          begin = raw->ends[i];
        }
        auto fed = feeder_.Feed(refs);
        if (fed.ok()) {
          p.fed = std::move(*fed);
        } else {
          p.status = fed.status();
        }
      }
      if (start_ns != 0) StageSlice("decode", start_ns, trace::NowNanos(), raw->seq, static_cast<int64_t>(raw->size()));
      if (!prepared_.Put(raw->seq, std::move(p))) return;
    }
  }

  // Runs on the calling thread: one batch at a time, in order.
  void EngineLoop() {
    trace::SetThreadName("predict engine");
    bool first = true;
    while (true) {
      auto t0 = Clock::now();
      std::optional<PreparedBatch> p = prepared_.Take();
      auto t1 = Clock::now();
      if (!p) break;
      if (!p->status.ok()) {
        SetError(std::move(p->status));
        CancelUpstream();
        break;
      }
      ResultBatch r;
      r.seq = p->seq;
      r.segments = std::move(p->segments);
      r.size = p->fed.size;
      r.kept = std::move(p->fed.kept);
      Clock::time_point t2 = t1;
      if (r.size > 0) {
        auto out = run_(p->fed.inputs);
        t2 = Clock::now();
        if (!out.ok()) {
          CancelUpstream();
          SetError(out.status().WithContext("running signature '" + feeder_.signature().name + "' on a batch of " +
                                        std::to_string(r.size) + " records from " + units_[r.segments[0].unit].input));
          break;
        }
        r.outputs = std::move(*out);
      }
      p.reset();  // free the inputs before waiting on the writer
      const int64_t seq = r.seq, records = r.size;
      bool pushed = results_.Push(std::move(r));
      auto t3 = Clock::now();
      if (trace::Enabled()) {
        StageSlice("input wait", Nanos(t0), Nanos(t1), seq, records);
        if (t2 != t1) StageSlice("run", Nanos(t1), Nanos(t2), seq, records);
        StageSlice("output wait", Nanos(t2), Nanos(t3), seq, records);
      }
      {
        std::lock_guard<std::mutex> l(mu_);
        stats_.engine_input_wait_seconds += Seconds(t1 - t0);
        if (first) stats_.first_batch_wait_seconds = Seconds(t1 - t0);
        stats_.engine_busy_seconds += Seconds(t2 - t1);
        stats_.engine_output_wait_seconds += Seconds(t3 - t2);
        if (t2 != t1) ++stats_.batches;
      }
      first = false;
      if (!pushed) break;
    }
  }

  void WriteLoop() {
    trace::SetThreadName("predict writer");
    double cpu = ThreadCpuSeconds();
    Status s = WriteAll();
    {
      std::lock_guard<std::mutex> l(mu_);
      stats_.writer_cpu_seconds += ThreadCpuSeconds() - cpu;
    }
    if (!s.ok()) {
      SetError(std::move(s));
      CancelUpstream();
      results_.Cancel();
    }
  }

  Status WriteAll() {
    std::unique_ptr<OutputShard> out;
    size_t out_unit = 0;
    while (true) {
      std::optional<ResultBatch> r = results_.Pop();
      if (!r) break;
      trace::ScopedSlice slice("predict", "write");
      if (slice.active()) slice.args().Add("batch", r->seq).Add("records", r->size);
      std::vector<Example> examples;
      if (r->size > 0) {
        TFHOST_ASSIGN_OR_RETURN(examples, feeder_.Split(r->outputs, r->size, std::move(r->kept)));
      }
      size_t next = 0;
      for (const Segment& seg : r->segments) {
        if (!out || out_unit != seg.unit) {
          if (out) return Internal("unit " + units_[out_unit].output + " was left unfinished");
          TFHOST_ASSIGN_OR_RETURN(out, OutputShard::Create(units_[seg.unit].output, o_));
          out_unit = seg.unit;
        }
        for (int64_t i = 0; i < seg.count; ++i) TFHOST_RETURN_IF_ERROR(out->Write(examples[next++]));
        if (seg.ends_unit) {
          TFHOST_RETURN_IF_ERROR(out->Close());
          out.reset();
          std::lock_guard<std::mutex> l(mu_);
          ++stats_.units_written;
          stats_.outputs_written.push_back(units_[seg.unit].output);
        }
      }
      PredictStats snapshot;
      {
        std::lock_guard<std::mutex> l(mu_);
        stats_.records += r->size;
        stats_.wall_seconds = Seconds(Clock::now() - start_);
        if (o_.on_progress) snapshot = stats_;
      }
      if (o_.on_progress) o_.on_progress(snapshot);
    }
    return OkStatus();
  }

  const Feeder& feeder_;
  const RunFn& run_;
  const PredictOptions& o_;
  std::vector<WorkUnit> units_;
  BoundedQueue<RawBatch> raw_;
  OrderedBuffer<PreparedBatch> prepared_;
  BoundedQueue<ResultBatch> results_;
  int64_t next_seq_ = 0;  // reader thread only
  int64_t read_start_ns_ = 0;  // reader thread only: when the batch being read began (traced runs)
  Clock::time_point start_;
  std::mutex mu_;
  Status error_;
  PredictStats stats_;
};

}  // namespace

double PredictStats::engine_busy_share() const {
  double total = engine_busy_seconds + engine_input_wait_seconds + engine_output_wait_seconds;
  return total > 0 ? engine_busy_seconds / total : 0;
}

double PredictStats::engine_input_wait_share() const {
  double total = engine_busy_seconds + engine_input_wait_seconds + engine_output_wait_seconds;
  return total > 0 ? engine_input_wait_seconds / total : 0;
}

StatusOr<PredictStats> RunPredict(const SignatureInfo& signature, const RunFn& run, const PredictOptions& options) {
  if (options.batch_size < 1) return InvalidArgument("batch size must be at least 1");
  if (options.parse_threads < 1) return InvalidArgument("parse threads must be at least 1");
  TFHOST_ASSIGN_OR_RETURN(FeedMode mode, ChooseFeedMode(signature, options.feed_mode));
  TFHOST_ASSIGN_OR_RETURN(Feeder feeder, Feeder::Create(signature, mode, options.feed));
  TFHOST_ASSIGN_OR_RETURN(WorkPlan plan, PlanWork(options.inputs, options.shard, options.output_prefix,
                                                  options.output_format, options.output_compression));
  PredictStats stats;
  stats.feed_mode = mode;
  stats.total_units = plan.total_units;
  stats.shard_units = static_cast<int64_t>(plan.units.size());

  // Where the outputs go must exist.
  TFHOST_RETURN_IF_ERROR(CreateParentDirectories(options.output_prefix));
  std::vector<WorkUnit> pending;
  for (WorkUnit& u : plan.units) {
    TFHOST_RETURN_IF_ERROR(CheckNoOutputUnderTheOldGzipName(u));
    TFHOST_ASSIGN_OR_RETURN(int removed, RemoveStaleTemporaries(u.output));
    stats.stale_temporaries_removed += removed;
    if (!options.overwrite && FileExists(u.output)) {
      ++stats.units_skipped;
      stats.outputs_skipped.push_back(u.output);
      continue;
    }
    pending.push_back(std::move(u));
  }
  if (pending.empty()) {
    if (options.on_progress) options.on_progress(stats);
    return stats;
  }
  Job job(feeder, run, options, std::move(pending), std::move(stats));
  return job.Run();
}

}  // namespace tfhost::data::predict
