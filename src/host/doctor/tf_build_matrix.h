// TensorFlow's tested build configurations (TF version -> CUDA, cuDNN), the
// table tensorflow.org/install/source#gpu publishes, kept as data in
// src/host/data/tf_build_matrix.json. kTfBuildMatrixJson embeds the same
// text so an installed binary needs no data files; a test keeps both equal.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace tfhost::host {

struct TfBuild {
  std::string tensorflow;  // "2.15" (major.minor; patch releases share a row)
  std::string cuda;        // "12.2"
  std::string cudnn;       // "8.9"
};

extern const char kTfBuildMatrixJson[];

// Parses the JSON document ({"builds": [{"tensorflow", "cuda", "cudnn"}...]}).
StatusOr<std::vector<TfBuild>> ParseTfBuildMatrix(const std::string& json);

// The built-in table (parsed once).
const std::vector<TfBuild>& DefaultTfBuildMatrix();

// The row for a TensorFlow version ("2.15.1" finds "2.15"), or null.
const TfBuild* FindTfBuild(const std::vector<TfBuild>& matrix, const std::string& tf_version);

// "12.2.140" -> {12, 2}; missing parts are -1.
std::pair<int, int> MajorMinor(const std::string& version);

}  // namespace tfhost::host
