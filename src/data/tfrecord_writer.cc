#include "data/tfrecord_writer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/file_util.h"

namespace tfhost::data {
namespace {

Status ErrnoError(const std::string& what, const std::string& path) {
  return Unavailable(what + " '" + path + "': " + std::strerror(errno));
}

std::string DirName(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string BaseName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

}  // namespace

struct TFRecordWriter::Deflater {
  z_stream z;
  bool ok = false;
  ~Deflater() {
    if (ok) deflateEnd(&z);
  }
};

StatusOr<std::unique_ptr<TFRecordWriter>> TFRecordWriter::Create(const std::string& path,
                                                                 const TFRecordWriterOptions& options) {
  if (path.empty() || path.back() == '/') return InvalidArgument("TFRecord output path '" + path + "' names no file");
  if (options.compression_level < 0 || options.compression_level > 9) {
    return InvalidArgument("compression level " + std::to_string(options.compression_level) +
                           " is outside zlib's 0..9");
  }
  TFHOST_RETURN_IF_ERROR(CreateParentDirectories(path));
  std::string dir = DirName(path);
  std::string temp = (dir == "." && path.find('/') == std::string::npos ? std::string() : dir + "/") + "." +
                     BaseName(path) + ".tmp-XXXXXX";
  std::vector<char> templ(temp.begin(), temp.end());
  templ.push_back('\0');
  int fd = ::mkstemp(templ.data());
  if (fd < 0) return ErrnoError("cannot create a temporary file for", path);
  ::fchmod(fd, 0644);  // mkstemp makes 0600; outputs are data files others read
  temp.assign(templ.data());
  auto writer = std::unique_ptr<TFRecordWriter>(new TFRecordWriter(path, temp, fd, options));
  if (options.compression != Compression::kNone) {
    auto d = std::make_unique<Deflater>();
    std::memset(&d->z, 0, sizeof(d->z));
    int window_bits = options.compression == Compression::kGzip ? 15 + 16 : 15;
    if (deflateInit2(&d->z, options.compression_level, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
      return Internal("zlib could not initialise a deflater for '" + path + "'");
    }
    d->ok = true;
    writer->deflater_ = std::move(d);
  }
  return writer;
}

TFRecordWriter::TFRecordWriter(std::string path, std::string temp_path, int fd, const TFRecordWriterOptions& options)
    : path_(std::move(path)), temp_path_(std::move(temp_path)), fd_(fd), options_(options) {
  buffer_.reserve(options_.buffer_bytes + 64);
}

TFRecordWriter::~TFRecordWriter() {
  if (!closed_) Abandon();
}

void TFRecordWriter::Abandon() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  ::unlink(temp_path_.c_str());
  closed_ = true;
}

Status TFRecordWriter::WriteAll(const char* data, size_t n) {
  while (n > 0) {
    ssize_t put = ::write(fd_, data, n);
    if (put < 0) {
      if (errno == EINTR) continue;
      return ErrnoError("writing", temp_path_);
    }
    data += put;
    n -= static_cast<size_t>(put);
  }
  return OkStatus();
}

Status TFRecordWriter::FlushBuffer(bool finish) {
  if (!deflater_) {
    TFHOST_RETURN_IF_ERROR(WriteAll(buffer_.data(), buffer_.size()));
    buffer_.clear();
    return OkStatus();
  }
  z_stream& z = deflater_->z;
  compressed_.resize(256 * 1024);
  // avail_in is 32-bit: feed a huge buffer in pieces.
  size_t fed = 0;
  do {
    size_t piece = std::min<size_t>(buffer_.size() - fed, size_t{1} << 30);
    bool last = fed + piece == buffer_.size();
    z.next_in = reinterpret_cast<Bytef*>(buffer_.data() + fed);
    z.avail_in = static_cast<uInt>(piece);
    fed += piece;
    int flush = finish && last ? Z_FINISH : Z_NO_FLUSH;
    while (true) {
      z.next_out = reinterpret_cast<Bytef*>(compressed_.data());
      z.avail_out = static_cast<uInt>(compressed_.size());
      int rc = deflate(&z, flush);
      if (rc == Z_STREAM_ERROR) return Internal("zlib deflate failed for '" + path_ + "'");
      size_t have = compressed_.size() - z.avail_out;
      TFHOST_RETURN_IF_ERROR(WriteAll(compressed_.data(), have));
      if (flush == Z_FINISH ? rc == Z_STREAM_END : (z.avail_in == 0 && z.avail_out != 0)) break;
    }
  } while (fed < buffer_.size());
  buffer_.clear();
  return OkStatus();
}

Status TFRecordWriter::Write(std::string_view record) {
  if (closed_) return FailedPrecondition("TFRecord writer for '" + path_ + "' is closed");
  if (!error_.ok()) return error_;
  AppendTFRecordFrame(record, &buffer_);
  ++records_;
  framed_bytes_ += record.size() + 16;
  if (buffer_.size() >= options_.buffer_bytes) {
    error_ = FlushBuffer(false);
    return error_;
  }
  return OkStatus();
}

Status TFRecordWriter::Close() {
  if (closed_) return FailedPrecondition("TFRecord writer for '" + path_ + "' is already closed");
  Status s = error_;
  if (s.ok()) s = FlushBuffer(true);
  if (s.ok() && options_.sync && ::fsync(fd_) != 0) s = ErrnoError("fsync of", temp_path_);
  if (s.ok() && ::close(fd_) != 0) s = ErrnoError("closing", temp_path_);
  if (!s.ok()) {
    Abandon();
    return s;
  }
  fd_ = -1;
  if (::rename(temp_path_.c_str(), path_.c_str()) != 0) {
    s = ErrnoError("cannot rename the finished file to", path_);
    Abandon();
    return s;
  }
  closed_ = true;
  if (options_.sync) {
    // The rename is durable only once the directory entry is on disk.
    int dfd = ::open(DirName(path_).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
      (void)::fsync(dfd);
      ::close(dfd);
    }
  }
  return OkStatus();
}

Status WriteTFRecordFile(const std::string& path, const std::vector<std::string>& records,
                         const TFRecordWriterOptions& options) {
  TFHOST_ASSIGN_OR_RETURN(std::unique_ptr<TFRecordWriter> writer, TFRecordWriter::Create(path, options));
  for (const std::string& r : records) TFHOST_RETURN_IF_ERROR(writer->Write(r));
  return writer->Close();
}

}  // namespace tfhost::data
