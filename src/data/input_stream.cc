#include "data/input_stream.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace tfhost::data {
namespace {

Status ErrnoStatus(const std::string& what, const std::string& path, int err) {
  std::string msg = what + " '" + path + "': " + std::strerror(err);
  if (err == ENOENT) return NotFound(msg);
  return Unavailable(msg);
}

class FileStream : public InputStream {
 public:
  FileStream(int fd, std::string path, uint64_t size) : fd_(fd), path_(std::move(path)), size_(size) {}
  ~FileStream() override { ::close(fd_); }

  StatusOr<size_t> Read(char* buf, size_t n) override {
    while (true) {
      ssize_t got = ::read(fd_, buf, n);
      if (got >= 0) {
        consumed_ += static_cast<uint64_t>(got);
        return static_cast<size_t>(got);
      }
      if (errno != EINTR) return ErrnoStatus("reading", path_, errno);
    }
  }
  std::optional<uint64_t> Size() const override { return size_; }
  uint64_t RawBytesConsumed() const override { return consumed_; }

 private:
  int fd_;
  std::string path_;
  uint64_t size_;
  uint64_t consumed_ = 0;
};

class StringStream : public InputStream {
 public:
  explicit StringStream(std::string bytes) : bytes_(std::move(bytes)) {}
  StatusOr<size_t> Read(char* buf, size_t n) override {
    size_t take = std::min(n, bytes_.size() - pos_);
    std::memcpy(buf, bytes_.data() + pos_, take);
    pos_ += take;
    return take;
  }
  std::optional<uint64_t> Size() const override { return bytes_.size(); }
  uint64_t RawBytesConsumed() const override { return pos_; }

 private:
  std::string bytes_;
  size_t pos_ = 0;
};

// zlib's inflate over a pull source. The compressed input is read in 256 KiB
// chunks; output goes straight into the caller's buffer.
class InflateStream : public InputStream {
 public:
  InflateStream(std::unique_ptr<InputStream> source, InflateFormat format, std::string name, uint64_t max_output)
      : source_(std::move(source)),
        format_(format),
        name_(std::move(name)),
        in_(kInputChunk),
        max_output_(max_output == 0 ? UINT64_MAX : max_output) {
    std::memset(&z_, 0, sizeof(z_));
    init_ok_ = inflateInit2(&z_, WindowBits()) == Z_OK;
  }
  ~InflateStream() override {
    if (init_ok_) inflateEnd(&z_);
  }

  StatusOr<size_t> Read(char* buf, size_t n) override {
    if (!init_ok_) return Internal("zlib could not initialise an inflater for '" + name_ + "'");
    if (!error_.ok()) return error_;
    size_t produced = 0;
    while (produced < n && !finished_) {
      if (z_.avail_in == 0 && !source_eof_) {
        TFHOST_ASSIGN_OR_RETURN(size_t got, source_->Read(reinterpret_cast<char*>(in_.data()), in_.size()));
        if (got == 0) source_eof_ = true;
        z_.next_in = in_.data();
        z_.avail_in = static_cast<uInt>(got);
      }
      z_.next_out = reinterpret_cast<Bytef*>(buf + produced);
      // One byte past the limit is room enough to see that the stream goes on.
      const uint64_t left = max_output_ - total_out_;
      const uint64_t room = left < UINT64_MAX ? left + 1 : left;
      z_.avail_out = static_cast<uInt>(std::min<uint64_t>({n - produced, uint64_t{1} << 30, room}));
      uInt before_out = z_.avail_out;
      int rc = inflate(&z_, Z_NO_FLUSH);
      const uint64_t got = before_out - z_.avail_out;
      if (got > left) {
        produced += left;
        total_out_ = max_output_;
        error_ = ResourceExhausted(Where() + ": the " + FormatName() + " data decompresses to more than " +
                                   std::to_string(max_output_) + " bytes, the most one compressed file may " +
                                   "(--max_decompressed_mb" +
                                   (max_output_ % (1 << 20) == 0 ? "=" + std::to_string(max_output_ >> 20) : "") +
                                   "); a decompression bomb, or raise the limit");
        if (produced > 0) return produced;
        return error_;
      }
      produced += got;
      total_out_ += got;
      if (rc == Z_STREAM_END) {
        TFHOST_RETURN_IF_ERROR(AfterStreamEnd());
        continue;
      }
      if (rc == Z_OK) continue;
      if (rc == Z_BUF_ERROR && z_.avail_in == 0 && !source_eof_) continue;  // needs more input
      if (rc == Z_BUF_ERROR && z_.avail_in == 0 && source_eof_) {
        error_ = DataLoss(Where() + ": truncated " + FormatName() + " stream (the file ends inside it)");
      } else {
        error_ = DataLoss(Where() + ": corrupt " + FormatName() + " data" +
                          (z_.msg ? std::string(" (") + z_.msg + ")" : std::string()));
      }
      // Hand out what was decoded before the corruption first; the error
      // comes with the next call.
      if (produced > 0) return produced;
      return error_;
    }
    return produced;
  }
  std::optional<uint64_t> Size() const override { return std::nullopt; }
  uint64_t RawBytesConsumed() const override { return source_->RawBytesConsumed() - z_.avail_in; }

 private:
  static constexpr size_t kInputChunk = 256 * 1024;

  int WindowBits() const { return format_ == InflateFormat::kGzip ? 15 + 16 : 15; }
  std::string FormatName() const { return format_ == InflateFormat::kGzip ? "gzip" : "zlib"; }
  std::string Where() const {
    return name_ + " (compressed byte offset " + std::to_string(RawBytesConsumed()) + ")";
  }

  // A gzip file may continue with another member; anything else after the
  // end of the stream is garbage.
  Status AfterStreamEnd() {
    if (z_.avail_in == 0 && !source_eof_) {
      TFHOST_ASSIGN_OR_RETURN(size_t got, source_->Read(reinterpret_cast<char*>(in_.data()), in_.size()));
      if (got == 0) source_eof_ = true;
      z_.next_in = in_.data();
      z_.avail_in = static_cast<uInt>(got);
    }
    if (z_.avail_in == 0) {
      finished_ = true;
      return OkStatus();
    }
    if (format_ == InflateFormat::kGzip && z_.next_in[0] == 0x1f) {
      if (inflateReset2(&z_, WindowBits()) != Z_OK) return Internal("zlib inflateReset2 failed");
      return OkStatus();
    }
    error_ = DataLoss(Where() + ": " + std::to_string(z_.avail_in) + "+ bytes of garbage after the end of the " +
                      FormatName() + " stream");
    finished_ = true;
    return error_;
  }

  std::unique_ptr<InputStream> source_;
  InflateFormat format_;
  std::string name_;
  std::vector<Bytef> in_;
  const uint64_t max_output_;
  uint64_t total_out_ = 0;
  z_stream z_;
  bool init_ok_ = false;
  bool source_eof_ = false;
  bool finished_ = false;
  Status error_;
};

}  // namespace

StatusOr<std::unique_ptr<InputStream>> OpenFileStream(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return ErrnoStatus("cannot open", path, errno);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return ErrnoStatus("cannot stat", path, err);
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return InvalidArgument("'" + path + "' is a directory, expected a TFRecord file");
  }
  // Sequential hint: the kernel reads ahead further.
  (void)::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  return std::unique_ptr<InputStream>(std::make_unique<FileStream>(fd, path, static_cast<uint64_t>(st.st_size)));
}

std::unique_ptr<InputStream> MakeStringStream(std::string bytes) {
  return std::make_unique<StringStream>(std::move(bytes));
}

std::unique_ptr<InputStream> MakeInflateStream(std::unique_ptr<InputStream> source, InflateFormat format,
                                               std::string name, uint64_t max_output_bytes) {
  return std::make_unique<InflateStream>(std::move(source), format, std::move(name), max_output_bytes);
}

}  // namespace tfhost::data
