// Base64, the one codec for everything tfhost reads or writes as base64:
// REST {"b64": ...} values, JSON Examples, `--input` values of the CLI, and
// the EncodeBase64/DecodeBase64 ops. Callers differ only in which alphabet
// they take (standard "+/", TensorFlow's web-safe "-_", or either) and
// whether '=' padding is required, so those are options, not copies.
//
// Decode errors say what is wrong and where: the offset and the character,
// or the length for a truncated text; callers add which value it was.
// Thread-safety: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace tfhost {

enum class Base64Alphabet { kStandard, kWebSafe, kEither };

struct Base64Options {
  Base64Alphabet alphabet = Base64Alphabet::kStandard;
  // Encode: write '=' padding. Decode: require the length to be a multiple
  // of 4 with padding (otherwise padding may be present or not).
  bool padding = true;
};

// kEither encodes with the standard alphabet.
std::string Base64Encode(std::string_view bytes, Base64Options options = {});
StatusOr<std::string> Base64Decode(std::string_view text, Base64Options options = {});

}  // namespace tfhost
