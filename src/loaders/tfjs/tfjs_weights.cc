#include "loaders/tfjs/tfjs_weights.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "loaders/graph_to_session.h"

namespace tfhost::loaders::tfjs {

namespace {

namespace fs = std::filesystem;

uint32_t LoadU32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return static_cast<uint32_t>(u[0]) | (static_cast<uint32_t>(u[1]) << 8) | (static_cast<uint32_t>(u[2]) << 16) |
         (static_cast<uint32_t>(u[3]) << 24);
}

uint16_t LoadU16(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return static_cast<uint16_t>(u[0] | (u[1] << 8));
}

StatusOr<DType> LogicalDType(const WeightSpec& spec) {
  if (spec.dtype == "float32") return DType::kFloat;
  if (spec.dtype == "int32") return DType::kInt32;
  if (spec.dtype == "bool") return DType::kBool;
  if (spec.dtype == "string") return DType::kString;
  if (spec.dtype == "complex64") return DType::kComplex64;
  return InvalidArgument("weight '" + spec.name + "' has dtype '" + spec.dtype +
                         "'; expected float32, int32, bool, string or complex64");
}

Status ShortData(const WeightSpec& spec, size_t needed, size_t available) {
  return OutOfRange("weight '" + spec.name + "' needs " + std::to_string(needed) + " bytes but only " +
                    std::to_string(available) + " remain in the weight shards");
}

// uint8/uint16/float16 storage; `dtype` is the weight's logical dtype.
StatusOr<Tensor> Dequantize(const WeightSpec& spec, DType dtype, const Shape& shape, std::string_view data,
                            size_t* consumed) {
  const WeightQuantization& q = *spec.quantization;
  const int64_t n = shape.num_elements();
  const std::string where = "weight '" + spec.name + "'";
  if (q.dtype == "float16") {
    if (dtype != DType::kFloat) {
      return InvalidArgument(where + " is float16-quantized but has dtype " + spec.dtype +
                             "; float16 quantization applies to float32 weights only");
    }
    const size_t bytes = static_cast<size_t>(n) * 2;
    if (data.size() < bytes) return ShortData(spec, bytes, data.size());
    Tensor t = Tensor::Uninitialized(DType::kFloat, shape);
    float* out = t.data<float>();
    for (int64_t i = 0; i < n; ++i) out[i] = HalfToFloat(LoadU16(data.data() + 2 * i));
    *consumed = bytes;
    return t;
  }
  size_t width = 0;
  if (q.dtype == "uint8") width = 1;
  if (q.dtype == "uint16") width = 2;
  if (width == 0) {
    return InvalidArgument(where + " has quantization dtype '" + q.dtype +
                           "'; expected uint8, uint16 or float16");
  }
  if (dtype != DType::kFloat && dtype != DType::kInt32) {
    return InvalidArgument(where + " is " + q.dtype + "-quantized but has dtype " + spec.dtype +
                           "; only float32 and int32 weights can be quantized");
  }
  if (!q.scale.has_value() || !q.min.has_value() || !std::isfinite(*q.scale) || !std::isfinite(*q.min)) {
    return InvalidArgument(where + " is " + q.dtype + "-quantized but its quantization lacks a finite "
                           "'scale' and 'min'");
  }
  const size_t bytes = static_cast<size_t>(n) * width;
  if (data.size() < bytes) return ShortData(spec, bytes, data.size());
  const double scale = *q.scale, min = *q.min;
  Tensor t = Tensor::Uninitialized(dtype, shape);
  if (width == 1 && dtype == DType::kFloat) {
    // 256 possible codes: compute each value once, exactly as below.
    float table[256];
    for (int c = 0; c < 256; ++c) table[c] = static_cast<float>(c * scale + min);
    const auto* in = reinterpret_cast<const unsigned char*>(data.data());
    float* out = t.data<float>();
    for (int64_t i = 0; i < n; ++i) out[i] = table[in[i]];
    *consumed = bytes;
    return t;
  }
  for (int64_t i = 0; i < n; ++i) {
    const char* p = data.data() + width * i;
    const double quantized = width == 1 ? static_cast<unsigned char>(*p) : LoadU16(p);
    // TF.js computes in double and stores into a Float32Array, or rounds with
    // Math.round (half up) into an Int32Array for int32 weights.
    const double value = quantized * scale + min;
    if (dtype == DType::kFloat) {
      t.data<float>()[i] = static_cast<float>(value);
    } else {
      const double r = std::floor(value + 0.5);
      if (r < -2147483648.0 || r > 2147483647.0) {
        return InvalidArgument(where + ": dequantized value " + std::to_string(value) +
                               " does not fit in int32");
      }
      t.data<int32_t>()[i] = static_cast<int32_t>(r);
    }
  }
  *consumed = bytes;
  return t;
}

}  // namespace

std::string WeightShards::ShardAt(size_t offset) const {
  for (size_t i = 0; i < ends.size(); ++i) {
    if (offset < ends[i]) return paths[i];
  }
  return paths.empty() ? std::string("<no shards>") : paths.back();
}

StatusOr<WeightShards> ReadWeightShards(const std::string& dir, const std::vector<std::string>& paths) {
  WeightShards shards;
  for (const std::string& relative : paths) {
    fs::path rel(relative);
    if (relative.empty() || rel.is_absolute()) {
      return InvalidArgument("weight shard path '" + relative +
                             "' must be a file name relative to the folder of model.json");
    }
    for (const auto& part : rel) {
      if (part == "..") {
        return InvalidArgument("weight shard path '" + relative + "' leaves the folder of model.json");
      }
    }
    const std::string full = (fs::path(dir) / rel).string();
    std::error_code ec;
    if (!fs::is_regular_file(full, ec)) {
      return NotFound("weight shard '" + relative + "' listed in the weightsManifest is missing (" + full + ")");
    }
    // Read straight into the concatenated stream: no per-shard copy.
    const uintmax_t size = fs::file_size(full, ec);
    std::FILE* f = ec ? nullptr : std::fopen(full.c_str(), "rb");
    if (f == nullptr) return NotFound("cannot open weight shard '" + relative + "' (" + full + ")");
    const size_t offset = shards.bytes.size();
    shards.bytes.resize(offset + static_cast<size_t>(size));
    const size_t got = size > 0 ? std::fread(shards.bytes.data() + offset, 1, static_cast<size_t>(size), f) : 0;
    const bool failed = std::ferror(f) != 0;
    std::fclose(f);
    if (failed || got != size) {
      return DataLoss("error reading weight shard '" + relative + "' (" + full + "): got " + std::to_string(got) +
                      " of " + std::to_string(size) + " bytes");
    }
    shards.paths.push_back(relative);
    shards.ends.push_back(shards.bytes.size());
  }
  return shards;
}

StatusOr<Tensor> DecodeWeight(const WeightSpec& spec, std::string_view data, size_t* consumed) {
  *consumed = 0;
  TFHOST_ASSIGN_OR_RETURN(DType dtype, LogicalDType(spec));
  if (spec.quantization.has_value() && spec.quantization->dtype != "uint8" &&
      spec.quantization->dtype != "uint16" && spec.quantization->dtype != "float16") {
    return InvalidArgument("weight '" + spec.name + "' has quantization dtype '" + spec.quantization->dtype +
                           "'; expected uint8, uint16 or float16");
  }
  TFHOST_ASSIGN_OR_RETURN(Shape shape, MakeShape(spec.shape, "weight '" + spec.name + "'"));
  const int64_t n = shape.num_elements();
  // Every element takes at least one byte, so the data size bounds the shape
  // before anything is allocated.
  if (static_cast<uint64_t>(n) > data.size()) {
    size_t width = dtype == DType::kString ? 4 : DTypeSize(dtype);
    if (spec.quantization.has_value()) width = spec.quantization->dtype == "uint8" ? 1 : 2;
    return ShortData(spec, static_cast<size_t>(n) * width, data.size());
  }
  if (spec.quantization.has_value()) return Dequantize(spec, dtype, shape, data, consumed);

  if (dtype == DType::kString) {
    Tensor t(DType::kString, shape);
    size_t pos = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (data.size() - pos < 4) return ShortData(spec, pos + 4, data.size());
      const uint32_t len = LoadU32(data.data() + pos);
      pos += 4;
      if (data.size() - pos < len) return ShortData(spec, pos + len, data.size());
      t.strings()[i].assign(data.data() + pos, len);
      pos += len;
    }
    *consumed = pos;
    return t;
  }
  const size_t bytes = static_cast<size_t>(n) * DTypeSize(dtype);
  if (data.size() < bytes) return ShortData(spec, bytes, data.size());
  Tensor t = Tensor::Uninitialized(dtype, shape);
  if (dtype == DType::kBool) {
    // Normalize to 0/1: a bool byte other than 0 is true.
    for (int64_t i = 0; i < n; ++i) t.data<bool>()[i] = data[i] != 0;
  } else if (bytes > 0) {
    std::memcpy(t.raw_data(), data.data(), bytes);
  }
  *consumed = bytes;
  return t;
}

StatusOr<std::vector<Tensor>> DecodeWeights(const std::vector<WeightSpec>& specs, const WeightShards& shards) {
  std::vector<Tensor> out;
  out.reserve(specs.size());
  TFHOST_RETURN_IF_ERROR(ForEachDecodedWeight(specs, shards, [&](size_t, Tensor t) {
    out.push_back(std::move(t));
    return OkStatus();
  }));
  return out;
}

Status ForEachDecodedWeight(const std::vector<WeightSpec>& specs, const WeightShards& shards,
                            const std::function<Status(size_t, Tensor)>& use) {
  std::string_view all(shards.bytes);
  size_t offset = 0;
  for (size_t index = 0; index < specs.size(); ++index) {
    const WeightSpec& spec = specs[index];
    size_t used = 0;
    auto tensor = DecodeWeight(spec, all.substr(offset), &used);
    if (!tensor.ok()) {
      if (tensor.status().code() == StatusCode::kOutOfRange) {
        return DataLoss(tensor.status().message() + " (it starts at byte " + std::to_string(offset) +
                        " of the concatenated shards, in shard '" + shards.ShardAt(offset) +
                        "'; the shards end in '" + shards.ShardAt(all.size()) +
                        "', which is truncated or does not belong to this model.json)");
      }
      return tensor.status();
    }
    offset += used;
    TFHOST_RETURN_IF_ERROR(use(index, std::move(*tensor)));
  }
  if (offset != all.size()) {
    return DataLoss("the weight shards hold " + std::to_string(all.size()) + " bytes but the weightsManifest "
                    "describes only " + std::to_string(offset) + "; " + std::to_string(all.size() - offset) +
                    " extra bytes at the end of shard '" + shards.ShardAt(offset) +
                    "' (shards and model.json do not match)");
  }
  return OkStatus();
}

}  // namespace tfhost::loaders::tfjs
