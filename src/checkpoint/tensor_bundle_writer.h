// Writes TensorFlow V2 checkpoints ("tensor bundles", docs/formats.md §3) that
// TensorFlow and TensorBundleReader can read: one data shard
// `<prefix>.data-00000-of-00001` and the `<prefix>.index` LevelDB table whose
// key "" holds the BundleHeaderProto and every other key a BundleEntryProto.
//
// Files are first written under temporary names beside the final ones and
// renamed by Finish(), so a crash never leaves a half-written bundle under the
// real names.
//
// Thread-safety: none; use one writer from one thread.
#pragma once

#include <cstdio>
#include <map>
#include <string>

#include "base/status.h"
#include "base/tensor.h"
#include "tensorflow/core/protobuf/tensor_bundle.pb.h"

namespace tfhost::checkpoint {

struct TensorBundleWriterOptions {
  // Snappy-compress index blocks (what TensorFlow does); false writes them raw.
  bool compress_index = true;
};

class TensorBundleWriter {
 public:
  explicit TensorBundleWriter(std::string prefix, TensorBundleWriterOptions options = {});
  // Removes the temporary files if Finish() was not reached.
  ~TensorBundleWriter();
  TensorBundleWriter(const TensorBundleWriter&) = delete;
  TensorBundleWriter& operator=(const TensorBundleWriter&) = delete;

  // Appends `tensor` under `key`. Keys must be non-empty and unique; the dtype
  // must be a fixed-size type or DT_STRING. After an error the writer is
  // unusable and Finish() returns that error.
  Status Add(const std::string& key, const Tensor& tensor);

  // Writes the index, then renames both files to their final names.
  Status Finish();

 private:
  Status OpenData();

  std::string prefix_;
  TensorBundleWriterOptions options_;
  std::string data_tmp_, index_tmp_;
  std::FILE* data_ = nullptr;
  uint64_t data_size_ = 0;
  std::map<std::string, tensorflow::BundleEntryProto> entries_;
  Status status_;
  bool finished_ = false;
};

// Encodes a DT_STRING tensor's elements in the layout of docs/formats.md §3.3 and
// returns the unmasked CRC-32C that goes (masked) into the entry's crc32c.
uint32_t EncodeStringTensorData(const std::string* strings, int64_t n, std::string* out);

// Writes `<path>` as a bundle index table holding `header` under "" and the
// entries by key, via a temporary file renamed at the end. Used by the writer
// and by checkpoint merging.
Status WriteBundleIndex(const std::string& path, const tensorflow::BundleHeaderProto& header,
                        const std::map<std::string, tensorflow::BundleEntryProto>& entries,
                        bool compress);

}  // namespace tfhost::checkpoint
