#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

// ICU's UScriptCode values (uscript.h): COMMON 0, INHERITED 1, ARABIC 2,
// CYRILLIC 8, GREEK 14, HAN 17, HANGUL 18, HIRAGANA 20, LATIN 25, UNKNOWN 103.
TEST(UnicodeScriptTest, GivesIcuScriptCodesAndMinusOneForInvalidCodePoints) {
  Tensor cps = Tensor::FromVector<int32_t>(
      {'a', 0x0416, 0x03A9, 0x4E2D, 0xD55C, 0x3042, 0x0627, '7', 0x0301, 0x0378, -1, 0x110000}, Shape({3, 4}));
  auto out = RunSingleOp("UnicodeScript", {cps});
  if (!out.ok() && out.status().code() == StatusCode::kUnimplemented) GTEST_SKIP() << out.status().ToString();
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape({3, 4}));
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int32_t>({25, 8, 14, 17, 18, 20, 2, 0, 1, 103, -1, -1},
                                                                   Shape({3, 4}))));
}

TEST(UnicodeScriptTest, EmptyInputAndWrongDtype) {
  auto empty = RunSingleOp("UnicodeScript", {Tensor(DType::kInt32, Shape({0}))});
  if (!empty.ok() && empty.status().code() == StatusCode::kUnimplemented) GTEST_SKIP() << empty.status().ToString();
  ASSERT_TRUE(empty.ok()) << empty.status().ToString();
  EXPECT_EQ((*empty)[0].NumElements(), 0);
  TFHOST_EXPECT_ERROR(RunSingleOp("UnicodeScript", {Tensor(DType::kInt64, Shape({1}))}), StatusCode::kInvalidArgument,
                      "input 0 'input' (dtype from the schema) is int64, expected int32");
}

}  // namespace
}  // namespace tfhost::ops
