// Pieces every tfhost subcommand shares: loading a model from command-line
// options, resolving `--input`/`--fetch` against a model (run, bench), and
// reporting errors with the right exit code.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <ostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backends/backend_registry.h"
#include "cli/flags.h"
#include "cli/limit_flags.h"
#include "cli/tensor_input.h"
#include "runtime/model.h"

namespace tfhost::cli {

// "serve,gpu" -> {"serve", "gpu"}; empty items are dropped.
std::vector<std::string> SplitTags(const std::string& tags);

// How a subcommand loads its model.
struct CliLoad {
  std::string tags = "serve";  // SavedModel tag set, comma-separated
  int intra_op_threads = 0;    // 0 = one per hardware thread
  backends::KernelChoice kernels = backends::KernelChoice::kFast;
  // Where nodes may run (--device); null: the host backends.
  const backends::BackendRegistry* backends = nullptr;
  std::string precision = "fp32";
  bool optimize_graph = true;  // false: the graph as written (inspect)
  bool freeze_variables = true;  // LoadOptions::freeze_variables
  // Names fed or fetched directly (--input x:0, --fetch Mul:0): kept by the
  // graph passes (LoadOptions::keep).
  std::vector<std::string> keep;
  // --max_loop_iterations and the other model limits (cli/limit_flags.h).
  ModelLimitFlags limits;
};

// The names `--input`/`--fetch` use, for CliLoad::keep.
std::vector<std::string> NamesUsedDirectly(const std::vector<InputFlag>& inputs,
                                           const std::vector<std::string>& fetches);

// Loads `path` (any format).
StatusOr<std::unique_ptr<runtime::Model>> LoadModelForCli(const std::string& path, const CliLoad& load);

// --precision fp32|bf16, as run and bench take it (LoadOptions::precision);
// CheckPrecisionFlag's error names the accepted values.
void AddPrecisionFlag(FlagParser& flags, std::string* precision);
Status CheckPrecisionFlag(const std::string& text);
// For --precision bf16 on a CPU without native bf16 (avx512_bf16 or AMX):
// tells the user, on `err`, that every product runs in float32, so a bf16
// figure from this machine is not read as a bf16 measurement.
void NoteBf16Fallback(std::ostream& err, const char* command, const std::string& precision);

// --kernels fast|reference, as run and bench take it; ParseKernelsFlag turns
// the text into the choice (the error names the accepted values).
void AddKernelsFlag(FlagParser& flags, std::string* kernels);
StatusOr<backends::KernelChoice> ParseKernelsFlag(const std::string& text);

// --device cpu|gpu|gpu:N|auto (backends/builtin/device_registry.h), as run,
// bench, predict and serve take it. ApplyDeviceFlag sets *backends for the
// loader; a usage error for a bad spelling, FailedPrecondition (with the
// reason) for a GPU that is not usable; for auto without a GPU it says on
// `err` why the CPU runs.
void AddDeviceFlag(FlagParser& flags, std::string* device);
StatusOr<const backends::BackendRegistry*> ApplyDeviceFlag(const std::string& text, const char* command,
                                                           std::ostream& err);

// Parses every `--input KEY=VALUE` (tensor_input.h); a key given twice is an
// error.
StatusOr<std::vector<InputFlag>> ParseInputFlags(const std::vector<std::string>& flags);

// A run of a model as `--input`/`--fetch` describe it, with every input read.
// When every input key and fetch belongs to the signature it runs through
// Model::RunSignature (dtype and shape checks, signature defaults); otherwise
// directly on the session: signature keys map to their tensors, other keys
// and fetches must be graph tensors ("node:i").
struct ResolvedRun {
  bool direct = false;
  std::string signature_name;
  const runtime::Signature* signature = nullptr;  // null only in direct mode without the signature
  std::map<std::string, Tensor> signature_feeds;   // signature mode: key -> value
  std::vector<std::string> output_filter;          // signature mode: output keys (empty = all)
  runtime::NamedTensors direct_feeds;              // direct mode: tensor name -> value
  std::vector<std::string> fetch_names;            // direct mode: tensors to fetch
  std::vector<std::string> display_names;          // direct mode: how each fetch is named in the results
  // Keys of the inputs that the InputFiller made (not given with --input).
  std::vector<std::string> filled_keys;

  // Graph tensor name and value of every feed (for FLOP counting); pointers
  // into this object.
  std::vector<std::pair<std::string, const Tensor*>> FedTensors() const;
  // Runs once; results in fetch order (signature mode: sorted by key).
  StatusOr<std::vector<std::pair<std::string, Tensor>>> Run(runtime::Model& model) const;
};

// `--shape KEY=d1,d2,...` (bench, plan): the dims each input key is given,
// -1 for the batch dim.
using ShapeFlags = std::map<std::string, std::vector<int64_t>>;
StatusOr<ShapeFlags> ParseShapeFlags(const std::vector<std::string>& flags);

// The shape of signature input `spec` at `batch`: its --shape, else its
// signature shape, with an unknown leading dim taking `batch` (and
// *batched set). Fails naming the input and the --shape to give when its
// rank or another dim is unknown.
StatusOr<Shape> InputShapeAtBatch(const runtime::TensorSpec& spec, int batch, const ShapeFlags& shapes,
                                  bool* batched);

// Makes a value for a signature input that no --input gives (bench's random
// inputs); returns an error when it cannot (unknown shape, string dtype).
using InputFiller = std::function<StatusOr<Tensor>(const runtime::TensorSpec& spec)>;

// Reads `inputs` and resolves them and `fetches` against `model`. With a
// `fill`, every signature input that is neither given (by key or by its
// tensor name) nor has a signature default is filled by it.
StatusOr<ResolvedRun> ResolveRun(runtime::Model& model, const std::string& signature_name,
                                 const std::vector<InputFlag>& inputs, const std::vector<std::string>& fetches,
                                 const InputFiller& fill = nullptr);

// The PATH positional of the commands that run a model (run, bench).
void AddModelPathFlag(FlagParser& flags, std::string* path);

// --signature and --tag, as the commands that run a signature (run, bench)
// take them; the defaults the help names are the values the caller preset.
void AddSignatureAndTagFlags(FlagParser& flags, std::string* signature, std::string* tags);

// Prints "tfhost <command>: <message>" and returns kExitFailure.
int ReportFailure(std::ostream& err, const std::string& command, const Status& status);

// Prints the usage error and a pointer to --help; returns kExitUsage.
int ReportUsage(std::ostream& err, const std::string& command, const std::string& message);

// For a flag whose check can fail either way: InvalidArgument (a bad
// spelling) is a usage error, anything else (the machine cannot do it) a
// failure.
int ReportFlagStatus(std::ostream& err, const std::string& command, const Status& status);

// Parses flags; on error or --help prints what is needed and returns the
// exit code to return (kExitUsage / kExitOk); otherwise returns -1 and the
// command goes on.
int ParseOrExit(FlagParser& flags, const std::vector<std::string>& args, const std::string& command,
                std::ostream& out, std::ostream& err);

// Input-file arguments as the data commands take them: an argument with glob
// characters the shell left alone (quoted, or from a script) expands to its
// matches in sorted order, so every machine of a sharded job sees the same
// list; other arguments stay as given (a missing file is the reader's error,
// naming it). A pattern matching nothing is NotFound naming the pattern.
StatusOr<std::vector<std::string>> ExpandFileArguments(const std::vector<std::string>& args);

// "x:0" -> "x_0", "a/b:1" -> "a_b_1": a tensor name usable as a file name.
std::string FileNameForTensor(const std::string& name);

// How many malloc arenas `tfhost serve` lets glibc make: one per CPU (at
// least 2), or nothing when the user chose (MALLOC_ARENA_MAX, or arena_max in
// GLIBC_TUNABLES; the arguments are those variables, null when unset).
// glibc's default, 8 per CPU, lets every thread that finds an arena locked
// make another, and each arena keeps the large request buffers it freed (a
// 600 KB image, a 3 MB JSON body) once its mmap threshold has risen to their
// size: RSS then creeps up for hours as more threads take part
// (bench/soak on 2 CPUs: 153 MiB at 30 minutes with glibc's default, about
// 76 MiB with 2 arenas, at the same CPU time per request).
std::optional<int> ServeMallocArenaLimit(const char* malloc_arena_max, const char* glibc_tunables, int cpus);

// The fixed mmap threshold `tfhost serve` gives glibc: 256 KiB, or nothing
// when the user chose (MALLOC_MMAP_THRESHOLD_, or mmap_threshold in
// GLIBC_TUNABLES). glibc's threshold otherwise rises to the size of each
// large block freed, after which an arena keeps request buffers of that size
// (600 KB images, 3 MB JSON bodies) instead of returning them; a fixed one
// maps each such buffer on its own and unmaps it when freed.
std::optional<size_t> ServeMallocMmapThreshold(const char* malloc_mmap_threshold, const char* glibc_tunables);

}  // namespace tfhost::cli
