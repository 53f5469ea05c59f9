// Unicode text ops of tf.strings (unicode_decode, unicode_encode,
// unicode_transcode): UnicodeDecode, UnicodeDecodeWithOffsets, UnicodeEncode
// and UnicodeTranscode, for UTF-8, UTF-16-BE and UTF-32-BE.
//
// TensorFlow runs these through ICU converters; tfhost decodes the three
// encodings itself and reproduces what ICU reports:
//  - an ill-formed sequence is replaced once per maximal subpart (Unicode's
//    "best practice", which ICU follows): a lead byte with the continuation
//    bytes that were valid so far is one error, a stray byte another;
//  - encoding names compare as ICU compares them, ignoring case and
//    punctuation ("utf8", "UTF-16BE"); other encodings (Latin-1, Shift-JIS,
//    ...) need ICU and are refused with an error naming the encoding;
//  - errors='strict' fails, 'replace' substitutes replacement_char, 'ignore'
//    drops the code point; replace_control_characters treats U+0000..U+001F
//    as errors too.
// UnicodeScript needs the Unicode Script property of every code point (ICU's
// data tables): unicode_script.cc asks the system's ICU.
#include <cctype>
#include <cstdint>
#include <string>
#include <vector>

#include "ops/string/string_ops.h"

namespace tfhost::ops {

namespace {

enum class Encoding { kUtf8, kUtf16Be, kUtf32Be };

// Lower-cased letters and digits only, as ICU's ucnv_compareNames compares.
std::string NormalizeName(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

StatusOr<Encoding> ParseEncoding(const KernelContext& ctx, const std::string& name, bool input) {
  const std::string n = NormalizeName(name);
  if (n == "utf8") return Encoding::kUtf8;
  if (n == "utf16be") return Encoding::kUtf16Be;
  if (n == "utf32be") return Encoding::kUtf32Be;
  return ctx.Error(std::string("Could not create converter for ") + (input ? "input" : "output") + " encoding: " +
                   name + " (tfhost supports UTF-8, UTF-16-BE and UTF-32-BE; other encodings need ICU)");
}

// One decoded unit: a code point, or an ill-formed sequence of `length` bytes.
struct Decoded {
  int32_t code_point = 0;
  int length = 0;
  bool error = false;
};

Decoded DecodeUtf8(const std::string& s, size_t pos) {
  const auto byte = [&](size_t i) { return static_cast<uint8_t>(s[i]); };
  const uint8_t b0 = byte(pos);
  if (b0 < 0x80) return {b0, 1, false};
  int need;
  uint8_t lo = 0x80, hi = 0xBF;  // allowed range of the second byte
  int32_t cp;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    need = 1;
    cp = b0 & 0x1F;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    need = 2;
    cp = b0 & 0x0F;
    if (b0 == 0xE0) lo = 0xA0;  // no overlong forms
    if (b0 == 0xED) hi = 0x9F;  // no surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    need = 3;
    cp = b0 & 0x07;
    if (b0 == 0xF0) lo = 0x90;  // no overlong forms
    if (b0 == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
  } else {
    return {0, 1, true};  // stray continuation byte, C0/C1, F5..FF
  }
  int consumed = 1;
  for (int i = 1; i <= need; ++i) {
    if (pos + i >= s.size()) return {0, consumed, true};  // truncated
    const uint8_t b = byte(pos + i);
    const uint8_t min = i == 1 ? lo : 0x80, max = i == 1 ? hi : 0xBF;
    if (b < min || b > max) return {0, consumed, true};
    cp = (cp << 6) | (b & 0x3F);
    ++consumed;
  }
  return {cp, consumed, false};
}

Decoded DecodeUtf16Be(const std::string& s, size_t pos) {
  const size_t left = s.size() - pos;
  const auto unit = [&](size_t i) {
    return static_cast<uint32_t>(static_cast<uint8_t>(s[i])) << 8 | static_cast<uint8_t>(s[i + 1]);
  };
  if (left < 2) return {0, static_cast<int>(left), true};
  const uint32_t u = unit(pos);
  if (u >= 0xDC00 && u <= 0xDFFF) return {0, 2, true};  // lone trail surrogate
  if (u < 0xD800 || u > 0xDBFF) return {static_cast<int32_t>(u), 2, false};
  if (left < 4) return {0, static_cast<int>(left), true};  // lead surrogate cut off
  const uint32_t t = unit(pos + 2);
  if (t < 0xDC00 || t > 0xDFFF) return {0, 2, true};  // lead without trail
  return {static_cast<int32_t>(0x10000 + ((u - 0xD800) << 10) + (t - 0xDC00)), 4, false};
}

Decoded DecodeUtf32Be(const std::string& s, size_t pos) {
  const size_t left = s.size() - pos;
  if (left < 4) return {0, static_cast<int>(left), true};
  uint32_t v = 0;
  for (int i = 0; i < 4; ++i) v = (v << 8) | static_cast<uint8_t>(s[pos + i]);
  if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return {0, 4, true};
  return {static_cast<int32_t>(v), 4, false};
}

Decoded DecodeNext(Encoding e, const std::string& s, size_t pos) {
  switch (e) {
    case Encoding::kUtf8: return DecodeUtf8(s, pos);
    case Encoding::kUtf16Be: return DecodeUtf16Be(s, pos);
    default: return DecodeUtf32Be(s, pos);
  }
}

// ICU's U_IS_UNICODE_CHAR: a scalar value that is not a noncharacter.
bool IsUnicodeChar(int64_t c) {
  if (c < 0 || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return false;
  if (c >= 0xFDD0 && c <= 0xFDEF) return false;
  return (c & 0xFFFE) != 0xFFFE;
}

// Appends code point `c` (0..0x10FFFF; a surrogate only from 'ignore' in
// UnicodeEncode) in `e`. UTF-8 cannot hold a lone surrogate: ICU writes
// U+FFFD there, and so does this.
void Append(Encoding e, int32_t c, std::string* out) {
  switch (e) {
    case Encoding::kUtf8:
      if (c >= 0xD800 && c <= 0xDFFF) c = 0xFFFD;
      if (c < 0x80) {
        out->push_back(static_cast<char>(c));
      } else if (c < 0x800) {
        out->push_back(static_cast<char>(0xC0 | (c >> 6)));
        out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
      } else if (c < 0x10000) {
        out->push_back(static_cast<char>(0xE0 | (c >> 12)));
        out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
        out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
      } else {
        out->push_back(static_cast<char>(0xF0 | (c >> 18)));
        out->push_back(static_cast<char>(0x80 | ((c >> 12) & 0x3F)));
        out->push_back(static_cast<char>(0x80 | ((c >> 6) & 0x3F)));
        out->push_back(static_cast<char>(0x80 | (c & 0x3F)));
      }
      break;
    case Encoding::kUtf16Be: {
      auto unit = [&](uint32_t u) {
        out->push_back(static_cast<char>(u >> 8));
        out->push_back(static_cast<char>(u & 0xFF));
      };
      if (c >= 0x10000) {
        unit(0xD800 + ((c - 0x10000) >> 10));
        unit(0xDC00 + ((c - 0x10000) & 0x3FF));
      } else {
        unit(static_cast<uint32_t>(c));
      }
      break;
    }
    default:
      for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>((c >> shift) & 0xFF));
      break;
  }
}

struct ErrorOptions {
  int32_t subst = 0xFFFD;
  bool ignore = false;
  bool strict = false;
  bool replace_control = false;
};

StatusOr<ErrorOptions> ReadErrorOptions(const KernelContext& ctx, bool has_control_attr) {
  ErrorOptions o;
  TFHOST_ASSIGN_OR_RETURN(std::string policy, ctx.AttrOr<std::string>("errors", "replace"));
  if (policy == "ignore") {
    o.ignore = true;
  } else if (policy == "strict") {
    o.strict = true;
  } else if (policy != "replace") {
    return ctx.Error("errors policy must be one of 'strict', 'replace', or 'ignore', got '" + policy + "'");
  }
  TFHOST_ASSIGN_OR_RETURN(int64_t subst, ctx.AttrOr<int64_t>("replacement_char", 0xFFFD));
  if (subst < 0 || subst > 0x10FFFF) {
    return ctx.Error("replacement_char out of unicode codepoint range, got " + std::to_string(subst));
  }
  o.subst = static_cast<int32_t>(subst);
  if (has_control_attr) {
    TFHOST_ASSIGN_OR_RETURN(o.replace_control, ctx.AttrOr<bool>("replace_control_characters", false));
  }
  return o;
}

Status CheckStringInput(const KernelContext& ctx) {
  if (ctx.num_inputs() != 1) return ctx.Error("expected 1 input, got " + std::to_string(ctx.num_inputs()));
  if (ctx.input(0).dtype() != DType::kString) {
    return ctx.Error("input must be string, got " + DTypeShortName(ctx.input(0).dtype()));
  }
  return OkStatus();
}

// Decodes `s`, calling emit(code_point, byte_offset) for each kept code
// point. `format_error` is set when an ill-formed sequence (or, with
// replace_control_characters, a control character when `control_is_error`)
// was met.
template <typename Emit>
void DecodeString(Encoding e, const ErrorOptions& o, const std::string& s, bool control_is_error, bool* format_error,
                  Emit emit) {
  size_t pos = 0;
  while (pos < s.size()) {
    const Decoded d = DecodeNext(e, s, pos);
    const int64_t offset = static_cast<int64_t>(pos);
    pos += static_cast<size_t>(d.length);
    const bool control = o.replace_control && !d.error && d.code_point <= 0x1F;
    if (d.error || (control && control_is_error)) *format_error = true;
    if (d.error || control) {
      if (o.ignore) continue;
      emit(o.subst, offset);
    } else {
      emit(d.code_point, offset);
    }
  }
}

// UnicodeDecode / UnicodeDecodeWithOffsets: flattened strings -> ragged code points.
Status DecodeKernel(KernelContext& ctx, bool with_offsets) {
  TFHOST_RETURN_IF_ERROR(CheckStringInput(ctx));
  TFHOST_ASSIGN_OR_RETURN(std::string encoding_name, ctx.Attr<std::string>("input_encoding"));
  TFHOST_ASSIGN_OR_RETURN(Encoding encoding, ParseEncoding(ctx, encoding_name, true));
  TFHOST_ASSIGN_OR_RETURN(ErrorOptions o, ReadErrorOptions(ctx, true));
  TFHOST_ASSIGN_OR_RETURN(DType tsplits, ctx.AttrOr<DType>("Tsplits", DType::kInt64));
  if (tsplits != DType::kInt32 && tsplits != DType::kInt64) {
    return ctx.Error("Tsplits must be int32 or int64, got " + DTypeShortName(tsplits));
  }
  const Tensor& input = ctx.input(0);
  const int64_t n = input.NumElements();
  std::vector<int64_t> splits(static_cast<size_t>(n) + 1, 0);
  std::vector<int32_t> chars;
  std::vector<int64_t> starts;
  for (int64_t i = 0; i < n; ++i) {
    bool format_error = false;
    DecodeString(encoding, o, input.strings()[i], false, &format_error, [&](int32_t cp, int64_t offset) {
      chars.push_back(cp);
      starts.push_back(offset);
    });
    if (o.strict && format_error) return ctx.Error("Invalid formatting on input string (element " + std::to_string(i) + ")");
    splits[i + 1] = static_cast<int64_t>(chars.size());
  }
  if (tsplits == DType::kInt32 && splits.back() > INT32_MAX) return ctx.Error("more than 2^31 code points for int32 splits");
  Tensor row_splits(tsplits, Shape({n + 1}));
  for (int64_t i = 0; i <= n; ++i) {
    if (tsplits == DType::kInt32) {
      row_splits.data<int32_t>()[i] = static_cast<int32_t>(splits[i]);
    } else {
      row_splits.data<int64_t>()[i] = splits[i];
    }
  }
  const int64_t total = static_cast<int64_t>(chars.size());
  ctx.set_output(0, std::move(row_splits));
  ctx.set_output(1, Tensor::FromVector(chars, Shape({total})));
  if (with_offsets) ctx.set_output(2, Tensor::FromVector(starts, Shape({total})));
  return OkStatus();
}

Status TranscodeKernel(KernelContext& ctx) {
  TFHOST_RETURN_IF_ERROR(CheckStringInput(ctx));
  TFHOST_ASSIGN_OR_RETURN(std::string in_name, ctx.Attr<std::string>("input_encoding"));
  TFHOST_ASSIGN_OR_RETURN(std::string out_name, ctx.Attr<std::string>("output_encoding"));
  TFHOST_ASSIGN_OR_RETURN(Encoding in_enc, ParseEncoding(ctx, in_name, true));
  if (out_name != "UTF-8" && out_name != "UTF-16-BE" && out_name != "UTF-32-BE") {
    return ctx.Error("output_encoding must be one of 'UTF-8', 'UTF-16-BE', 'UTF-32-BE', got '" + out_name + "'");
  }
  TFHOST_ASSIGN_OR_RETURN(Encoding out_enc, ParseEncoding(ctx, out_name, false));
  TFHOST_ASSIGN_OR_RETURN(ErrorOptions o, ReadErrorOptions(ctx, true));
  const Tensor& input = ctx.input(0);
  Tensor out(DType::kString, input.shape());
  bool format_error = false;
  for (int64_t i = 0; i < input.NumElements(); ++i) {
    std::string& dst = out.strings()[i];
    DecodeString(in_enc, o, input.strings()[i], true, &format_error,
                 [&](int32_t cp, int64_t) { Append(out_enc, cp, &dst); });
    if (o.strict && format_error) {
      return ctx.Error("Invalid formatting on input string (element " + std::to_string(i) + ", not valid " +
                       in_name + ")");
    }
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

// UnicodeEncode: ragged (input_values, input_splits) -> one string per row.
Status EncodeKernel(KernelContext& ctx) {
  if (ctx.num_inputs() != 2) return ctx.Error("expected 2 inputs, got " + std::to_string(ctx.num_inputs()));
  TFHOST_ASSIGN_OR_RETURN(std::string out_name, ctx.Attr<std::string>("output_encoding"));
  if (out_name != "UTF-8" && out_name != "UTF-16-BE" && out_name != "UTF-32-BE") {
    return ctx.Error("output_encoding must be one of 'UTF-8', 'UTF-16-BE', 'UTF-32-BE', got '" + out_name + "'");
  }
  TFHOST_ASSIGN_OR_RETURN(Encoding out_enc, ParseEncoding(ctx, out_name, false));
  TFHOST_ASSIGN_OR_RETURN(ErrorOptions o, ReadErrorOptions(ctx, false));
  const Tensor& values = ctx.input(0);
  const Tensor& splits_t = ctx.input(1);
  if (values.dtype() != DType::kInt32 || values.rank() != 1) {
    return ctx.Error("input_values must be a 1-D int32 tensor, got " + DTypeShortName(values.dtype()) +
                     values.shape().ToString());
  }
  TFHOST_ASSIGN_OR_RETURN(DType tsplits, ctx.AttrOr<DType>("Tsplits", DType::kInt64));
  if (splits_t.dtype() != tsplits || (tsplits != DType::kInt32 && tsplits != DType::kInt64)) {
    return ctx.Error("input_splits must be " + DTypeShortName(tsplits) + " (attr Tsplits, int32 or int64), got " +
                     DTypeShortName(splits_t.dtype()));
  }
  if (splits_t.rank() != 1 || splits_t.dim(0) < 1) {
    return ctx.Error("input_splits must be a 1-D tensor with at least one element, got shape " +
                     splits_t.shape().ToString());
  }
  TFHOST_ASSIGN_OR_RETURN(std::vector<int64_t> splits, splits_t.ToInt64Vector());
  const int64_t n_values = values.NumElements();
  if (splits[0] != 0) return ctx.Error("First value in input_splits must be zero.");
  if (splits.back() != n_values) {
    return ctx.Error("Last value in input_splits must be equal to length of input_tensor (" + std::to_string(n_values) +
                     "), got " + std::to_string(splits.back()));
  }
  for (size_t i = 1; i < splits.size(); ++i) {
    if (splits[i] < splits[i - 1]) return ctx.Error("Values in input_splits must be equal or in ascending order.");
  }
  Tensor out(DType::kString, Shape({static_cast<int64_t>(splits.size()) - 1}));
  const int32_t* v = values.data<int32_t>();
  for (size_t row = 1; row < splits.size(); ++row) {
    std::string& dst = out.strings()[row - 1];
    for (int64_t k = splits[row - 1]; k < splits[row]; ++k) {
      int32_t cp = v[k];
      if (!IsUnicodeChar(cp)) {
        if (o.strict) return ctx.Error("Code point is out of range for Unicode, or a noncharacter: " + std::to_string(cp));
        if (!o.ignore) {
          cp = o.subst;
        } else if (cp < 0 || cp > 0x10FFFF) {
          continue;  // ICU appends nothing for a value outside the code space
        }
        // 'ignore' keeps noncharacters and surrogates as ICU does.
      }
      Append(out_enc, cp, &dst);
    }
  }
  ctx.set_output(0, std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterUnicodeOps(OpRegistry& registry) {
  registry.Register(ir::OpDefBuilder("UnicodeDecode")
                        .Input("input: string")
                        .Output("row_splits: Tsplits")
                        .Output("char_values: int32")
                        .Attr("input_encoding: string")
                        .Attr("errors: {'strict', 'replace', 'ignore'} = 'replace'")
                        .Attr("replacement_char: int = 65533")
                        .Attr("replace_control_characters: bool = false")
                        .Attr("Tsplits: {int32, int64} = DT_INT64"),
                    [](KernelContext& ctx) { return DecodeKernel(ctx, false); });
  registry.Register(ir::OpDefBuilder("UnicodeDecodeWithOffsets")
                        .Input("input: string")
                        .Output("row_splits: Tsplits")
                        .Output("char_values: int32")
                        .Output("char_to_byte_starts: int64")
                        .Attr("input_encoding: string")
                        .Attr("errors: {'strict', 'replace', 'ignore'} = 'replace'")
                        .Attr("replacement_char: int = 65533")
                        .Attr("replace_control_characters: bool = false")
                        .Attr("Tsplits: {int32, int64} = DT_INT64"),
                    [](KernelContext& ctx) { return DecodeKernel(ctx, true); });
  registry.Register(ir::OpDefBuilder("UnicodeEncode")
                        .Input("input_values: int32")
                        .Input("input_splits: Tsplits")
                        .Output("output: string")
                        .Attr("errors: {'ignore', 'replace', 'strict'} = 'replace'")
                        .Attr("output_encoding: {'UTF-8', 'UTF-16-BE', 'UTF-32-BE'}")
                        .Attr("replacement_char: int = 65533")
                        .Attr("Tsplits: {int32, int64} = DT_INT64"),
                    EncodeKernel);
  registry.Register(ir::OpDefBuilder("UnicodeTranscode")
                        .Input("input: string")
                        .Output("output: string")
                        .Attr("input_encoding: string")
                        .Attr("output_encoding: {'UTF-8', 'UTF-16-BE', 'UTF-32-BE'}")
                        .Attr("errors: {'strict', 'replace', 'ignore'} = 'replace'")
                        .Attr("replacement_char: int = 65533")
                        .Attr("replace_control_characters: bool = false"),
                    TranscodeKernel);
}

}  // namespace tfhost::ops
