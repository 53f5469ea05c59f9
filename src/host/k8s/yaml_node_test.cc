#include "host/k8s/yaml_node.h"

#include <gtest/gtest.h>

namespace tfhost::host::k8s {
namespace {

TEST(YamlScalarTest, OrdinaryWordsFlagsAndPathsStayPlain) {
  EXPECT_EQ(YamlScalar("tfhost"), "tfhost");
  EXPECT_EQ(YamlScalar("--port=8500"), "--port=8500");
  EXPECT_EQ(YamlScalar("/monitoring/prometheus/metrics"), "/monitoring/prometheus/metrics");
  EXPECT_EQ(YamlScalar("nvidia.com/gpu"), "nvidia.com/gpu");
  EXPECT_EQ(YamlScalar("2Gi"), "\"2Gi\"");  // starts with a digit: quoted
}

TEST(YamlScalarTest, WordsReadAsBooleansOrNullAreQuoted) {
  for (const char* w : {"true", "False", "yes", "NO", "on", "off", "y", "n", "null", "~"}) {
    EXPECT_EQ(YamlScalar(w), std::string("\"") + w + "\"") << w;
  }
}

TEST(YamlScalarTest, TextReadAsNumbersDatesOrTimesIsQuoted) {
  EXPECT_EQ(YamlScalar("8501"), "\"8501\"");
  EXPECT_EQ(YamlScalar("8:30"), "\"8:30\"");  // sexagesimal integer in YAML 1.1
  EXPECT_EQ(YamlScalar("-1"), "\"-1\"");
  EXPECT_EQ(YamlScalar("+.5"), "\"+.5\"");
  EXPECT_EQ(YamlScalar(".inf"), "\".inf\"");
  EXPECT_EQ(YamlScalar("2026-12-06"), "\"2026-12-06\"");
}

TEST(YamlScalarTest, IndicatorsCommentsAndMappingsAreQuoted) {
  EXPECT_EQ(YamlScalar(""), "\"\"");
  EXPECT_EQ(YamlScalar("- x"), "\"- x\"");
  EXPECT_EQ(YamlScalar("a: b"), "\"a: b\"");
  EXPECT_EQ(YamlScalar("a #b"), "\"a #b\"");
  EXPECT_EQ(YamlScalar("key:"), "\"key:\"");
  EXPECT_EQ(YamlScalar("*alias"), "\"*alias\"");
  EXPECT_EQ(YamlScalar("{x}"), "\"{x}\"");
  EXPECT_EQ(YamlScalar("<<"), "\"<<\"");
  EXPECT_EQ(YamlScalar(" lead"), "\" lead\"");
}

TEST(YamlScalarTest, ControlCharactersAndUnicodeBreaksAreEscaped) {
  EXPECT_EQ(YamlScalar("a\"b\\c"), "a\"b\\c");  // plain: quotes inside are literal
  EXPECT_EQ(YamlScalar("\"q\""), "\"\\\"q\\\"\"");
  EXPECT_EQ(YamlScalar("a\tb"), "\"a\\tb\"");
  EXPECT_EQ(YamlScalar(std::string("a\x01", 2)), "\"a\\u0001\"");
  EXPECT_EQ(YamlScalar("a\xE2\x80\xA8"
                       "b"),
            "\"a\\u2028b\"");
  EXPECT_EQ(YamlScalar("caf\xC3\xA9"), "caf\xC3\xA9");  // other UTF-8 is printable
}

TEST(ToYamlTest, NestedMapsAndListsRenderInBlockStyle) {
  YamlNode root = YamlNode::Map();
  root.Set("apiVersion", "v1");
  YamlNode& spec = root.Set("spec", YamlNode::Map());
  YamlNode& ports = spec.Set("ports", YamlNode::List());
  YamlNode& http = ports.Add(YamlNode::Map());
  http.Set("name", "http");
  http.Set("port", 8501);
  ports.Add(YamlNode::Str("grpc"));
  spec.Set("empty", YamlNode::Map());
  spec.Set("none", YamlNode::List());
  spec.Set("on", YamlNode::Bool(true));
  YamlNode& nested = spec.Set("nested", YamlNode::List());
  nested.Add(YamlNode::List()).Add(YamlNode::Int(-3));
  EXPECT_EQ(ToYaml(root),
            "apiVersion: v1\n"
            "spec:\n"
            "  ports:\n"
            "    - name: http\n"
            "      port: 8501\n"
            "    - grpc\n"
            "  empty: {}\n"
            "  none: []\n"
            "  \"on\": true\n"
            "  nested:\n"
            "    -\n"
            "      - -3\n");
}

TEST(ToYamlTest, MultiLineTextBecomesALiteralBlockKeepingItsTrailingNewlines) {
  YamlNode root = YamlNode::Map();
  root.Set("one", "model_config_list {\n  config { name: \"a\" }\n}\n");
  root.Set("none", "a\n\nb");
  root.Set("two", "x\n\n");
  EXPECT_EQ(ToYaml(root),
            "one: |\n"
            "  model_config_list {\n"
            "    config { name: \"a\" }\n"
            "  }\n"
            "none: |-\n"
            "  a\n"
            "\n"
            "  b\n"
            "two: |+\n"
            "  x\n"
            "\n");
}

TEST(ToYamlTest, MultiLineTextStartingWithSpaceIsDoubleQuoted) {
  YamlNode root = YamlNode::Map();
  root.Set("t", "  indented\nnext\n");
  EXPECT_EQ(ToYaml(root), "t: \"  indented\\nnext\\n\"\n");
}

TEST(YamlNodeTest, SetReplacesAKeyInPlaceAndPathWalksMapsAndLists) {
  YamlNode root = YamlNode::Map();
  root.Set("a", 1);
  root.Set("b", YamlNode::List()).Add(YamlNode::Map()).Set("prometheus.io/path", "/m");
  root.Set("a", 2);
  EXPECT_EQ(root.keys(), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(root.Find("a")->int_value(), 2);
  ASSERT_NE(root.Path({"b", "0", "prometheus.io/path"}), nullptr);
  EXPECT_EQ(root.Path({"b", "0", "prometheus.io/path"})->text(), "/m");
  EXPECT_EQ(root.Path({"b", "1"}), nullptr);
  EXPECT_EQ(root.Path({"b", "x"}), nullptr);
  EXPECT_EQ(root.Path({"a", "b"}), nullptr);
}

}  // namespace
}  // namespace tfhost::host::k8s
