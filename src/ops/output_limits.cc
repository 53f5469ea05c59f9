#include "ops/decode_limits.h"

#include <memory>

namespace tfhost::ops {
namespace {

// A leading underscore: TensorFlow never names a resource so, so no model's
// variable or table can collide with it.
constexpr char kResourceName[] = "_tfhost_decode_limits";

class DecodeLimitsResource : public Resource {
 public:
  std::string TypeName() const override { return "DecodeLimits"; }
  DecodeLimits limits;
};

}  // namespace

Status SetDecodeLimits(ResourceManager& resources, const DecodeLimits& limits) {
  if (limits.max_image_bytes < 1) {
    return InvalidArgument("the decoded image limit must be at least 1 byte, got " +
                           std::to_string(limits.max_image_bytes) + " (--max_decoded_image_mb)");
  }
  TFHOST_ASSIGN_OR_RETURN(auto r, resources.LookupOrCreate<DecodeLimitsResource>(
                                      kResourceName, [] { return std::make_shared<DecodeLimitsResource>(); }));
  r->limits = limits;
  return OkStatus();
}

DecodeLimits GetDecodeLimits(const KernelContext& ctx) {
  if (ctx.resources() == nullptr) return {};
  auto r = ctx.resources()->Lookup<DecodeLimitsResource>(kResourceName);
  return r.ok() ? (*r)->limits : DecodeLimits{};
}

std::string DecodedImageTooLargeText(const std::string& what, uint64_t bytes, int64_t limit) {
  // The flag counts MiB; a limit set in bytes (tests, embedders) names it bare.
  const std::string flag = limit % (1 << 20) == 0 ? "=" + std::to_string(limit >> 20) : "";
  return "decoded " + what + " needs " + std::to_string(bytes) + " bytes, past the limit of " +
         std::to_string(limit) + " bytes (--max_decoded_image_mb" + flag + "); refused before decoding";
}

}  // namespace tfhost::ops
