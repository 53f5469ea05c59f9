#include "data/image_folder.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "base/file_util.h"
#include "data/convert.h"
#include "data/example.h"
#include "data/tfrecord_writer.h"

namespace tfhost::data {
namespace {

uint32_t Be16(std::string_view b, size_t at) {
  return (static_cast<uint32_t>(static_cast<uint8_t>(b[at])) << 8) | static_cast<uint8_t>(b[at + 1]);
}
uint32_t Be32(std::string_view b, size_t at) { return (Be16(b, at) << 16) | Be16(b, at + 2); }
uint32_t Le16(std::string_view b, size_t at) {
  return static_cast<uint8_t>(b[at]) | (static_cast<uint32_t>(static_cast<uint8_t>(b[at + 1])) << 8);
}
uint32_t Le24(std::string_view b, size_t at) {
  return Le16(b, at) | (static_cast<uint32_t>(static_cast<uint8_t>(b[at + 2])) << 16);
}
uint32_t Le32(std::string_view b, size_t at) { return Le16(b, at) | (Le16(b, at + 2) << 16); }

void SetDims(ImageInfo* info, int64_t width, int64_t height) {
  if (width > 0 && height > 0) {
    info->width = width;
    info->height = height;
  }
}

// Walks JPEG markers up to the first start-of-frame (which carries the
// dimensions) or the start of scan.
void JpegDims(std::string_view b, ImageInfo* info) {
  size_t at = 2;
  while (at + 4 <= b.size()) {
    if (static_cast<uint8_t>(b[at]) != 0xFF) return;
    uint8_t marker = static_cast<uint8_t>(b[at + 1]);
    if (marker == 0xFF) {  // fill byte
      ++at;
      continue;
    }
    if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) {  // no length
      at += 2;
      continue;
    }
    if (marker == 0xDA || marker == 0xD9) return;  // scan data / end: no frame header seen
    uint32_t len = Be16(b, at + 2);
    if (len < 2) return;
    bool sof = marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC;
    if (sof) {
      if (at + 9 > b.size() || len < 7) return;
      SetDims(info, Be16(b, at + 7), Be16(b, at + 5));
      return;
    }
    at += 2 + len;
  }
}

void WebpDims(std::string_view b, ImageInfo* info) {
  if (b.size() < 30) return;
  std::string_view chunk = b.substr(12, 4);
  if (chunk == "VP8X") {
    SetDims(info, int64_t{Le24(b, 24)} + 1, int64_t{Le24(b, 27)} + 1);
  } else if (chunk == "VP8L") {
    if (static_cast<uint8_t>(b[20]) != 0x2f) return;
    uint32_t bits = Le32(b, 21);
    SetDims(info, int64_t{bits & 0x3fff} + 1, int64_t{(bits >> 14) & 0x3fff} + 1);
  } else if (chunk == "VP8 ") {
    if (static_cast<uint8_t>(b[23]) != 0x9d || static_cast<uint8_t>(b[24]) != 0x01 ||
        static_cast<uint8_t>(b[25]) != 0x2a) {
      return;
    }
    SetDims(info, Le16(b, 26) & 0x3fff, Le16(b, 28) & 0x3fff);
  }
}

bool Hidden(const std::string& name) { return name.empty() || name[0] == '.'; }

// Sorted names of the entries of `dir` (hidden ones left out).
StatusOr<std::vector<std::string>> ListNames(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (!d) return NotFound("cannot open directory '" + dir + "': " + std::strerror(errno));
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (!Hidden(n)) names.push_back(std::move(n));
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

StatusOr<std::string> ReadImageFile(const std::string& path, uint64_t limit) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Unavailable("cannot open '" + path + "': " + std::strerror(errno));
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    ::close(fd);
    return Unavailable("cannot stat '" + path + "'");
  }
  if (static_cast<uint64_t>(st.st_size) > limit) {
    ::close(fd);
    return ResourceExhausted("'" + path + "' is " + std::to_string(st.st_size) + " bytes, more than the limit of " +
                             std::to_string(limit) + " per image");
  }
  std::string bytes(static_cast<size_t>(st.st_size), '\0');
  size_t got = 0;
  while (got < bytes.size()) {
    ssize_t n = ::read(fd, bytes.data() + got, bytes.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  ::close(fd);
  if (got != bytes.size()) return Unavailable("short read of '" + path + "' (changed while reading?)");
  return bytes;
}

// One plain path component: not empty, no '/', not "." or "..", no NUL.
bool PlainComponent(const std::string& s) {
  return !s.empty() && s != "." && s != ".." && s.find('/') == std::string::npos &&
         s.find('\0') == std::string::npos && s.size() <= 255;
}

Status WriteFileAtomically(const std::string& path, std::string_view bytes) {
  size_t slash = path.rfind('/');
  std::string temp = path.substr(0, slash + 1) + "." + path.substr(slash + 1) + ".tmp-XXXXXX";
  int fd = ::mkstemp(temp.data());
  if (fd < 0) return Unavailable("cannot create a temporary file for '" + path + "': " + std::strerror(errno));
  ::fchmod(fd, 0644);
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  bool ok = done == bytes.size() && ::fsync(fd) == 0;
  ok = ::close(fd) == 0 && ok;
  if (!ok || ::rename(temp.c_str(), path.c_str()) != 0) {
    ::unlink(temp.c_str());
    return Unavailable("writing '" + path + "' failed: " + std::strerror(errno));
  }
  return OkStatus();
}

const Feature* Find(const Example& ex, const char* name, FeatureKind kind) {
  auto it = ex.features.find(name);
  if (it == ex.features.end() || it->second.kind != kind || it->second.size() != 1) return nullptr;
  return &it->second;
}

}  // namespace

ImageInfo SniffImage(std::string_view b) {
  ImageInfo info;
  auto starts = [&](std::string_view magic) { return b.size() >= magic.size() && b.substr(0, magic.size()) == magic; };
  if (starts("\xFF\xD8\xFF")) {
    info.format = "jpeg";
    JpegDims(b, &info);
  } else if (starts("\x89PNG\r\n\x1a\n")) {
    info.format = "png";
    if (b.size() >= 24 && b.substr(12, 4) == "IHDR") SetDims(&info, Be32(b, 16), Be32(b, 20));
  } else if (starts("GIF87a") || starts("GIF89a")) {
    info.format = "gif";
    if (b.size() >= 10) SetDims(&info, Le16(b, 6), Le16(b, 8));
  } else if (starts("BM") && b.size() >= 26) {
    uint32_t header = Le32(b, 14);
    if (header == 12) {
      info.format = "bmp";
      SetDims(&info, Le16(b, 18), Le16(b, 20));
    } else if (header >= 40 && header <= 124) {
      info.format = "bmp";
      int32_t w = static_cast<int32_t>(Le32(b, 18));
      int32_t h = static_cast<int32_t>(Le32(b, 22));
      // A negative height means rows stored top-down.
      SetDims(&info, w, h == INT32_MIN ? 0 : (h < 0 ? -int64_t{h} : h));
    }
  } else if (b.size() >= 16 && starts("RIFF") && b.substr(8, 4) == "WEBP") {
    info.format = "webp";
    WebpDims(b, &info);
  }
  return info;
}

bool IsDirectory(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

StatusOr<ImageFolderStats> ImageFolderToTFRecords(const std::string& root, const std::string& prefix,
                                                  const ImageFolderOptions& options) {
  if (options.shards < 1 || options.shards > 100000) {
    return InvalidArgument("--shards must be between 1 and 100000, got " + std::to_string(options.shards));
  }
  ImageFolderStats stats;
  TFHOST_ASSIGN_OR_RETURN(std::vector<std::string> names, ListNames(root));
  std::string base = root.back() == '/' ? root : root + "/";
  for (const std::string& n : names) {
    if (IsDirectory(base + n)) {
      stats.classes.push_back(n);
    } else {
      stats.skipped.push_back(base + n);
    }
  }
  if (stats.classes.empty()) {
    return InvalidArgument("'" + root + "' has no class subfolders (expected one folder of images per class)");
  }
  TFRecordWriterOptions wo;
  wo.compression = options.compression;
  std::vector<std::unique_ptr<TFRecordWriter>> writers;
  for (int i = 0; i < options.shards; ++i) {
    std::string name = ShardName(prefix, i, options.shards, options.compression);
    TFHOST_ASSIGN_OR_RETURN(auto w, TFRecordWriter::Create(name, wo));
    writers.push_back(std::move(w));
    stats.outputs.push_back(name);
  }
  for (size_t label = 0; label < stats.classes.size(); ++label) {
    const std::string& cls = stats.classes[label];
    std::string dir = base + cls;
    TFHOST_ASSIGN_OR_RETURN(std::vector<std::string> files, ListNames(dir));
    for (const std::string& file : files) {
      std::string path = dir + "/" + file;
      if (IsDirectory(path)) {
        stats.skipped.push_back(path);
        continue;
      }
      TFHOST_ASSIGN_OR_RETURN(std::string bytes, ReadImageFile(path, options.max_image_bytes));
      ImageInfo info = SniffImage(bytes);
      if (info.format.empty()) {
        stats.skipped.push_back(path);
        continue;
      }
      Example ex;
      ex.features["image/format"] = Feature::Bytes({info.format});
      ex.features["image/class/label"] = Feature::Int64s({static_cast<int64_t>(label)});
      ex.features["image/class/text"] = Feature::Bytes({cls});
      ex.features["image/filename"] = Feature::Bytes({file});
      if (info.height) ex.features["image/height"] = Feature::Int64s({*info.height});
      if (info.width) ex.features["image/width"] = Feature::Int64s({*info.width});
      ex.features["image/encoded"] = Feature::Bytes({std::move(bytes)});
      TFHOST_RETURN_IF_ERROR(writers[stats.records % options.shards]->Write(EncodeExample(ex)));
      ++stats.records;
    }
  }
  for (auto& w : writers) TFHOST_RETURN_IF_ERROR(w->Close());
  return stats;
}

StatusOr<int64_t> TFRecordsToImageFolder(const std::vector<std::string>& inputs, const std::string& out_dir,
                                         const TFRecordReaderOptions& reader_options) {
  TFHOST_RETURN_IF_ERROR(CreateDirectories(out_dir));
  std::string base = out_dir.back() == '/' ? out_dir : out_dir + "/";
  int64_t written = 0;
  for (const std::string& input : inputs) {
    TFHOST_ASSIGN_OR_RETURN(auto reader, TFRecordReader::Open(input, reader_options));
    std::string_view record;
    while (true) {
      TFHOST_ASSIGN_OR_RETURN(bool got, reader->ReadView(&record));
      if (!got) break;
      int64_t index = reader->records_read() - 1;
      std::string where = input + " record " + std::to_string(index);
      TFHOST_ASSIGN_OR_RETURN(Example ex, DecodeExample(record, index));
      const Feature* encoded = Find(ex, "image/encoded", FeatureKind::kBytes);
      const Feature* cls = Find(ex, "image/class/text", FeatureKind::kBytes);
      if (!encoded || !cls) {
        return InvalidArgument(where + ": needs one image/encoded and one image/class/text bytes value");
      }
      std::string file;
      if (const Feature* f = Find(ex, "image/filename", FeatureKind::kBytes)) {
        file = f->bytes[0];
      } else {
        const Feature* fmt = Find(ex, "image/format", FeatureKind::kBytes);
        std::string ext = fmt ? fmt->bytes[0] : SniffImage(encoded->bytes[0]).format;
        file = std::to_string(written) + "." + (PlainComponent(ext) ? ext : "img");
      }
      if (!PlainComponent(cls->bytes[0])) {
        return InvalidArgument(where + ": image/class/text is not a plain folder name");
      }
      if (!PlainComponent(file)) return InvalidArgument(where + ": image/filename is not a plain file name");
      std::string dir = base + cls->bytes[0];
      if (::mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
        return Unavailable("cannot create '" + dir + "': " + std::strerror(errno));
      }
      TFHOST_RETURN_IF_ERROR(WriteFileAtomically(dir + "/" + file, encoded->bytes[0]));
      ++written;
    }
  }
  return written;
}

}  // namespace tfhost::data
