// UnicodeScript (tf.strings.unicode_script): the ICU script code
// (UScriptCode) of each code point. The Script property is Unicode data that
// changes with every Unicode version, so instead of a copy of the tables
// tfhost asks the same library TensorFlow asks: the system's ICU (libicuuc),
// loaded with dlopen on first use. ICU exports its C API with the major
// version as a suffix (uscript_getScript_72), so the symbol is looked up for
// the versions a distribution may ship. As in TensorFlow's kernel, a code
// point ICU rejects (negative, above U+10FFFF) gives -1
// (USCRIPT_INVALID_CODE).
#include <dlfcn.h>

#include <cstdint>
#include <mutex>
#include <string>

#include "ops/string/string_ops.h"

namespace tfhost::ops {

namespace {

// int32_t uscript_getScript(UChar32 codepoint, UErrorCode* status); UErrorCode
// values > 0 are failures (ICU's U_FAILURE).
using GetScriptFn = int32_t (*)(int32_t, int32_t*);

struct Icu {
  GetScriptFn get_script = nullptr;
  std::string error;
};

const Icu& LoadIcu() {
  static const Icu* icu = [] {
    auto* result = new Icu;
    void* lib = nullptr;
    int major = 0;
    // Newest first; Debian 12 ships 72, Ubuntu 22.04 70, Debian 13 76.
    for (int v = 80; v >= 60 && lib == nullptr; --v) {
      lib = dlopen(("libicuuc.so." + std::to_string(v)).c_str(), RTLD_NOW | RTLD_LOCAL);
      if (lib != nullptr) major = v;
    }
    if (lib == nullptr) {
      result->error = "ICU's libicuuc (Debian: libicu72) is not installed";
      return result;
    }
    void* sym = dlsym(lib, ("uscript_getScript_" + std::to_string(major)).c_str());
    if (sym == nullptr) sym = dlsym(lib, "uscript_getScript");  // ICU built without renaming
    if (sym == nullptr) {
      result->error = "libicuuc.so." + std::to_string(major) + " has no uscript_getScript";
      return result;
    }
    result->get_script = reinterpret_cast<GetScriptFn>(sym);
    return result;
  }();
  return *icu;
}

Status UnicodeScript(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  if (input.dtype() != DType::kInt32) return ctx.Error("input must be int32 code points");
  const Icu& icu = LoadIcu();
  if (icu.get_script == nullptr) return Unimplemented(ir::NodeContext(ctx.node()) + ": " + icu.error);
  Tensor out = Tensor::Uninitialized(DType::kInt32, input.shape());
  const int32_t* in = input.data<int32_t>();
  int32_t* o = out.data<int32_t>();
  for (int64_t i = 0; i < input.NumElements(); ++i) {
    int32_t status = 0;
    const int32_t script = icu.get_script(in[i], &status);
    o[i] = status > 0 ? -1 : script;
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterUnicodeScriptOp(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("UnicodeScript").Input("input: int32").Output("output: int32"), UnicodeScript);
}

}  // namespace tfhost::ops
