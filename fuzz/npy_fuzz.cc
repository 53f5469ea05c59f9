// Fuzzes the .npy parser (`tfhost run --input KEY=FILE.npy`) from memory, and
// checks that whatever it accepts survives EncodeNpy and a second parse
// unchanged (dtype, shape and every element), so the reader and the writer
// agree on the format.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string_view>

#include "cli/npy_io.h"

namespace {

bool SameTensor(const tfhost::Tensor& a, const tfhost::Tensor& b) {
  if (a.dtype() != b.dtype() || !(a.shape() == b.shape())) return false;
  if (tfhost::IsStringLike(a.dtype())) {
    for (int64_t i = 0; i < a.NumElements(); ++i) {
      if (a.strings()[i] != b.strings()[i]) return false;
    }
    return true;
  }
  return a.ByteSize() == b.ByteSize() &&
         (a.ByteSize() == 0 || std::memcmp(a.raw_data(), b.raw_data(), a.ByteSize()) == 0);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace cli = tfhost::cli;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto parsed = cli::ParseNpy(bytes, "fuzz input");
  if (!parsed.ok()) return 0;
  auto encoded = cli::EncodeNpy(*parsed);
  if (!encoded.ok()) {
    std::fprintf(stderr, "EncodeNpy refused a tensor ParseNpy produced: %s\n", encoded.status().ToString().c_str());
    __builtin_trap();
  }
  auto reparsed = cli::ParseNpy(*encoded, "re-encoded fuzz input");
  if (!reparsed.ok()) {
    std::fprintf(stderr, "ParseNpy refused EncodeNpy's output: %s\n", reparsed.status().ToString().c_str());
    __builtin_trap();
  }
  if (!SameTensor(*parsed, *reparsed)) {
    std::fprintf(stderr, "a .npy round trip changed the tensor\n");
    __builtin_trap();
  }
  return 0;
}
