// `tfhost run PATH --input KEY=VALUE ... [--fetch NAME ...] [--output-dir D]`:
// runs a model once. Inputs are keyed by signature input key (validated by
// Model::RunSignature) or by graph tensor name ("node:i"); in the latter case
// the session is run directly on the named tensors.
#include <filesystem>

#include "base/file_util.h"
#include "cli/cli.h"
#include "cli/command_util.h"
#include "cli/gpu_memory_flags.h"
#include "cli/npy_io.h"
#include "cli/tensor_input.h"
#include "cli/trace_flag.h"

namespace tfhost::cli {

namespace {

// Writes or prints the results, in order.
int EmitOutputs(const std::vector<std::pair<std::string, Tensor>>& outputs, const std::string& output_dir,
                std::ostream& out, std::ostream& err) {
  if (!output_dir.empty()) {
    if (Status dirs = CreateDirectories(output_dir); !dirs.ok()) return ReportFailure(err, "run", dirs);
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
  std::string path, tags = "serve", signature_name = "serving_default", output_dir, kernels_flag = "fast", device = "cpu";
  std::string precision = "fp32", trace_path;
  std::vector<std::string> input_flags, fetches;
  int threads = 0;
  ModelLimitFlags limits;
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
  AddKernelsFlag(flags, &kernels_flag);
  AddDeviceFlag(flags, &device);
  GpuMemoryFlags gpu_memory;
  AddGpuMemoryFlags(flags, &gpu_memory);
  AddPrecisionFlag(flags, &precision);
  AddTraceFlag(flags, &trace_path);
  AddModelLimitFlags(flags, &limits);
  if (int code = ParseOrExit(flags, args, "run", out, err); code >= 0) return code;
  if (threads < 0) return ReportUsage(err, "run", "--threads must be 0 or more");
  if (Status st = CheckModelLimitFlags(limits); !st.ok()) return ReportUsage(err, "run", st.message());
  auto kernels = ParseKernelsFlag(kernels_flag);
  if (!kernels.ok()) return ReportUsage(err, "run", kernels.status().message());
  if (Status st = CheckPrecisionFlag(precision); !st.ok()) return ReportUsage(err, "run", st.message());
  NoteBf16Fallback(err, "run", precision);
  auto inputs = ParseInputFlags(input_flags);
  if (!inputs.ok()) return ReportUsage(err, "run", inputs.status().message());
  auto backends = ApplyDeviceFlags(device, gpu_memory, "run", err);
  if (!backends.ok()) return ReportFlagStatus(err, "run", backends.status());

  auto tracer = CliTrace::Start(trace_path, "tfhost run");
  if (!tracer.ok()) return ReportFailure(err, "run", tracer.status());
  CliLoad load;
  load.tags = tags;
  load.intra_op_threads = threads;
  load.kernels = *kernels;
  load.backends = *backends;
  load.precision = precision;
  load.keep = NamesUsedDirectly(*inputs, fetches);
  load.limits = limits;
  auto model_or = LoadModelForCli(path, load);
  if (!model_or.ok()) return ReportFailure(err, "run", model_or.status());
  auto run = ResolveRun(**model_or, signature_name, *inputs, fetches);
  if (!run.ok()) return ReportFailure(err, "run", run.status());
  auto outputs = run->Run(**model_or);
  if (!outputs.ok()) return ReportFailure(err, "run", outputs.status());
  if (Status st = FinishTrace(*tracer, err); !st.ok()) return ReportFailure(err, "run", st);
  return EmitOutputs(*outputs, output_dir, out, err);
}

}  // namespace tfhost::cli
