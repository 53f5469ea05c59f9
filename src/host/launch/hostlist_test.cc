#include "host/launch/hostlist.h"

#include <gtest/gtest.h>

#include "base/test_status.h"

namespace tfhost::host::launch {
namespace {

using V = std::vector<std::string>;

V Expand(const std::string& s) {
  auto r = ExpandHostlist(s);
  EXPECT_TRUE(r.ok()) << s << ": " << r.status().ToString();
  return r.ok() ? *r : V{};
}

TEST(HostlistTest, PlainNamesAndLists) {
  EXPECT_EQ(Expand("node1"), V({"node1"}));
  EXPECT_EQ(Expand("a,b,c"), V({"a", "b", "c"}));
  EXPECT_EQ(Expand("gpu-node.example.org"), V({"gpu-node.example.org"}));
}

TEST(HostlistTest, RangesAndSinglesKeepZeroPadding) {
  EXPECT_EQ(Expand("gpu[01-03,07],cpu5"), V({"gpu01", "gpu02", "gpu03", "gpu07", "cpu5"}));
  EXPECT_EQ(Expand("n[08-11]"), V({"n08", "n09", "n10", "n11"}));
  EXPECT_EQ(Expand("n[8-11]"), V({"n8", "n9", "n10", "n11"}));
  EXPECT_EQ(Expand("n[098-101]"), V({"n098", "n099", "n100", "n101"}));
  EXPECT_EQ(Expand("n[0]"), V({"n0"}));
}

TEST(HostlistTest, SuffixAfterBracketIsKept) {
  EXPECT_EQ(Expand("node[1-2]-ib"), V({"node1-ib", "node2-ib"}));
  EXPECT_EQ(Expand("node[1-2]-ib,login"), V({"node1-ib", "node2-ib", "login"}));
}

TEST(HostlistTest, SeveralGroupsExpandToTheProductLeftOutermost) {
  EXPECT_EQ(Expand("rack[1-2]-n[01-02]"), V({"rack1-n01", "rack1-n02", "rack2-n01", "rack2-n02"}));
}

TEST(HostlistTest, BracketOnlyAndMixedCommas) {
  EXPECT_EQ(Expand("[1-3]"), V({"1", "2", "3"}));
  EXPECT_EQ(Expand("a[1,3],b[2-3],c"), V({"a1", "a3", "b2", "b3", "c"}));
}

TEST(HostlistTest, MalformedInputGivesClearErrors) {
  struct Case {
    const char* expr;
    const char* message;
  };
  for (const Case& c : std::vector<Case>{
           {"", "empty"},
           {"n[1-3", "never closed"},
           {"n1-3]", "without '['"},
           {"n[3-1]", "runs backwards"},
           {"n[a-b]", "must be a number"},
           {"n[1-]", "must be a number"},
           {"n[]", "empty brackets"},
           {"n[[1-2]]", "cannot nest"},
           {"a,,b", "empty entry"},
           {"a,", "empty entry"},
           {"n[0-999999999]", "more than"},
           {"a[0-999]b[0-999]", "more than"},
           {"bad name", "whitespace"},
       }) {
    auto r = ExpandHostlist(c.expr);
    TFHOST_ASSERT_ERROR(r, StatusCode::kInvalidArgument, "hostlist") << c.expr;
    EXPECT_NE(r.status().message().find(c.message), std::string::npos) << c.expr << ": " << r.status().message();
  }
}

TEST(HostlistTest, TasksPerNodeRepeats) {
  auto r = ExpandTasksPerNode("2(x3),1");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(*r, std::vector<int>({2, 2, 2, 1}));
  auto one = ExpandTasksPerNode("4");
  ASSERT_TRUE(one.ok());
  EXPECT_EQ(*one, std::vector<int>({4}));
  TFHOST_EXPECT_ERROR(ExpandTasksPerNode("2(x"), StatusCode::kInvalidArgument,
                      "tasks-per-node item '2(x': expected N(xM)");
  TFHOST_EXPECT_ERROR(ExpandTasksPerNode("x"), StatusCode::kInvalidArgument,
                      "tasks-per-node item 'x' in 'x': expected N or N(xM)");
  TFHOST_EXPECT_ERROR(ExpandTasksPerNode("2(x0)"), StatusCode::kInvalidArgument,
                      "tasks-per-node item '2(x0)' repeats 0 times");
  TFHOST_EXPECT_ERROR(ExpandTasksPerNode(""), StatusCode::kInvalidArgument, "tasks-per-node list is empty");
  TFHOST_EXPECT_ERROR(ExpandTasksPerNode("1(x9999999)"), StatusCode::kInvalidArgument,
                      "tasks-per-node item '1(x9999999)' in '1(x9999999)': expected N or N(xM)");
}

}  // namespace
}  // namespace tfhost::host::launch
