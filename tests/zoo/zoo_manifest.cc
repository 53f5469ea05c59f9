#include "zoo_manifest.h"

#include <rapidjson/document.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "ir/tensor_proto.h"
#include "tensorflow/core/framework/tensor.pb.h"

namespace tfhost::zoo {
namespace {

StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return NotFound("cannot open " + path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

StatusOr<std::string> StringField(const rapidjson::Value& v, const char* key, const std::string& where) {
  if (!v.IsObject() || !v.HasMember(key) || !v[key].IsString()) {
    return InvalidArgument(where + ": expected a string field '" + key + "'");
  }
  return std::string(v[key].GetString());
}

StatusOr<SignatureCase> ParseSignature(const rapidjson::Value& v, const std::string& where) {
  SignatureCase sig;
  TFHOST_ASSIGN_OR_RETURN(sig.key, StringField(v, "key", where));
  const std::string here = where + " signature '" + sig.key + "'";
  if (!v.HasMember("inputs") || !v["inputs"].IsObject()) return InvalidArgument(here + ": expected an object 'inputs'");
  for (const auto& m : v["inputs"].GetObject()) {
    if (!m.value.IsString()) return InvalidArgument(here + " input '" + m.name.GetString() + "': expected a file name");
    sig.inputs[m.name.GetString()] = m.value.GetString();
  }
  if (!v.HasMember("outputs") || !v["outputs"].IsObject()) {
    return InvalidArgument(here + ": expected an object 'outputs'");
  }
  for (const auto& m : v["outputs"].GetObject()) {
    const std::string out_where = here + " output '" + m.name.GetString() + "'";
    ExpectedOutput out;
    TFHOST_ASSIGN_OR_RETURN(out.file, StringField(m.value, "file", out_where));
    if (m.value.HasMember("tolerance")) {
      if (!m.value["tolerance"].IsNumber()) return InvalidArgument(out_where + ": 'tolerance' must be a number");
      out.tolerance = m.value["tolerance"].GetDouble();
    }
    if (m.value.HasMember("max_steps")) {
      if (!m.value["max_steps"].IsInt64() || m.value["max_steps"].GetInt64() < 0) {
        return InvalidArgument(out_where + ": 'max_steps' must be a non-negative integer");
      }
      out.max_steps = m.value["max_steps"].GetInt64();
    }
    if (m.value.HasMember("why") && m.value["why"].IsString()) out.why = m.value["why"].GetString();
    // A looser bound is a claim about an op; the manifest must say which.
    if (out.tolerance > 1e-5 && out.why.empty()) {
      return InvalidArgument(out_where + ": tolerance " + std::to_string(out.tolerance) +
                             " is looser than 1e-5 but 'why' does not name the op that needs it");
    }
    if (out.max_steps > 0 && out.why.empty()) {
      return InvalidArgument(out_where + ": max_steps " + std::to_string(out.max_steps) +
                             " allows integers to differ but 'why' does not say which op needs it");
    }
    sig.outputs[m.name.GetString()] = std::move(out);
  }
  return sig;
}

}  // namespace

StatusOr<Manifest> ReadManifest(const std::string& zoo_dir) {
  const std::string path = zoo_dir + "/manifest.json";
  TFHOST_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  rapidjson::Document doc;
  doc.Parse(text.c_str(), text.size());
  if (doc.HasParseError() || !doc.IsObject()) return InvalidArgument(path + ": not a JSON object");
  if (!doc.HasMember("format") || !doc["format"].IsInt() || doc["format"].GetInt() != 1) {
    return InvalidArgument(path + ": expected \"format\": 1");
  }
  Manifest manifest;
  if (doc.HasMember("tensorflow") && doc["tensorflow"].IsString()) manifest.tensorflow_version = doc["tensorflow"].GetString();
  if (!doc.HasMember("models") || !doc["models"].IsArray()) return InvalidArgument(path + ": expected an array 'models'");
  for (const auto& m : doc["models"].GetArray()) {
    ZooModel model;
    TFHOST_ASSIGN_OR_RETURN(model.name, StringField(m, "name", path + " model"));
    const std::string where = path + " model '" + model.name + "'";
    TFHOST_ASSIGN_OR_RETURN(model.path, StringField(m, "path", where));
    if (m.HasMember("family") && m["family"].IsString()) model.family = m["family"].GetString();
    if (m.HasMember("what") && m["what"].IsString()) model.what = m["what"].GetString();
    if (!m.HasMember("signatures") || !m["signatures"].IsArray()) {
      return InvalidArgument(where + ": expected an array 'signatures'");
    }
    for (const auto& s : m["signatures"].GetArray()) {
      TFHOST_ASSIGN_OR_RETURN(SignatureCase sig, ParseSignature(s, where));
      model.signatures.push_back(std::move(sig));
    }
    manifest.models.push_back(std::move(model));
  }
  return manifest;
}

StatusOr<Tensor> ReadTensorProtoFile(const std::string& path) {
  TFHOST_ASSIGN_OR_RETURN(std::string bytes, ReadFile(path));
  tensorflow::TensorProto proto;
  if (!proto.ParseFromString(bytes)) return DataLoss(path + ": not a serialized TensorProto");
  auto tensor = ir::TensorFromProto(proto);
  if (!tensor.ok()) return tensor.status().WithContext(path);
  return tensor;
}

namespace {

bool IsFloat(DType d) {
  return d == DType::kFloat || d == DType::kDouble || d == DType::kHalf || d == DType::kBFloat16;
}

Status CompareFloats(const Tensor& expected, const Tensor& actual, double tolerance) {
  const std::vector<double> want = expected.ToDoubleVector();
  const std::vector<double> got = actual.ToDoubleVector();
  double scale = 0;
  for (double w : want) {
    if (std::isfinite(w)) scale = std::max(scale, std::fabs(w));
  }
  const double bound = tolerance * scale;
  int64_t first_bad = -1, bad = 0, worst_at = -1;
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const double w = want[i], g = got[i];
    bool ok;
    if (std::isnan(w) || std::isnan(g)) {
      ok = std::isnan(w) && std::isnan(g);
    } else if (std::isinf(w) || std::isinf(g)) {
      ok = w == g;
    } else {
      const double err = std::fabs(g - w);
      if (err > worst) worst = err, worst_at = static_cast<int64_t>(i);
      ok = err <= bound;
    }
    if (!ok) {
      ++bad;
      if (first_bad < 0) first_bad = static_cast<int64_t>(i);
    }
  }
  if (bad == 0) return OkStatus();
  std::ostringstream os;
  os.precision(9);
  os << bad << " of " << want.size() << " elements differ by more than " << tolerance << " x max|tf| = " << bound
     << "; first at flat index " << first_bad << ": tf " << want[first_bad] << ", tfhost " << got[first_bad];
  if (worst_at >= 0) os << "; largest error " << worst << " (" << worst / std::max(scale, 1e-300) << " x max|tf|) at " << worst_at;
  return InvalidArgument(os.str());
}

}  // namespace

// Integers within max_steps of each other (a quantized output's bound).
Status CompareSteps(const Tensor& expected, const Tensor& actual, int64_t max_steps) {
  const std::vector<double> want = expected.ToDoubleVector();
  const std::vector<double> got = actual.ToDoubleVector();
  int64_t bad = 0, first_bad = -1;
  double worst = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    const double err = std::fabs(got[i] - want[i]);
    worst = std::max(worst, err);
    if (err > static_cast<double>(max_steps)) {
      ++bad;
      if (first_bad < 0) first_bad = static_cast<int64_t>(i);
    }
  }
  if (bad == 0) return OkStatus();
  std::ostringstream os;
  os << bad << " of " << want.size() << " elements differ by more than " << max_steps << " steps; first at flat "
     << "index " << first_bad << ": tf " << want[first_bad] << ", tfhost " << got[first_bad] << "; largest "
     << worst << " steps";
  return InvalidArgument(os.str());
}

Status CompareOutput(const Tensor& expected, const Tensor& actual, const ExpectedOutput& rule) {
  const double tolerance = rule.tolerance;
  if (expected.dtype() != actual.dtype()) {
    return InvalidArgument(std::string("dtype: tf ") + DTypeName(expected.dtype()) + ", tfhost " +
                           DTypeName(actual.dtype()));
  }
  if (expected.shape() != actual.shape()) {
    return InvalidArgument("shape: tf " + expected.shape().ToString() + ", tfhost " + actual.shape().ToString());
  }
  if (IsFloat(expected.dtype())) return CompareFloats(expected, actual, tolerance);
  if (IsStringLike(expected.dtype())) {
    for (int64_t i = 0; i < expected.NumElements(); ++i) {
      if (expected.strings()[i] != actual.strings()[i]) {
        return InvalidArgument("string " + std::to_string(i) + ": tf \"" + expected.strings()[i] + "\", tfhost \"" +
                               actual.strings()[i] + "\"");
      }
    }
    return OkStatus();
  }
  if (rule.max_steps > 0 && IsInteger(expected.dtype())) return CompareSteps(expected, actual, rule.max_steps);
  // Integers, bools and the rest: bit for bit.
  if (expected.ByteSize() != actual.ByteSize() ||
      std::memcmp(expected.raw_data(), actual.raw_data(), expected.ByteSize()) != 0) {
    return InvalidArgument("values differ (exact match required for " + DTypeName(expected.dtype()) +
                           "): tf " + expected.DebugString(12) + ", tfhost " + actual.DebugString(12));
  }
  return OkStatus();
}

StatusOr<std::map<std::string, KnownFailure>> ReadKnownFailures(const std::string& path) {
  std::ifstream in(path);
  if (!in) return NotFound("cannot open " + path);
  std::map<std::string, KnownFailure> out;
  std::string line;
  for (int line_no = 1; std::getline(in, line); ++line_no) {
    if (line.empty() || line[0] == '#') continue;
    const size_t t1 = line.find('\t');
    const size_t t2 = t1 == std::string::npos ? t1 : line.find('\t', t1 + 1);
    if (t2 == std::string::npos) {
      return InvalidArgument(path + ":" + std::to_string(line_no) +
                             ": expected 'model/signature<TAB>part of the error<TAB>reason'");
    }
    out[line.substr(0, t1)] = {line.substr(t1 + 1, t2 - t1 - 1), line.substr(t2 + 1)};
  }
  return out;
}

}  // namespace tfhost::zoo
