// Helpers the serving tests share: reading fixture files, JSON <-> protobuf,
// comparing a response with the part of it a fixture case spells out, and a
// runner that holds model runs until the test lets them go.
#pragma once

#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <chrono>
#include <condition_variable>
#include <fstream>
#include <iterator>
#include <mutex>
#include <string>

#include "serving/servable/servable.h"

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

// Holds every run until Open() (or until it has waited `max_wait`), then runs
// it directly; counts the runs that started waiting.
class GateRunner : public SignatureRunner {
 public:
  explicit GateRunner(std::chrono::milliseconds max_wait = std::chrono::seconds(60)) : max_wait_(max_wait) {}
  StatusOr<TensorMap> Run(const ServableHandle& servable, const runtime::Signature& signature, TensorMap inputs,
                          const std::vector<std::string>& output_filter) override {
    {
      std::unique_lock lock(mu_);
      ++waiting_;
      cv_.notify_all();
      cv_.wait_for(lock, max_wait_, [this] { return open_; });
    }
    return DirectRunner().Run(servable, signature, std::move(inputs), output_filter);
  }
  // True once `n` runs have started (within 20 s).
  bool WaitForWaiting(int n) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, std::chrono::seconds(20), [&] { return waiting_ >= n; });
  }
  int runs_started() {
    std::lock_guard lock(mu_);
    return waiting_;
  }
  void Open() {
    std::lock_guard lock(mu_);
    open_ = true;
    cv_.notify_all();
  }

 private:
  std::chrono::milliseconds max_wait_;
  std::mutex mu_;
  std::condition_variable cv_;
  int waiting_ = 0;
  bool open_ = false;
};

}  // namespace tfhost::serving::testing
