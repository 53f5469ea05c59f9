// Test helper: a Chrome trace-event JSON text (chrome_json.h) parsed back
// into its complete ("X") slices, so that tests check what a file says
// rather than what the recorder held. Needs rapidjson (tfhost_rapidjson).
#pragma once

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace tfhost::trace::testing {

struct ParsedSlice {
  std::string name, cat;
  int64_t tid = 0;
  double ts = 0, dur = 0;  // microseconds
  // Each arg as text: strings unquoted, other values as JSON.
  std::map<std::string, std::string> args;

  double end() const { return ts + dur; }
  // With a nanosecond of slack for the decimal microseconds' rounding.
  bool Encloses(const ParsedSlice& other) const { return ts <= other.ts + 1e-3 && other.end() <= end() + 1e-3; }
  std::string Arg(const std::string& key) const {
    auto it = args.find(key);
    return it == args.end() ? std::string() : it->second;
  }
};

struct ParsedTrace {
  bool ok = false;  // the text is JSON with a traceEvents array
  std::vector<ParsedSlice> slices;
  std::map<int64_t, std::string> thread_names;

  std::vector<const ParsedSlice*> WithCategory(const std::string& cat) const {
    std::vector<const ParsedSlice*> out;
    for (const ParsedSlice& s : slices) {
      if (s.cat == cat) out.push_back(&s);
    }
    return out;
  }
};

inline ParsedTrace ParseChromeJson(const std::string& json) {
  ParsedTrace out;
  rapidjson::Document doc;
  if (doc.Parse(json.c_str()).HasParseError() || !doc.IsObject() || !doc.HasMember("traceEvents") ||
      !doc["traceEvents"].IsArray()) {
    return out;
  }
  for (const auto& e : doc["traceEvents"].GetArray()) {
    const std::string ph = e["ph"].GetString();
    if (ph == "M" && std::string(e["name"].GetString()) == "thread_name") {
      out.thread_names[e["tid"].GetInt64()] = e["args"]["name"].GetString();
    }
    if (ph != "X") continue;
    ParsedSlice s;
    s.name = e["name"].GetString();
    s.cat = e["cat"].GetString();
    s.tid = e["tid"].GetInt64();
    s.ts = e["ts"].GetDouble();
    s.dur = e["dur"].GetDouble();
    for (const auto& m : e["args"].GetObject()) {
      if (m.value.IsString()) {
        s.args[m.name.GetString()] = m.value.GetString();
      } else {
        rapidjson::StringBuffer buffer;
        rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
        m.value.Accept(w);
        s.args[m.name.GetString()] = buffer.GetString();
      }
    }
    out.slices.push_back(std::move(s));
  }
  out.ok = true;
  return out;
}

}  // namespace tfhost::trace::testing
