// tensorflow-text's ops: the custom ops a SavedModel gets when its serving
// signature tokenizes raw strings with tensorflow_text (BertTokenizer,
// WhitespaceTokenizer, UnicodeScriptTokenizer, FastWordpieceTokenizer,
// normalize_utf8, case_fold_utf8). TensorFlow Serving needs a custom build
// for them; tfhost registers them like any other family.
//
// Names, inputs, attrs and outputs are tensorflow-text's, including the
// "TFText>" prefix its TFLite-shim ops carry. Unicode data (normalization,
// case folding, White_Space, scripts, punctuation) comes from the system's
// ICU, regexes from RE2: the libraries tensorflow-text builds on, so results
// agree wherever the library versions' Unicode data agree.
//
// Ragged outputs are flat values plus int64 row splits (or row lengths where
// tensorflow-text returns those), exactly as the ops return them; the Python
// wrappers' RaggedTensor assembly is ordinary graph ops.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "ops/op_registry.h"

namespace tfhost::ops {

// CaseFoldUTF8, NormalizeUTF8 (normalize_ops.cc).
void RegisterTextNormalizeOps(OpRegistry& registry);
// RegexSplitWithOffsets (regex_split_op.cc).
void RegisterRegexSplitOp(OpRegistry& registry);
// WordpieceTokenizeWithOffsets (wordpiece_op.cc).
void RegisterWordpieceOp(OpRegistry& registry);
// TFText>WhitespaceTokenizeWithOffsetsV2 (whitespace_tokenizer_op.cc).
void RegisterWhitespaceTokenizerOp(OpRegistry& registry);
// UnicodeScriptTokenizeWithOffsets (unicode_script_tokenizer_op.cc).
void RegisterUnicodeScriptTokenizerOp(OpRegistry& registry);
// FastWordpieceTokenizeWithOffsets, TFText>FastWordpieceDetokenize
// (fast_wordpiece_ops.cc).
void RegisterFastWordpieceOps(OpRegistry& registry);

namespace text_internal {

// Checks that input `i` is a string tensor of rank 1 (tensorflow-text's
// tokenizers take the flat values of a ragged or dense batch).
Status CheckStringVector(const KernelContext& ctx, int i, const char* name);
// Input `i` as a string scalar (a pattern, a config).
StatusOr<std::string> ScalarStringInput(const KernelContext& ctx, int i, const char* name);

// 1-D tensors from collected outputs.
Tensor StringVector(std::vector<std::string> values);
Tensor Int64Vector(const std::vector<int64_t>& values);
Tensor Int32Vector(const std::vector<int32_t>& values);

// One code point of UTF-8 starting at `*pos`, advancing `*pos`: ICU's U8_NEXT,
// so an ill-formed sequence is skipped as ICU skips it (one maximal subpart)
// and yields a negative value, as in tensorflow-text's loops.
int32_t NextCodePoint(std::string_view s, int64_t* pos);

}  // namespace text_internal
}  // namespace tfhost::ops
