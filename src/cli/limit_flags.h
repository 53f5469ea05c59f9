// The limit flags shared by the commands that load a model (run, bench,
// predict, serve) and by those that read compressed TFRecords (predict,
// data). Every limit is spelled the same way on every command, so that the
// error a crossed limit produces deep in the runtime can name its flag.
// Defaults, meanings and errors: docs/cli.md, "Limits".
//
// Thread-safety: plain values and functions, used by one thread.
#pragma once

#include "base/status.h"
#include "cli/flags.h"
#include "data/input_stream.h"
#include "loaders/model_loader.h"
#include "ops/output_limits.h"
#include "runtime/run_limits.h"

namespace tfhost::cli {

struct ModelLimitFlags {
  int max_loop_iterations = static_cast<int>(runtime::kDefaultMaxLoopIterations);  // 0 = none
  int max_function_depth = runtime::kDefaultMaxFunctionDepth;
  int max_graph_nodes = static_cast<int>(loaders::kDefaultMaxGraphNodes);
  int max_decoded_image_mb = static_cast<int>(ops::kDefaultMaxDecodedImageBytes >> 20);
  int max_op_string_mb = static_cast<int>(ops::kDefaultMaxOpStringBytes >> 20);
};

// --max_loop_iterations, --max_function_depth, --max_graph_nodes,
// --max_decoded_image_mb, --max_op_string_mb.
void AddModelLimitFlags(FlagParser& flags, ModelLimitFlags* limits);
// Ranges; the error names the flag and the accepted range.
Status CheckModelLimitFlags(const ModelLimitFlags& limits);
// Sets the load and session options the flags stand for.
void ApplyModelLimitFlags(const ModelLimitFlags& limits, loaders::LoadOptions* options);

// --max_decompressed_mb (0 = no limit), bytes a compressed TFRecord file may
// decompress to.
inline constexpr int kDefaultMaxDecompressedMb = static_cast<int>(data::kDefaultMaxDecompressedBytes >> 20);
void AddDecompressedLimitFlag(FlagParser& flags, int* mb);
Status CheckDecompressedLimitFlag(int mb);
inline uint64_t DecompressedLimitBytes(int mb) { return static_cast<uint64_t>(mb) << 20; }

}  // namespace tfhost::cli
