#include "host/doctor/tf_build_matrix.h"

#include <rapidjson/document.h>

#include <cctype>
#include <cstdlib>
#include <cstring>

namespace tfhost::host {

std::pair<int, int> MajorMinor(const std::string& version) {
  int major = -1, minor = -1;
  const char* p = version.c_str();
  if (std::isdigit(static_cast<unsigned char>(*p))) {
    major = std::atoi(p);
    const char* dot = std::strchr(p, '.');
    if (dot != nullptr && std::isdigit(static_cast<unsigned char>(dot[1]))) minor = std::atoi(dot + 1);
  }
  return {major, minor};
}

StatusOr<std::vector<TfBuild>> ParseTfBuildMatrix(const std::string& json) {
  rapidjson::Document doc;
  doc.Parse(json.c_str(), json.size());
  if (doc.HasParseError()) {
    return InvalidArgument("TensorFlow build matrix: JSON parse error at offset " + std::to_string(doc.GetErrorOffset()));
  }
  if (!doc.IsObject() || !doc.HasMember("builds") || !doc["builds"].IsArray()) {
    return InvalidArgument("TensorFlow build matrix: expected an object with a \"builds\" array");
  }
  std::vector<TfBuild> out;
  size_t i = 0;
  for (const auto& row : doc["builds"].GetArray()) {
    TfBuild b;
    for (auto [key, field] : {std::pair{"tensorflow", &b.tensorflow}, {"cuda", &b.cuda}, {"cudnn", &b.cudnn}}) {
      if (!row.IsObject() || !row.HasMember(key) || !row[key].IsString()) {
        return InvalidArgument("TensorFlow build matrix: builds[" + std::to_string(i) + "]." + key +
                               " must be a string");
      }
      *field = row[key].GetString();
    }
    out.push_back(std::move(b));
    ++i;
  }
  return out;
}

const std::vector<TfBuild>& DefaultTfBuildMatrix() {
  static const std::vector<TfBuild> matrix = [] {
    StatusOr<std::vector<TfBuild>> m = ParseTfBuildMatrix(kTfBuildMatrixJson);
    return m.ok() ? *m : std::vector<TfBuild>{};
  }();
  return matrix;
}

const TfBuild* FindTfBuild(const std::vector<TfBuild>& matrix, const std::string& tf_version) {
  std::pair<int, int> want = MajorMinor(tf_version);
  if (want.first < 0) return nullptr;
  for (const TfBuild& b : matrix) {
    if (MajorMinor(b.tensorflow) == want) return &b;
  }
  return nullptr;
}

}  // namespace tfhost::host
