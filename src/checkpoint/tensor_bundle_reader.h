// Reads TensorFlow V2 checkpoints ("tensor bundles", docs/formats.md §3): the
// `<prefix>.index` LevelDB table of BundleEntryProtos and the
// `<prefix>.data-NNNNN-of-MMMMM` shards holding the tensor bytes. SavedModel
// variables (`variables/variables`) are such a bundle.
//
// Files are untrusted: every size, offset, shape and checksum is validated
// before use, and memory allocated for a tensor is bounded by the size of the
// shard file it comes from.
//
// Thread-safety: after Open, all methods may be called concurrently.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/status.h"
#include "base/tensor.h"
#include "tensorflow/core/protobuf/tensor_bundle.pb.h"

namespace tfhost::checkpoint {

// The bundle format version tfhost reads and writes (TF's kTensorBundleVersion).
inline constexpr int kTensorBundleVersion = 1;
// Most shards a header may declare (the file name pattern has five digits).
inline constexpr int kMaxShards = 99999;

// "<prefix>.index".
std::string IndexFileName(const std::string& prefix);
// "<prefix>.data-00003-of-00010".
std::string DataFileName(const std::string& prefix, int shard_id, int num_shards);

class TensorBundleReader {
 public:
  // Opens `<prefix>.index`, checks the header (little-endian, version) and
  // parses every entry. Data shards are opened lazily by Read().
  static StatusOr<std::unique_ptr<TensorBundleReader>> Open(const std::string& prefix);
  ~TensorBundleReader();
  TensorBundleReader(const TensorBundleReader&) = delete;
  TensorBundleReader& operator=(const TensorBundleReader&) = delete;

  const std::string& prefix() const { return prefix_; }
  const tensorflow::BundleHeaderProto& header() const { return header_; }
  // Tensor keys in bytewise order (the header key "" is not included).
  std::vector<std::string> Keys() const;
  bool Contains(const std::string& key) const { return entries_.count(key) != 0; }
  // The entry of `key`; NotFound naming the key and the index file.
  StatusOr<const tensorflow::BundleEntryProto*> Entry(const std::string& key) const;
  // All entries by key.
  const std::map<std::string, tensorflow::BundleEntryProto>& entries() const { return entries_; }

  // Reads the tensor stored under `key`, verifying its checksum. Sliced
  // (partitioned) entries are Unimplemented.
  StatusOr<Tensor> Read(const std::string& key) const;

 private:
  struct Shard;
  explicit TensorBundleReader(std::string prefix);
  // Opens shard `id` on first use; the pointer stays valid for our lifetime.
  StatusOr<Shard*> GetShard(int id) const;

  std::string prefix_;
  std::string index_path_;
  tensorflow::BundleHeaderProto header_;
  std::map<std::string, tensorflow::BundleEntryProto> entries_;
  mutable std::mutex mu_;
  mutable std::vector<std::unique_ptr<Shard>> shards_;  // guarded by mu_
};

// Decodes the DT_STRING element layout of docs/formats.md §3.3 (varint64 lengths,
// masked CRC-32C of the lengths as fixed-width integers, then the bytes) into
// `out`, which must hold `n` strings. Returns the CRC-32C (unmasked) the entry's
// crc32c field is computed from. `where` names the tensor for errors.
StatusOr<uint32_t> DecodeStringTensorData(const std::string& bytes, int64_t n, std::string* out,
                                          const std::string& where);

}  // namespace tfhost::checkpoint
