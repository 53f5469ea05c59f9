#include "checkpoint/tensor_bundle_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <new>

#include <leveldb/env.h>
#include <leveldb/iterator.h>
#include <leveldb/options.h>
#include <leveldb/table.h>

#include "base/crc32c.h"
#include "checkpoint/sstable_check.h"

namespace tfhost::checkpoint {
namespace {

// An index file larger than this is refused rather than read into memory;
// real indexes hold one small proto per tensor.
constexpr uint64_t kMaxIndexFileBytes = uint64_t{1} << 30;

std::string Hex32(uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof(buf), "0x%08x", v);
  return buf;
}

// Serves the already-validated index file bytes to LevelDB's table reader.
class MemoryFile : public leveldb::RandomAccessFile {
 public:
  explicit MemoryFile(const std::string* contents) : contents_(contents) {}
  leveldb::Status Read(uint64_t offset, size_t n, leveldb::Slice* result,
                       char* scratch) const override {
    if (offset > contents_->size()) {
      *result = leveldb::Slice();
      return leveldb::Status::Corruption("read past the end of the index file");
    }
    size_t avail = contents_->size() - offset;
    *result = leveldb::Slice(contents_->data() + offset, n < avail ? n : avail);
    return leveldb::Status::OK();
  }

 private:
  const std::string* contents_;
};

StatusOr<std::string> ReadWholeFile(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return NotFound("index file " + path + " does not exist");
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("index file " + path + " cannot be opened: " + std::strerror(errno));
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  if (size < 0) return DataLoss("index file " + path + " cannot be sized");
  if (static_cast<uint64_t>(size) > kMaxIndexFileBytes) {
    return ResourceExhausted("index file " + path + " is " + std::to_string(size) +
                             " bytes; refusing index files over " +
                             std::to_string(kMaxIndexFileBytes));
  }
  std::string data(static_cast<size_t>(size), '\0');
  in.seekg(0);
  in.read(data.data(), size);
  if (in.gcount() != size) return DataLoss("index file " + path + ": short read");
  return data;
}

// Whether element bytes can be copied verbatim for this dtype.
bool IsFixedSize(DType dtype) { return !IsStringLike(dtype) && DTypeSize(dtype) != 0; }

}  // namespace

struct TensorBundleReader::Shard {
  std::string path;
  int fd = -1;
  uint64_t size = 0;
  ~Shard() {
    if (fd >= 0) ::close(fd);
  }
  // Reads exactly n bytes at offset (bounds checked by the caller).
  Status ReadAt(uint64_t offset, size_t n, char* out) const {
    while (n > 0) {
      ssize_t got = ::pread(fd, out, n, static_cast<off_t>(offset));
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        return DataLoss("data file " + path + ": read failed at offset " + std::to_string(offset) +
                        (got < 0 ? std::string(": ") + std::strerror(errno) : " (end of file)"));
      }
      out += got;
      offset += static_cast<uint64_t>(got);
      n -= static_cast<size_t>(got);
    }
    return OkStatus();
  }
};

std::string IndexFileName(const std::string& prefix) { return prefix + ".index"; }

std::string DataFileName(const std::string& prefix, int shard_id, int num_shards) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), ".data-%05d-of-%05d", shard_id, num_shards);
  return prefix + buf;
}

TensorBundleReader::TensorBundleReader(std::string prefix)
    : prefix_(std::move(prefix)), index_path_(IndexFileName(prefix_)) {}

TensorBundleReader::~TensorBundleReader() = default;

StatusOr<std::unique_ptr<TensorBundleReader>> TensorBundleReader::Open(const std::string& prefix) {
  std::unique_ptr<TensorBundleReader> reader(new TensorBundleReader(prefix));
  const std::string& path = reader->index_path_;
  TFHOST_ASSIGN_OR_RETURN(std::string contents, ReadWholeFile(path));
  TFHOST_RETURN_IF_ERROR(CheckSSTableStructure(contents, path));

  bool have_header = false;
  try {
    MemoryFile file(&contents);
    leveldb::Options options;  // bytewise comparator, as TensorFlow writes
    options.paranoid_checks = true;  // also verifies the index block checksum
    leveldb::Table* raw_table = nullptr;
    leveldb::Status s = leveldb::Table::Open(options, &file, contents.size(), &raw_table);
    if (!s.ok()) return DataLoss("index file " + path + " is not a valid table: " + s.ToString());
    std::unique_ptr<leveldb::Table> table(raw_table);
    leveldb::ReadOptions read_options;
    read_options.verify_checksums = true;
    read_options.fill_cache = false;
    std::unique_ptr<leveldb::Iterator> it(table->NewIterator(read_options));
    for (it->SeekToFirst(); it->Valid(); it->Next()) {
      std::string key = it->key().ToString();
      leveldb::Slice value = it->value();
      if (key.empty()) {
        if (!reader->header_.ParseFromArray(value.data(), static_cast<int>(value.size()))) {
          return DataLoss("index file " + path + ": the header (key \"\") is not a valid BundleHeaderProto");
        }
        have_header = true;
        continue;
      }
      tensorflow::BundleEntryProto entry;
      if (!entry.ParseFromArray(value.data(), static_cast<int>(value.size()))) {
        return DataLoss("index file " + path + ": the entry of tensor '" + key +
                        "' is not a valid BundleEntryProto");
      }
      reader->entries_.emplace(std::move(key), std::move(entry));
    }
    if (!it->status().ok()) {
      return DataLoss("index file " + path + " is corrupt: " + it->status().ToString());
    }
  } catch (const std::bad_alloc&) {
    return DataLoss("index file " + path + " is corrupt: a block size is implausibly large");
  } catch (const std::exception& e) {
    return DataLoss("index file " + path + ": " + e.what());
  }

  const auto& header = reader->header_;
  if (!have_header) return DataLoss("index file " + path + " has no header entry (key \"\")");
  if (header.endianness() != tensorflow::BundleHeaderProto::LITTLE) {
    return Unimplemented("index file " + path +
                         " describes a big-endian bundle; only little-endian bundles are supported");
  }
  const auto& version = header.version();
  if (version.min_consumer() > kTensorBundleVersion) {
    return FailedPrecondition("index file " + path + " needs a reader of version >= " +
                              std::to_string(version.min_consumer()) + "; tfhost reads version " +
                              std::to_string(kTensorBundleVersion));
  }
  for (int bad : version.bad_consumers()) {
    if (bad == kTensorBundleVersion) {
      return FailedPrecondition("index file " + path + " disallows readers of version " +
                                std::to_string(kTensorBundleVersion));
    }
  }
  if (header.num_shards() < 1 || header.num_shards() > kMaxShards) {
    // TF writes num_shards >= 1 even for empty bundles; tolerate 0 only then.
    if (!(header.num_shards() == 0 && reader->entries_.empty())) {
      return DataLoss("index file " + path + ": header num_shards " +
                      std::to_string(header.num_shards()) + " is outside [1, " +
                      std::to_string(kMaxShards) + "]");
    }
  }
  reader->shards_.resize(std::max(header.num_shards(), 0));
  return reader;
}

std::vector<std::string> TensorBundleReader::Keys() const {
  std::vector<std::string> keys;
  keys.reserve(entries_.size());
  for (const auto& [k, v] : entries_) keys.push_back(k);
  return keys;
}

StatusOr<const tensorflow::BundleEntryProto*> TensorBundleReader::Entry(const std::string& key) const {
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    return NotFound("tensor '" + key + "' is not in checkpoint " + index_path_);
  }
  return &it->second;
}

StatusOr<TensorBundleReader::Shard*> TensorBundleReader::GetShard(int id) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (shards_[id]) return shards_[id].get();
  auto shard = std::make_unique<Shard>();
  shard->path = DataFileName(prefix_, id, static_cast<int>(shards_.size()));
  shard->fd = ::open(shard->path.c_str(), O_RDONLY | O_CLOEXEC);
  if (shard->fd < 0) {
    int err = errno;
    std::string what = "data file " + shard->path + " is missing (shard " + std::to_string(id) +
                       " of " + std::to_string(shards_.size()) + ")";
    if (err != ENOENT) what = "data file " + shard->path + " cannot be opened: " + std::strerror(err);
    return NotFound(what);
  }
  struct stat st;
  if (::fstat(shard->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    return DataLoss("data file " + shard->path + " is not a regular file");
  }
  shard->size = static_cast<uint64_t>(st.st_size);
  shards_[id] = std::move(shard);
  return shards_[id].get();
}

StatusOr<uint32_t> DecodeStringTensorData(const std::string& bytes, int64_t n, std::string* out,
                                          const std::string& where) {
  const char* p = bytes.data();
  const char* end = p + bytes.size();
  // Every element needs at least one length byte, so n is bounded by the data.
  if (n < 0 || static_cast<uint64_t>(n) > bytes.size()) {
    return DataLoss(where + ": " + std::to_string(n) + " strings cannot fit in " +
                    std::to_string(bytes.size()) + " bytes");
  }
  std::vector<uint64_t> lengths(static_cast<size_t>(n));
  uint32_t crc = 0;
  uint64_t total = 0;
  for (int64_t i = 0; i < n; ++i) {
    uint64_t len = 0;
    int shift = 0;
    bool done = false;
    while (p < end && shift < 64) {
      uint8_t b = static_cast<uint8_t>(*p++);
      len |= static_cast<uint64_t>(b & 0x7f) << shift;
      shift += 7;
      if ((b & 0x80) == 0) {
        done = true;
        break;
      }
    }
    if (!done) return DataLoss(where + ": malformed length of string element " + std::to_string(i));
    lengths[i] = len;
    // The length checksum covers fixed-width little-endian lengths, not the varints.
    if (len <= 0xffffffffull) {
      uint32_t l32 = static_cast<uint32_t>(len);
      crc = crc32c::Extend(crc, &l32, 4);
    } else {
      crc = crc32c::Extend(crc, &len, 8);
    }
    if (len > bytes.size() || total + len > bytes.size()) {
      return DataLoss(where + ": string lengths add up to more than the " +
                      std::to_string(bytes.size()) + " bytes stored");
    }
    total += len;
  }
  if (end - p < 4) return DataLoss(where + ": string data is missing its length checksum");
  uint32_t stored_masked;
  std::memcpy(&stored_masked, p, 4);
  if (crc32c::Unmask(stored_masked) != crc) {
    return DataLoss(where + ": string length checksum mismatch: stored " + Hex32(stored_masked) +
                    " computed " + Hex32(crc32c::Mask(crc)));
  }
  crc = crc32c::Extend(crc, p, 4);
  p += 4;
  if (static_cast<uint64_t>(end - p) != total) {
    return DataLoss(where + ": expected " + std::to_string(total) + " string bytes after the lengths, found " +
                    std::to_string(end - p));
  }
  for (int64_t i = 0; i < n; ++i) {
    out[i].assign(p, lengths[i]);
    crc = crc32c::Extend(crc, p, lengths[i]);
    p += lengths[i];
  }
  return crc;
}

StatusOr<Tensor> TensorBundleReader::Read(const std::string& key) const {
  TFHOST_ASSIGN_OR_RETURN(const tensorflow::BundleEntryProto* entry, Entry(key));
  const std::string where = "tensor '" + key + "' in " + index_path_;
  if (entry->slices_size() > 0) {
    return Unimplemented("tensor '" + key + "' is sliced (partitioned); not supported (" + index_path_ + ")");
  }
  DType dtype = BaseType(static_cast<int>(entry->dtype()));
  if (dtype == DType::kResource || dtype == DType::kVariant || !IsSupportedDType(dtype)) {
    return Unimplemented(where + " has dtype " + DTypeName(dtype) + ", which tfhost cannot read");
  }
  const auto& shape_proto = entry->shape();
  if (shape_proto.unknown_rank()) return DataLoss(where + " has a shape of unknown rank");
  std::vector<int64_t> dims;
  for (const auto& d : shape_proto.dim()) dims.push_back(d.size());
  TFHOST_ASSIGN_OR_RETURN(Shape shape, MakeShape(dims, where));
  const int64_t num_elements = shape.num_elements();

  const int num_shards = static_cast<int>(shards_.size());
  if (entry->shard_id() < 0 || entry->shard_id() >= num_shards) {
    return DataLoss(where + " names shard " + std::to_string(entry->shard_id()) + " but the bundle has " +
                    std::to_string(num_shards));
  }
  if (entry->offset() < 0 || entry->size() < 0) {
    return DataLoss(where + " has a negative offset or size");
  }
  const uint64_t offset = static_cast<uint64_t>(entry->offset());
  const uint64_t size = static_cast<uint64_t>(entry->size());
  if (IsFixedSize(dtype)) {
    // Checked before anything is allocated: a shape claiming 2^40 elements
    // must be matched by that many bytes in the entry and in the file.
    const uint64_t elem = DTypeSize(dtype);
    if (static_cast<uint64_t>(num_elements) > size / elem ||
        static_cast<uint64_t>(num_elements) * elem != size) {
      return DataLoss(where + ": size " + std::to_string(size) + " does not match shape " +
                      shape.ToString() + " of " + DTypeShortName(dtype) + " (expected " +
                      std::to_string(static_cast<uint64_t>(num_elements) * elem) + " bytes)");
    }
  } else if (static_cast<uint64_t>(num_elements) > size) {
    return DataLoss(where + ": " + std::to_string(num_elements) + " strings cannot fit in " +
                    std::to_string(size) + " bytes");
  }

  TFHOST_ASSIGN_OR_RETURN(Shard * shard, GetShard(entry->shard_id()));
  if (offset > shard->size || size > shard->size - offset) {
    return DataLoss("tensor '" + key + "' in " + shard->path + ": bytes [" + std::to_string(offset) +
                    ", " + std::to_string(offset + size) + ") lie outside the file of " +
                    std::to_string(shard->size) + " bytes");
  }
  const uint32_t stored = entry->crc32c();
  auto crc_error = [&](uint32_t computed) {
    return DataLoss("CRC mismatch for tensor '" + key + "' in " + shard->path + ": stored " +
                    Hex32(stored) + " computed " + Hex32(crc32c::Mask(computed)) + " (masked)");
  };

  // Fixed-size elements are read over in full, so they are not zeroed first:
  // for a model's weights that was a second pass over every byte.
  Tensor tensor = IsFixedSize(dtype) ? Tensor::Uninitialized(dtype, shape) : Tensor(dtype, shape);
  if (IsFixedSize(dtype)) {
    TFHOST_RETURN_IF_ERROR(shard->ReadAt(offset, size, static_cast<char*>(tensor.raw_data())));
    uint32_t computed = crc32c::Value(tensor.raw_data(), size);
    if (crc32c::Mask(computed) != stored) return crc_error(computed);
    if (dtype == DType::kBool) {
      // A stored byte other than 0/1 would be an invalid bool in C++.
      auto* b = static_cast<uint8_t*>(tensor.raw_data());
      for (int64_t i = 0; i < num_elements; ++i) b[i] = b[i] != 0;
    }
    return tensor;
  }
  std::string bytes(size, '\0');
  TFHOST_RETURN_IF_ERROR(shard->ReadAt(offset, size, bytes.data()));
  // A damaged length is caught by the length checksum inside the layout; the
  // entry checksum then covers the lengths, that checksum and the bytes.
  auto decoded = DecodeStringTensorData(bytes, num_elements, tensor.strings(),
                                        "tensor '" + key + "' in " + shard->path);
  if (!decoded.ok()) return decoded.status();
  if (crc32c::Mask(*decoded) != stored) return crc_error(*decoded);
  return tensor;
}

}  // namespace tfhost::checkpoint
