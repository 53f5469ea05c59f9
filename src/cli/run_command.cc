// `tfhost run PATH --input KEY=VALUE ... [--fetch NAME ...] [--output-dir D]`:
// runs a model once. Inputs are keyed by signature input key (validated by
// Model::RunSignature) or by graph tensor name ("node:i"); in the latter case
// the session is run directly on the named tensors.
#include <filesystem>
#include <set>

#include "cli/cli.h"
#include "cli/command_util.h"
#include "cli/npy_io.h"
#include "cli/tensor_input.h"

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

struct Plan {
  bool direct = false;  // Session::Run on tensor names instead of RunSignature
  const runtime::Signature* signature = nullptr;
};

// Writes or prints the results, in order.
int EmitOutputs(const std::vector<std::pair<std::string, Tensor>>& outputs, const std::string& output_dir,
                std::ostream& out, std::ostream& err) {
  if (!output_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(output_dir, ec);
    if (ec) return ReportFailure(err, "run", Unavailable("cannot create " + output_dir + ": " + ec.message()));
  }
  for (const auto& [name, tensor] : outputs) {
    if (output_dir.empty()) {
      out << name << ": " << SummarizeTensor(tensor) << "\n";
      continue;
    }
    std::string path = (std::filesystem::path(output_dir) / (FileNameForTensor(name) + ".npy")).string();
    std::string note;
    Status st = WriteNpyFile(path, tensor, &note);
    if (!st.ok()) return ReportFailure(err, "run", st.WithContext("output '" + name + "'"));
    out << "wrote " << path << "  " << DTypeShortName(tensor.dtype()) << tensor.shape().ToString() << "\n";
    if (!note.empty()) out << "  note: " << note << "\n";
  }
  return kExitOk;
}

}  // namespace

int RunCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  std::string path, tags = "serve", signature_name = "serving_default", output_dir;
  std::vector<std::string> input_flags, fetches;
  int threads = 0;
  FlagParser flags(
      "tfhost run PATH --input KEY=VALUE ... [flags]",
      "Runs a model once and prints or saves its outputs. KEY is a signature input key, or a\n"
      "graph tensor name 'node:i' (then the graph is run directly and --fetch picks outputs).\n"
      "VALUE is FILE.npy, @FILE (the file's bytes as a string scalar) or a JSON literal such as\n"
      "'[[1.0], [2.0]]' (dtype from the signature, else float32/int64/string/bool by content).");
  AddModelPathFlag(flags, &path);
  flags.AddRepeated("input", &input_flags, "KEY=VALUE", "an input; repeat for each");
  flags.AddRepeated("fetch", &fetches, "NAME", "an output key or tensor name 'node:i' to fetch; repeatable");
  AddSignatureAndTagFlags(flags, &signature_name, &tags);
  flags.AddString("output-dir", &output_dir, "DIR", "write each output to DIR/<key>.npy instead of printing");
  flags.AddInt("threads", &threads, "N", "intra-op threads (default 0: one per hardware thread)");
  if (int code = ParseOrExit(flags, args, "run", out, err); code >= 0) return code;
  if (threads < 0) return ReportUsage(err, "run", "--threads must be 0 or more");

  std::vector<InputFlag> inputs;
  std::set<std::string> seen_keys;
  for (const auto& f : input_flags) {
    auto parsed = ParseInputFlag(f);
    if (!parsed.ok()) return ReportUsage(err, "run", parsed.status().message());
    if (!seen_keys.insert(parsed->key).second) {
      return ReportUsage(err, "run", "input '" + parsed->key + "' is given twice");
    }
    inputs.push_back(std::move(*parsed));
  }

  auto model_or = LoadModelForCli(path, tags, threads);
  if (!model_or.ok()) return ReportFailure(err, "run", model_or.status());
  runtime::Model& model = **model_or;

  Plan plan;
  auto sig_or = model.FindSignature(signature_name);
  if (sig_or.ok()) plan.signature = *sig_or;
  for (const auto& in : inputs) {
    if (plan.signature == nullptr || FindSpec(plan.signature->inputs, in.key) == nullptr) plan.direct = true;
  }
  for (const auto& f : fetches) {
    if (plan.signature == nullptr || FindSpec(plan.signature->outputs, f) == nullptr) plan.direct = true;
  }
  if (!plan.direct && plan.signature == nullptr) return ReportFailure(err, "run", sig_or.status());

  if (!plan.direct) {
    std::map<std::string, Tensor> feeds;
    for (const auto& in : inputs) {
      const runtime::TensorSpec* spec = FindSpec(plan.signature->inputs, in.key);
      auto tensor = LoadInput(in, spec->dtype);
      if (!tensor.ok()) return ReportFailure(err, "run", tensor.status());
      feeds[in.key] = std::move(*tensor);
    }
    auto results = model.RunSignature(signature_name, feeds, fetches);
    if (!results.ok()) return ReportFailure(err, "run", results.status());
    std::vector<std::pair<std::string, Tensor>> outputs(results->begin(), results->end());
    return EmitOutputs(outputs, output_dir, out, err);
  }

  // Direct mode: signature keys still work and map to their tensors; other
  // keys must be tensors of the graph.
  const ir::Graph& graph = model.session().graph();
  runtime::NamedTensors feeds;
  for (const auto& in : inputs) {
    std::string tensor_name;
    DType dtype = DType::kInvalid;
    const runtime::TensorSpec* spec = plan.signature ? FindSpec(plan.signature->inputs, in.key) : nullptr;
    if (spec != nullptr) {
      tensor_name = spec->tensor_name;
      dtype = spec->dtype;
    } else {
      auto canonical = CanonicalTensorName(in.key);
      auto ref = canonical.ok() ? graph.ResolveTensor(*canonical) : StatusOr<ir::TensorRef>(canonical.status());
      if (!ref.ok()) {
        std::string expected = plan.signature ? "an input of signature '" + signature_name + "' (" +
                                                    KeyList(plan.signature->inputs) + ")"
                                              : "a signature input (signature '" + signature_name + "' not found)";
        return ReportFailure(err, "run",
                             InvalidArgument("input '" + in.key + "' is neither " + expected +
                                             " nor a tensor of the graph: " + ref.status().message()));
      }
      tensor_name = *canonical;
      const ir::Node& node = graph.node(ref->node);
      if (ref->index < static_cast<int>(node.output_dtypes.size())) dtype = node.output_dtypes[ref->index];
    }
    auto tensor = LoadInput(in, dtype);
    if (!tensor.ok()) return ReportFailure(err, "run", tensor.status());
    if (dtype != DType::kInvalid && tensor->dtype() != dtype) {
      return ReportFailure(err, "run",
                           InvalidArgument("input '" + in.key + "' (" + tensor_name + ") must be " +
                                           DTypeShortName(dtype) + ", got " + DTypeShortName(tensor->dtype())));
    }
    if (spec != nullptr && !spec->shape.IsCompatibleWith(tensor->shape())) {
      return ReportFailure(err, "run",
                           InvalidArgument("input '" + in.key + "' must have shape " + spec->shape.ToString() +
                                           ", got " + tensor->shape().ToString()));
    }
    feeds.emplace_back(tensor_name, std::move(*tensor));
  }
  std::vector<std::string> fetch_names, display_names;
  if (fetches.empty()) {
    if (plan.signature == nullptr) {
      return ReportFailure(err, "run",
                           InvalidArgument("no --fetch given and the model has no signature '" + signature_name +
                                           "' to take outputs from"));
    }
    for (const auto& o : plan.signature->outputs) {
      fetch_names.push_back(o.tensor_name);
      display_names.push_back(o.key);
    }
  } else {
    for (const auto& f : fetches) {
      const runtime::TensorSpec* spec = plan.signature ? FindSpec(plan.signature->outputs, f) : nullptr;
      if (spec != nullptr) {
        fetch_names.push_back(spec->tensor_name);
      } else {
        auto canonical = CanonicalTensorName(f);
        if (!canonical.ok()) return ReportFailure(err, "run", canonical.status().WithContext("--fetch " + f));
        auto ref = graph.ResolveTensor(*canonical);
        if (!ref.ok()) return ReportFailure(err, "run", ref.status().WithContext("--fetch " + f));
        fetch_names.push_back(*canonical);
      }
      display_names.push_back(f);
    }
  }
  auto results = model.session().Run(feeds, fetch_names);
  if (!results.ok()) return ReportFailure(err, "run", results.status());
  std::vector<std::pair<std::string, Tensor>> outputs;
  for (size_t i = 0; i < display_names.size(); ++i) outputs.emplace_back(display_names[i], (*results)[i]);
  return EmitOutputs(outputs, output_dir, out, err);
}

}  // namespace tfhost::cli
