#include "base/base64.h"
#include "base/test_status.h"

#include <gtest/gtest.h>

namespace tfhost {
namespace {

TEST(Base64Test, EncodesRfc4648VectorsInBothAlphabetsWithAndWithoutPadding) {
  const std::pair<const char*, const char*> vectors[] = {
      {"", ""}, {"f", "Zg=="}, {"fo", "Zm8="}, {"foo", "Zm9v"}, {"foob", "Zm9vYg=="}, {"fooba", "Zm9vYmE="},
      {"foobar", "Zm9vYmFy"}};
  for (const auto& [plain, coded] : vectors) {
    EXPECT_EQ(Base64Encode(plain), coded);
    EXPECT_EQ(*Base64Decode(coded), plain);
  }
  const std::string bytes("\xfb\xff\xbf", 3);
  EXPECT_EQ(Base64Encode(bytes), "+/+/");
  EXPECT_EQ(Base64Encode(bytes, {Base64Alphabet::kWebSafe, false}), "-_-_");
  EXPECT_EQ(Base64Encode("fo", {Base64Alphabet::kWebSafe, false}), "Zm8");
}

TEST(Base64Test, DecodeTakesOnlyTheAlphabetAskedFor) {
  EXPECT_EQ(*Base64Decode("-_-_", {Base64Alphabet::kWebSafe, true}), std::string("\xfb\xff\xbf", 3));
  EXPECT_EQ(*Base64Decode("-_+/", {Base64Alphabet::kEither, true}), std::string("\xfb\xff\xbf", 3));
  auto web_in_standard = Base64Decode("-_-_");
  TFHOST_ASSERT_ERROR(web_in_standard, StatusCode::kInvalidArgument, "invalid base64: unexpected '-' at offset 0");
  EXPECT_EQ(web_in_standard.status().message(), "invalid base64: unexpected '-' at offset 0");
  auto standard_in_web = Base64Decode("ab+/", {Base64Alphabet::kWebSafe, true});
  EXPECT_EQ(standard_in_web.status().message(), "invalid base64: unexpected '+' at offset 2");
}

TEST(Base64Test, PaddingIsRequiredOnlyWhenAskedAndErrorsSayWhatIsWrong) {
  EXPECT_EQ(*Base64Decode("Zm8", {Base64Alphabet::kStandard, false}), "fo");
  EXPECT_EQ(*Base64Decode("Zm8=", {Base64Alphabet::kStandard, false}), "fo");
  auto unpadded = Base64Decode("Zm8");
  TFHOST_ASSERT_ERROR(unpadded, StatusCode::kInvalidArgument,
                      "invalid base64: length 3 is not a multiple of 4 (padded base64 expected)");
  EXPECT_EQ(unpadded.status().message(), "invalid base64: length 3 is not a multiple of 4 (padded base64 expected)");
  EXPECT_EQ(Base64Decode("Zm9vY", {Base64Alphabet::kStandard, false}).status().message(),
            "invalid base64: truncated (length 5)");
  EXPECT_EQ(Base64Decode("Zm8==", {Base64Alphabet::kStandard, false}).status().message(),
            "invalid base64: length 5 does not match its '=' padding");
  EXPECT_EQ(Base64Decode("Zm\n8").status().message(), "invalid base64: unexpected byte 0x0a at offset 2");
  EXPECT_EQ(Base64Decode("Z===").status().message(), "invalid base64: unexpected '=' at offset 1");
}

TEST(Base64Test, EveryByteValueRoundTrips) {
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  for (Base64Alphabet a : {Base64Alphabet::kStandard, Base64Alphabet::kWebSafe}) {
    for (bool pad : {true, false}) {
      for (size_t len = 0; len <= all.size(); len += 37) {
        const std::string part = all.substr(0, len);
        auto back = Base64Decode(Base64Encode(part, {a, pad}), {a, pad});
        ASSERT_TRUE(back.ok()) << back.status().ToString();
        EXPECT_EQ(*back, part);
      }
    }
  }
}

}  // namespace
}  // namespace tfhost
