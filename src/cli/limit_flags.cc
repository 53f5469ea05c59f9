#include "cli/limit_flags.h"

#include <climits>
#include <string>

namespace tfhost::cli {
namespace {

Status CheckRange(int value, int lo, int hi, const char* name) {
  if (value >= lo && value <= hi) return OkStatus();
  return InvalidArgument(std::string("--") + name + " must be between " + std::to_string(lo) + " and " +
                         std::to_string(hi) + ", got " + std::to_string(value));
}

}  // namespace

void AddModelLimitFlags(FlagParser& flags, ModelLimitFlags* limits) {
  flags.AddInt("max_loop_iterations", &limits->max_loop_iterations, "N",
               "while-loop iterations one run may execute, all loops together; past it the run fails "
               "(default " + std::to_string(runtime::kDefaultMaxLoopIterations) + "; 0 = no limit)");
  flags.AddInt("max_function_depth", &limits->max_function_depth, "N",
               "deepest nesting of function calls (If/While/Case bodies, calls) at load and run time (default " +
                   std::to_string(runtime::kDefaultMaxFunctionDepth) + ")");
  flags.AddInt("max_graph_nodes", &limits->max_graph_nodes, "N",
               "most nodes a model's graph may have, as read and after inlining its functions (default " +
                   std::to_string(loaders::kDefaultMaxGraphNodes) + ")");
  flags.AddInt("max_decoded_image_mb", &limits->max_decoded_image_mb, "MB",
               "largest image the image decoding ops produce (height x width x channels x bytes per sample), "
               "refused before decoding (default " +
                   std::to_string(ops::kDefaultMaxDecodedImageBytes >> 20) + ")");
  flags.AddInt("max_op_string_mb", &limits->max_op_string_mb, "MB",
               "longest string value an op may output (a join, a replacement, a loop that grows a string); "
               "past it the run fails naming the node (default " +
                   std::to_string(ops::kDefaultMaxOpStringBytes >> 20) + ")");
}

Status CheckModelLimitFlags(const ModelLimitFlags& limits) {
  TFHOST_RETURN_IF_ERROR(CheckRange(limits.max_loop_iterations, 0, INT_MAX, "max_loop_iterations"));
  TFHOST_RETURN_IF_ERROR(CheckRange(limits.max_function_depth, 1, 100000, "max_function_depth"));
  TFHOST_RETURN_IF_ERROR(CheckRange(limits.max_graph_nodes, 1, INT_MAX, "max_graph_nodes"));
  // 2^20 MB: a 1 TiB image or string, beyond any host's memory.
  TFHOST_RETURN_IF_ERROR(CheckRange(limits.max_decoded_image_mb, 1, 1 << 20, "max_decoded_image_mb"));
  return CheckRange(limits.max_op_string_mb, 1, 1 << 20, "max_op_string_mb");
}

void ApplyModelLimitFlags(const ModelLimitFlags& limits, loaders::LoadOptions* options) {
  options->max_graph_nodes = limits.max_graph_nodes;
  options->session.max_loop_iterations = limits.max_loop_iterations;
  options->session.max_function_depth = limits.max_function_depth;
  options->session.max_decoded_image_bytes = static_cast<int64_t>(limits.max_decoded_image_mb) << 20;
  options->session.max_op_string_bytes = static_cast<int64_t>(limits.max_op_string_mb) << 20;
}

void AddDecompressedLimitFlag(FlagParser& flags, int* mb) {
  flags.AddInt("max_decompressed_mb", mb, "MB",
               "most a compressed (gzip/zlib) TFRecord file may decompress to; past it reading fails, so a "
               "decompression bomb is refused (default " +
                   std::to_string(kDefaultMaxDecompressedMb) + "; 0 = no limit)");
}

Status CheckDecompressedLimitFlag(int mb) { return CheckRange(mb, 0, INT_MAX, "max_decompressed_mb"); }

}  // namespace tfhost::cli
