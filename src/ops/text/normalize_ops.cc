// CaseFoldUTF8 and NormalizeUTF8 (tensorflow_text.case_fold_utf8,
// tensorflow_text.normalize_utf8): element-wise over a string tensor of any
// shape.
//
// tensorflow-text runs both through ICU's Normalizer2 on UTF-8
// (normalizeUTF8), and so does tfhost:
//  * CaseFoldUTF8 is the NFKC_Casefold normalizer, not plain u_strFoldCase:
//    it also applies compatibility decomposition and removes default-ignorable
//    code points ("ﬁ" -> "fi", "Ⅻ" -> "xii", soft hyphens vanish);
//  * NormalizeUTF8 takes NFC, NFKC, NFD or NFKD, case-insensitively (the op
//    upper-cases the attr before comparing).
// Ill-formed UTF-8 goes through Normalizer2 unchanged, as in tensorflow-text.
#include <unicode/bytestream.h>
#include <unicode/errorcode.h>
#include <unicode/normalizer2.h>
#include <unicode/stringpiece.h>

#include <algorithm>
#include <cctype>
#include <cstdint>

#include "ops/text/text_ops.h"

namespace tfhost::ops {
namespace {

using NormalizerGetter = const icu::Normalizer2* (*)(UErrorCode&);

// The form named by the attr, upper-cased as tensorflow-text compares it.
StatusOr<NormalizerGetter> NormalizerFor(const KernelContext& ctx, const std::string& form) {
  std::string upper = form;
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  if (upper == "NFC") return &icu::Normalizer2::getNFCInstance;
  if (upper == "NFKC") return &icu::Normalizer2::getNFKCInstance;
  if (upper == "NFD") return &icu::Normalizer2::getNFDInstance;
  if (upper == "NFKD") return &icu::Normalizer2::getNFKDInstance;
  return ctx.Error("Unknown normalization form requested: '" + form + "' (expected NFC, NFKC, NFD or NFKD)");
}

// Applies `getter`'s normalizer to every element of input 0.
Status NormalizeAll(KernelContext& ctx, NormalizerGetter getter, const char* what) {
  const Tensor& in = ctx.input(0);
  if (in.dtype() != DType::kString) return ctx.Error("input must be a string tensor");
  icu::ErrorCode status;
  const icu::Normalizer2* normalizer = getter(status);
  if (status.isFailure() || normalizer == nullptr) {
    return Internal(ir::NodeContext(ctx.node()) + ": " + status.errorName() + ": could not load ICU's " + what +
                    " normalizer");
  }
  Tensor out(DType::kString, in.shape());
  for (int64_t i = 0; i < in.NumElements(); ++i) {
    const std::string& s = in.strings()[i];
    // ICU's StringPiece holds an int32_t length.
    if (s.size() > static_cast<size_t>(INT32_MAX)) {
      return ctx.Error("element " + std::to_string(i) + " has " + std::to_string(s.size()) +
                       " bytes; ICU normalizes at most 2^31 - 1");
    }
    std::string result;
    icu::StringByteSink<std::string> sink(&result, static_cast<int32_t>(s.size()));
    normalizer->normalizeUTF8(0, icu::StringPiece(s.data(), static_cast<int32_t>(s.size())), sink, nullptr, status);
    if (status.isFailure()) {
      return Internal(ir::NodeContext(ctx.node()) + ": " + status.errorName() + ": could not normalize element " +
                      std::to_string(i) + " (" + what + ")");
    }
    out.strings()[i] = std::move(result);
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

Status CaseFoldUtf8(KernelContext& ctx) {
  return NormalizeAll(ctx, &icu::Normalizer2::getNFKCCasefoldInstance, "NFKC_Casefold");
}

Status NormalizeUtf8(KernelContext& ctx) {
  TFHOST_ASSIGN_OR_RETURN(std::string form, ctx.Attr<std::string>("normalization_form"));
  TFHOST_ASSIGN_OR_RETURN(NormalizerGetter getter, NormalizerFor(ctx, form));
  return NormalizeAll(ctx, getter, form.c_str());
}

}  // namespace

void RegisterTextNormalizeOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("CaseFoldUTF8").Input("input: string").Output("output: string"), CaseFoldUtf8);
  registry.Register(ir::OpDefBuilder("NormalizeUTF8")
                        .Input("input: string")
                        .Attr("normalization_form: string")
                        .Output("output: string"),
                    NormalizeUtf8);
}

}  // namespace tfhost::ops
