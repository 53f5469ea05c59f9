// The Open Inference Protocol's (KServe v2) tensor datatypes and tfhost's
// DTypes: BOOL, UINT8/16/32/64, INT8/16/32/64, FP16, BF16, FP32, FP64 and
// BYTES (DT_STRING) map one to one; every other TensorFlow dtype (complex,
// quantized, resource, variant) has no v2 datatype and cannot cross the
// protocol.
//
// The binary form of a tensor (the REST binary extension's bytes and gRPC's
// raw_input_contents / raw_output_contents) is the elements in row-major
// order, little-endian; BYTES elements are each a 4-byte little-endian
// length followed by that many bytes. Decoding checks sizes exactly: what
// the shape needs against what was sent, in bytes, naming the tensor.
//
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/dtype.h"
#include "base/status.h"
#include "base/tensor.h"

namespace tfhost::serving::v2 {

// "FP32" for DType::kFloat, ...; nullopt for dtypes v2 cannot carry.
std::optional<std::string_view> DatatypeName(DType dtype);
// The DType of a v2 datatype name (exact, upper case as the protocol spells
// it); nullopt for names that are not v2 datatypes.
std::optional<DType> DatatypeFromName(std::string_view name);
// What a message says for a dtype: its v2 name, else TensorFlow's ("DT_COMPLEX64").
std::string DatatypeForMessage(DType dtype);
// Every v2 datatype name, comma-separated, for error messages.
const char* AllDatatypeNames();

// "[2,3]"; the spelling error messages use for shapes.
std::string ShapeText(const std::vector<int64_t>& shape);
// The element count of a v2 shape. INVALID_ARGUMENT naming `what` for a
// negative dimension or a product past int64.
StatusOr<int64_t> ElementCount(const std::vector<int64_t>& shape, const std::string& what);

// A tensor from its binary form. `what` names it in errors ("input 'x'").
// INVALID_ARGUMENT when the bytes are not exactly what `shape` of `dtype`
// needs (fixed-size: the byte counts; BYTES: an element length running past
// the end, or bytes left over).
StatusOr<Tensor> TensorFromBinary(std::string_view bytes, DType dtype, const std::vector<int64_t>& shape,
                                  const std::string& what);
// The binary form of `tensor` (a dtype DatatypeName accepts), appended to `out`.
void AppendBinary(const Tensor& tensor, std::string* out);
// Bytes AppendBinary writes for `tensor`.
size_t BinaryByteSize(const Tensor& tensor);

}  // namespace tfhost::serving::v2
