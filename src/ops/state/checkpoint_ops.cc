// Checkpoint I/O ops: RestoreV2 and SaveV2 read and write tensor bundles
// (checkpoint/), MergeV2Checkpoints joins per-device bundles into one, and
// ShardedFilename/ShardedFilespec build TensorFlow's shard file names.
// Partitioned (sliced) variables are not supported.
#include <cstdio>
#include <filesystem>
#include <map>

#include "checkpoint/tensor_bundle_reader.h"
#include "checkpoint/tensor_bundle_writer.h"
#include "ops/state/state_ops.h"

namespace tfhost::ops {
namespace {

namespace fs = std::filesystem;
using checkpoint::TensorBundleReader;

Status WithNode(const KernelContext& ctx, const Status& s) {
  return s.WithContext(ir::NodeContext(ctx.node()));
}

StatusOr<std::string> StringScalarInput(const KernelContext& ctx, int i, const char* what) {
  const Tensor& t = ctx.input(i);
  if (t.dtype() != DType::kString || t.NumElements() != 1) {
    return ctx.Error(std::string(what) + " must be a string scalar, got " + DTypeShortName(t.dtype()) +
                     t.shape().ToString());
  }
  return t.strings()[0];
}

// tensor_names and shape_and_slices: string tensors of `n` elements each.
Status CheckNameInputs(const KernelContext& ctx, int64_t n) {
  for (int i : {1, 2}) {
    const Tensor& t = ctx.input(i);
    if (t.dtype() != DType::kString || t.NumElements() != n) {
      return ctx.Error(std::string(i == 1 ? "tensor_names" : "shape_and_slices") + " must hold " +
                       std::to_string(n) + " strings (one per dtype), got " +
                       DTypeShortName(t.dtype()) + t.shape().ToString());
    }
  }
  return OkStatus();
}

Status SliceUnsupported(const KernelContext& ctx, const std::string& key, const std::string& spec) {
  return Unimplemented(ir::NodeContext(ctx.node()) + ": tensor '" + key + "' requests slice '" + spec +
                       "'; partitioned variables are not supported");
}

Status RestoreV2Kernel(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(std::string prefix, StringScalarInput(ctx, 0, "prefix"));
  TFHOST_ASSIGN_OR_RETURN(std::vector<DType> dtypes, ctx.Attr<std::vector<DType>>("dtypes"));
  const int64_t n = static_cast<int64_t>(dtypes.size());
  TFHOST_RETURN_IF_ERROR(CheckNameInputs(ctx, n));
  const std::string* names = ctx.input(1).strings();
  const std::string* slices = ctx.input(2).strings();
  for (int64_t i = 0; i < n; ++i) {
    if (!slices[i].empty()) return SliceUnsupported(ctx, names[i], slices[i]);
  }
  auto reader = TensorBundleReader::Open(prefix);
  if (!reader.ok()) return WithNode(ctx, reader.status());
  for (int64_t i = 0; i < n; ++i) {
    auto entry = (*reader)->Entry(names[i]);
    if (!entry.ok()) return WithNode(ctx, entry.status());
    const DType stored = BaseType(static_cast<int>((*entry)->dtype()));
    if (stored != dtypes[i]) {
      return ctx.Error("tensor '" + names[i] + "' in " + checkpoint::IndexFileName(prefix) + " is " +
                       DTypeShortName(stored) + " but dtypes[" + std::to_string(i) + "] expects " +
                       DTypeShortName(dtypes[i]));
    }
    auto tensor = (*reader)->Read(names[i]);
    if (!tensor.ok()) return WithNode(ctx, tensor.status());
    ctx.set_output(static_cast<int>(i), std::move(*tensor));
  }
  return OkStatus();
}

Status SaveV2Kernel(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(std::string prefix, StringScalarInput(ctx, 0, "prefix"));
  TFHOST_ASSIGN_OR_RETURN(std::vector<DType> dtypes, ctx.Attr<std::vector<DType>>("dtypes"));
  const int64_t n = static_cast<int64_t>(dtypes.size());
  TFHOST_RETURN_IF_ERROR(CheckNameInputs(ctx, n));
  if (ctx.num_inputs() != 3 + n) {
    return ctx.Error("expected " + std::to_string(n) + " tensors to save, got " +
                     std::to_string(ctx.num_inputs() - 3));
  }
  const std::string* names = ctx.input(1).strings();
  const std::string* slices = ctx.input(2).strings();
  checkpoint::TensorBundleWriter writer(prefix);
  for (int64_t i = 0; i < n; ++i) {
    if (!slices[i].empty()) return SliceUnsupported(ctx, names[i], slices[i]);
    const Tensor& t = ctx.input(static_cast<int>(3 + i));
    if (t.dtype() != dtypes[i]) {
      return ctx.Error("tensor '" + names[i] + "' is " + DTypeShortName(t.dtype()) + " but dtypes[" +
                       std::to_string(i) + "] is " + DTypeShortName(dtypes[i]));
    }
    TFHOST_RETURN_IF_ERROR(WithNode(ctx, writer.Add(names[i], t)));
  }
  return WithNode(ctx, writer.Finish());
}

// Moves a file, copying when a rename cannot cross file systems.
Status MoveFile(const std::string& from, const std::string& to) {
  std::error_code ec;
  fs::rename(from, to, ec);
  if (!ec) return OkStatus();
  std::error_code copy_ec;
  fs::copy_file(from, to, fs::copy_options::overwrite_existing, copy_ec);
  if (copy_ec) return Internal("cannot move " + from + " to " + to + ": " + ec.message());
  fs::remove(from, copy_ec);
  return OkStatus();
}

// TensorFlow's merge: shard j of the k-th source becomes shard (sum of
// earlier sources' shard counts + j) of the destination, and one index lists
// every entry with its shard id shifted accordingly.
Status MergeV2CheckpointsKernel(KernelContext& ctx) {
  const Tensor& sources_t = ctx.input(0);
  if (sources_t.dtype() != DType::kString) return ctx.Error("checkpoint_prefixes must be strings");
  TFHOST_ASSIGN_OR_RETURN(std::string dest, StringScalarInput(ctx, 1, "destination_prefix"));
  TFHOST_ASSIGN_OR_RETURN(bool delete_old_dirs, ctx.AttrOr<bool>("delete_old_dirs", true));
  TFHOST_ASSIGN_OR_RETURN(bool allow_missing, ctx.AttrOr<bool>("allow_missing_files", false));

  std::vector<std::unique_ptr<TensorBundleReader>> readers;
  for (int64_t i = 0; i < sources_t.NumElements(); ++i) {
    const std::string& src = sources_t.strings()[i];
    if (allow_missing && !fs::exists(checkpoint::IndexFileName(src))) continue;
    auto reader = TensorBundleReader::Open(src);
    if (!reader.ok()) return WithNode(ctx, reader.status());
    readers.push_back(std::move(*reader));
  }
  if (readers.empty()) {
    return ctx.Error("none of the " + std::to_string(sources_t.NumElements()) +
                     " checkpoint prefixes exist; nothing to merge into " + dest);
  }
  if (readers.size() == 1 && readers[0]->prefix() == dest) return OkStatus();

  int total_shards = 0;
  for (const auto& r : readers) total_shards += r->header().num_shards();
  if (total_shards > checkpoint::kMaxShards) return ctx.Error("too many shards to merge");
  std::map<std::string, tensorflow::BundleEntryProto> merged;
  std::map<std::string, std::string> origin;  // key -> source prefix, for errors
  int base = 0;
  for (const auto& r : readers) {
    for (const auto& [key, entry] : r->entries()) {
      if (merged.count(key)) {
        return ctx.Error("tensor '" + key + "' appears in both " + origin[key] + " and " + r->prefix());
      }
      tensorflow::BundleEntryProto shifted = entry;
      shifted.set_shard_id(entry.shard_id() + base);
      merged.emplace(key, std::move(shifted));
      origin.emplace(key, r->prefix());
    }
    base += r->header().num_shards();
  }

  std::error_code ec;
  fs::path dest_dir = fs::path(dest).parent_path();
  if (!dest_dir.empty()) fs::create_directories(dest_dir, ec);
  base = 0;
  for (const auto& r : readers) {
    const int n = r->header().num_shards();
    for (int j = 0; j < n; ++j) {
      const std::string from = checkpoint::DataFileName(r->prefix(), j, n);
      if (!fs::exists(from)) {
        return NotFound(ir::NodeContext(ctx.node()) + ": data file " + from + " is missing (shard " +
                        std::to_string(j) + " of " + std::to_string(n) + ")");
      }
      TFHOST_RETURN_IF_ERROR(
          WithNode(ctx, MoveFile(from, checkpoint::DataFileName(dest, base + j, total_shards))));
    }
    base += n;
  }
  tensorflow::BundleHeaderProto header;
  header.set_num_shards(total_shards);
  header.mutable_version()->set_producer(checkpoint::kTensorBundleVersion);
  TFHOST_RETURN_IF_ERROR(WithNode(
      ctx, checkpoint::WriteBundleIndex(checkpoint::IndexFileName(dest), header, merged, true)));

  for (const auto& r : readers) {
    if (r->prefix() == dest) continue;
    fs::remove(checkpoint::IndexFileName(r->prefix()), ec);
    // Only an emptied folder goes: fs::remove refuses non-empty ones.
    fs::path dir = fs::path(r->prefix()).parent_path();
    if (delete_old_dirs && !dir.empty() && dir != dest_dir) fs::remove(dir, ec);
  }
  return OkStatus();
}

Status Int32ScalarInput(const KernelContext& ctx, int i, const char* what, int32_t* out) {
  const Tensor& t = ctx.input(i);
  if (t.dtype() != DType::kInt32 || t.NumElements() != 1) {
    return ctx.Error(std::string(what) + " must be an int32 scalar, got " + DTypeShortName(t.dtype()) +
                     t.shape().ToString());
  }
  *out = t.data<int32_t>()[0];
  return OkStatus();
}

Status ShardedFilenameKernel(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(std::string basename, StringScalarInput(ctx, 0, "basename"));
  int32_t shard = 0, num_shards = 0;
  TFHOST_RETURN_IF_ERROR(Int32ScalarInput(ctx, 1, "shard", &shard));
  TFHOST_RETURN_IF_ERROR(Int32ScalarInput(ctx, 2, "num_shards", &num_shards));
  char suffix[48];
  std::snprintf(suffix, sizeof(suffix), "-%05d-of-%05d", shard, num_shards);
  ctx.set_output(0, Tensor::StringScalar(basename + suffix));
  return OkStatus();
}

Status ShardedFilespecKernel(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(std::string basename, StringScalarInput(ctx, 0, "basename"));
  int32_t num_shards = 0;
  TFHOST_RETURN_IF_ERROR(Int32ScalarInput(ctx, 1, "num_shards", &num_shards));
  char count[16];
  std::snprintf(count, sizeof(count), "%05d", num_shards);
  // Five literal '?' (spelled out: "??-" in a literal is a trigraph).
  ctx.set_output(0, Tensor::StringScalar(basename + "-" + std::string(5, '?') + "-of-" + count));
  return OkStatus();
}

}  // namespace

void RegisterCheckpointOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("RestoreV2")
                        .Input("prefix: string")
                        .Input("tensor_names: string")
                        .Input("shape_and_slices: string")
                        .Output("tensors: dtypes")
                        .Attr("dtypes: list(type) >= 1")
                        .SetIsStateful(),
                    RestoreV2Kernel);
  registry.Register(ir::OpDefBuilder("SaveV2")
                        .Input("prefix: string")
                        .Input("tensor_names: string")
                        .Input("shape_and_slices: string")
                        .Input("tensors: dtypes")
                        .Attr("dtypes: list(type) >= 1")
                        .SetIsStateful(),
                    SaveV2Kernel);
  registry.Register(ir::OpDefBuilder("MergeV2Checkpoints")
                        .Input("checkpoint_prefixes: string")
                        .Input("destination_prefix: string")
                        .Attr("delete_old_dirs: bool = true")
                        .Attr("allow_missing_files: bool = false")
                        .SetIsStateful(),
                    MergeV2CheckpointsKernel);
  registry.Register(ir::OpDefBuilder("ShardedFilename")
                        .Input("basename: string")
                        .Input("shard: int32")
                        .Input("num_shards: int32")
                        .Output("filename: string"),
                    ShardedFilenameKernel);
  registry.Register(ir::OpDefBuilder("ShardedFilespec")
                        .Input("basename: string")
                        .Input("num_shards: int32")
                        .Output("filename: string"),
                    ShardedFilespecKernel);
}

}  // namespace tfhost::ops
