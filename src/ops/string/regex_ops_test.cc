#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "ops/string/string_ops.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

Tensor Strings(std::vector<std::string> v) { return Tensor::FromVector(v); }
Tensor Bools(std::vector<bool> v) {
  Tensor t(DType::kBool, Shape({static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) t.data<bool>()[i] = v[i];
  return t;
}

TEST(RegexFullMatchTest, StaticPatternMustMatchWholeString) {
  auto out = RunSingleOp("StaticRegexFullMatch", {Strings({"abc123", "123", "abc", "x123y"})},
                         {{"pattern", MakeAttr("[a-z]*\\d+")}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Bools({true, true, false, false})));
}

TEST(RegexFullMatchTest, PatternInputAndLeadingCaseInsensitiveFlag) {
  auto out = RunSingleOp("RegexFullMatch", {Strings({"Hello", "HELLO", "help"}),
                                            Tensor::StringScalar("(?i)hello")});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Bools({true, true, false})));
}

TEST(RegexFullMatchTest, InvalidPatternIsAnErrorNotACrash) {
  auto out = RunSingleOp("StaticRegexFullMatch", {Strings({"a"})}, {{"pattern", MakeAttr("(unclosed")}});
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "node 'test_StaticRegexFullMatch' (StaticRegexFullMatch): Invalid pattern: (unclosed, error: "
                      "missing ): (unclosed");
  EXPECT_NE(out.status().message().find("Invalid pattern: (unclosed, error: missing )"), std::string::npos)
      << out.status().message();
  auto not_scalar = RunSingleOp("RegexFullMatch", {Strings({"a"}), Strings({"a", "b"})});
  TFHOST_ASSERT_ERROR(not_scalar, StatusCode::kInvalidArgument,
                      "pattern must be a string scalar, got string[2] {, ...}");
}

// RE2 syntax: Unicode classes and \A..\z; matching is linear, so a long input
// is no risk (a backtracking engine would recurse once per character here).
TEST(RegexFullMatchTest, Re2UnicodeClassesAndLongInputs) {
  const Tensor in = Strings({"\xC3\xA9t\xC3\xA9", "caf\xC3\xA9!", std::string(1 << 20, 'a')});
  auto out = RunSingleOp("StaticRegexFullMatch", {in},
                         {{"pattern", MakeAttr("\\A(\\p{L}|a)+\\z")}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Bools({true, false, true})));
}

TEST(RegexReplaceTest, GlobalAndFirstOnlyWithRe2GroupReferences) {
  Tensor in = Strings({"a1b22c333", "none"});
  auto global = RunSingleOp("StaticRegexReplace", {in},
                            {{"pattern", MakeAttr("(\\d+)")}, {"rewrite", MakeAttr("<\\1>")}});
  ASSERT_TRUE(global.ok()) << global.status().ToString();
  EXPECT_TRUE(TensorsEqual((*global)[0], Strings({"a<1>b<22>c<333>", "none"})));
  auto first = RunSingleOp("RegexReplace", {in, Tensor::StringScalar("\\d"), Tensor::StringScalar("$\\0")},
                           {{"replace_global", MakeAttr(false)}});
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  EXPECT_TRUE(TensorsEqual((*first)[0], Strings({"a$1b22c333", "none"})));
}

// BertTokenizer's control-character and accent stripping: \p{Cc}|\p{Cf} and
// \p{Mn} (U+0301 COMBINING ACUTE ACCENT is Mn; U+200B ZERO WIDTH SPACE is Cf).
TEST(RegexReplaceTest, UnicodeCategoriesAndBackslashRewrite) {
  auto out = RunSingleOp("StaticRegexReplace", {Strings({"e\xCC\x81t\xE2\x80\x8B" "a\tb", ""})},
                         {{"pattern", MakeAttr("\\p{Cc}|\\p{Cf}|\\p{Mn}")}, {"rewrite", MakeAttr("\\\\")}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Strings({"e\\t\\a\\b", ""})));
}

// A rewrite naming a group the pattern lacks makes RE2's Replace fail; as in
// TensorFlow the string comes back unchanged.
TEST(RegexReplaceTest, MissingGroupInRewriteLeavesTheStringUnchanged) {
  auto out = RunSingleOp("StaticRegexReplace", {Strings({"abc"})},
                         {{"pattern", MakeAttr("b")}, {"rewrite", MakeAttr("\\1")}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Strings({"abc"})));
}

}  // namespace
}  // namespace tfhost::ops
