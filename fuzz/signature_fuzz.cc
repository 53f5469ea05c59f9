// Fuzzes the tensors a client can send into a model's signatures: each input
// picks a loaded model and a signature, then gives every input key a tensor
// that is usually the declared dtype and shape (unknown dims chosen by the
// fuzzer, zero-size included) and sometimes anything else: another dtype,
// another rank, a huge dimension beside a zero one, a missing or an extra
// key. Values are the ones kernels trip over (NaN, infinities, negative and
// extreme indices, odd strings; fuzz/fuzz_values.h). The run goes through
// Model::RunSignature as `tfhost serve` calls it (shapes unchecked, so the
// graph itself must reject what it cannot take) or as `tfhost run` does.
//
// Models: tfhost's demo models, always; plus every model of the generated zoo
// (tests/zoo) under TFHOST_FUZZ_MODEL_BYTES (default 2 MB) on disk when
// TFHOST_FUZZ_ZOO names its folder (fuzz/smoke.sh passes it when the zoo has
// been generated). Sessions hold at most kMaxTensorBytes of tensors at once,
// so a shape that asks for gigabytes fails with ResourceExhausted, and runs
// at most kMaxLoopIterations while-loop iterations.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "fuzz/fuzz_file_util.h"
#include "fuzz/fuzz_values.h"
#include "loaders/model_loader.h"
#include "loaders/savedmodel/demo_models.h"

namespace {

constexpr int64_t kMaxTensorBytes = 64 << 20;
constexpr int64_t kMaxLoopIterations = 1000;

std::vector<std::unique_ptr<tfhost::runtime::Model>>& Models() {
  static auto* models = [] {
    auto* out = new std::vector<std::unique_ptr<tfhost::runtime::Model>>;
    std::vector<std::string> paths;
    const std::string demo = tfhost::fuzz::ScratchDir() + "/demo";
    auto written = tfhost::loaders::WriteDemoModels(demo);
    if (!written.ok()) {
      std::fprintf(stderr, "fuzz harness: cannot write demo models: %s\n", written.status().ToString().c_str());
      std::abort();
    }
    for (const std::string& name : tfhost::loaders::DemoModelNames()) paths.push_back(demo + "/" + name);
    namespace fs = std::filesystem;
    if (const char* zoo = std::getenv("TFHOST_FUZZ_ZOO"); zoo != nullptr && fs::is_directory(zoo)) {
      const char* limit_text = std::getenv("TFHOST_FUZZ_MODEL_BYTES");
      const uintmax_t limit = limit_text != nullptr ? std::strtoull(limit_text, nullptr, 10) : 2u << 20;
      std::vector<std::string> zoo_paths;
      for (const auto& entry : fs::directory_iterator(zoo)) {
        if (!fs::is_directory(entry.path() / "1")) continue;
        uintmax_t bytes = 0;
        for (const auto& f : fs::recursive_directory_iterator(entry.path())) {
          if (f.is_regular_file()) bytes += f.file_size();
        }
        if (bytes <= limit) zoo_paths.push_back(entry.path().string());
      }
      std::sort(zoo_paths.begin(), zoo_paths.end());  // the same model index means the same model on every run
      paths.insert(paths.end(), zoo_paths.begin(), zoo_paths.end());
    }
    tfhost::loaders::LoadOptions options;
    options.session.intra_op_threads = 1;
    options.session.max_tensor_bytes_in_use = kMaxTensorBytes;
    // A loop bound taken from an input (a while_loop's n, a sequence length)
    // must end the run, not time the fuzzer out: the limit's own tests cross
    // the default; here a small one keeps each input fast (an RNN step
    // under ASan takes milliseconds).
    options.session.max_loop_iterations = kMaxLoopIterations;
    for (const std::string& path : paths) {
      auto model = tfhost::loaders::LoadModel(path, options);
      // A zoo model tfhost cannot load is the zoo test's business, not the fuzzer's.
      if (model.ok()) out->push_back(std::move(*model));
    }
    std::fprintf(stderr, "signature_fuzz: %zu models loaded\n", out->size());
    return out;
  }();
  return *models;
}

tfhost::Shape ShapeFor(FuzzedDataProvider& in, const tfhost::ir::PartialShape& declared) {
  if (!declared.rank_known() || in.ConsumeIntegralInRange<int>(0, 7) == 0) return tfhost::fuzz::PickShape(in);
  std::vector<int64_t> dims;
  int64_t elements = 1;
  for (int64_t d : declared.dims) {
    if (d < 0) d = in.ConsumeIntegralInRange<int64_t>(0, 4);
    dims.push_back(d);
    elements *= d;
  }
  // Declared shapes of image models hold far more elements than the fuzzer
  // can fill; the tail stays zero.
  if (elements == 0 && !dims.empty() && in.ConsumeIntegralInRange<int>(0, 7) == 0) {
    const size_t at = in.ConsumeIntegralInRange<size_t>(0, dims.size() - 1);
    if (dims[at] != 0) dims[at] = int64_t{1} << 40;
  }
  return tfhost::Shape(dims);
}

}  // namespace

// Loading the zoo under ASan takes tens of seconds: done before the first
// input, so it never counts against an input's -timeout.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)Models();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  auto& models = Models();
  FuzzedDataProvider in(data, size);
  tfhost::runtime::Model& model = *models[in.ConsumeIntegralInRange<size_t>(0, models.size() - 1)];
  const auto& signatures = model.signatures();
  if (signatures.empty()) return 0;
  auto it = signatures.begin();
  std::advance(it, in.ConsumeIntegralInRange<size_t>(0, signatures.size() - 1));
  const tfhost::runtime::Signature& signature = it->second;

  std::map<std::string, tfhost::Tensor> inputs;
  for (const auto& spec : signature.inputs) {
    if (in.ConsumeIntegralInRange<int>(0, 15) == 0) continue;  // missing input
    const tfhost::DType dtype =
        in.ConsumeIntegralInRange<int>(0, 7) == 0 ? tfhost::fuzz::PickDType(in) : spec.dtype;
    const tfhost::Shape shape = ShapeFor(in, spec.shape);
    // Past the fuzzer's element budget (a declared [1, 224, 224, 3]), the
    // values are zeros; only the first kMaxElements are fuzzed.
    if (shape.num_elements() > (int64_t{1} << 20)) continue;
    inputs[spec.key] = tfhost::fuzz::FillTensor(in, dtype, shape);
  }
  if (in.ConsumeIntegralInRange<int>(0, 15) == 0) inputs["not_an_input"] = tfhost::Tensor(tfhost::DType::kFloat, tfhost::Shape({1}));
  tfhost::runtime::RunSignatureOptions options;
  options.check_input_shapes = in.ConsumeBool();
  (void)model.RunSignature(signature.name, inputs, {}, options);
  return 0;
}
