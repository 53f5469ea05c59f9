#include "serving/servable/request_limits.h"

#include <algorithm>
#include <limits>

namespace tfhost::serving {
namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

uint64_t SaturatingAdd(uint64_t a, uint64_t b) { return a > kMax - b ? kMax : a + b; }
uint64_t SaturatingMul(uint64_t a, uint64_t b) { return b != 0 && a > kMax / b ? kMax : a * b; }

std::string Quoted(std::string_view input) { return "input '" + std::string(input) + "'"; }

// Reads one varint32 length prefix of a DT_STRING tensor_content.
bool ReadVarint(const std::string& s, size_t* pos, uint64_t* value) {
  *value = 0;
  for (int shift = 0; shift < 35 && *pos < s.size(); shift += 7) {
    const uint8_t b = static_cast<uint8_t>(s[(*pos)++]);
    *value |= static_cast<uint64_t>(b & 0x7f) << shift;
    if ((b & 0x80) == 0) return true;
  }
  return false;
}

}  // namespace

Status RequestBudget::AddTensor(std::string_view input, DType dtype, uint64_t elements) {
  elements_ = SaturatingAdd(elements_, elements);
  if (elements_ > static_cast<uint64_t>(limits_.max_elements)) {
    return InvalidArgument(Quoted(input) + ": the request's input tensors hold " +
                           (elements_ == kMax ? std::string("more than 2^64") : std::to_string(elements_)) +
                           " values with this one's " + std::to_string(elements) + ", more than the " +
                           std::to_string(limits_.max_elements) + " one request may send (--max_request_elements=" +
                           std::to_string(limits_.max_elements) + ")");
  }
  if (dtype == DType::kString) return OkStatus();
  return AddBytes(input, SaturatingMul(elements, std::max<size_t>(1, DTypeSize(dtype))));
}

Status RequestBudget::AddString(std::string_view input, uint64_t index, uint64_t length) {
  if (length > static_cast<uint64_t>(limits_.max_string_bytes)) {
    return InvalidArgument(Quoted(input) + ": string value " + std::to_string(index) + " is " +
                           std::to_string(length) + " bytes, longer than the " +
                           std::to_string(limits_.max_string_bytes) +
                           " one string may be (--max_request_string_bytes=" +
                           std::to_string(limits_.max_string_bytes) + ")");
  }
  return AddBytes(input, length);
}

Status RequestBudget::AddBytes(std::string_view input, uint64_t bytes) {
  bytes_ = SaturatingAdd(bytes_, bytes);
  if (bytes_ > static_cast<uint64_t>(limits_.max_bytes)) {
    return InvalidArgument(Quoted(input) + ": the request's input tensors need " +
                           (bytes_ == kMax ? std::string("more than 2^64") : std::to_string(bytes_)) +
                           " bytes with this one, more than the " + std::to_string(limits_.max_bytes) +
                           " one request may send (--max_request_tensor_mb" +
                           (limits_.max_bytes % (1 << 20) == 0 ? "=" + std::to_string(limits_.max_bytes >> 20) : "") +
                           ")");
  }
  return OkStatus();
}

Status RequestBudget::AddTensorProto(std::string_view input, const tensorflow::TensorProto& proto) {
  uint64_t elements = 1;
  for (const auto& d : proto.tensor_shape().dim()) {
    if (d.size() < 0) return OkStatus();  // malformed: TensorFromProto says so
    elements = SaturatingMul(elements, static_cast<uint64_t>(d.size()));
  }
  const DType dtype = BaseType(proto.dtype());
  TFHOST_RETURN_IF_ERROR(AddTensor(input, dtype, elements));
  if (dtype != DType::kString || elements == 0) return OkStatus();
  if (!proto.tensor_content().empty()) {
    const std::string& content = proto.tensor_content();
    size_t pos = 0;
    uint64_t length = 0;
    for (uint64_t i = 0; i < elements && ReadVarint(content, &pos, &length); ++i) {
      TFHOST_RETURN_IF_ERROR(AddString(input, i, length));
    }
    return OkStatus();
  }
  const int given = proto.string_val_size();
  if (given == 0) return OkStatus();
  for (int i = 0; i < given && static_cast<uint64_t>(i) < elements; ++i) {
    TFHOST_RETURN_IF_ERROR(AddString(input, static_cast<uint64_t>(i), proto.string_val(i).size()));
  }
  if (elements > static_cast<uint64_t>(given)) {
    // The last value fills the rest: charged all at once, not value by value.
    const uint64_t last = proto.string_val(given - 1).size();
    return AddBytes(input, SaturatingMul(elements - static_cast<uint64_t>(given), last));
  }
  return OkStatus();
}

Status RequestBudget::AddDecoded(std::string_view input, const Tensor& tensor) {
  TFHOST_RETURN_IF_ERROR(AddTensor(input, tensor.dtype(), static_cast<uint64_t>(tensor.NumElements())));
  if (tensor.dtype() != DType::kString) return OkStatus();
  for (int64_t i = 0; i < tensor.NumElements(); ++i) {
    TFHOST_RETURN_IF_ERROR(AddString(input, static_cast<uint64_t>(i), tensor.strings()[i].size()));
  }
  return OkStatus();
}

}  // namespace tfhost::serving
