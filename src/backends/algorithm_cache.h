// AlgorithmCache: which library algorithm runs one kind of call (a cuDNN
// convolution algorithm, a cuBLASLt matmul heuristic) on one shape, so that
// a backend chooses once per shape instead of on every run, and, persisted
// to disk, once per machine instead of on every start.
//
// A key names everything the choice depends on: the operation, its dtypes,
// layout, shapes and the attrs that change the algorithm (strides,
// padding...), the device (name and compute capability), and the library
// versions: a choice made under cuDNN 9.19 is not reused under 9.20. An
// entry records the algorithm (an enum value such as cuDNN's, and/or an
// opaque blob for a library whose algorithms are structs, such as
// cuBLASLt's 64-byte cublasLtMatmulAlgo_t), its workspace and, when it was
// timed, its time. Lookups give an entry only if its workspace fits the
// caller's cap, and, for exhaustive search, only if it was measured (a
// heuristic pick is then measured again). A blob is only bytes to the
// cache: its user must check it still fits the call before running it.
//
// File format (Save/Load): a first line "# tfhost algorithm cache v2", then
// one entry per line: key, algorithm, workspace bytes, microseconds (-1 =
// not timed), "heuristic" or "measured", and the blob as lowercase hex
// ("-" for none), separated by tabs. Load also reads v1 files, whose lines
// have no blob field. Save writes a temporary file and renames it, so a
// crash never leaves half a cache; Load refuses a file of another version or
// a malformed line, naming the file and line (the backend then starts with
// an empty cache and says so: algorithm_cache_file.h).
//
// Thread-safety: every method may be called from several threads at once.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/dtype.h"
#include "base/status.h"

namespace tfhost::backends {

struct AlgorithmKey {
  std::string op;                         // "conv2d_fwd", "matmul", ...
  std::vector<DType> dtypes;              // inputs then output
  std::string layout;                     // "NHWC", "NCHW", "row-major", ...
  std::vector<std::vector<int64_t>> shapes;
  std::string attrs;                      // "stride=2,2;pad=3,3;dilation=1,1"
  std::string device;                     // "NVIDIA H100 80GB HBM3 sm_90"
  std::string libraries;                  // "cudnn 9.19.0; cublasLt 13.1.0"

  // One line without tabs or newlines: the cache's map key and file field.
  std::string ToString() const;
};

struct AlgorithmChoice {
  int64_t algorithm = -1;
  int64_t workspace_bytes = 0;
  double micros = -1;     // < 0: chosen by heuristic, not timed
  // The library's own description of the algorithm where it is not an enum
  // (cuBLASLt: the bytes of a cublasLtMatmulAlgo_t); empty otherwise. At
  // most kMaxBlobBytes.
  std::string blob;
  bool measured() const { return micros >= 0; }
};

// A bound on a blob read from a file, which is untrusted input: no library's
// algorithm description comes near it.
inline constexpr size_t kMaxAlgorithmBlobBytes = 1024;

class AlgorithmCache {
 public:
  // The entry for `key` whose workspace is at most `workspace_cap` bytes
  // (and which was measured, when `need_measured`); nullopt otherwise.
  std::optional<AlgorithmChoice> Lookup(const AlgorithmKey& key, int64_t workspace_cap,
                                        bool need_measured = false) const;
  // Records the choice for `key`; a measured entry is never replaced by a
  // heuristic one.
  void Insert(const AlgorithmKey& key, const AlgorithmChoice& choice);
  // Records the choice for `key` whatever was there: for an entry its user
  // found no longer runs (a blob the library now refuses).
  void Replace(const AlgorithmKey& key, const AlgorithmChoice& choice);
  size_t size() const;
  // How many times Insert or Replace changed an entry since the cache was
  // made: a saver compares it with the count at its last Save.
  uint64_t changes() const;

  // Writes every entry to `path` (parent folders created).
  Status Save(const std::string& path) const;
  // Adds the entries of `path`; NotFound when there is no file (a first
  // start), InvalidArgument naming the file and line when it is not a cache.
  Status Load(const std::string& path);

 private:
  // Under mu_: Insert's rule, and whether it changed anything.
  bool MergeLocked(const std::string& key, const AlgorithmChoice& choice);

  mutable std::mutex mu_;
  std::map<std::string, AlgorithmChoice> entries_;
  uint64_t changes_ = 0;
};

}  // namespace tfhost::backends
