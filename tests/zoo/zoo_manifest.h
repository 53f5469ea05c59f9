// The zoo's manifest (tests/zoo/README.md): which models TensorFlow wrote,
// which inputs each signature was fed and what TensorFlow answered, with the
// tolerance each output is held to. Parsing only; nothing here runs a model.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "base/tensor.h"

namespace tfhost::zoo {

struct ExpectedOutput {
  std::string file;        // a serialized TensorProto, relative to the zoo folder
  double tolerance = 1e-5;  // relative to max|reference|; floats only
  int64_t max_steps = 0;    // integers: how far apart they may be (a quantized output's steps)
  std::string why;          // why the bound is looser than 1e-5 or exact, naming the op
};

struct SignatureCase {
  std::string key;                                // "serving_default"
  std::map<std::string, std::string> inputs;      // input key -> TensorProto file
  std::map<std::string, ExpectedOutput> outputs;  // output key -> reference
};

struct ZooModel {
  std::string name;
  std::string family;
  std::string what;
  std::string path;  // relative to the zoo folder
  std::vector<SignatureCase> signatures;
};

struct Manifest {
  std::string tensorflow_version;
  std::vector<ZooModel> models;
};

// Reads <zoo_dir>/manifest.json. Errors name the file and the field that is
// missing or of the wrong type.
StatusOr<Manifest> ReadManifest(const std::string& zoo_dir);

// Reads one serialized TensorProto file.
StatusOr<Tensor> ReadTensorProtoFile(const std::string& path);

// Whether `actual` matches `expected` as the manifest's rules say: same dtype
// and shape; floats within tolerance * max|expected| (NaN matches NaN, an
// infinity only the same infinity); integers within max_steps of each
// other; everything else exactly. The error describes the first mismatch
// (index, both values) and the largest error.
Status CompareOutput(const Tensor& expected, const Tensor& actual, const ExpectedOutput& rule);

// A case tfhost does not pass yet (a known_failures.txt line): it must still
// fail, with an error containing `error_part`, so that a fix shows up as a
// test to update and a different failure is not hidden behind an old one.
struct KnownFailure {
  std::string error_part;
  std::string reason;
};

// Reads "model/signature<TAB>part of the error<TAB>reason" lines (# starts a
// comment); errors name the file and line.
StatusOr<std::map<std::string, KnownFailure>> ReadKnownFailures(const std::string& path);

}  // namespace tfhost::zoo
