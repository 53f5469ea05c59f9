#include "cli/flags.h"
#include "base/test_status.h"

#include <gtest/gtest.h>

namespace tfhost::cli {
namespace {

struct Parsed {
  std::string path, tag = "serve";
  int threads = 0;
  bool json = false;
  std::vector<std::string> inputs;
};

FlagParser MakeParser(Parsed* p) {
  FlagParser parser("tfhost x PATH [flags]", "Test command.");
  parser.AddPositional("PATH", &p->path, "model");
  parser.AddString("tag", &p->tag, "T", "tag");
  parser.AddInt("threads", &p->threads, "N", "threads");
  parser.AddBool("json", &p->json, "json");
  parser.AddRepeated("input", &p->inputs, "KEY=V", "inputs");
  return parser;
}

TEST(FlagsTest, AcceptsEqualsAndSpaceSeparatedValues) {
  Parsed p;
  FlagParser parser = MakeParser(&p);
  Status st = parser.Parse({"--tag=train", "model_dir", "--threads", "4", "--json", "--input", "a=1",
                            "--input=b=[2]"});
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_EQ(p.path, "model_dir");
  EXPECT_EQ(p.tag, "train");
  EXPECT_EQ(p.threads, 4);
  EXPECT_TRUE(p.json);
  EXPECT_EQ(p.inputs, (std::vector<std::string>{"a=1", "b=[2]"}));
}

TEST(FlagsTest, TakesValueIsFalseForBoolsAndUnknownFlags) {
  Parsed p;
  FlagParser parser = MakeParser(&p);
  EXPECT_TRUE(parser.TakesValue("tag"));
  EXPECT_TRUE(parser.TakesValue("threads"));
  EXPECT_TRUE(parser.TakesValue("input"));
  EXPECT_FALSE(parser.TakesValue("json"));
  EXPECT_FALSE(parser.TakesValue("nope"));
}

TEST(FlagsTest, UnknownFlagSuggestsClosestName) {
  Parsed p;
  FlagParser parser = MakeParser(&p);
  Status st = parser.Parse({"m", "--thread=2"});
  TFHOST_ASSERT_ERROR(st, StatusCode::kInvalidArgument, "unknown flag '--thread=2'; did you mean '--threads'?");
  Parsed q;
  FlagParser parser2 = MakeParser(&q);
  st = parser2.Parse({"m", "--inptu", "x=1"});
  EXPECT_NE(st.message().find("did you mean '--input'"), std::string::npos) << st.message();
  Parsed r;
  FlagParser parser3 = MakeParser(&r);
  st = parser3.Parse({"m", "--completely-different"});
  TFHOST_ASSERT_ERROR(st, StatusCode::kInvalidArgument, "unknown flag '--completely-different'");
  EXPECT_EQ(st.message().find("did you mean"), std::string::npos) << st.message();
}

TEST(FlagsTest, MissingValuesBadIntegersAndPositionalsAreErrors) {
  {
    Parsed p;
    FlagParser parser = MakeParser(&p);
    EXPECT_NE(parser.Parse({"m", "--tag"}).message().find("needs a value"), std::string::npos);
  }
  {
    Parsed p;
    FlagParser parser = MakeParser(&p);
    EXPECT_NE(parser.Parse({"m", "--threads=four"}).message().find("expects an integer"), std::string::npos);
  }
  {
    Parsed p;
    FlagParser parser = MakeParser(&p);
    EXPECT_NE(parser.Parse({}).message().find("missing argument PATH"), std::string::npos);
  }
  {
    Parsed p;
    FlagParser parser = MakeParser(&p);
    EXPECT_NE(parser.Parse({"a", "b"}).message().find("unexpected argument 'b'"), std::string::npos);
  }
}

TEST(FlagsTest, HelpStopsParsingAndListsEveryFlag) {
  Parsed p;
  FlagParser parser = MakeParser(&p);
  ASSERT_TRUE(parser.Parse({"--help", "--bogus"}).ok());
  EXPECT_TRUE(parser.help_requested());
  std::string help = parser.Help();
  for (const char* s : {"Usage: tfhost x PATH", "--tag T", "--threads N", "--json", "--input KEY=V", "PATH"}) {
    EXPECT_NE(help.find(s), std::string::npos) << s << "\n" << help;
  }
}

TEST(FlagsTest, DoubleDashEndsFlags) {
  Parsed p;
  FlagParser parser = MakeParser(&p);
  ASSERT_TRUE(parser.Parse({"--", "--weird-dir-name"}).ok());
  EXPECT_EQ(p.path, "--weird-dir-name");
}

TEST(FlagsTest, IntListParsesAndChecksRange) {
  auto v = ParseIntList("1,8,32", "batch", 1, 100);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(*v, (std::vector<int>{1, 8, 32}));
  TFHOST_EXPECT_ERROR(ParseIntList("1,,2", "batch", 1, 100), StatusCode::kInvalidArgument,
                      "--batch expects an integer, got ''");
  TFHOST_EXPECT_ERROR(ParseIntList("0", "batch", 1, 100), StatusCode::kInvalidArgument,
                      "--batch values must be between 1 and 100, got 0");
  TFHOST_EXPECT_ERROR(ParseIntList("", "batch", 1, 100), StatusCode::kInvalidArgument,
                      "--batch expects an integer, got ''");
}

TEST(FlagsTest, EditDistanceCountsSingleEdits) {
  EXPECT_EQ(EditDistance("threads", "thread"), 1);
  EXPECT_EQ(EditDistance("input", "inptu"), 2);
  EXPECT_EQ(EditDistance("", "abc"), 3);
}

}  // namespace
}  // namespace tfhost::cli
