// NumPy .npy files <-> Tensors, for `tfhost run --input KEY=FILE.npy` and
// `--output-dir`. Supports format versions 1.0, 2.0 and 3.0, little-endian
// ('<' or '|') C-order arrays of f2 f4 f8 i1 i2 i4 i8 u1 u2 u4 u8 b1 and
// fixed-width byte strings 'S<n>'.
//
// Files are untrusted: every header field is validated, the header length is
// bounded, and the data must be exactly as long as the header's shape and
// dtype say, so nothing is allocated beyond the file's own size. Errors name
// the file and what was expected.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "base/tensor.h"

namespace tfhost::cli {

// Largest header (the Python dict literal) accepted. NumPy itself refuses
// headers over 10000 bytes unless told otherwise; we allow some slack.
inline constexpr size_t kMaxNpyHeaderBytes = 1 << 16;

// Parses the contents of a .npy file. `where` names the source in errors.
// Strings ('S<n>') lose their trailing NUL bytes, as NumPy does when it
// turns an element into `bytes`.
StatusOr<Tensor> ParseNpy(std::string_view bytes, const std::string& where);

// Reads and parses `path`.
StatusOr<Tensor> ReadNpyFile(const std::string& path);

// Encodes a tensor as a version 1.0 .npy file (2.0 if the header would not
// fit 1.0's 16-bit length). Strings are written as 'S<n>' with n the longest
// element (at least 1). bfloat16 has no NumPy type code: it is written as
// float32 and, if `note` is not null, *note explains that. Types without a
// NumPy equivalent here (complex, quantized, resource, variant) are errors.
StatusOr<std::string> EncodeNpy(const Tensor& tensor, std::string* note = nullptr);

// EncodeNpy, then writes `path` (through a temporary file renamed into place).
Status WriteNpyFile(const std::string& path, const Tensor& tensor, std::string* note = nullptr);

// The NumPy dtype string tfhost writes for `dtype` ("<f4"), or "" if none.
std::string NpyDescr(DType dtype);

}  // namespace tfhost::cli
