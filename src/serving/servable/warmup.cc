#include "serving/servable/warmup.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "base/crc32c.h"

namespace tfhost::serving {

namespace fs = std::filesystem;
namespace ts = tensorflow::serving;

namespace {

uint64_t DecodeLE64(const char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}
uint32_t DecodeLE32(const char* p) {
  uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}
void EncodeLE64(uint64_t v, char* p) {
  for (int i = 0; i < 8; ++i) p[i] = static_cast<char>((v >> (8 * i)) & 0xff);
}
void EncodeLE32(uint32_t v, char* p) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<char>((v >> (8 * i)) & 0xff);
}

}  // namespace

StatusOr<std::vector<std::string>> ReadTfRecordFile(const std::string& path, int max_records,
                                                    uint64_t max_record_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot open TFRecord file " + path);
  std::error_code ec;
  const uint64_t file_size = fs::file_size(path, ec);
  if (ec) return NotFound("cannot stat TFRecord file " + path + ": " + ec.message());
  std::vector<std::string> records;
  uint64_t offset = 0;
  for (int index = 0;; ++index) {
    char header[12];
    in.read(header, sizeof(header));
    std::streamsize got = in.gcount();
    if (got == 0) break;  // clean end at a record boundary
    auto where = [&] {
      return path + ": record " + std::to_string(index) + " at offset " + std::to_string(offset);
    };
    if (got != sizeof(header)) return DataLoss(where() + ": truncated record (header has " + std::to_string(got) +
                                               " of 12 bytes)");
    if (crc32c::Unmask(DecodeLE32(header + 8)) != crc32c::Value(header, 8)) {
      return DataLoss(where() + ": corrupted record (length CRC mismatch); expected a TFRecord file "
                                "(uncompressed, docs/formats.md §4)");
    }
    const uint64_t length = DecodeLE64(header);
    if (length > max_record_bytes || length > file_size - std::min(file_size, offset + 12)) {
      return DataLoss(where() + ": truncated record (declares " + std::to_string(length) + " bytes but the file has " +
                      std::to_string(file_size - std::min(file_size, offset + 12)) + " left)");
    }
    if (static_cast<int>(records.size()) >= max_records) {
      return InvalidArgument("Number of warmup records exceeds the maximum (" + std::to_string(max_records) +
                             ") at " + path);
    }
    std::string data(length, '\0');
    in.read(data.data(), static_cast<std::streamsize>(length));
    char footer[4];
    in.read(footer, sizeof(footer));
    if (in.gcount() != sizeof(footer) || !in) {
      return DataLoss(where() + ": truncated record (data or footer cut short)");
    }
    if (crc32c::Unmask(DecodeLE32(footer)) != crc32c::Value(data.data(), data.size())) {
      return DataLoss(where() + ": corrupted record (data CRC mismatch)");
    }
    records.push_back(std::move(data));
    offset += 16 + length;
  }
  return records;
}

Status WriteTfRecordFile(const std::string& path, const std::vector<std::string>& records) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) return Internal("cannot create " + path);
  for (const auto& r : records) {
    char header[12];
    EncodeLE64(r.size(), header);
    EncodeLE32(crc32c::Mask(crc32c::Value(header, 8)), header + 8);
    char footer[4];
    EncodeLE32(crc32c::Mask(crc32c::Value(r.data(), r.size())), footer);
    out.write(header, sizeof(header));
    out.write(r.data(), static_cast<std::streamsize>(r.size()));
    out.write(footer, sizeof(footer));
  }
  out.close();
  if (!out) return Internal("error writing " + path);
  return OkStatus();
}

StatusOr<WarmupResult> RunWarmup(const ServableHandle& servable, SignatureRunner& runner,
                                 const InferenceOptions& options, int num_request_iterations) {
  const int iterations = std::max(1, num_request_iterations);
  WarmupResult result;
  const std::string path = (fs::path(servable->path) / kWarmupFileRelativePath).string();
  std::error_code ec;
  if (!fs::exists(path, ec)) return result;
  result.file_found = true;
  auto records = ReadTfRecordFile(path, kMaxWarmupRecords);
  if (!records.ok()) {
    return Status(records.status().code(), "warm-up of model \"" + servable->name + "\" version " +
                                               std::to_string(servable->version) + ": " + records.status().message());
  }
  for (size_t i = 0; i < records->size(); ++i) {
    int iteration = 0;
    auto fail = [&](const Status& s, const char* kind) {
      std::string at = iterations > 1 ? " (iteration " + std::to_string(iteration + 1) + " of " +
                                            std::to_string(iterations) + ")"
                                      : "";
      return Status(s.code(), "warm-up of model \"" + servable->name + "\" version " +
                                  std::to_string(servable->version) + " failed at record " + std::to_string(i) + at +
                                  " of " + path + " (" + kind + "): " + s.message());
    };
    ts::PredictionLog log;
    if (!log.ParseFromString((*records)[i])) {
      return fail(DataLoss("not a tensorflow.serving.PredictionLog"), "parse");
    }
    for (; iteration < iterations; ++iteration) {
      Status s;
      const char* kind = "";
      switch (log.log_type_case()) {
        case ts::PredictionLog::kPredictLog: {
          kind = "predict_log";
          ts::PredictResponse response;
          s = RunPredict(servable, runner, options, log.predict_log().request(), &response);
          break;
        }
        case ts::PredictionLog::kClassifyLog: {
          kind = "classify_log";
          ts::ClassificationResponse response;
          s = RunClassify(servable, runner, options, log.classify_log().request(), &response);
          break;
        }
        case ts::PredictionLog::kRegressLog: {
          kind = "regress_log";
          ts::RegressionResponse response;
          s = RunRegress(servable, runner, options, log.regress_log().request(), &response);
          break;
        }
        case ts::PredictionLog::kMultiInferenceLog: {
          kind = "multi_inference_log";
          ts::MultiInferenceResponse response;
          s = RunMultiInference(servable, runner, options, log.multi_inference_log().request(), &response);
          break;
        }
        default:
          return fail(Unimplemented("Unsupported log_type for warmup: " + std::to_string(log.log_type_case()) +
                                    "; expected predict_log, classify_log, regress_log or multi_inference_log"),
                      "log_type");
      }
      if (!s.ok()) return fail(s, kind);
      ++result.requests_run;
    }
    ++result.records_replayed;
  }
  return result;
}

}  // namespace tfhost::serving
