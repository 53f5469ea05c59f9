// A TensorFlow Lite model file held in memory and checked: ReadTfliteFile
// reads it, tests the "TFL3" identifier and runs flatbuffers' Verifier over
// the whole table tree before anything is read, so a truncated or corrupt
// file is an error value, never an out-of-bounds read. Buffer data is then
// resolved whether it sits inside the flatbuffer or after it (offset/size,
// as converters write models over 2 GB).
//
// Thread-safety: a TfliteFile is immutable once read; share it read-only.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"
#include "base/tensor.h"
#include "loaders/tflite/tflite_schema_generated.h"

namespace tfhost::loaders::tflite {

namespace fb = ::tfhost::tflite_fb;

// Bytes 4..7 of every TFLite flatbuffer (its file_identifier).
inline constexpr char kTfliteIdentifier[] = "TFL3";

// Whether `bytes` (a file's first 8 bytes or more) carry the identifier.
bool HasTfliteIdentifier(std::string_view bytes);
// Reads the first 8 bytes of `path`; false when unreadable or shorter.
bool IsTfliteFile(const std::string& path);

struct TfliteFile {
  std::string path;
  std::string bytes;
  const fb::Model* model = nullptr;  // points into `bytes`
};

// Errors name the path: unreadable (NotFound), not a TFLite file or failing
// verification (InvalidArgument), no subgraph (InvalidArgument).
StatusOr<std::unique_ptr<TfliteFile>> ReadTfliteFile(const std::string& path);
// The same checks on bytes already in memory (`path` only names them).
StatusOr<std::unique_ptr<TfliteFile>> ParseTfliteBytes(std::string path, std::string bytes);

// The data of buffer `index` (empty when the buffer holds none); errors name
// the buffer and what bounds it broke.
StatusOr<std::string_view> BufferData(const TfliteFile& file, uint32_t index);

// tfhost's dtype for a TFLite tensor type; kInvalid for types tfhost has
// no dense equivalent of (STRING's packed layout, RESOURCE, VARIANT, INT4).
DType DTypeOf(fb::TensorType type);
const char* TensorTypeName(fb::TensorType type);

// The constant value of `tensor` from its buffer, in its own dtype, shaped
// by `shape` (STRING constants are unpacked into strings); `where` prefixes
// errors ("model.tflite: tensor 3 'w'").
StatusOr<Tensor> DecodeConstant(const TfliteFile& file, const fb::Tensor& tensor, const std::string& where);

}  // namespace tfhost::loaders::tflite
