#include "checkpoint/sstable_check.h"

#include <cstdint>
#include <cstring>
#include <utility>

#include "base/crc32c.h"

namespace tfhost::checkpoint {
namespace {

constexpr size_t kFooterSize = 48;
constexpr size_t kTrailerSize = 5;  // compression type + masked crc
constexpr uint64_t kTableMagic = 0xdb4775248b80fb57ull;

uint32_t DecodeFixed32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

// Reads a varint of at most `max_bytes` bytes from [*p, end); false when it
// runs off the end or is too long.
bool GetVarint(const char** p, const char* end, int max_bytes, uint64_t* out) {
  uint64_t result = 0;
  for (int i = 0; i < max_bytes && *p < end; ++i) {
    uint8_t byte = static_cast<uint8_t>(*(*p)++);
    result |= static_cast<uint64_t>(byte & 0x7f) << (7 * i);
    if ((byte & 0x80) == 0) {
      *out = result;
      return true;
    }
  }
  return false;
}

struct Handle {
  uint64_t offset = 0;
  uint64_t size = 0;
};

bool GetHandle(const char** p, const char* end, Handle* h) {
  return GetVarint(p, end, 10, &h->offset) && GetVarint(p, end, 10, &h->size);
}

// Whether a block plus its trailer fits in [0, limit).
bool HandleFits(const Handle& h, uint64_t limit) {
  return h.size <= limit && h.offset <= limit - h.size && limit - h.size - h.offset >= kTrailerSize;
}

std::string Describe(const Handle& h) {
  return "offset " + std::to_string(h.offset) + " size " + std::to_string(h.size);
}

}  // namespace

StatusOr<std::string> SnappyUncompress(std::string_view in, size_t max_output) {
  const char* p = in.data();
  const char* end = p + in.size();
  uint64_t length = 0;
  if (!GetVarint(&p, end, 5, &length) || length > 0xffffffffull) {
    return DataLoss("snappy block has a malformed length preamble");
  }
  if (length > max_output) {
    return DataLoss("snappy block declares " + std::to_string(length) +
                    " uncompressed bytes, more than the " + std::to_string(max_output) +
                    " its size allows");
  }
  std::string out;
  out.reserve(length);
  while (p < end) {
    uint8_t tag = static_cast<uint8_t>(*p++);
    uint64_t len = 0, offset = 0;
    switch (tag & 3) {
      case 0: {  // literal
        len = tag >> 2;
        if (len >= 60) {
          int extra = static_cast<int>(len) - 59;
          if (end - p < extra) return DataLoss("snappy literal length runs past the input");
          len = 0;
          for (int i = 0; i < extra; ++i) len |= static_cast<uint64_t>(static_cast<uint8_t>(p[i])) << (8 * i);
          p += extra;
        }
        len += 1;
        if (static_cast<uint64_t>(end - p) < len) return DataLoss("snappy literal runs past the input");
        if (out.size() + len > length) return DataLoss("snappy output exceeds its declared length");
        out.append(p, len);
        p += len;
        continue;
      }
      case 1:
        if (end - p < 1) return DataLoss("snappy copy runs past the input");
        len = 4 + ((tag >> 2) & 7);
        offset = (static_cast<uint64_t>(tag >> 5) << 8) | static_cast<uint8_t>(*p++);
        break;
      case 2:
        if (end - p < 2) return DataLoss("snappy copy runs past the input");
        len = (tag >> 2) + 1;
        offset = static_cast<uint8_t>(p[0]) | (static_cast<uint64_t>(static_cast<uint8_t>(p[1])) << 8);
        p += 2;
        break;
      default:
        if (end - p < 4) return DataLoss("snappy copy runs past the input");
        len = (tag >> 2) + 1;
        offset = DecodeFixed32(p);
        p += 4;
        break;
    }
    if (offset == 0 || offset > out.size()) {
      return DataLoss("snappy copy offset " + std::to_string(offset) + " is outside the " +
                      std::to_string(out.size()) + " bytes produced so far");
    }
    if (out.size() + len > length) return DataLoss("snappy output exceeds its declared length");
    // Byte by byte: the source may overlap what this copy appends.
    size_t from = out.size() - offset;
    for (uint64_t i = 0; i < len; ++i) out.push_back(out[from + i]);
  }
  if (out.size() != length) {
    return DataLoss("snappy block produced " + std::to_string(out.size()) + " bytes, declared " +
                    std::to_string(length));
  }
  return out;
}

Status CheckSSTableStructure(std::string_view file, const std::string& path) {
  const uint64_t n = file.size();
  if (n < kFooterSize) {
    return DataLoss("index file " + path + " is too short (" + std::to_string(n) +
                    " bytes) to be an SSTable: expected at least a 48-byte footer");
  }
  const char* footer = file.data() + n - kFooterSize;
  uint64_t magic;
  std::memcpy(&magic, footer + 40, 8);
  if (magic != kTableMagic) {
    return DataLoss("index file " + path + " is truncated or not an SSTable: bad footer magic");
  }
  const char* p = footer;
  Handle meta, index;
  if (!GetHandle(&p, footer + 40, &meta) || !GetHandle(&p, footer + 40, &index)) {
    return DataLoss("index file " + path + " has a malformed footer");
  }
  const uint64_t blocks_end = n - kFooterSize;
  if (!HandleFits(meta, blocks_end) || !HandleFits(index, blocks_end)) {
    return DataLoss("index file " + path + " footer points outside the file (metaindex " +
                    Describe(meta) + ", index " + Describe(index) + ", file size " +
                    std::to_string(n) + ")");
  }

  // LevelDB never reads the metaindex block of a table without filters, so
  // its checksum is checked here: a damaged byte anywhere is reported.
  for (const auto& [h, name] : {std::pair{meta, "metaindex"}, std::pair{index, "index"}}) {
    const char* block = file.data() + h.offset;
    uint32_t stored = crc32c::Unmask(DecodeFixed32(block + h.size + 1));
    if (stored != crc32c::Value(block, h.size + 1)) {
      return DataLoss("index file " + path + ": " + name + " block checksum mismatch");
    }
  }

  // The index block: decompress, walk its entries.
  const char* raw = file.data() + index.offset;
  const char* trailer = raw + index.size;
  std::string decompressed;
  std::string_view block(raw, index.size);
  switch (trailer[0]) {
    case 0:
      break;
    case 1: {
      // Snappy expands at most ~21x (a 3-byte copy makes 64 bytes).
      auto out = SnappyUncompress(block, 32 * index.size + 1024);
      if (!out.ok()) return out.status().WithContext("index file " + path + ": index block");
      decompressed = std::move(*out);
      block = decompressed;
      break;
    }
    default:
      return DataLoss("index file " + path + ": index block has unsupported compression type " +
                      std::to_string(static_cast<int>(static_cast<uint8_t>(trailer[0]))));
  }
  if (block.size() < 4) return DataLoss("index file " + path + ": index block is too short");
  uint64_t num_restarts = DecodeFixed32(block.data() + block.size() - 4);
  if (num_restarts > (block.size() - 4) / 4) {
    return DataLoss("index file " + path + ": index block restart array does not fit");
  }
  const char* q = block.data();
  const char* entries_end = block.data() + block.size() - 4 - 4 * num_restarts;
  uint64_t prev_key_len = 0;
  while (q < entries_end) {
    uint64_t shared, non_shared, value_len;
    if (!GetVarint(&q, entries_end, 5, &shared) || !GetVarint(&q, entries_end, 5, &non_shared) ||
        !GetVarint(&q, entries_end, 5, &value_len) || shared > prev_key_len ||
        non_shared > static_cast<uint64_t>(entries_end - q) ||
        value_len > static_cast<uint64_t>(entries_end - q) - non_shared) {
      return DataLoss("index file " + path + ": malformed entry in the index block");
    }
    prev_key_len = shared + non_shared;
    q += non_shared;
    const char* v = q;
    Handle data;
    if (!GetHandle(&v, q + value_len, &data) || !HandleFits(data, index.offset)) {
      return DataLoss("index file " + path + ": a data block handle (" + Describe(data) +
                      ") lies outside the data area of " + std::to_string(index.offset) + " bytes");
    }
    q += value_len;
  }
  return OkStatus();
}

}  // namespace tfhost::checkpoint
