// StaticRegexFullMatch, RegexFullMatch, StaticRegexReplace, RegexReplace.
//
// TensorFlow evaluates these with RE2; tfhost uses std::regex (ECMAScript
// grammar) so as not to add a dependency. The two agree on the everyday
// subset (literals, classes, \d \w \s, anchors, groups, alternation, greedy
// and lazy quantifiers), but differ in places a model may hit:
//   * RE2-only syntax is rejected with an error: named groups (?P<name>...),
//     inline flags other than a leading (?i), \A \z, \pN Unicode classes.
//   * ECMAScript-only syntax (backreferences \1 in the pattern, lookahead)
//     is accepted here but would be rejected by TensorFlow.
//   * RE2 runs in linear time; std::regex backtracks and recurses once per
//     input character, so inputs longer than kMaxRegexInputBytes are refused
//     rather than risking a stack overflow on hostile requests.
// Rewrite strings use RE2's spelling (\0..\9, \\ for a backslash) and are
// translated to std::regex's ($&, $1.., $$).
#include <memory>
#include <map>
#include <mutex>
#include <regex>

#include "ops/string/string_ops.h"

namespace tfhost::ops {
namespace {

// libstdc++'s matcher recursed ~10k characters deep before crashing an 8 MiB
// stack on "(a|b)*" in our measurements; this leaves a wide margin for
// smaller thread stacks and more complex patterns.
constexpr size_t kMaxRegexInputBytes = 2048;

// Compiled patterns are shared across calls: graphs run the same pattern on
// every request and compiling dominates matching for short strings.
class RegexCache {
 public:
  StatusOr<std::shared_ptr<const std::regex>> Get(const std::string& pattern) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = cache_.find(pattern);
    if (it != cache_.end()) return it->second;
    std::string body = pattern;
    auto flags = std::regex::ECMAScript;
    if (body.rfind("(?i)", 0) == 0) {  // RE2's case-insensitive prefix
      body = body.substr(4);
      flags |= std::regex::icase;
    }
    std::shared_ptr<const std::regex> re;
    try {
      re = std::make_shared<const std::regex>(body, flags);
    } catch (const std::regex_error& e) {
      return InvalidArgument("invalid regex pattern '" + pattern + "': " + e.what() +
                             " (tfhost uses ECMAScript syntax; see regex_ops.cc)");
    }
    if (cache_.size() >= kMaxEntries) cache_.clear();
    cache_[pattern] = re;
    return re;
  }

 private:
  static constexpr size_t kMaxEntries = 256;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<const std::regex>> cache_;
};

RegexCache& Cache() {
  static RegexCache* cache = new RegexCache();
  return *cache;
}

StatusOr<std::shared_ptr<const std::regex>> CompiledPattern(const KernelContext& ctx,
                                                            const std::string& pattern) {
  auto re = Cache().Get(pattern);
  if (!re.ok()) return ctx.Error(re.status().message());
  return re;
}

Status CheckLength(const KernelContext& ctx, const std::string& s, int64_t index) {
  if (s.size() > kMaxRegexInputBytes) {
    return ctx.Error("input string at index " + std::to_string(index) + " has " +
                     std::to_string(s.size()) + " bytes; the std::regex engine is limited to " +
                     std::to_string(kMaxRegexInputBytes));
  }
  return OkStatus();
}

StatusOr<std::string> ScalarString(const KernelContext& ctx, int i, const char* name) {
  const Tensor& t = ctx.input(i);
  if (t.dtype() != DType::kString || t.NumElements() != 1) {
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
    TFHOST_RETURN_IF_ERROR(CheckLength(ctx, in.strings()[i], i));
    out.data<bool>()[i] = std::regex_match(in.strings()[i], *re);
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

}  // namespace

namespace string_internal {
std::string TranslateRe2Rewrite(const std::string& rewrite) {
  std::string out;
  for (size_t i = 0; i < rewrite.size(); ++i) {
    char c = rewrite[i];
    if (c == '$') {
      out += "$$";
    } else if (c == '\\' && i + 1 < rewrite.size()) {
      char n = rewrite[++i];
      if (n == '0') out += "$&";
      else if (n >= '1' && n <= '9') out += std::string("$") + n;
      else out += n;  // "\\" -> "\", other escapes keep the character
    } else {
      out += c;
    }
  }
  return out;
}
}  // namespace string_internal

namespace {

using string_internal::TranslateRe2Rewrite;

Status Replace(KernelContext& ctx, const std::string& pattern, const std::string& rewrite) {
  const Tensor& in = ctx.input(0);
  if (in.dtype() != DType::kString) return ctx.Error("input must be a string tensor");
  TFHOST_ASSIGN_OR_RETURN(bool global, ctx.AttrOr<bool>("replace_global", true));
  TFHOST_ASSIGN_OR_RETURN(auto re, CompiledPattern(ctx, pattern));
  std::string format = TranslateRe2Rewrite(rewrite);
  auto flags = global ? std::regex_constants::format_default : std::regex_constants::format_first_only;
  Tensor out(DType::kString, in.shape());
  for (int64_t i = 0; i < in.NumElements(); ++i) {
    TFHOST_RETURN_IF_ERROR(CheckLength(ctx, in.strings()[i], i));
    out.strings()[i] = std::regex_replace(in.strings()[i], *re, format, flags);
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
