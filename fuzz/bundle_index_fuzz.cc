// Fuzzes the tensor bundle (V2 checkpoint) reader. The input is the index,
// optionally followed by kSplitMarker and the bytes of a data shard, which
// is written under every shard name the entries refer to (at most a few).
//
// The index comes in one of two forms, chosen by the first byte:
//  - anything but 'E'/'Z': the raw `<prefix>.index` LevelDB table (the
//    fixtures' indexes are seeds). This fuzzes the table structure checks;
//    LevelDB's block checksums stop most mutations there.
//  - 'E' (raw blocks) or 'Z' (Snappy blocks), then records
//    [u8 key length][u16 little-endian value length][key][value]: the harness
//    writes a well-formed table with WriteBundleIndex, the value of key ""
//    being the BundleHeaderProto (default: one little-endian shard) and the
//    others BundleEntryProtos. Entries whose bytes lie in the shard get their
//    crc32c fixed up for fixed-size dtypes, so Read()'s validation of dtypes,
//    shapes, offsets and sizes, and its reading, are reached by mutation.
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "base/crc32c.h"
#include "base/dtype.h"
#include "checkpoint/tensor_bundle_reader.h"
#include "checkpoint/tensor_bundle_writer.h"
#include "fuzz/fuzz_file_util.h"

namespace {

namespace checkpoint = tfhost::checkpoint;
namespace fuzz = tfhost::fuzz;

constexpr int kMaxShardFilesWritten = 4;

// Builds the index of a structured input; false if the writer refused it.
bool WriteStructuredIndex(std::string_view records, bool compress, std::string_view shard,
                          const std::string& path) {
  tensorflow::BundleHeaderProto header;
  header.set_num_shards(1);
  header.set_endianness(tensorflow::BundleHeaderProto::LITTLE);
  header.mutable_version()->set_producer(checkpoint::kTensorBundleVersion);
  std::map<std::string, tensorflow::BundleEntryProto> entries;
  while (records.size() >= 3) {
    const size_t key_len = static_cast<uint8_t>(records[0]);
    const size_t value_len = static_cast<uint8_t>(records[1]) | (static_cast<uint8_t>(records[2]) << 8);
    records.remove_prefix(3);
    if (records.size() < key_len + value_len) break;
    const std::string key(records.substr(0, key_len));
    const std::string_view value = records.substr(key_len, value_len);
    records.remove_prefix(key_len + value_len);
    if (key.empty()) {
      header.Clear();
      if (!header.ParseFromArray(value.data(), static_cast<int>(value.size()))) return false;
      continue;
    }
    tensorflow::BundleEntryProto entry;
    if (!entry.ParseFromArray(value.data(), static_cast<int>(value.size()))) continue;
    const tfhost::DType dtype = tfhost::BaseType(static_cast<int>(entry.dtype()));
    if (!tfhost::IsStringLike(dtype) && entry.offset() >= 0 && entry.size() >= 0 &&
        static_cast<uint64_t>(entry.offset()) <= shard.size() &&
        static_cast<uint64_t>(entry.size()) <= shard.size() - entry.offset()) {
      const std::string_view bytes = shard.substr(entry.offset(), entry.size());
      entry.set_crc32c(tfhost::crc32c::Mask(tfhost::crc32c::Value(bytes.data(), bytes.size())));
    }
    entries[key] = std::move(entry);
  }
  return checkpoint::WriteBundleIndex(path, header, entries, compress).ok();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const fuzz::SplitInput input = fuzz::Split(data, size);
  const std::string prefix = fuzz::ScratchDir() + "/v";
  const std::string index_path = checkpoint::IndexFileName(prefix);
  fuzz::ClearScratchDir();
  if (!input.primary.empty() && (input.primary[0] == 'E' || input.primary[0] == 'Z')) {
    if (!WriteStructuredIndex(input.primary.substr(1), input.primary[0] == 'Z', input.companion, index_path)) {
      return 0;
    }
  } else {
    fuzz::WriteFileOrDie(index_path, input.primary);
  }

  auto reader = checkpoint::TensorBundleReader::Open(prefix);
  if (reader.ok()) {
    const auto& bundle = **reader;
    const int num_shards = bundle.header().num_shards();
    if (input.has_companion) {
      std::set<int> shard_ids;
      for (const auto& [key, entry] : bundle.entries()) {
        if (entry.shard_id() >= 0 && entry.shard_id() < num_shards) shard_ids.insert(entry.shard_id());
        if (shard_ids.size() >= kMaxShardFilesWritten) break;
      }
      for (int id : shard_ids) {
        fuzz::WriteFileOrDie(checkpoint::DataFileName(prefix, id, num_shards), input.companion);
      }
    }
    for (const std::string& key : bundle.Keys()) {
      if (!bundle.Contains(key) || !bundle.Entry(key).ok()) __builtin_trap();  // Keys() disagrees with entries
      (void)bundle.Read(key);
    }
    (void)bundle.Entry("no such key");
  }

  // The string layout decoder on its own, with the element count taken from
  // the companion's first byte (its length checksum gates the deeper paths,
  // so this mostly exercises the varint and bounds checks).
  if (!input.companion.empty()) {
    const int64_t n = static_cast<uint8_t>(input.companion[0]) % 16;
    std::string bytes(input.companion.substr(1));
    std::string strings[16];
    (void)checkpoint::DecodeStringTensorData(bytes, n, strings, "fuzz input");
  }
  return 0;
}
