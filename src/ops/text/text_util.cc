// Helpers shared by the tensorflow-text kernels (text_ops.h).
#include <unicode/utf8.h>

#include <algorithm>

#include "ops/text/text_ops.h"

namespace tfhost::ops::text_internal {

Status CheckStringVector(const KernelContext& ctx, int i, const char* name) {
  const Tensor& t = ctx.input(i);
  if (t.dtype() != DType::kString) return ctx.Error(std::string(name) + " must be a string tensor");
  if (t.rank() != 1) {
    return ctx.Error(std::string(name) + " must be a vector (rank 1), got shape " + t.shape().ToString());
  }
  return OkStatus();
}

StatusOr<std::string> ScalarStringInput(const KernelContext& ctx, int i, const char* name) {
  const Tensor& t = ctx.input(i);
  if (t.dtype() != DType::kString || t.rank() != 0) {
    return ctx.Error(std::string(name) + " must be a string scalar, got " + DTypeShortName(t.dtype()) +
                     t.shape().ToString());
  }
  return t.strings()[0];
}

Tensor StringVector(std::vector<std::string> values) {
  Tensor t(DType::kString, Shape({static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) t.strings()[i] = std::move(values[i]);
  return t;
}

Tensor Int64Vector(const std::vector<int64_t>& values) { return Tensor::FromVector(values); }

Tensor Int32Vector(const std::vector<int32_t>& values) { return Tensor::FromVector(values); }

int32_t NextCodePoint(std::string_view s, int64_t* pos) {
  // U8_NEXT indexes with int32_t and reads at most 4 bytes ahead, so it runs
  // on a short window: strings past 2 GiB need no special case.
  const char* window = s.data() + *pos;
  const int32_t length = static_cast<int32_t>(std::min<int64_t>(8, static_cast<int64_t>(s.size()) - *pos));
  int32_t i = 0;
  UChar32 c;
  U8_NEXT(window, i, length, c);
  *pos += i;
  return c;
}

}  // namespace tfhost::ops::text_internal
