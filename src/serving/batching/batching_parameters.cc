#include "serving/batching/batching_parameters.h"

#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/wrappers.pb.h>

#include <memory>

#include <fstream>
#include <sstream>

#include "base/thread_pool.h"
#include "tensorflow_serving/servables/tensorflow/session_bundle_config.pb.h"

namespace tfhost::serving::batching {
namespace {

// Generous caps: the parameters file is operator-written, but a typo must not
// make us start a million threads or hold a gigabyte of config.
constexpr int64_t kMaxBatchThreads = 4096;
constexpr int64_t kMaxAllowedBatchSizes = 1024;
constexpr size_t kMaxFileBytes = 1 << 20;

class FirstErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column, const std::string& message) override {
    if (error_.empty()) {
      error_ = "line " + std::to_string(line + 1) + ", column " + std::to_string(column + 1) + ": " + message;
    }
  }
  const std::string& error() const { return error_; }

 private:
  std::string error_;
};

Status FieldError(const std::string& source, const std::string& field, const std::string& what) {
  return InvalidArgument(source + ": BatchingParameters." + field + " " + what);
}

std::string JoinSizes(const std::vector<int64_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + "]";
}

// TF Serving's newer BatchingParameters fields, added to the message our
// .proto describes. Only the text format is read, where names matter and
// numbers do not (these numbers are above ours and used nowhere else).
constexpr char kNewerFields[] = R"pb(
  field { name: "low_priority_max_batch_size" number: 100 label: LABEL_OPTIONAL type: TYPE_MESSAGE
          type_name: ".google.protobuf.Int64Value" }
  field { name: "low_priority_batch_timeout_micros" number: 101 label: LABEL_OPTIONAL type: TYPE_MESSAGE
          type_name: ".google.protobuf.Int64Value" }
  field { name: "low_priority_max_enqueued_batches" number: 102 label: LABEL_OPTIONAL type: TYPE_MESSAGE
          type_name: ".google.protobuf.Int64Value" }
  field { name: "low_priority_allowed_batch_sizes" number: 103 label: LABEL_REPEATED type: TYPE_INT64 }
  field { name: "mixed_priority_batching_policy" number: 104 label: LABEL_OPTIONAL type: TYPE_ENUM
          type_name: ".tensorflow.serving.BatchingParameters.MixedPriorityBatchingPolicy" }
  field { name: "batch_padding_policy" number: 105 label: LABEL_OPTIONAL type: TYPE_MESSAGE
          type_name: ".google.protobuf.StringValue" }
  enum_type {
    name: "MixedPriorityBatchingPolicy"
    value { name: "LOW_PRIORITY_PADDING_WITH_MAX_BATCH_SIZE" number: 0 }
    value { name: "LOW_PRIORITY_PADDING_WITH_NEXT_ALLOWED_BATCH_SIZE" number: 1 }
    value { name: "PRIORITY_ISOLATION" number: 2 }
    value { name: "PRIORITY_MERGE" number: 3 }
  }
)pb";

// The full BatchingParameters descriptor, built once in a pool of its own
// (same full name, so parser errors read as before); null if building failed.
const google::protobuf::Descriptor* FullBatchingParameters() {
  static const google::protobuf::Descriptor* descriptor = []() -> const google::protobuf::Descriptor* {
    auto* pool = new google::protobuf::DescriptorPool();  // lives as long as the process
    google::protobuf::FileDescriptorProto wrappers;
    google::protobuf::Int64Value::descriptor()->file()->CopyTo(&wrappers);
    if (pool->BuildFile(wrappers) == nullptr) return nullptr;
    google::protobuf::FileDescriptorProto file;
    file.set_name("tfhost/serving/batching_parameters_full.proto");
    file.set_package("tensorflow.serving");
    file.set_syntax("proto3");
    file.add_dependency(wrappers.name());
    google::protobuf::DescriptorProto* message = file.add_message_type();
    tensorflow::serving::BatchingParameters::descriptor()->CopyTo(message);
    google::protobuf::DescriptorProto extra;
    if (!google::protobuf::TextFormat::ParseFromString(kNewerFields, &extra)) return nullptr;
    for (const auto& field : extra.field()) {
      bool present = false;  // a later .proto may already have it
      for (const auto& have : message->field()) present |= have.name() == field.name();
      if (!present) *message->add_field() = field;
    }
    bool has_enum = false;
    for (const auto& e : message->enum_type()) has_enum |= e.name() == "MixedPriorityBatchingPolicy";
    if (!has_enum) *message->add_enum_type() = extra.enum_type(0);
    const google::protobuf::FileDescriptor* built = pool->BuildFile(file);
    return built ? built->FindMessageTypeByName("BatchingParameters") : nullptr;
  }();
  return descriptor;
}

// Reads an Int64Value field of the dynamic message; false when unset.
bool GetInt64Wrapper(const google::protobuf::Message& m, const char* name, int64_t* out) {
  const google::protobuf::FieldDescriptor* f = m.GetDescriptor()->FindFieldByName(name);
  const google::protobuf::Reflection* r = m.GetReflection();
  if (f == nullptr || !r->HasField(m, f)) return false;
  const google::protobuf::Message& wrapper = r->GetMessage(m, f);
  const google::protobuf::FieldDescriptor* value = wrapper.GetDescriptor()->FindFieldByName("value");
  *out = wrapper.GetReflection()->GetInt64(wrapper, value);
  return true;
}

Status CheckAllowedSizes(const std::vector<int64_t>& sizes, int64_t last, const std::string& source,
                         const std::string& field, const std::string& last_name) {
  if (static_cast<int64_t>(sizes.size()) > kMaxAllowedBatchSizes) {
    return FieldError(source, field,
                      "has " + std::to_string(sizes.size()) + " entries; at most " +
                          std::to_string(kMaxAllowedBatchSizes) + " are accepted");
  }
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] <= 0) {
      return FieldError(source, field,
                        "entries must be positive; entry " + std::to_string(i) + " is " + std::to_string(sizes[i]));
    }
    if (i > 0 && sizes[i] <= sizes[i - 1]) {
      return FieldError(source, field, "entries must be strictly increasing; got " + JoinSizes(sizes));
    }
  }
  if (!sizes.empty() && sizes.back() != last) {
    return FieldError(source, field, "must end with " + last_name + "; got " + JoinSizes(sizes));
  }
  return OkStatus();
}

}  // namespace

StatusOr<BatchingMode> ParseBatchingMode(const std::string& text) {
  if (text == "fixed" || text == "tfserving" || text.empty()) return BatchingMode::kFixed;
  if (text == "adaptive") return BatchingMode::kAdaptive;
  return InvalidArgument("--batching_mode must be 'fixed' or 'adaptive', got '" + text + "'");
}

const char* BatchingModeName(BatchingMode mode) {
  return mode == BatchingMode::kAdaptive ? "adaptive" : "fixed";
}

std::string BatchingConfig::DebugString() const {
  std::ostringstream s;
  s << "max_batch_size=" << max_batch_size << " batch_timeout_micros=" << batch_timeout_micros
    << " max_enqueued_batches=" << max_enqueued_batches << " num_batch_threads=" << num_batch_threads
    << " allowed_batch_sizes=" << JoinSizes(allowed_batch_sizes)
    << " pad_variable_length_inputs=" << (pad_variable_length_inputs ? "true" : "false")
    << " enable_large_batch_splitting=" << (enable_large_batch_splitting ? "true" : "false")
    << " max_execution_batch_size=" << ExecutionBatchSize() << " batch_padding_policy=" << batch_padding_policy;
  if (low_priority_max_batch_size > 0 || !low_priority_allowed_batch_sizes.empty() ||
      low_priority_batch_timeout_micros > 0 || low_priority_max_enqueued_batches > 0) {
    s << " low_priority_max_batch_size=" << low_priority_max_batch_size
      << " low_priority_batch_timeout_micros=" << low_priority_batch_timeout_micros
      << " low_priority_max_enqueued_batches=" << low_priority_max_enqueued_batches
      << " low_priority_allowed_batch_sizes=" << JoinSizes(low_priority_allowed_batch_sizes)
      << " mixed_priority_batching_policy=" << mixed_priority_batching_policy << " (unused: requests carry no priority)";
  }
  s << " mode=" << BatchingModeName(mode);
  if (mode == BatchingMode::kAdaptive) s << " target_latency_ms=" << target_latency_ms;
  return s.str();
}

BatchingConfig DefaultBatchingConfig() {
  BatchingConfig config;
  config.num_batch_threads = HardwareConcurrency();
  return config;
}

Status ValidateBatchingConfig(const BatchingConfig& c, const std::string& source) {
  if (c.max_batch_size <= 0) {
    return FieldError(source, "max_batch_size", "must be positive, got " + std::to_string(c.max_batch_size));
  }
  if (c.batch_timeout_micros < 0) {
    return FieldError(source, "batch_timeout_micros",
                      "must be non-negative, got " + std::to_string(c.batch_timeout_micros));
  }
  if (c.max_enqueued_batches < 0) {
    return FieldError(source, "max_enqueued_batches",
                      "must be non-negative, got " + std::to_string(c.max_enqueued_batches));
  }
  if (c.num_batch_threads < 1 || c.num_batch_threads > kMaxBatchThreads) {
    return FieldError(source, "num_batch_threads",
                      "must be between 1 and " + std::to_string(kMaxBatchThreads) + ", got " +
                          std::to_string(c.num_batch_threads));
  }
  if (c.enable_large_batch_splitting && c.max_execution_batch_size != 0) {
    if (c.max_execution_batch_size < 0 || c.max_execution_batch_size > c.max_batch_size) {
      return FieldError(source, "max_execution_batch_size",
                        "must be between 1 and max_batch_size (" + std::to_string(c.max_batch_size) +
                            ") when enable_large_batch_splitting is on, got " +
                            std::to_string(c.max_execution_batch_size));
    }
  }
  if (static_cast<int64_t>(c.allowed_batch_sizes.size()) > kMaxAllowedBatchSizes) {
    return FieldError(source, "allowed_batch_sizes",
                      "has " + std::to_string(c.allowed_batch_sizes.size()) + " entries; at most " +
                          std::to_string(kMaxAllowedBatchSizes) + " are accepted");
  }
  for (size_t i = 0; i < c.allowed_batch_sizes.size(); ++i) {
    const int64_t size = c.allowed_batch_sizes[i];
    if (size <= 0) {
      return FieldError(source, "allowed_batch_sizes",
                        "entries must be positive; entry " + std::to_string(i) + " is " + std::to_string(size));
    }
    if (i > 0 && size <= c.allowed_batch_sizes[i - 1]) {
      return FieldError(source, "allowed_batch_sizes",
                        "entries must be strictly increasing; got " + JoinSizes(c.allowed_batch_sizes));
    }
  }
  if (!c.allowed_batch_sizes.empty() && c.allowed_batch_sizes.back() != c.ExecutionBatchSize()) {
    const std::string limit = c.enable_large_batch_splitting
                                  ? "max_execution_batch_size (" + std::to_string(c.ExecutionBatchSize()) +
                                        ", since enable_large_batch_splitting is on)"
                                  : "max_batch_size (" + std::to_string(c.max_batch_size) + ")";
    return FieldError(source, "allowed_batch_sizes",
                      "must end with " + limit + "; got " + JoinSizes(c.allowed_batch_sizes));
  }
  if (c.low_priority_max_batch_size < 0) {
    return FieldError(source, "low_priority_max_batch_size",
                      "must be positive, got " + std::to_string(c.low_priority_max_batch_size));
  }
  if (c.low_priority_batch_timeout_micros < 0) {
    return FieldError(source, "low_priority_batch_timeout_micros",
                      "must be non-negative, got " + std::to_string(c.low_priority_batch_timeout_micros));
  }
  if (c.low_priority_max_enqueued_batches < 0) {
    return FieldError(source, "low_priority_max_enqueued_batches",
                      "must be non-negative, got " + std::to_string(c.low_priority_max_enqueued_batches));
  }
  if (!c.low_priority_allowed_batch_sizes.empty()) {
    const int64_t low_max = c.low_priority_max_batch_size > 0 ? c.low_priority_max_batch_size : c.max_batch_size;
    TFHOST_RETURN_IF_ERROR(CheckAllowedSizes(
        c.low_priority_allowed_batch_sizes, std::min(low_max, c.ExecutionBatchSize()), source,
        "low_priority_allowed_batch_sizes",
        c.low_priority_max_batch_size > 0 ? "low_priority_max_batch_size (" + std::to_string(low_max) + ")"
                                          : "max_batch_size (" + std::to_string(c.max_batch_size) + ")"));
  }
  if (c.batch_padding_policy == "BATCH_DOWN") {
    return FieldError(source, "batch_padding_policy",
                      "\"BATCH_DOWN\" is not supported by tfhost yet (requests are placed into a batch when they "
                      "arrive, so a formed batch cannot give rows back to the queue); use \"PAD_UP\" (the default)");
  }
  if (c.batch_padding_policy == "MINIMIZE_TPU_COST_PER_REQUEST") {
    return FieldError(source, "batch_padding_policy",
                      "\"MINIMIZE_TPU_COST_PER_REQUEST\" chooses between padding and splitting from TPU cost "
                      "measurements, which a CPU server does not have; use \"PAD_UP\" (the default)");
  }
  if (c.batch_padding_policy != "PAD_UP") {
    return FieldError(source, "batch_padding_policy",
                      "must be \"PAD_UP\", \"BATCH_DOWN\" or \"MINIMIZE_TPU_COST_PER_REQUEST\" (only PAD_UP is "
                      "supported), got \"" + c.batch_padding_policy + "\"");
  }
  if (c.mode == BatchingMode::kAdaptive && !(c.target_latency_ms > 0)) {
    return InvalidArgument(source + ": --batching_mode=adaptive needs --target_latency_ms > 0, got " +
                           std::to_string(c.target_latency_ms));
  }
  return OkStatus();
}

StatusOr<BatchingConfig> ParseBatchingParameters(const std::string& text, const std::string& source) {
  const google::protobuf::Descriptor* full = FullBatchingParameters();
  if (full == nullptr) return Internal("cannot build the BatchingParameters descriptor");
  google::protobuf::DynamicMessageFactory factory;
  std::unique_ptr<google::protobuf::Message> dynamic(factory.GetPrototype(full)->New());
  FirstErrorCollector errors;
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(text, dynamic.get())) {
    return InvalidArgument(source + ": not a valid BatchingParameters text proto: " +
                           (errors.error().empty() ? "malformed text" : errors.error()) +
                           " (fields: max_batch_size, batch_timeout_micros, max_enqueued_batches, "
                           "num_batch_threads, thread_pool_name, allowed_batch_sizes, "
                           "pad_variable_length_inputs, enable_large_batch_splitting, "
                           "max_execution_batch_size, low_priority_max_batch_size, "
                           "low_priority_batch_timeout_micros, low_priority_max_enqueued_batches, "
                           "low_priority_allowed_batch_sizes, mixed_priority_batching_policy, batch_padding_policy)");
  }
  // The fields our .proto knows keep their numbers, so they read back into
  // the generated message; the newer ones are read by reflection.
  tensorflow::serving::BatchingParameters proto;
  if (!proto.ParseFromString(dynamic->SerializeAsString())) {
    return Internal(source + ": BatchingParameters did not convert");
  }
  BatchingConfig c = DefaultBatchingConfig();
  GetInt64Wrapper(*dynamic, "low_priority_max_batch_size", &c.low_priority_max_batch_size);
  if (int64_t v = 0; GetInt64Wrapper(*dynamic, "low_priority_max_batch_size", &v) && v <= 0) {
    return FieldError(source, "low_priority_max_batch_size", "must be positive, got " + std::to_string(v));
  }
  GetInt64Wrapper(*dynamic, "low_priority_batch_timeout_micros", &c.low_priority_batch_timeout_micros);
  GetInt64Wrapper(*dynamic, "low_priority_max_enqueued_batches", &c.low_priority_max_enqueued_batches);
  {
    const google::protobuf::Reflection* r = dynamic->GetReflection();
    const google::protobuf::FieldDescriptor* sizes = full->FindFieldByName("low_priority_allowed_batch_sizes");
    for (int i = 0; sizes != nullptr && i < r->FieldSize(*dynamic, sizes); ++i) {
      c.low_priority_allowed_batch_sizes.push_back(r->GetRepeatedInt64(*dynamic, sizes, i));
    }
    if (const auto* policy = full->FindFieldByName("mixed_priority_batching_policy")) {
      c.mixed_priority_batching_policy = r->GetEnum(*dynamic, policy)->name();
    }
    if (const auto* padding = full->FindFieldByName("batch_padding_policy"); padding && r->HasField(*dynamic, padding)) {
      const google::protobuf::Message& wrapper = r->GetMessage(*dynamic, padding);
      c.batch_padding_policy =
          wrapper.GetReflection()->GetString(wrapper, wrapper.GetDescriptor()->FindFieldByName("value"));
    }
  }
  if (proto.has_max_batch_size()) c.max_batch_size = proto.max_batch_size().value();
  if (proto.has_batch_timeout_micros()) c.batch_timeout_micros = proto.batch_timeout_micros().value();
  if (proto.has_max_enqueued_batches()) c.max_enqueued_batches = proto.max_enqueued_batches().value();
  if (proto.has_num_batch_threads()) c.num_batch_threads = proto.num_batch_threads().value();
  if (proto.has_thread_pool_name()) c.thread_pool_name = proto.thread_pool_name().value();
  c.allowed_batch_sizes.assign(proto.allowed_batch_sizes().begin(), proto.allowed_batch_sizes().end());
  c.pad_variable_length_inputs = proto.pad_variable_length_inputs();
  if (proto.has_enable_large_batch_splitting()) {
    c.enable_large_batch_splitting = proto.enable_large_batch_splitting().value();
  }
  if (proto.has_max_execution_batch_size()) {
    c.max_execution_batch_size = proto.max_execution_batch_size().value();
    if (c.max_execution_batch_size <= 0) {
      return FieldError(source, "max_execution_batch_size",
                        "must be positive, got " + std::to_string(c.max_execution_batch_size));
    }
  }
  TFHOST_RETURN_IF_ERROR(ValidateBatchingConfig(c, source));
  return c;
}

StatusOr<BatchingConfig> LoadBatchingParametersFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot open batching parameters file " + path);
  std::string text;
  char buf[8192];
  while (in.read(buf, sizeof(buf)) || in.gcount() > 0) {
    text.append(buf, static_cast<size_t>(in.gcount()));
    if (text.size() > kMaxFileBytes) {
      return InvalidArgument(path + ": batching parameters file is larger than " +
                             std::to_string(kMaxFileBytes) + " bytes; is this the right file?");
    }
  }
  return ParseBatchingParameters(text, path);
}

int64_t RoundUpToAllowedBatchSize(const std::vector<int64_t>& allowed, int64_t rows) {
  for (int64_t size : allowed) {
    if (size >= rows) return size;
  }
  return rows;
}

}  // namespace tfhost::serving::batching
