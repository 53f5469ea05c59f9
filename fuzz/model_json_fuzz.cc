// Fuzzes TensorFlow.js graph model loading (loaders::LoadModel on a
// model.json): JSON parsing, the protobuf-JSON topology and signature, the
// model initializer, the weights manifest, weight decoding and dequantization,
// Const filling, graph construction and Session creation.
//
// The input is model.json, optionally followed by kSplitMarker and the bytes
// of the weights. The loader only reads shards named in the manifest, so the
// harness writes them there (only plain file names, never a path that leaves
// the scratch folder): all weight bytes in the first shard, the rest empty
// (the loader concatenates shards, so the byte stream is the same). Without a
// companion the harness synthesizes zero bytes of exactly the size the
// manifest asks for, so a mutated model.json still gets past weight decoding
// and its graph is built.
#include <rapidjson/document.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "fuzz/fuzz_file_util.h"
#include "loaders/model_loader.h"

namespace {

// Synthesized weights stay small so every iteration stays fast.
constexpr uint64_t kMaxSynthesizedWeightBytes = uint64_t{16} << 20;
constexpr size_t kMaxShardFiles = 8;

bool IsPlainFileName(const std::string& name) {
  if (name.empty() || name.size() > 100 || name == "." || name == ".." || name == "model.json") return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                    c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

// Bytes one element of a manifest weight takes in the shards (strings: an
// empty string is just its 4-byte length).
uint64_t StoredElementBytes(const rapidjson::Value& weight) {
  if (auto q = weight.FindMember("quantization"); q != weight.MemberEnd() && q->value.IsObject()) {
    if (auto d = q->value.FindMember("dtype"); d != q->value.MemberEnd() && d->value.IsString()) {
      return std::string(d->value.GetString()) == "uint8" ? 1 : 2;
    }
  }
  if (auto d = weight.FindMember("dtype"); d != weight.MemberEnd() && d->value.IsString()) {
    const std::string dtype = d->value.GetString();
    if (dtype == "bool") return 1;
    if (dtype == "complex64") return 8;
  }
  return 4;
}

struct Manifest {
  std::vector<std::string> paths;
  uint64_t weight_bytes = 0;
  bool size_known = true;
};

Manifest ReadManifest(std::string_view model_json) {
  Manifest out;
  rapidjson::Document doc;
  doc.Parse<rapidjson::kParseIterativeFlag>(model_json.data(), model_json.size());
  if (doc.HasParseError() || !doc.IsObject()) return out;
  const rapidjson::Value& root = doc;  // const iterators: C++20 finds == on mutable ones ambiguous
  auto manifest = root.FindMember("weightsManifest");
  if (manifest == root.MemberEnd() || !manifest->value.IsArray()) return out;
  for (const auto& group : manifest->value.GetArray()) {
    if (!group.IsObject()) continue;
    if (auto paths = group.FindMember("paths"); paths != group.MemberEnd() && paths->value.IsArray()) {
      for (const auto& p : paths->value.GetArray()) {
        if (p.IsString()) out.paths.push_back(p.GetString());
      }
    }
    auto weights = group.FindMember("weights");
    if (weights == group.MemberEnd() || !weights->value.IsArray()) continue;
    for (const auto& w : weights->value.GetArray()) {
      if (!w.IsObject()) continue;
      uint64_t n = 1;
      if (auto shape = w.FindMember("shape"); shape != w.MemberEnd() && shape->value.IsArray()) {
        for (const auto& d : shape->value.GetArray()) {
          if (!d.IsUint64() || (d.GetUint64() != 0 && n > kMaxSynthesizedWeightBytes / d.GetUint64())) {
            out.size_known = false;
            return out;
          }
          n *= d.GetUint64();
        }
      }
      out.weight_bytes += n * StoredElementBytes(w);
      if (out.weight_bytes > kMaxSynthesizedWeightBytes) {
        out.size_known = false;
        return out;
      }
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace fuzz = tfhost::fuzz;
  const fuzz::SplitInput input = fuzz::Split(data, size);
  const std::string& dir = fuzz::ScratchDir();
  fuzz::ClearScratchDir();
  const std::string model_json = dir + "/model.json";
  fuzz::WriteFileOrDie(model_json, input.primary);

  const Manifest manifest = ReadManifest(input.primary);
  std::string synthesized;
  std::string_view weights = input.companion;
  if (!input.has_companion && manifest.size_known) {
    synthesized.assign(manifest.weight_bytes, '\0');
    weights = synthesized;
  }
  std::set<std::string> written;
  for (const std::string& path : manifest.paths) {
    if (written.size() >= kMaxShardFiles) break;
    if (!IsPlainFileName(path) || written.count(path)) continue;
    fuzz::WriteFileOrDie(dir + "/" + path, written.empty() ? weights : std::string_view());
    written.insert(path);
  }

  tfhost::loaders::LoadOptions options;
  options.session.intra_op_threads = 1;
  options.session.inter_op_threads = 1;
  auto model = tfhost::loaders::LoadModel(model_json, options);
  // TFHOST_FUZZ_VERBOSE=1 says what became of each input (to check seeds load).
  static const bool verbose = std::getenv("TFHOST_FUZZ_VERBOSE") != nullptr;
  if (verbose) std::fprintf(stderr, "LoadModel: %s\n", model.ok() ? "OK" : model.status().ToString().c_str());
  return 0;
}
