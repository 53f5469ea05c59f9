#include "cli/prediction_log_inspect.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/reflection.h>
#include <google/protobuf/util/json_util.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "tensorflow_serving/apis/prediction_log.pb.h"

namespace tfhost::cli {

namespace {

namespace pb = google::protobuf;
namespace ts = tensorflow::serving;

// True when `m` or a message inside it kept fields its type does not define
// (how an Example read as a PredictionLog shows itself).
bool HasUnknownFields(const pb::Message& m) {
  const pb::Reflection* r = m.GetReflection();
  if (!r->GetUnknownFields(m).empty()) return true;
  std::vector<const pb::FieldDescriptor*> fields;
  r->ListFields(m, &fields);
  for (const pb::FieldDescriptor* f : fields) {
    if (f->cpp_type() != pb::FieldDescriptor::CPPTYPE_MESSAGE) continue;
    if (f->is_repeated()) {
      for (int i = 0; i < r->FieldSize(m, f); ++i) {
        if (HasUnknownFields(r->GetRepeatedMessage(m, f, i))) return true;
      }
    } else if (HasUnknownFields(r->GetMessage(m, f))) {
      return true;
    }
  }
  return false;
}

const char* LogTypeName(const ts::PredictionLog& log) {
  switch (log.log_type_case()) {
    case ts::PredictionLog::kClassifyLog: return "classify_log";
    case ts::PredictionLog::kRegressLog: return "regress_log";
    case ts::PredictionLog::kPredictLog: return "predict_log";
    case ts::PredictionLog::kPredictStreamedLog: return "predict_streamed_log";
    case ts::PredictionLog::kMultiInferenceLog: return "multi_inference_log";
    case ts::PredictionLog::kSessionRunLog: return "session_run_log";
    default: return "none";
  }
}

// The request's inputs as "name dtype [shape]" (predict) or the input kind.
std::string InputsOf(const ts::PredictionLog& log) {
  if (log.has_predict_log()) {
    std::vector<std::string> names;
    for (const auto& [name, t] : log.predict_log().request().inputs()) {
      std::string shape;
      for (const auto& d : t.tensor_shape().dim()) shape += (shape.empty() ? "" : ",") + std::to_string(d.size());
      std::string dtype = tensorflow::DataType_Name(t.dtype());
      if (dtype.rfind("DT_", 0) == 0) dtype = dtype.substr(3);
      std::transform(dtype.begin(), dtype.end(), dtype.begin(), [](unsigned char c) { return std::tolower(c); });
      names.push_back(name + " " + dtype + " [" + shape + "]");
    }
    std::sort(names.begin(), names.end());
    std::string out;
    for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
    return out;
  }
  const ts::Input* input = log.has_classify_log()  ? &log.classify_log().request().input()
                           : log.has_regress_log() ? &log.regress_log().request().input()
                           : log.has_multi_inference_log() ? &log.multi_inference_log().request().input()
                                                           : nullptr;
  if (!input) return "";
  if (input->has_example_list()) return std::to_string(input->example_list().examples_size()) + " tf.Example(s)";
  if (input->has_example_list_with_context()) {
    return std::to_string(input->example_list_with_context().examples_size()) + " tf.Example(s) with context";
  }
  return "";
}

}  // namespace

bool LooksLikePredictionLog(std::string_view record) {
  ts::PredictionLog log;
  if (!log.ParseFromArray(record.data(), static_cast<int>(record.size()))) return false;
  return log.log_type_case() != ts::PredictionLog::LOG_TYPE_NOT_SET && !HasUnknownFields(log);
}

StatusOr<std::string> PredictionLogToJson(std::string_view record, int64_t index) {
  ts::PredictionLog log;
  if (!log.ParseFromArray(record.data(), static_cast<int>(record.size()))) {
    return DataLoss("record " + std::to_string(index) + " is not a tensorflow.serving.PredictionLog");
  }
  std::string json;
  pb::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  auto st = pb::util::MessageToJsonString(log, &json, options);
  if (!st.ok()) return Internal("record " + std::to_string(index) + ": " + std::string(st.message()));
  return json;
}

Status PredictionLogSummary::Add(std::string_view record, int64_t index) {
  ts::PredictionLog log;
  if (!log.ParseFromArray(record.data(), static_cast<int>(record.size())) ||
      log.log_type_case() == ts::PredictionLog::LOG_TYPE_NOT_SET) {
    return DataLoss("record " + std::to_string(index) +
                    " is not a tensorflow.serving.PredictionLog (the file's first record is one; expected every "
                    "record to be)");
  }
  ++records_;
  ++log_types_[LogTypeName(log)];
  const ts::ModelSpec& spec = log.log_metadata().model_spec();
  Row& row = models_[{spec.name(), spec.version().value(), spec.signature_name()}];
  if (row.records++ == 0) row.inputs = InputsOf(log);
  return OkStatus();
}

void PredictionLogSummary::Print(std::ostream& out) const {
  out << "log type              records\n";
  char line[512];
  for (const auto& [type, n] : log_types_) {
    std::snprintf(line, sizeof(line), "%-20s  %7lld\n", type.c_str(), static_cast<long long>(n));
    out << line;
  }
  size_t width = 5, sig_width = 9;
  for (const auto& [key, row] : models_) {
    width = std::max(width, std::get<0>(key).size());
    sig_width = std::max(sig_width, std::get<2>(key).size());
  }
  out << "\n";
  std::snprintf(line, sizeof(line), "%-*s  %7s  %-*s  %7s  %s\n", static_cast<int>(width), "model", "version",
                static_cast<int>(sig_width), "signature", "records", "inputs (first record)");
  out << line;
  for (const auto& [key, row] : models_) {
    std::snprintf(line, sizeof(line), "%-*s  %7lld  %-*s  %7lld  %s", static_cast<int>(width),
                  std::get<0>(key).c_str(), static_cast<long long>(std::get<1>(key)), static_cast<int>(sig_width),
                  std::get<2>(key).c_str(), static_cast<long long>(row.records), row.inputs.c_str());
    std::string text = line;
    text.erase(text.find_last_not_of(' ') + 1);
    out << text << "\n";
  }
}

std::string PredictionLogSummary::ToJson() const {
  rapidjson::StringBuffer buf;
  rapidjson::Writer<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("kind");
  w.String("prediction_log");
  w.Key("log_types");
  w.StartObject();
  for (const auto& [type, n] : log_types_) {
    w.Key(type.c_str());
    w.Int64(n);
  }
  w.EndObject();
  w.Key("models");
  w.StartArray();
  for (const auto& [key, row] : models_) {
    w.StartObject();
    w.Key("model");
    w.String(std::get<0>(key).c_str());
    w.Key("version");
    w.Int64(std::get<1>(key));
    w.Key("signature");
    w.String(std::get<2>(key).c_str());
    w.Key("records");
    w.Int64(row.records);
    w.Key("inputs");
    w.String(row.inputs.c_str());
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return buf.GetString();
}

}  // namespace tfhost::cli
