// Helpers the serving tests share: reading fixture files, JSON <-> protobuf,
// and comparing a response with the part of it a fixture case spells out.
#pragma once

#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <fstream>
#include <iterator>
#include <string>

namespace tfhost::serving::testing {

inline std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline std::string ToJson(const rapidjson::Value& v) {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  v.Accept(w);
  return buf.GetString();
}

template <typename M>
M FromJson(const std::string& json) {
  M m;
  auto s = google::protobuf::util::JsonStringToMessage(json, &m);
  EXPECT_TRUE(s.ok()) << s.ToString() << " in " << json;
  return m;
}

// Fields the expectation leaves out are not compared; floats approximately.
inline ::testing::AssertionResult PartiallyEquals(const google::protobuf::Message& expected,
                                                  const google::protobuf::Message& actual) {
  using google::protobuf::util::MessageDifferencer;
  MessageDifferencer d;
  d.set_scope(MessageDifferencer::PARTIAL);
  d.set_float_comparison(MessageDifferencer::APPROXIMATE);
  std::string report;
  d.ReportDifferencesToString(&report);
  if (d.Compare(expected, actual)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << report << "\nexpected: " << expected.ShortDebugString()
                                       << "\nactual: " << actual.ShortDebugString();
}

}  // namespace tfhost::serving::testing
