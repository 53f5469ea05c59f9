// The model of tensorflow-text's FastWordpieceTokenizer: a flatbuffer that
// tensorflow_text's builder writes and the graph holds as a constant uint8
// tensor (the ops' wp_model input).
//
// Its schema (fast_wordpiece_tokenizer_model.fbs in tensorflow-text), as this
// reader knows it -- table FastWordpieceTokenizerConfig, fields by id:
//   0 trie_array: [uint32]        a darts-clone double-array trie over the
//                                 UTF-8 bytes of every vocabulary piece, the
//                                 suffix pieces spelled with their indicator
//   1 failure_struct_array: [FailureStruct {failure_link: uint32,
//                                 failure_pops_offset_length: uint32}],
//                                 one per trie node
//   2 failure_pops_pool: [int]    encoded tokens the failure pops point into
//   3 trie_suffix_root: uint32    the node of the suffix indicator ("##")
//   4 max_bytes_per_token: int
//   5 suffix_indicator: string
//   6 unk_token: string
//   7 unk_token_id: int
//   8 precomputed_result_for_suffix_indicator: [int]
//   9 trie_punct_failure_link_node: uint32
//  10 end_to_end: bool            split general text on whitespace and
//                                 punctuation first (no_pretokenization=False)
//  11 support_detokenization: bool
//  12 vocab_array: [string]       pieces without their suffix indicator
//  13 vocab_is_suffix_array: [bool]
//
// The reader is written for untrusted bytes: Parse checks the root table,
// its vtable and every vector's extent against the buffer, and the accessors
// take indices the caller has checked against the sizes (*_size()). Absent
// vectors read as empty and absent scalars as 0, flatbuffers' defaults; only
// trie_array is required, as in tensorflow-text.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "base/status.h"

namespace tfhost::ops::text_internal {

class FastWordpieceModel {
 public:
  // Fails with InvalidArgument naming the field or structure that is out of
  // bounds or missing.
  static StatusOr<FastWordpieceModel> Parse(const uint8_t* data, size_t size);

  uint32_t trie_size() const { return trie_.count; }
  uint32_t trie_unit(uint32_t i) const { return U32(trie_.start + 4 * size_t{i}); }
  uint32_t failure_struct_size() const { return failure_structs_.count; }
  uint32_t failure_link(uint32_t node) const { return U32(failure_structs_.start + 8 * size_t{node}); }
  uint32_t failure_pops(uint32_t node) const { return U32(failure_structs_.start + 8 * size_t{node} + 4); }
  uint32_t failure_pops_pool_size() const { return failure_pops_pool_.count; }
  int32_t failure_pops_pool(uint32_t i) const {
    return static_cast<int32_t>(U32(failure_pops_pool_.start + 4 * size_t{i}));
  }
  uint32_t precomputed_size() const { return precomputed_.count; }
  int32_t precomputed(uint32_t i) const { return static_cast<int32_t>(U32(precomputed_.start + 4 * size_t{i})); }

  uint32_t trie_suffix_root() const { return trie_suffix_root_; }
  uint32_t trie_punct_failure_link_node() const { return trie_punct_failure_link_node_; }
  int32_t max_bytes_per_token() const { return max_bytes_per_token_; }
  int32_t unk_token_id() const { return unk_token_id_; }
  std::string_view suffix_indicator() const { return suffix_indicator_; }
  std::string_view unk_token() const { return unk_token_; }
  bool end_to_end() const { return end_to_end_; }
  bool support_detokenization() const { return support_detokenization_; }

  bool has_vocab() const { return has_vocab_array_ && has_vocab_is_suffix_; }
  uint32_t vocab_size() const { return vocab_.count; }
  uint32_t vocab_is_suffix_size() const { return vocab_is_suffix_.count; }
  bool vocab_is_suffix(uint32_t i) const { return data_[vocab_is_suffix_.start + i] != 0; }
  // Vocabulary entry i (i < vocab_size()); its string is checked on access.
  StatusOr<std::string_view> vocab(uint32_t i) const;

 private:
  struct Vector {
    size_t start = 0;    // byte offset of element 0
    uint32_t count = 0;  // elements
  };

  FastWordpieceModel(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  uint32_t U32(size_t offset) const {
    uint32_t v;
    std::memcpy(&v, data_ + offset, sizeof(v));
    return v;
  }

  // Field `id` of the root table: its byte offset in the buffer, or 0 when
  // absent. Fails when the vtable entry points outside the table.
  StatusOr<size_t> FieldOffset(int id, size_t field_size, const char* name) const;
  Status ReadVector(int id, size_t element_size, const char* name, Vector* out, bool* present = nullptr) const;
  Status ReadString(int id, const char* name, std::string_view* out) const;
  template <typename T>
  Status ReadScalar(int id, const char* name, T* out) const;
  // The vector or string that the uoffset at `at` points to.
  StatusOr<Vector> VectorAt(size_t at, size_t element_size, const std::string& name) const;

  const uint8_t* data_;
  size_t size_;
  size_t table_ = 0;
  size_t vtable_ = 0;
  uint16_t vtable_size_ = 0;
  uint16_t table_size_ = 0;

  Vector trie_, failure_structs_, failure_pops_pool_, precomputed_, vocab_, vocab_is_suffix_;
  bool has_vocab_array_ = false;
  bool has_vocab_is_suffix_ = false;
  uint32_t trie_suffix_root_ = 0;
  uint32_t trie_punct_failure_link_node_ = 0;
  int32_t max_bytes_per_token_ = 0;
  int32_t unk_token_id_ = 0;
  std::string_view suffix_indicator_;
  std::string_view unk_token_;
  bool end_to_end_ = false;
  bool support_detokenization_ = false;
};

}  // namespace tfhost::ops::text_internal
