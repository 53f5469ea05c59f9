#include "base/base64.h"

#include <array>
#include <cstdint>

namespace tfhost {
namespace {

constexpr char kStandard[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr char kWebSafe[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

// Value of each byte in `alphabet` (-1 = not in it).
constexpr std::array<int8_t, 256> Table(Base64Alphabet alphabet) {
  std::array<int8_t, 256> t{};
  for (auto& v : t) v = -1;
  for (int k = 0; k < 64; ++k) {
    if (alphabet != Base64Alphabet::kWebSafe) t[static_cast<unsigned char>(kStandard[k])] = static_cast<int8_t>(k);
    if (alphabet != Base64Alphabet::kStandard) t[static_cast<unsigned char>(kWebSafe[k])] = static_cast<int8_t>(k);
  }
  return t;
}

constexpr std::array<int8_t, 256> kStandardTable = Table(Base64Alphabet::kStandard);
constexpr std::array<int8_t, 256> kWebSafeTable = Table(Base64Alphabet::kWebSafe);
constexpr std::array<int8_t, 256> kEitherTable = Table(Base64Alphabet::kEither);

std::string Printable(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return std::string("'") + c + "'";
  static constexpr char kHex[] = "0123456789abcdef";
  return std::string("byte 0x") + kHex[u >> 4] + kHex[u & 15];
}

}  // namespace

std::string Base64Encode(std::string_view bytes, Base64Options options) {
  const char* a = options.alphabet == Base64Alphabet::kWebSafe ? kWebSafe : kStandard;
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  auto u = [&](size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(bytes[k])); };
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t v = (u(i) << 16) | (u(i + 1) << 8) | u(i + 2);
    for (int s = 18; s >= 0; s -= 6) out.push_back(a[(v >> s) & 63]);
  }
  const size_t rest = bytes.size() - i;
  if (rest > 0) {
    const uint32_t v = (u(i) << 16) | (rest == 2 ? u(i + 1) << 8 : 0);
    out.push_back(a[(v >> 18) & 63]);
    out.push_back(a[(v >> 12) & 63]);
    if (rest == 2) out.push_back(a[(v >> 6) & 63]);
    if (options.padding) out.append(rest == 1 ? "==" : "=");
  }
  return out;
}

StatusOr<std::string> Base64Decode(std::string_view text, Base64Options options) {
  const auto& table = options.alphabet == Base64Alphabet::kStandard  ? kStandardTable
                      : options.alphabet == Base64Alphabet::kWebSafe ? kWebSafeTable
                                                                     : kEitherTable;
  size_t n = text.size();
  while (n > 0 && text[n - 1] == '=' && text.size() - n < 2) --n;
  const size_t padding = text.size() - n;
  if (options.padding ? text.size() % 4 != 0 : (padding > 0 && text.size() % 4 != 0)) {
    return InvalidArgument("invalid base64: length " + std::to_string(text.size()) +
                           (options.padding ? " is not a multiple of 4 (padded base64 expected)"
                                            : " does not match its '=' padding"));
  }
  if (n % 4 == 1) {
    return InvalidArgument("invalid base64: truncated (length " + std::to_string(text.size()) + ")");
  }
  std::string out;
  out.reserve(n / 4 * 3 + 2);
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i < n; ++i) {
    const int v = table[static_cast<unsigned char>(text[i])];
    if (v < 0) {
      return InvalidArgument("invalid base64: unexpected " + Printable(text[i]) + " at offset " + std::to_string(i));
    }
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return out;
}

}  // namespace tfhost
