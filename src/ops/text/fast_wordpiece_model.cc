// A minimal flatbuffer reader for FastWordpieceTokenizerConfig
// (fast_wordpiece_model.h). Flatbuffer layout, as far as this schema needs
// it (all little-endian):
//   * the buffer starts with a uint32 offset to the root table;
//   * a table starts with an int32: table position minus vtable position;
//   * a vtable is uint16s: its own size, the table's size, then per field id
//     the field's offset within the table (0 = absent, default value);
//   * a vector or string field holds a uint32 offset, relative to the field,
//     to a uint32 element count followed by the elements (strings: bytes);
//     a vector of strings holds one such relative offset per element.
#include "ops/text/fast_wordpiece_model.h"

#include <bit>

namespace tfhost::ops::text_internal {
namespace {

static_assert(std::endian::native == std::endian::little, "flatbuffers are little-endian; reads use memcpy");

// Field ids of FastWordpieceTokenizerConfig.
enum Field {
  kTrieArray = 0,
  kFailureStructArray = 1,
  kFailurePopsPool = 2,
  kTrieSuffixRoot = 3,
  kMaxBytesPerToken = 4,
  kSuffixIndicator = 5,
  kUnkToken = 6,
  kUnkTokenId = 7,
  kPrecomputedResultForSuffixIndicator = 8,
  kTriePunctFailureLinkNode = 9,
  kEndToEnd = 10,
  kSupportDetokenization = 11,
  kVocabArray = 12,
  kVocabIsSuffixArray = 13,
};

Status Malformed(const std::string& what) { return InvalidArgument("malformed wp_model flatbuffer: " + what); }

}  // namespace

StatusOr<FastWordpieceModel> FastWordpieceModel::Parse(const uint8_t* data, size_t size) {
  FastWordpieceModel m(data, size);
  if (size < 8) return Malformed("expected at least 8 bytes (root offset and table), got " + std::to_string(size));
  m.table_ = m.U32(0);
  if (m.table_ > size - 4) {
    return Malformed("root table offset " + std::to_string(m.table_) + " is outside the " + std::to_string(size) +
                     "-byte buffer");
  }
  int32_t to_vtable;
  std::memcpy(&to_vtable, data + m.table_, sizeof(to_vtable));
  const int64_t vtable = static_cast<int64_t>(m.table_) - to_vtable;
  if (vtable < 0 || vtable > static_cast<int64_t>(size) - 4) {
    return Malformed("root table's vtable at " + std::to_string(vtable) + " is outside the buffer");
  }
  m.vtable_ = static_cast<size_t>(vtable);
  std::memcpy(&m.vtable_size_, data + m.vtable_, 2);
  std::memcpy(&m.table_size_, data + m.vtable_ + 2, 2);
  if (m.vtable_size_ < 4 || m.vtable_ + m.vtable_size_ > size) {
    return Malformed("vtable of " + std::to_string(m.vtable_size_) + " bytes does not fit the buffer");
  }
  if (m.table_size_ < 4 || m.table_ + m.table_size_ > size) {
    return Malformed("root table of " + std::to_string(m.table_size_) + " bytes does not fit the buffer");
  }

  bool has_trie = false;
  TFHOST_RETURN_IF_ERROR(m.ReadVector(kTrieArray, 4, "trie_array", &m.trie_, &has_trie));
  if (!has_trie) return Malformed("expected a trie_array (field 0), found none");
  if (m.trie_.count == 0) return Malformed("trie_array is empty; expected at least the root node");
  TFHOST_RETURN_IF_ERROR(m.ReadVector(kFailureStructArray, 8, "failure_struct_array", &m.failure_structs_));
  TFHOST_RETURN_IF_ERROR(m.ReadVector(kFailurePopsPool, 4, "failure_pops_pool", &m.failure_pops_pool_));
  TFHOST_RETURN_IF_ERROR(m.ReadScalar(kTrieSuffixRoot, "trie_suffix_root", &m.trie_suffix_root_));
  TFHOST_RETURN_IF_ERROR(m.ReadScalar(kMaxBytesPerToken, "max_bytes_per_token", &m.max_bytes_per_token_));
  TFHOST_RETURN_IF_ERROR(m.ReadString(kSuffixIndicator, "suffix_indicator", &m.suffix_indicator_));
  TFHOST_RETURN_IF_ERROR(m.ReadString(kUnkToken, "unk_token", &m.unk_token_));
  TFHOST_RETURN_IF_ERROR(m.ReadScalar(kUnkTokenId, "unk_token_id", &m.unk_token_id_));
  TFHOST_RETURN_IF_ERROR(m.ReadVector(kPrecomputedResultForSuffixIndicator, 4,
                                      "precomputed_result_for_suffix_indicator", &m.precomputed_));
  TFHOST_RETURN_IF_ERROR(
      m.ReadScalar(kTriePunctFailureLinkNode, "trie_punct_failure_link_node", &m.trie_punct_failure_link_node_));
  uint8_t flag = 0;
  TFHOST_RETURN_IF_ERROR(m.ReadScalar(kEndToEnd, "end_to_end", &flag));
  m.end_to_end_ = flag != 0;
  flag = 0;
  TFHOST_RETURN_IF_ERROR(m.ReadScalar(kSupportDetokenization, "support_detokenization", &flag));
  m.support_detokenization_ = flag != 0;
  TFHOST_RETURN_IF_ERROR(m.ReadVector(kVocabArray, 4, "vocab_array", &m.vocab_, &m.has_vocab_array_));
  TFHOST_RETURN_IF_ERROR(
      m.ReadVector(kVocabIsSuffixArray, 1, "vocab_is_suffix_array", &m.vocab_is_suffix_, &m.has_vocab_is_suffix_));
  return m;
}

StatusOr<size_t> FastWordpieceModel::FieldOffset(int id, size_t field_size, const char* name) const {
  const size_t entry = 4 + 2 * static_cast<size_t>(id);
  if (entry + 2 > vtable_size_) return size_t{0};  // older writer: field absent
  uint16_t in_table;
  std::memcpy(&in_table, data_ + vtable_ + entry, 2);
  if (in_table == 0) return size_t{0};
  if (in_table + field_size > table_size_) {
    return Malformed(std::string(name) + " (field " + std::to_string(id) + ") at table offset " +
                     std::to_string(in_table) + " lies outside the " + std::to_string(table_size_) + "-byte table");
  }
  return table_ + in_table;
}

StatusOr<FastWordpieceModel::Vector> FastWordpieceModel::VectorAt(size_t at, size_t element_size,
                                                                  const std::string& name) const {
  const size_t target = at + U32(at);
  if (target > size_ - 4) {
    return Malformed(name + " points to byte " + std::to_string(target) + ", outside the " + std::to_string(size_) +
                     "-byte buffer");
  }
  Vector v{target + 4, U32(target)};
  if (v.count > (size_ - v.start) / element_size) {
    return Malformed(name + " claims " + std::to_string(v.count) + " elements of " + std::to_string(element_size) +
                     " bytes; only " + std::to_string(size_ - v.start) + " bytes follow");
  }
  return v;
}

Status FastWordpieceModel::ReadVector(int id, size_t element_size, const char* name, Vector* out,
                                      bool* present) const {
  TFHOST_ASSIGN_OR_RETURN(size_t at, FieldOffset(id, 4, name));
  if (present != nullptr) *present = at != 0;
  if (at == 0) return OkStatus();
  TFHOST_ASSIGN_OR_RETURN(*out, VectorAt(at, element_size, name));
  return OkStatus();
}

Status FastWordpieceModel::ReadString(int id, const char* name, std::string_view* out) const {
  Vector v;
  TFHOST_RETURN_IF_ERROR(ReadVector(id, 1, name, &v));
  *out = std::string_view(reinterpret_cast<const char*>(data_) + v.start, v.count);
  return OkStatus();
}

template <typename T>
Status FastWordpieceModel::ReadScalar(int id, const char* name, T* out) const {
  TFHOST_ASSIGN_OR_RETURN(size_t at, FieldOffset(id, sizeof(T), name));
  if (at != 0) std::memcpy(out, data_ + at, sizeof(T));
  return OkStatus();
}

StatusOr<std::string_view> FastWordpieceModel::vocab(uint32_t i) const {
  TFHOST_ASSIGN_OR_RETURN(Vector v,
                          VectorAt(vocab_.start + 4 * size_t{i}, 1, "vocab_array[" + std::to_string(i) + "]"));
  return std::string_view(reinterpret_cast<const char*>(data_) + v.start, v.count);
}

}  // namespace tfhost::ops::text_internal
