#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "ops/string/string_ops.h"

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
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("invalid regex pattern"), std::string::npos);
}

TEST(RegexFullMatchTest, OverlongInputIsRefusedInsteadOfOverflowingTheStack) {
  auto out = RunSingleOp("StaticRegexFullMatch", {Strings({std::string(1 << 20, 'a')})},
                         {{"pattern", MakeAttr("(a|b)*")}});
  ASSERT_FALSE(out.ok());
  EXPECT_NE(out.status().message().find("limited"), std::string::npos);
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

TEST(RegexReplaceTest, TranslatesRe2RewriteSyntax) {
  EXPECT_EQ(string_internal::TranslateRe2Rewrite("\\0-\\2"), "$&-$2");
  EXPECT_EQ(string_internal::TranslateRe2Rewrite("cost $5 \\\\"), "cost $$5 \\");
}

}  // namespace
}  // namespace tfhost::ops
