// String ops: TensorFlow's tf.strings kernels that serving graphs use for
// feature preprocessing (joining, case folding, slicing, splitting, regex
// matching, number <-> text conversion).
//
// Each file registers its own group; RegisterStringOps (register.cc) calls
// them all.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/shape.h"
#include "ops/op_registry.h"

namespace re2 {
class RE2;
}  // namespace re2

namespace tfhost::ops {

// StringJoin, StringLength, StringLower, StringUpper, Substr, StringSplitV2.
void RegisterBasicStringOps(OpRegistry& registry);
// StaticRegexFullMatch, RegexFullMatch, StaticRegexReplace, RegexReplace.
void RegisterRegexOps(OpRegistry& registry);
// AsString, StringToNumber.
void RegisterStringConversionOps(OpRegistry& registry);
// StringToHashBucketFast (FarmHash Fingerprint64), StringToHashBucketStrong
// (SipHash-2-4), StringToHashBucket (MurmurHash64A).
void RegisterStringHashOps(OpRegistry& registry);
// StringNGrams.
void RegisterStringNGramsOp(OpRegistry& registry);
// EncodeBase64, DecodeBase64, StringStrip, StringSplit (TF1), ReduceJoin.
void RegisterBase64StripSplitOps(OpRegistry& registry);
// StringFormat, PrintV2, Print (print_ops.cc).
void RegisterPrintOps(OpRegistry& registry);
// UnicodeDecode, UnicodeDecodeWithOffsets, UnicodeEncode, UnicodeTranscode
// (unicode_ops.cc; UTF-8, UTF-16-BE, UTF-32-BE).
void RegisterUnicodeOps(OpRegistry& registry);
// UnicodeScript (unicode_script.cc; the system's ICU, loaded at run time).
void RegisterUnicodeScriptOp(OpRegistry& registry);
// UnsortedSegmentJoin (unsorted_segment_join.cc).
void RegisterUnsortedSegmentJoinOp(OpRegistry& registry);
// A tensor rendered as tf.print does ("[1 2 3]", "..." past `summarize`
// entries per dimension, strings quoted).
std::string SummarizeTensor(const Tensor& t, int64_t summarize);

namespace string_internal {

// Maps a flat index of a broadcast output onto the flat index of one input
// (NumPy rules; `in` must broadcast to `out`, which the caller has checked).
class BroadcastIndexer {
 public:
  BroadcastIndexer(const Shape& out, const Shape& in);
  int64_t operator()(int64_t out_index) const;

 private:
  std::vector<int64_t> out_dims_;
  std::vector<int64_t> in_strides_;  // 0 where the input dim is broadcast
  bool identity_ = false;
  bool scalar_ = false;
};

// The compiled RE2 for `pattern`, shared by every caller and compiled once;
// InvalidArgument "Invalid pattern: <pattern>, error: <RE2's>" (TensorFlow's
// wording) when RE2 rejects it.
StatusOr<std::shared_ptr<const re2::RE2>> CachedRe2(const std::string& pattern);

// TensorFlow's Fingerprint64 (FarmHash's fingerprint) of `s`.
uint64_t Fingerprint64(std::string_view s);
// SipHash-2-4 of `s` under the 128-bit key (k0, k1).
uint64_t SipHash24(uint64_t k0, uint64_t k1, std::string_view s);
// MurmurHash64A (TensorFlow's Hash64 uses seed 0xDECAFCAFFE).
uint64_t MurmurHash64A(std::string_view s, uint64_t seed);

}  // namespace string_internal
}  // namespace tfhost::ops
