#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "base/test_status.h"
#include "ops/run_single_op.h"
#include "ops/shape_fn_test_util.h"
#include "ops/text/text_test_util.h"

namespace tfhost::ops {
namespace {

Tensor Strings(const std::vector<std::string>& v, Shape shape) {
  Tensor t(DType::kString, std::move(shape));
  for (size_t i = 0; i < v.size(); ++i) t.strings()[i] = v[i];
  return t;
}
Tensor Strings(const std::vector<std::string>& v) { return Strings(v, Shape({static_cast<int64_t>(v.size())})); }

StatusOr<std::vector<Tensor>> Normalize(Tensor in, const std::string& form) {
  return RunSingleOp("NormalizeUTF8", {std::move(in)}, {{"normalization_form", MakeAttr(form)}});
}

// NFKC_Casefold, as tensorflow-text folds: lower case, full folding (ß ->
// ss), compatibility forms (ﬁ -> fi, Ⅻ -> xii), default ignorables dropped
// (U+00AD SOFT HYPHEN), and composition (A + U+030A -> å).
TEST(CaseFoldUtf8Test, FoldsAsNfkcCasefold) {
  const Tensor in = Strings({"The Quick-Brown CAT", "\xC3\x85NGSTR\xC3\x96M",
                             "Stra\xC3\x9F" "e \xEF\xAC\x81 \xE2\x85\xAB", "soft\xC2\xAD" "hyphen", "A\xCC\x8A", ""},
                            Shape({2, 3}));
  auto out = RunSingleOp("CaseFoldUTF8", {in});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape({2, 3}));
  EXPECT_EQ(Values((*out)[0]), (std::vector<std::string>{"the quick-brown cat", "\xC3\xA5ngstr\xC3\xB6m",
                                                         "strasse fi xii", "softhyphen", "\xC3\xA5", ""}));
}

TEST(CaseFoldUtf8Test, EmptyBatchAndIllFormedBytesPassThrough) {
  auto empty = RunSingleOp("CaseFoldUTF8", {Strings({}, Shape({0}))});
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ((*empty)[0].shape(), Shape({0}));
  // ICU's normalizeUTF8 copies ill-formed sequences unchanged.
  auto bad = RunSingleOp("CaseFoldUTF8", {Strings({"A\xFF" "B\xC3"})});
  ASSERT_TRUE(bad.ok()) << bad.status().ToString();
  EXPECT_EQ(Values((*bad)[0]), (std::vector<std::string>{"a\xFF" "b\xC3"}));
}

// é as one code point (U+00E9) and as e + U+0301; ﬁ (U+FB01) and ½ (U+00BD)
// have compatibility decompositions only.
TEST(NormalizeUtf8Test, FourFormsOnComposedAndDecomposedText) {
  const Tensor in = Strings({"caf\xC3\xA9", "cafe\xCC\x81", "\xEF\xAC\x81 \xC2\xBD"});
  auto nfc = Normalize(in, "NFC");
  auto nfd = Normalize(in, "NFD");
  auto nfkc = Normalize(in, "NFKC");
  auto nfkd = Normalize(in, "NFKD");
  ASSERT_TRUE(nfc.ok() && nfd.ok() && nfkc.ok() && nfkd.ok());
  EXPECT_EQ(Values((*nfc)[0]),
            (std::vector<std::string>{"caf\xC3\xA9", "caf\xC3\xA9", "\xEF\xAC\x81 \xC2\xBD"}));
  EXPECT_EQ(Values((*nfd)[0]),
            (std::vector<std::string>{"cafe\xCC\x81", "cafe\xCC\x81", "\xEF\xAC\x81 \xC2\xBD"}));
  // ½ -> 1 U+2044 FRACTION SLASH 2.
  EXPECT_EQ(Values((*nfkc)[0]), (std::vector<std::string>{"caf\xC3\xA9", "caf\xC3\xA9", "fi 1\xE2\x81\x84" "2"}));
  EXPECT_EQ(Values((*nfkd)[0]), (std::vector<std::string>{"cafe\xCC\x81", "cafe\xCC\x81", "fi 1\xE2\x81\x84" "2"}));
}

TEST(NormalizeUtf8Test, FormNameIsCaseInsensitiveAndShapeIsKept) {
  auto out = Normalize(Strings({"\xC3\xA9", "", "x"}, Shape({3, 1})), "nfd");
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape({3, 1}));
  EXPECT_EQ(Values((*out)[0]), (std::vector<std::string>{"e\xCC\x81", "", "x"}));
}

TEST(NormalizeUtf8Test, UnknownFormAndNonStringInputAreErrors) {
  auto bad_form = Normalize(Strings({"a"}), "NFX");
  TFHOST_ASSERT_ERROR(bad_form, StatusCode::kInvalidArgument,
                      "node 'test_NormalizeUTF8' (NormalizeUTF8): Unknown normalization form requested: 'NFX' "
                      "(expected NFC, NFKC, NFD or NFKD)");
  EXPECT_EQ(bad_form.status().message(),
            "node 'test_NormalizeUTF8' (NormalizeUTF8): Unknown normalization form requested: 'NFX' "
            "(expected NFC, NFKC, NFD or NFKD)");
  auto not_strings = RunSingleOp("CaseFoldUTF8", {Tensor::FromVector<int32_t>({1, 2})});
  TFHOST_ASSERT_ERROR(
      not_strings, StatusCode::kInvalidArgument,
      "node 'test_CaseFoldUTF8' (CaseFoldUTF8): input 0 'input' (dtype from the schema) is int32, expected string");
  EXPECT_NE(not_strings.status().message().find("'test_CaseFoldUTF8'"), std::string::npos)
      << not_strings.status().message();
  EXPECT_NE(not_strings.status().message().find("is int32, expected string"), std::string::npos)
      << not_strings.status().message();
}

TEST(NormalizeUtf8Test, ShapeIsUnchanged) {
  using ir::PartialShape;
  EXPECT_EQ(testing::InferShape("NormalizeUTF8", {PartialShape::Known({2, -1})}, {}, 1)[0],
            PartialShape::Known({2, -1}));
  EXPECT_EQ(testing::InferShape("CaseFoldUTF8", {PartialShape::Known({3})}, {}, 1)[0], PartialShape::Known({3}));
}

}  // namespace
}  // namespace tfhost::ops
