// StaticRegexFullMatch, RegexFullMatch, StaticRegexReplace, RegexReplace.
//
// TensorFlow evaluates these with RE2, and so does tfhost: the same syntax
// (\p{..} Unicode classes, (?P<name>..), \A \z, inline flags), the same
// leftmost-first matching and linear-time guarantee, and the same rewrite
// strings (\0..\9 for groups, \\ for a backslash). As in TensorFlow, a rewrite
// that names a group the pattern lacks leaves the string unchanged.
#include <re2/re2.h>

#include <map>
#include <memory>
#include <mutex>

#include "ops/string/string_ops.h"

namespace tfhost::ops {
namespace {

// Compiled patterns are shared across calls: graphs run the same pattern on
// every request and compiling dominates matching for short strings.
class Re2Cache {
 public:
  StatusOr<std::shared_ptr<const RE2>> Get(const std::string& pattern) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = cache_.find(pattern);
      if (it != cache_.end()) return it->second;
    }
    // Compiled outside the lock: a large pattern takes a while.
    auto re = std::make_shared<const RE2>(pattern, RE2::Quiet);
    if (!re->ok()) return InvalidArgument("Invalid pattern: " + pattern + ", error: " + re->error());
    std::lock_guard<std::mutex> lock(mu_);
    if (cache_.size() >= kMaxEntries) cache_.clear();
    return cache_.emplace(pattern, std::move(re)).first->second;
  }

 private:
  static constexpr size_t kMaxEntries = 256;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<const RE2>> cache_;
};

StatusOr<std::shared_ptr<const RE2>> CompiledPattern(const KernelContext& ctx, const std::string& pattern) {
  auto re = string_internal::CachedRe2(pattern);
  if (!re.ok()) return ctx.Error(re.status().message());
  return re;
}

StatusOr<std::string> ScalarString(const KernelContext& ctx, int i, const char* name) {
  const Tensor& t = ctx.input(i);
  if (t.dtype() != DType::kString || t.rank() != 0) {
    return ctx.Error(std::string(name) + " must be a string scalar, got " + t.DebugString(0));
  }
  return t.strings()[0];
}

Status FullMatch(KernelContext& ctx, const std::string& pattern) {
  const Tensor& in = ctx.input(0);
  if (in.dtype() != DType::kString) return ctx.Error("input must be a string tensor");
  TFHOST_ASSIGN_OR_RETURN(auto re, CompiledPattern(ctx, pattern));
  Tensor out(DType::kBool, in.shape());
  for (int64_t i = 0; i < in.NumElements(); ++i) {
    out.data<bool>()[i] = RE2::FullMatch(in.strings()[i], *re);
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status StaticRegexFullMatch(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(std::string pattern, ctx.Attr<std::string>("pattern"));
  return FullMatch(ctx, pattern);
}

Status RegexFullMatch(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(std::string pattern, ScalarString(ctx, 1, "pattern"));
  return FullMatch(ctx, pattern);
}

Status Replace(KernelContext& ctx, const std::string& pattern, const std::string& rewrite) {
  const Tensor& in = ctx.input(0);
  if (in.dtype() != DType::kString) return ctx.Error("input must be a string tensor");
  TFHOST_ASSIGN_OR_RETURN(bool global, ctx.AttrOr<bool>("replace_global", true));
  TFHOST_ASSIGN_OR_RETURN(auto re, CompiledPattern(ctx, pattern));
  Tensor out(DType::kString, in.shape());
  for (int64_t i = 0; i < in.NumElements(); ++i) {
    std::string s = in.strings()[i];
    if (global) {
      RE2::GlobalReplace(&s, *re, rewrite);
    } else {
      RE2::Replace(&s, *re, rewrite);
    }
    out.strings()[i] = std::move(s);
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status StaticRegexReplace(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(std::string pattern, ctx.Attr<std::string>("pattern"));
  TFHOST_ASSIGN_OR_RETURN(std::string rewrite, ctx.Attr<std::string>("rewrite"));
  return Replace(ctx, pattern, rewrite);
}

Status RegexReplace(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(std::string pattern, ScalarString(ctx, 1, "pattern"));
  TFHOST_ASSIGN_OR_RETURN(std::string rewrite, ScalarString(ctx, 2, "rewrite"));
  return Replace(ctx, pattern, rewrite);
}

}  // namespace

namespace string_internal {
StatusOr<std::shared_ptr<const RE2>> CachedRe2(const std::string& pattern) {
  static Re2Cache* cache = new Re2Cache();
  return cache->Get(pattern);
}
}  // namespace string_internal

void RegisterRegexOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("StaticRegexFullMatch")
                        .Input("input: string")
                        .Output("output: bool")
                        .Attr("pattern: string"),
                    StaticRegexFullMatch);
  registry.Register(ir::OpDefBuilder("RegexFullMatch")
                        .Input("input: string")
                        .Input("pattern: string")
                        .Output("output: bool"),
                    RegexFullMatch);
  registry.Register(ir::OpDefBuilder("StaticRegexReplace")
                        .Input("input: string")
                        .Output("output: string")
                        .Attr("pattern: string")
                        .Attr("rewrite: string")
                        .Attr("replace_global: bool = true"),
                    StaticRegexReplace);
  registry.Register(ir::OpDefBuilder("RegexReplace")
                        .Input("input: string")
                        .Input("pattern: string")
                        .Input("rewrite: string")
                        .Output("output: string")
                        .Attr("replace_global: bool = true"),
                    RegexReplace);
}

}  // namespace tfhost::ops
