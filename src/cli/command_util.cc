#include "cli/command_util.h"

#include <glob.h>

#include <algorithm>
#include <set>
#include <string_view>

#include "backends/backend_registry.h"
#include "backends/builtin/device_registry.h"
#include "base/trace/trace.h"
#include "loaders/model_loader.h"

namespace tfhost::cli {

namespace {

const runtime::TensorSpec* FindSpec(const std::vector<runtime::TensorSpec>& specs, const std::string& key) {
  for (const auto& s : specs) {
    if (s.key == key) return &s;
  }
  return nullptr;
}

std::string KeyList(const std::vector<runtime::TensorSpec>& specs) {
  std::string s;
  for (const auto& t : specs) s += (s.empty() ? "" : ", ") + t.key;
  return s.empty() ? "<none>" : s;
}

// "node" -> "node:0"; errors for control names and malformed ones.
StatusOr<std::string> CanonicalTensorName(const std::string& name) {
  TFHOST_ASSIGN_OR_RETURN(ir::ParsedTensorName parsed, ir::ParseTensorName(name));
  if (parsed.is_control) return InvalidArgument("'" + name + "' names a control input, not a tensor");
  return parsed.node + ":" + std::to_string(parsed.index);
}

}  // namespace

std::vector<std::string> SplitTags(const std::string& tags) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= tags.size()) {
    size_t comma = tags.find(',', start);
    std::string item = tags.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::vector<std::string> NamesUsedDirectly(const std::vector<InputFlag>& inputs,
                                           const std::vector<std::string>& fetches) {
  // Signature keys may be listed too: keeping a node that happens to share
  // a key's name costs at most one missed fusion.
  std::vector<std::string> names = fetches;
  for (const InputFlag& in : inputs) names.push_back(in.key);
  return names;
}

StatusOr<std::unique_ptr<runtime::Model>> LoadModelForCli(const std::string& path, const CliLoad& load) {
  loaders::LoadOptions options;
  options.precision = load.precision;
  options.tags = SplitTags(load.tags);
  options.session.intra_op_threads = load.intra_op_threads;
  options.session.kernels = load.kernels;
  options.session.backends = load.backends;
  options.optimize_graph = load.optimize_graph;
  options.freeze_variables = load.freeze_variables;
  options.keep = load.keep;
  ApplyModelLimitFlags(load.limits, &options);
  trace::ScopedSlice slice("cli", "load model");
  if (slice.active()) slice.args().Add("path", path);
  return loaders::LoadModel(path, options);
}

void AddKernelsFlag(FlagParser& flags, std::string* kernels) {
  flags.AddString("kernels", kernels, "fast|reference",
                  "fast kernels where a backend takes the node (default), or the reference kernels only");
}

void AddPrecisionFlag(FlagParser& flags, std::string* precision) {
  flags.AddString("precision", precision, "fp32|fp32-strict|bf16",
                  "bf16: convolutions and matrix products in bf16 with float32 accumulation where the CPU has "
                  "avx512_bf16/AMX (float32 elsewhere); fp32-strict: no TF32 rounding on a GPU either (fp32, "
                  "the default, lets GPU tensor cores use TF32 as TensorFlow does)");
}

Status CheckPrecisionFlag(const std::string& text) {
  if (text == "fp32" || text == "fp32-strict" || text == "bf16") return OkStatus();
  return InvalidArgument("--precision must be fp32, fp32-strict or bf16, not '" + text + "'");
}

void NoteBf16Fallback(std::ostream& err, const char* command, const std::string& precision) {
  if (precision != "bf16" || backends::BackendRegistry::Global().HostHasNativeBf16()) return;
  err << "tfhost " << command
      << ": --precision bf16: this CPU has no native bf16 instructions (avx512_bf16 or AMX), so every "
         "product runs in float32\n";
}

void AddDeviceFlag(FlagParser& flags, std::string* device) {
  flags.AddString("device", device, "D",
                  "cpu (default), gpu, gpu:N or auto (the GPU when one is usable): where nodes may run; on a GPU, "
                  "the nodes its backend takes run there and the rest on the CPU");
}

StatusOr<const backends::BackendRegistry*> ApplyDeviceFlag(const std::string& text, const char* command,
                                                           std::ostream& err) {
  TFHOST_ASSIGN_OR_RETURN(backends::DeviceChoice choice, backends::ParseDevice(text));
  TFHOST_ASSIGN_OR_RETURN(backends::DeviceRegistry device, backends::ForDevice(choice));
  if (!device.note.empty()) err << "tfhost " << command << ": --device " << text << ": " << device.note << "\n";
  return device.registry;
}

StatusOr<backends::KernelChoice> ParseKernelsFlag(const std::string& text) {
  auto choice = backends::ParseKernelChoice(text);
  if (!choice.ok()) return InvalidArgument("--kernels: " + choice.status().message());
  return choice;
}

StatusOr<std::vector<InputFlag>> ParseInputFlags(const std::vector<std::string>& flags) {
  std::vector<InputFlag> inputs;
  std::set<std::string> seen_keys;
  for (const auto& f : flags) {
    TFHOST_ASSIGN_OR_RETURN(InputFlag parsed, ParseInputFlag(f));
    if (!seen_keys.insert(parsed.key).second) return InvalidArgument("input '" + parsed.key + "' is given twice");
    inputs.push_back(std::move(parsed));
  }
  return inputs;
}

std::vector<std::pair<std::string, const Tensor*>> ResolvedRun::FedTensors() const {
  std::vector<std::pair<std::string, const Tensor*>> fed;
  if (direct) {
    for (const auto& [name, value] : direct_feeds) fed.emplace_back(name, &value);
    return fed;
  }
  for (const auto& [key, value] : signature_feeds) {
    const runtime::TensorSpec* spec = signature ? FindSpec(signature->inputs, key) : nullptr;
    if (spec != nullptr) fed.emplace_back(spec->tensor_name, &value);
  }
  return fed;
}

StatusOr<std::vector<std::pair<std::string, Tensor>>> ResolvedRun::Run(runtime::Model& model) const {
  if (!direct) {
    TFHOST_ASSIGN_OR_RETURN(auto results, model.RunSignature(signature_name, signature_feeds, output_filter));
    return std::vector<std::pair<std::string, Tensor>>(results.begin(), results.end());
  }
  TFHOST_ASSIGN_OR_RETURN(std::vector<Tensor> results, model.session().Run(direct_feeds, fetch_names));
  std::vector<std::pair<std::string, Tensor>> outputs;
  for (size_t i = 0; i < display_names.size() && i < results.size(); ++i) {
    outputs.emplace_back(display_names[i], std::move(results[i]));
  }
  return outputs;
}

StatusOr<ResolvedRun> ResolveRun(runtime::Model& model, const std::string& signature_name,
                                 const std::vector<InputFlag>& inputs, const std::vector<std::string>& fetches,
                                 const InputFiller& fill) {
  ResolvedRun run;
  run.signature_name = signature_name;
  auto sig_or = model.FindSignature(signature_name);
  if (sig_or.ok()) run.signature = *sig_or;
  for (const auto& in : inputs) {
    if (run.signature == nullptr || FindSpec(run.signature->inputs, in.key) == nullptr) run.direct = true;
  }
  for (const auto& f : fetches) {
    if (run.signature == nullptr || FindSpec(run.signature->outputs, f) == nullptr) run.direct = true;
  }
  if (!run.direct && run.signature == nullptr) return sig_or.status();

  if (!run.direct) {
    for (const auto& in : inputs) {
      const runtime::TensorSpec* spec = FindSpec(run.signature->inputs, in.key);
      TFHOST_ASSIGN_OR_RETURN(Tensor tensor, LoadInput(in, spec->dtype));
      run.signature_feeds[in.key] = std::move(tensor);
    }
    if (fill) {
      for (const auto& spec : run.signature->inputs) {
        if (run.signature_feeds.count(spec.key) || run.signature->defaults.count(spec.key)) continue;
        TFHOST_ASSIGN_OR_RETURN(Tensor tensor, fill(spec));
        run.signature_feeds[spec.key] = std::move(tensor);
        run.filled_keys.push_back(spec.key);
      }
    }
    run.output_filter = fetches;
    return run;
  }

  // Direct mode: signature keys still work and map to their tensors; other
  // keys must be tensors of the graph.
  const ir::Graph& graph = model.session().graph();
  std::set<std::string> fed_names;
  for (const auto& in : inputs) {
    std::string tensor_name;
    DType dtype = DType::kInvalid;
    const runtime::TensorSpec* spec = run.signature ? FindSpec(run.signature->inputs, in.key) : nullptr;
    if (spec != nullptr) {
      tensor_name = spec->tensor_name;
      dtype = spec->dtype;
    } else {
      auto canonical = CanonicalTensorName(in.key);
      auto ref = canonical.ok() ? graph.ResolveTensor(*canonical) : StatusOr<ir::TensorRef>(canonical.status());
      if (!ref.ok()) {
        std::string expected = run.signature ? "an input of signature '" + signature_name + "' (" +
                                                   KeyList(run.signature->inputs) + ")"
                                             : "a signature input (signature '" + signature_name + "' not found)";
        return InvalidArgument("input '" + in.key + "' is neither " + expected +
                               " nor a tensor of the graph: " + ref.status().message());
      }
      tensor_name = *canonical;
      const ir::Node& node = graph.node(ref->node);
      if (ref->index < static_cast<int>(node.output_dtypes.size())) dtype = node.output_dtypes[ref->index];
    }
    TFHOST_ASSIGN_OR_RETURN(Tensor tensor, LoadInput(in, dtype));
    if (dtype != DType::kInvalid && tensor.dtype() != dtype) {
      return InvalidArgument("input '" + in.key + "' (" + tensor_name + ") must be " + DTypeShortName(dtype) +
                             ", got " + DTypeShortName(tensor.dtype()));
    }
    if (spec != nullptr && !spec->shape.IsCompatibleWith(tensor.shape())) {
      return InvalidArgument("input '" + in.key + "' must have shape " + spec->shape.ToString() + ", got " +
                             tensor.shape().ToString());
    }
    if (!fed_names.insert(tensor_name).second) {
      return InvalidArgument("input '" + in.key + "' feeds " + tensor_name + ", which another --input feeds too");
    }
    run.direct_feeds.emplace_back(tensor_name, std::move(tensor));
  }
  if (fill && run.signature != nullptr) {
    for (const auto& spec : run.signature->inputs) {
      if (fed_names.count(spec.tensor_name)) continue;
      if (auto def = run.signature->defaults.find(spec.key); def != run.signature->defaults.end()) {
        run.direct_feeds.emplace_back(spec.tensor_name, def->second);
        continue;
      }
      TFHOST_ASSIGN_OR_RETURN(Tensor tensor, fill(spec));
      run.direct_feeds.emplace_back(spec.tensor_name, std::move(tensor));
      run.filled_keys.push_back(spec.key);
    }
  }
  if (fetches.empty()) {
    if (run.signature == nullptr) {
      return InvalidArgument("no --fetch given and the model has no signature '" + signature_name +
                             "' to take outputs from");
    }
    for (const auto& o : run.signature->outputs) {
      run.fetch_names.push_back(o.tensor_name);
      run.display_names.push_back(o.key);
    }
    return run;
  }
  for (const auto& f : fetches) {
    const runtime::TensorSpec* spec = run.signature ? FindSpec(run.signature->outputs, f) : nullptr;
    if (spec != nullptr) {
      run.fetch_names.push_back(spec->tensor_name);
    } else {
      auto canonical = CanonicalTensorName(f);
      if (!canonical.ok()) return canonical.status().WithContext("--fetch " + f);
      auto ref = graph.ResolveTensor(*canonical);
      if (!ref.ok()) return ref.status().WithContext("--fetch " + f);
      run.fetch_names.push_back(*canonical);
    }
    run.display_names.push_back(f);
  }
  return run;
}

void AddModelPathFlag(FlagParser& flags, std::string* path) {
  flags.AddPositional("PATH", path, "SavedModel dir, TF Serving base path, .pb/.pbtxt GraphDef, model.json, .tflite or .onnx");
}

void AddSignatureAndTagFlags(FlagParser& flags, std::string* signature, std::string* tags) {
  flags.AddString("signature", signature, "S", "signature to run (default: serving_default)");
  flags.AddString("tag", tags, "T", "SavedModel tag set, comma-separated (default: serve)");
}

int ReportFailure(std::ostream& err, const std::string& command, const Status& status) {
  err << "tfhost " << command << ": " << status.message() << "\n";
  return kExitFailure;
}

int ReportFlagStatus(std::ostream& err, const std::string& command, const Status& status) {
  return status.code() == StatusCode::kInvalidArgument ? ReportUsage(err, command, status.message())
                                                       : ReportFailure(err, command, status);
}

int ReportUsage(std::ostream& err, const std::string& command, const std::string& message) {
  err << "tfhost " << command << ": " << message << "\n"
      << "Run 'tfhost " << command << " --help' for usage.\n";
  return kExitUsage;
}

int ParseOrExit(FlagParser& flags, const std::vector<std::string>& args, const std::string& command,
                std::ostream& out, std::ostream& err) {
  Status st = flags.Parse(args);
  if (!st.ok()) return ReportUsage(err, command, st.message());
  if (flags.help_requested()) {
    out << flags.Help();
    return kExitOk;
  }
  return -1;
}

std::string FileNameForTensor(const std::string& name) {
  std::string out = name;
  for (char& c : out) {
    if (c == ':' || c == '/' || c == '\\') c = '_';
  }
  if (out.empty() || out == "." || out == "..") out = "_" + out;
  return out;
}

StatusOr<std::vector<std::string>> ExpandFileArguments(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (const std::string& a : args) {
    if (a.find_first_of("*?[") == std::string::npos) {
      out.push_back(a);
      continue;
    }
    glob_t g;
    int rc = ::glob(a.c_str(), 0, nullptr, &g);
    if (rc != 0) {
      globfree(&g);
      if (rc == GLOB_NOMATCH) return NotFound("no file matches '" + a + "'");
      return InvalidArgument("cannot expand the file pattern '" + a + "'");
    }
    for (size_t i = 0; i < g.gl_pathc; ++i) out.push_back(g.gl_pathv[i]);
    globfree(&g);
  }
  return out;
}

StatusOr<ShapeFlags> ParseShapeFlags(const std::vector<std::string>& flags) {
  ShapeFlags shapes;
  for (const auto& f : flags) {
    size_t eq = f.find('=');
    if (eq == std::string::npos || eq == 0) {
      return InvalidArgument("--shape '" + f + "' must look like KEY=d1,d2,... (use -1 for the batch dim)");
    }
    std::vector<int64_t> dims;
    std::string rest = f.substr(eq + 1);
    if (!rest.empty()) {
      auto list = ParseIntList(rest, "shape", -1, 1 << 24);
      if (!list.ok()) return list.status();
      dims.assign(list->begin(), list->end());
    }
    shapes[f.substr(0, eq)] = std::move(dims);
  }
  return shapes;
}

StatusOr<Shape> InputShapeAtBatch(const runtime::TensorSpec& spec, int batch, const ShapeFlags& shapes,
                                  bool* batched) {
  std::vector<int64_t> dims;
  auto override_it = shapes.find(spec.key);
  if (override_it != shapes.end()) {
    dims = override_it->second;
  } else if (spec.shape.unknown_rank) {
    return InvalidArgument("input '" + spec.key + "' has an unknown shape; give it with --shape " + spec.key +
                           "=d1,d2,... (-1 for the batch dim)");
  } else {
    dims = spec.shape.dims;
  }
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] >= 0) continue;
    if (i == 0) {
      dims[i] = batch;
      *batched = true;
      continue;
    }
    std::string shape = "[";
    for (size_t j = 0; j < dims.size(); ++j) shape += (j ? "," : "") + std::to_string(j == 0 && *batched ? -1 : dims[j]);
    return InvalidArgument("input '" + spec.key + "' has unknown dim " + std::to_string(i) + " in shape " + shape +
                           "]; give the full shape with --shape " + spec.key + "=d1,d2,... (-1 for the batch dim)");
  }
  return MakeShape(dims, "input '" + spec.key + "'", int64_t{1} << 31);
}

std::optional<size_t> ServeMallocMmapThreshold(const char* malloc_mmap_threshold, const char* glibc_tunables) {
  if (malloc_mmap_threshold != nullptr) return std::nullopt;
  if (glibc_tunables != nullptr &&
      std::string_view(glibc_tunables).find("malloc.mmap_threshold") != std::string_view::npos) {
    return std::nullopt;
  }
  return size_t{256} << 10;
}

std::optional<int> ServeMallocArenaLimit(const char* malloc_arena_max, const char* glibc_tunables, int cpus) {
  if (malloc_arena_max != nullptr) return std::nullopt;
  if (glibc_tunables != nullptr && std::string_view(glibc_tunables).find("malloc.arena_max") != std::string_view::npos) {
    return std::nullopt;
  }
  return std::max(2, cpus);
}

}  // namespace tfhost::cli
