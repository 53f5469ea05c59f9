#include "ops/output_limits.h"

#include <memory>
#include <vector>

namespace tfhost::ops {
namespace {

// A leading underscore: TensorFlow never names a resource so, so no model's
// variable or table can collide with it.
constexpr char kResourceName[] = "_tfhost_output_limits";

class OutputLimitsResource : public Resource {
 public:
  std::string TypeName() const override { return "OutputLimits"; }
  OutputLimits limits;
};

// The flags count MiB; a limit set in bytes (tests, embedders) names its flag bare.
std::string FlagText(const char* flag, int64_t limit) {
  return std::string("--") + flag + (limit % (1 << 20) == 0 ? "=" + std::to_string(limit >> 20) : "");
}

}  // namespace

Status SetOutputLimits(ResourceManager& resources, const OutputLimits& limits) {
  if (limits.max_image_bytes < 1) {
    return InvalidArgument("the decoded image limit must be at least 1 byte, got " +
                           std::to_string(limits.max_image_bytes) + " (--max_decoded_image_mb)");
  }
  if (limits.max_string_bytes < 1) {
    return InvalidArgument("the string value limit must be at least 1 byte, got " +
                           std::to_string(limits.max_string_bytes) + " (--max_op_string_mb)");
  }
  TFHOST_ASSIGN_OR_RETURN(auto r, resources.LookupOrCreate<OutputLimitsResource>(
                                      kResourceName, [] { return std::make_shared<OutputLimitsResource>(); }));
  r->limits = limits;
  return OkStatus();
}

OutputLimits GetOutputLimits(const KernelContext& ctx) {
  if (ctx.resources() == nullptr) return {};
  auto r = ctx.resources()->Lookup<OutputLimitsResource>(kResourceName);
  return r.ok() ? (*r)->limits : OutputLimits{};
}

std::string DecodedImageTooLargeText(const std::string& what, uint64_t bytes, int64_t limit) {
  return "decoded " + what + " needs " + std::to_string(bytes) + " bytes, past the limit of " +
         std::to_string(limit) + " bytes (" + FlagText("max_decoded_image_mb", limit) + "); refused before decoding";
}

Status CheckStringOutputs(KernelContext& ctx) {
  std::vector<Tensor>& outputs = ctx.outputs();
  bool any = false;
  for (const Tensor& t : outputs) any |= t.valid() && t.dtype() == DType::kString;
  if (!any) return OkStatus();
  const int64_t limit = GetOutputLimits(ctx).max_string_bytes;
  for (size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& t = outputs[i];
    if (!t.valid() || t.dtype() != DType::kString) continue;
    const std::string* s = t.strings();
    for (int64_t k = 0, n = t.NumElements(); k < n; ++k) {
      if (static_cast<int64_t>(s[k].size()) <= limit) continue;
      return ctx.Error("output " + std::to_string(i) + " holds a string value (element " + std::to_string(k) +
                       ") of " + std::to_string(s[k].size()) + " bytes, past the limit of " +
                       std::to_string(limit) + " bytes one value may have (" + FlagText("max_op_string_mb", limit) +
                       ")");
    }
  }
  return OkStatus();
}

}  // namespace tfhost::ops
