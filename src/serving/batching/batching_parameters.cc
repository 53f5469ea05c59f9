#include "serving/batching/batching_parameters.h"

#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

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
    << " max_execution_batch_size=" << ExecutionBatchSize() << " mode=" << BatchingModeName(mode);
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
  if (c.mode == BatchingMode::kAdaptive && !(c.target_latency_ms > 0)) {
    return InvalidArgument(source + ": --batching_mode=adaptive needs --target_latency_ms > 0, got " +
                           std::to_string(c.target_latency_ms));
  }
  return OkStatus();
}

StatusOr<BatchingConfig> ParseBatchingParameters(const std::string& text, const std::string& source) {
  tensorflow::serving::BatchingParameters proto;
  FirstErrorCollector errors;
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(text, &proto)) {
    return InvalidArgument(source + ": not a valid BatchingParameters text proto: " +
                           (errors.error().empty() ? "malformed text" : errors.error()) +
                           " (fields: max_batch_size, batch_timeout_micros, max_enqueued_batches, "
                           "num_batch_threads, thread_pool_name, allowed_batch_sizes, "
                           "pad_variable_length_inputs, enable_large_batch_splitting, "
                           "max_execution_batch_size)");
  }
  BatchingConfig c = DefaultBatchingConfig();
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
