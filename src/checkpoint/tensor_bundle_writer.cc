#include "checkpoint/tensor_bundle_writer.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <memory>

#include <leveldb/env.h>
#include <leveldb/options.h>
#include <leveldb/table_builder.h>

#include "base/crc32c.h"
#include "checkpoint/tensor_bundle_reader.h"
#include "ir/tensor_proto.h"

namespace tfhost::checkpoint {
namespace {

// TensorFlow's table options for bundle indexes (docs/formats.md §3.2).
constexpr size_t kIndexBlockSize = 262144;
constexpr int kIndexRestartInterval = 16;

// A suffix unique to this process and call, so concurrent writers of the same
// prefix never share a temporary file.
std::string TempSuffix() {
  static std::atomic<uint64_t> counter{0};
  uint64_t now = static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  return ".tempstate" + std::to_string(::getpid()) + "_" + std::to_string(now) + "_" +
         std::to_string(counter.fetch_add(1));
}

void PutVarint64(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

Status RenameFile(const std::string& from, const std::string& to) {
  std::error_code ec;
  std::filesystem::rename(from, to, ec);
  if (ec) return Internal("cannot rename " + from + " to " + to + ": " + ec.message());
  return OkStatus();
}

}  // namespace

uint32_t EncodeStringTensorData(const std::string* strings, int64_t n, std::string* out) {
  uint32_t crc = 0;
  for (int64_t i = 0; i < n; ++i) {
    uint64_t len = strings[i].size();
    PutVarint64(out, len);
    // The checksum covers each length as a fixed-width integer, not its varint.
    if (len <= 0xffffffffull) {
      uint32_t l32 = static_cast<uint32_t>(len);
      crc = crc32c::Extend(crc, &l32, 4);
    } else {
      crc = crc32c::Extend(crc, &len, 8);
    }
  }
  uint32_t masked = crc32c::Mask(crc);
  out->append(reinterpret_cast<const char*>(&masked), 4);
  crc = crc32c::Extend(crc, &masked, 4);
  for (int64_t i = 0; i < n; ++i) {
    out->append(strings[i]);
    crc = crc32c::Extend(crc, strings[i].data(), strings[i].size());
  }
  return crc;
}

Status WriteBundleIndex(const std::string& path, const tensorflow::BundleHeaderProto& header,
                        const std::map<std::string, tensorflow::BundleEntryProto>& entries,
                        bool compress) {
  const std::string tmp = path + TempSuffix();
  leveldb::Env* env = leveldb::Env::Default();
  leveldb::WritableFile* raw_file = nullptr;
  leveldb::Status s = env->NewWritableFile(tmp, &raw_file);
  if (!s.ok()) return Internal("cannot create index file " + tmp + ": " + s.ToString());
  std::unique_ptr<leveldb::WritableFile> file(raw_file);

  leveldb::Options options;
  options.block_size = kIndexBlockSize;
  options.block_restart_interval = kIndexRestartInterval;
  options.compression = compress ? leveldb::kSnappyCompression : leveldb::kNoCompression;
  {
    leveldb::TableBuilder builder(options, file.get());
    // The header's key "" sorts before every tensor key; std::map keeps the
    // rest in the bytewise order the table requires.
    builder.Add("", header.SerializeAsString());
    for (const auto& [key, entry] : entries) builder.Add(key, entry.SerializeAsString());
    s = builder.Finish();
  }
  if (s.ok()) s = file->Sync();
  leveldb::Status close = file->Close();
  if (s.ok()) s = close;
  if (!s.ok()) {
    std::error_code ec;
    std::filesystem::remove(tmp, ec);
    return Internal("writing index file " + tmp + ": " + s.ToString());
  }
  Status renamed = RenameFile(tmp, path);
  if (!renamed.ok()) {
    std::error_code ec;
    std::filesystem::remove(tmp, ec);
  }
  return renamed;
}

TensorBundleWriter::TensorBundleWriter(std::string prefix, TensorBundleWriterOptions options)
    : prefix_(std::move(prefix)), options_(options) {
  data_tmp_ = DataFileName(prefix_, 0, 1) + TempSuffix();
}

TensorBundleWriter::~TensorBundleWriter() {
  if (data_ != nullptr) std::fclose(data_);
  if (!finished_) {
    std::error_code ec;
    std::filesystem::remove(data_tmp_, ec);
  }
}

Status TensorBundleWriter::OpenData() {
  if (data_ != nullptr) return OkStatus();
  // Like TensorFlow's writer, create the prefix's folder (SaveV2 targets a
  // fresh temporary folder).
  std::filesystem::path dir = std::filesystem::path(prefix_).parent_path();
  std::error_code ec;
  if (!dir.empty()) std::filesystem::create_directories(dir, ec);
  if (ec) return Internal("cannot create folder " + dir.string() + " for bundle " + prefix_ + ": " + ec.message());
  data_ = std::fopen(data_tmp_.c_str(), "wb");
  if (data_ == nullptr) {
    return Internal("cannot create data file " + data_tmp_ + ": " + std::strerror(errno));
  }
  return OkStatus();
}

Status TensorBundleWriter::Add(const std::string& key, const Tensor& tensor) {
  if (!status_.ok()) return status_;
  if (finished_) return FailedPrecondition("bundle " + prefix_ + " is already finished");
  if (key.empty()) return InvalidArgument("bundle " + prefix_ + ": tensor keys must not be empty");
  if (entries_.count(key)) {
    return InvalidArgument("bundle " + prefix_ + ": tensor '" + key + "' was added twice");
  }
  if (!tensor.valid()) return InvalidArgument("bundle " + prefix_ + ": tensor '" + key + "' is empty");
  const DType dtype = tensor.dtype();
  if (dtype == DType::kResource || dtype == DType::kVariant || !IsSupportedDType(dtype)) {
    return InvalidArgument("bundle " + prefix_ + ": tensor '" + key + "' has dtype " +
                           DTypeName(dtype) + ", which cannot be saved");
  }
  status_ = OpenData();
  if (!status_.ok()) return status_;

  tensorflow::BundleEntryProto entry;
  entry.set_dtype(static_cast<tensorflow::DataType>(dtype));
  *entry.mutable_shape() = ir::ShapeToProto(tensor.shape());
  entry.set_shard_id(0);
  entry.set_offset(static_cast<int64_t>(data_size_));

  const void* bytes;
  size_t size;
  uint32_t crc;
  std::string encoded;
  if (dtype == DType::kString) {
    crc = EncodeStringTensorData(tensor.strings(), tensor.NumElements(), &encoded);
    bytes = encoded.data();
    size = encoded.size();
  } else {
    bytes = tensor.raw_data();
    size = tensor.ByteSize();
    crc = crc32c::Value(bytes, size);
  }
  if (size > 0 && std::fwrite(bytes, 1, size, data_) != size) {
    status_ = Internal("writing data file " + data_tmp_ + ": " + std::strerror(errno));
    return status_;
  }
  entry.set_size(static_cast<int64_t>(size));
  entry.set_crc32c(crc32c::Mask(crc));
  data_size_ += size;
  entries_.emplace(key, std::move(entry));
  return OkStatus();
}

Status TensorBundleWriter::Finish() {
  if (!status_.ok()) return status_;
  if (finished_) return FailedPrecondition("bundle " + prefix_ + " is already finished");
  // An empty bundle still gets its (empty) data shard, as TensorFlow's does.
  status_ = OpenData();
  if (!status_.ok()) return status_;
  bool flushed = std::fflush(data_) == 0 && ::fsync(::fileno(data_)) == 0;
  bool closed = std::fclose(data_) == 0;
  data_ = nullptr;
  if (!flushed || !closed) {
    status_ = Internal("writing data file " + data_tmp_ + ": " + std::strerror(errno));
    return status_;
  }

  tensorflow::BundleHeaderProto header;
  header.set_num_shards(1);
  header.set_endianness(tensorflow::BundleHeaderProto::LITTLE);
  header.mutable_version()->set_producer(kTensorBundleVersion);
  // The data file is renamed first: an index under its final name then always
  // refers to a complete data file.
  status_ = RenameFile(data_tmp_, DataFileName(prefix_, 0, 1));
  if (!status_.ok()) return status_;
  finished_ = true;
  status_ = WriteBundleIndex(IndexFileName(prefix_), header, entries_, options_.compress_index);
  return status_;
}

}  // namespace tfhost::checkpoint
