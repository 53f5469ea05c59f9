#include "data/tfrecord_reader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "base/crc32c.h"

namespace tfhost::data {
namespace {

constexpr size_t kHeaderBytes = 12;  // uint64 length + uint32 masked CRC of it
constexpr size_t kFooterBytes = 4;   // uint32 masked CRC of the data

inline uint64_t Load64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);  // the format is little-endian, as are our targets
  return v;
}
inline uint32_t Load32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

std::string Hex(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "0x%08x", v);
  return buf;
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

bool HeaderValid(const char* p) { return crc32c::Mask(crc32c::Value64(Load64(p))) == Load32(p + 8); }

}  // namespace

const char* CompressionName(Compression c) {
  switch (c) {
    case Compression::kZlib: return "zlib";
    case Compression::kGzip: return "gzip";
    case Compression::kNone: break;
  }
  return "none";
}

StatusOr<Compression> ParseCompression(std::string_view name) {
  std::string n = Lower(name);
  if (n.empty() || n == "none") return Compression::kNone;
  if (n == "zlib") return Compression::kZlib;
  if (n == "gzip" || n == "gz") return Compression::kGzip;
  return InvalidArgument("unknown TFRecord compression '" + std::string(name) +
                         "', expected none, zlib or gzip");
}

Compression DetectCompression(std::string_view head, std::string_view path) {
  const auto* u = reinterpret_cast<const unsigned char*>(head.data());
  if (head.size() >= kHeaderBytes && HeaderValid(head.data())) return Compression::kNone;
  if (head.size() >= 3 && u[0] == 0x1f && u[1] == 0x8b && u[2] == 8) return Compression::kGzip;
  // RFC 1950: CM = 8 (deflate), CINFO <= 7, and CMF*256 + FLG divisible by 31.
  if (head.size() >= 2 && (u[0] & 0x0f) == 8 && (u[0] >> 4) <= 7 && ((u[0] << 8) | u[1]) % 31 == 0) {
    return Compression::kZlib;
  }
  std::string p = Lower(path);
  if (EndsWith(p, ".gz") || EndsWith(p, ".gzip")) return Compression::kGzip;
  if (EndsWith(p, ".zz") || EndsWith(p, ".zlib") || EndsWith(p, ".deflate")) return Compression::kZlib;
  return Compression::kNone;
}

std::string Corruption::ToString() const {
  return file + ": corrupt TFRecord at byte offset " + std::to_string(offset) + " (record index " +
         std::to_string(record_index) + "): " + what;
}

StatusOr<std::unique_ptr<TFRecordReader>> TFRecordReader::Open(const std::string& path,
                                                               const TFRecordReaderOptions& options) {
  Compression compression;
  if (options.compression) {
    compression = *options.compression;
  } else {
    char head[kHeaderBytes];
    std::ifstream f(path, std::ios::binary);
    f.read(head, sizeof(head));
    compression = DetectCompression(std::string_view(head, static_cast<size_t>(f.gcount())), path);
  }
  TFHOST_ASSIGN_OR_RETURN(std::unique_ptr<InputStream> stream, OpenFileStream(path));
  TFRecordReaderOptions opts = options;
  opts.compression = compression;
  std::unique_ptr<TFRecordReader> reader = FromStream(std::move(stream), path, opts);
  if (options.mmap && compression == Compression::kNone) TFHOST_RETURN_IF_ERROR(reader->MapFile(path));
  return reader;
}

std::unique_ptr<TFRecordReader> TFRecordReader::FromStream(std::unique_ptr<InputStream> stream, std::string name,
                                                           const TFRecordReaderOptions& options) {
  Compression compression = options.compression.value_or(Compression::kNone);
  if (compression != Compression::kNone) {
    stream = MakeInflateStream(std::move(stream),
                               compression == Compression::kGzip ? InflateFormat::kGzip : InflateFormat::kZlib,
                               name, options.max_decompressed_bytes);
  }
  return std::unique_ptr<TFRecordReader>(new TFRecordReader(std::move(stream), std::move(name), compression, options));
}

TFRecordReader::TFRecordReader(std::unique_ptr<InputStream> stream, std::string name, Compression compression,
                               const TFRecordReaderOptions& options)
    : stream_(std::move(stream)),
      name_(std::move(name)),
      compression_(compression),
      options_(options),
      stream_size_(stream_->Size()) {
  options_.buffer_bytes = std::max<size_t>(options_.buffer_bytes, 4096);
}

TFRecordReader::~TFRecordReader() {
  if (map_ != nullptr) ::munmap(map_, map_size_);
}

uint64_t TFRecordReader::raw_bytes_consumed() const {
  if (map_ != nullptr) return offset_;
  // The helper thread owns the stream while it runs.
  if (read_ahead_ != nullptr) return read_ahead_raw_bytes_;
  return stream_->RawBytesConsumed();
}

Status TFRecordReader::MapFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Unavailable("cannot open '" + path + "': " + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
    ::close(fd);
    return OkStatus();  // not mappable: the read() path handles it
  }
  // No MAP_POPULATE: populating walks every 4 KiB page through
  // get_user_pages up front, while faulting on first touch maps 16 cached
  // pages per fault (fault-around). Read+verify of page-cached records went
  // from 10.3 to 14.1 GB per CPU-second without it (docs/perf.md, "Measured
  // and not adopted").
  void* m = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (m == MAP_FAILED) return OkStatus();
  (void)::madvise(m, static_cast<size_t>(st.st_size), MADV_SEQUENTIAL);
  map_ = m;
  map_size_ = static_cast<size_t>(st.st_size);
  base_ = static_cast<const char*>(m);
  pos_ = 0;
  end_ = cap_ = map_size_;
  eof_ = true;
  stream_size_ = map_size_;
  return OkStatus();
}

StatusOr<size_t> TFRecordReader::Fill(size_t n) {
  if (options_.read_ahead && end_ - pos_ < n && !eof_) {
    if (read_ahead_ == nullptr) {
      // Started on first use, so a mapped file never starts a thread.
      size_t chunk = std::max<size_t>(options_.read_ahead_chunk_bytes, 4096);
      read_ahead_ = std::make_unique<ReadAhead>(stream_.get(), chunk, std::max<size_t>(chunk / 8, 4096),
                                                std::clamp(options_.read_ahead_chunks, 2, 64));
      if (!read_ahead_->started()) {  // no thread available: read plainly
        read_ahead_.reset();
        options_.read_ahead = false;
      }
    }
    if (read_ahead_ != nullptr) return FillFromReadAhead(n);
  }
  while (end_ - pos_ < n && !eof_) {
    if (end_ == cap_) {
      size_t avail = end_ - pos_;
      if (pos_ > 0) {
        std::memmove(buf_.get(), buf_.get() + pos_, avail);
        pos_ = 0;
        end_ = avail;
      } else {
        // The buffer is full of unread bytes: grow it. It only ever holds
        // bytes that really arrived, so a lying length cannot inflate it.
        size_t new_cap = std::max(cap_ * 2, options_.buffer_bytes);
        auto bigger = std::make_unique_for_overwrite<char[]>(new_cap);  // no zero-fill: bytes are read in
        if (avail > 0) std::memcpy(bigger.get(), buf_.get(), avail);
        buf_ = std::move(bigger);
        base_ = buf_.get();
        cap_ = new_cap;
      }
    }
    TFHOST_ASSIGN_OR_RETURN(size_t got, stream_->Read(buf_.get() + end_, cap_ - end_));
    if (got == 0) eof_ = true;
    end_ += got;
  }
  return std::min(n, end_ - pos_);
}

StatusOr<size_t> TFRecordReader::FillFromReadAhead(size_t n) {
  while (end_ - pos_ < n && !eof_) {
    TFHOST_ASSIGN_OR_RETURN(ReadAhead::Chunk next, read_ahead_->Next());
    read_ahead_raw_bytes_ = next.raw_bytes_consumed;
    if (next.size == 0) {
      eof_ = true;
      break;
    }
    size_t avail = end_ - pos_;
    if (avail <= read_ahead_->headroom()) {
      // The unfinished tail (part of one record) moves in front of the new
      // chunk's data, so records stay contiguous with no copy of the chunk.
      char* start = next.data - avail;
      if (avail > 0) std::memcpy(start, base_ + pos_, avail);
      if (current_chunk_ >= 0) read_ahead_->Release(current_chunk_);
      current_chunk_ = next.index;
      base_ = start;
      pos_ = 0;
      end_ = avail + next.size;
      continue;
    }
    // A record longer than the headroom spans chunks: gather it in the
    // private buffer, which only ever holds bytes that really arrived.
    size_t need = avail + next.size;
    if (cap_ < need) {
      size_t new_cap = std::max(need, cap_ * 2);
      auto bigger = std::make_unique_for_overwrite<char[]>(new_cap);
      std::memcpy(bigger.get(), base_ + pos_, avail);
      buf_ = std::move(bigger);
      cap_ = new_cap;
    } else if (base_ != buf_.get() || pos_ > 0) {
      // From a chunk, or to the front of buf_; a long record that is
      // already at the front just grows in place.
      std::memmove(buf_.get(), base_ + pos_, avail);
    }
    std::memcpy(buf_.get() + avail, next.data, next.size);
    if (current_chunk_ >= 0) read_ahead_->Release(current_chunk_);
    read_ahead_->Release(next.index);
    current_chunk_ = -1;
    base_ = buf_.get();
    pos_ = 0;
    end_ = need;
  }
  return std::min(n, end_ - pos_);
}

void TFRecordReader::Consume(size_t n) {
  pos_ += n;
  offset_ += n;
}

StatusOr<TFRecordReader::Outcome> TFRecordReader::TryRecord(std::string_view* record, Corruption* c) {
  // The location is filled in only when something is wrong: the hot path
  // must not copy the file name per record.
  auto locate = [&] {
    c->file = name_;
    c->offset = offset_;
    c->record_index = records_read_;
  };
  c->skipped_bytes = 0;
  size_t avail = end_ - pos_;
  if (avail < kHeaderBytes) {
    StatusOr<size_t> filled = Fill(kHeaderBytes);
    if (!filled.ok()) {
      locate();
      return filled.status();
    }
    avail = *filled;
  }
  if (avail == 0) return Outcome::kEnd;
  if (avail < kHeaderBytes) {
    c->what = "truncated record: the file ends " + std::to_string(avail) + " bytes into a 12-byte record header";
    locate();
    return Outcome::kCorrupt;
  }
  const char* p = base_ + pos_;
  uint64_t length = Load64(p);
  uint32_t stored = Load32(p + 8);
  uint32_t computed = crc32c::Mask(crc32c::Value64(length));
  if (stored != computed) {
    c->what = "bad length CRC (stored " + Hex(stored) + ", computed " + Hex(computed) +
              "): garbage in the file, or not a TFRecord file" +
              (compression_ == Compression::kNone ? " (or a compressed file read as uncompressed)" : "");
    locate();
    return Outcome::kCorrupt;
  }
  if (length > options_.max_record_bytes) {
    c->what = "record length " + std::to_string(length) + " exceeds the limit of " +
              std::to_string(options_.max_record_bytes) + " bytes";
    locate();
    return Outcome::kCorrupt;
  }
  if (stream_size_) {
    uint64_t left = *stream_size_ > offset_ ? *stream_size_ - offset_ : 0;
    uint64_t remaining = left > kHeaderBytes ? left - kHeaderBytes : 0;
    if (length > remaining || remaining - length < kFooterBytes) {
      c->what = "truncated record: its header says " + std::to_string(length) + " data bytes but only " +
                std::to_string(remaining) + " bytes follow in the file";
      locate();
    return Outcome::kCorrupt;
    }
  }
  size_t total = kHeaderBytes + static_cast<size_t>(length) + kFooterBytes;
  if (avail < total) {
    StatusOr<size_t> filled = Fill(total);
    if (!filled.ok()) {
      locate();
      return filled.status();
    }
    avail = *filled;
  }
  if (avail < total) {
    c->what = "truncated record: the file ends " + std::to_string(avail) + " bytes into a record of " +
              std::to_string(total) + " bytes (" + std::to_string(length) + " data bytes)";
    locate();
    return Outcome::kCorrupt;
  }
  p = base_ + pos_;
  if (options_.verify_data_crc) {
    uint32_t stored_data = Load32(p + kHeaderBytes + length);
    uint32_t computed_data = crc32c::Mask(crc32c::Value(p + kHeaderBytes, length));
    if (stored_data != computed_data) {
      c->what = "bad data CRC (stored " + Hex(stored_data) + ", computed " + Hex(computed_data) + ") over " +
                std::to_string(length) + " data bytes";
      c->skipped_bytes = total;  // the length was vouched for by its CRC: skip exactly this record
      locate();
    return Outcome::kCorrupt;
    }
  }
  *record = std::string_view(p + kHeaderBytes, static_cast<size_t>(length));
  Consume(total);
  return Outcome::kOk;
}

StatusOr<bool> TFRecordReader::ValidRecordAt(size_t at) {
  TFHOST_ASSIGN_OR_RETURN(size_t avail, Fill(at + kHeaderBytes));
  if (avail < at + kHeaderBytes) return false;
  const char* p = base_ + pos_ + at;
  if (!HeaderValid(p)) return false;
  uint64_t length = Load64(p);
  if (length > options_.max_record_bytes) return false;
  if (stream_size_ && length + kHeaderBytes + kFooterBytes > *stream_size_ - std::min(*stream_size_, offset_ + at)) {
    return false;
  }
  size_t total = at + kHeaderBytes + static_cast<size_t>(length) + kFooterBytes;
  TFHOST_ASSIGN_OR_RETURN(avail, Fill(total));
  if (avail < total) return false;
  p = base_ + pos_ + at;
  return crc32c::Mask(crc32c::Value(p + kHeaderBytes, length)) == Load32(p + kHeaderBytes + length);
}

Status TFRecordReader::Resync(Corruption* c) {
  if (c->skipped_bytes > 0) {  // bad data CRC under a good header
    Consume(c->skipped_bytes);
    return OkStatus();
  }
  while (true) {
    TFHOST_ASSIGN_OR_RETURN(size_t avail, Fill(1));
    if (avail == 0) return OkStatus();
    Consume(1);
    ++c->skipped_bytes;
    TFHOST_ASSIGN_OR_RETURN(bool valid, ValidRecordAt(0));
    if (valid) return OkStatus();
  }
}

void TFRecordReader::Note(Corruption c) {
  ++corruption_count_;
  if (corruptions_.size() < kMaxListed) corruptions_.push_back(std::move(c));
}

StatusOr<bool> TFRecordReader::ReadView(std::string_view* record) {
  if (!sticky_error_.ok()) return sticky_error_;
  // Fast path: the whole record is in the buffer and both CRCs match. It
  // makes no decision of its own — anything else (a refill, a bad CRC, an
  // over-long length) goes to TryRecord, which checks again and reports. The
  // length is only compared with bytes already in memory before its CRC is
  // checked, so nothing is sized from an unverified length.
  if (size_t avail = end_ - pos_; avail >= kHeaderBytes + kFooterBytes) {
    const char* p = base_ + pos_;
    uint64_t length = Load64(p);
    if (length <= avail - kHeaderBytes - kFooterBytes && length <= options_.max_record_bytes &&
        crc32c::Mask(crc32c::Value64(length)) == Load32(p + 8) &&
        (!options_.verify_data_crc ||
         crc32c::Mask(crc32c::Value(p + kHeaderBytes, length)) == Load32(p + kHeaderBytes + length))) {
      *record = std::string_view(p + kHeaderBytes, static_cast<size_t>(length));
      Consume(kHeaderBytes + static_cast<size_t>(length) + kFooterBytes);
      ++records_read_;
      return true;
    }
  }
  while (true) {
    Corruption c;
    StatusOr<Outcome> outcome = TryRecord(record, &c);
    if (!outcome.ok()) {
      // A broken compressed stream cannot be resynchronised; an I/O error is
      // not the file's fault. Either way reading stops here.
      Status s = outcome.status();
      if (s.code() == StatusCode::kDataLoss) {
        c.what = s.message();
        if (options_.policy == CorruptionPolicy::kSkip) {
          Note(std::move(c));
          eof_ = true;
          pos_ = end_;
          return false;
        }
        s = DataLoss(c.ToString());
      } else {
        s = s.WithContext(name_ + " at byte offset " + std::to_string(c.offset) + " (record index " +
                          std::to_string(c.record_index) + ")");
      }
      sticky_error_ = s;
      return s;
    }
    switch (*outcome) {
      case Outcome::kOk:
        ++records_read_;
        return true;
      case Outcome::kEnd:
        return false;
      case Outcome::kCorrupt:
        if (options_.policy == CorruptionPolicy::kFail) {
          sticky_error_ = DataLoss(c.ToString());
          return sticky_error_;
        }
        TFHOST_RETURN_IF_ERROR(Resync(&c));
        Note(std::move(c));
        break;
    }
  }
}

StatusOr<bool> TFRecordReader::Read(std::string* record) {
  std::string_view view;
  TFHOST_ASSIGN_OR_RETURN(bool got, ReadView(&view));
  if (got) record->assign(view.data(), view.size());
  return got;
}

StatusOr<std::vector<std::string>> ReadAllRecords(const std::string& path, const TFRecordReaderOptions& options,
                                                  int64_t max_records) {
  TFHOST_ASSIGN_OR_RETURN(std::unique_ptr<TFRecordReader> reader, TFRecordReader::Open(path, options));
  std::vector<std::string> records;
  std::string_view view;
  while (true) {
    TFHOST_ASSIGN_OR_RETURN(bool got, reader->ReadView(&view));
    if (!got) break;
    if (static_cast<int64_t>(records.size()) >= max_records) {
      return ResourceExhausted(path + ": more than " + std::to_string(max_records) + " records");
    }
    records.emplace_back(view);
  }
  return records;
}

void AppendTFRecordFrame(std::string_view record, std::string* out) {
  char header[kHeaderBytes];
  uint64_t length = record.size();
  std::memcpy(header, &length, 8);
  uint32_t length_crc = crc32c::Mask(crc32c::Value64(length));
  std::memcpy(header + 8, &length_crc, 4);
  uint32_t data_crc = crc32c::Mask(crc32c::Value(record.data(), record.size()));
  out->append(header, kHeaderBytes);
  out->append(record.data(), record.size());
  out->append(reinterpret_cast<const char*>(&data_crc), 4);
}

}  // namespace tfhost::data
