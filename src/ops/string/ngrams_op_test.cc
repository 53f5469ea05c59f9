#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

ir::AttrMap Attrs(std::vector<int64_t> widths, int64_t pad_width = 0, bool preserve = false) {
  return {{"separator", MakeAttr(" ")},         {"ngram_widths", MakeAttr(widths)},
          {"left_pad", MakeAttr("<")},          {"right_pad", MakeAttr(">")},
          {"pad_width", MakeAttr(pad_width)},   {"preserve_short_sequences", MakeAttr(preserve)}};
}

TEST(StringNGramsTest, BigramsPerRow) {
  // tf.strings.ngrams(["A", "B", "C", "D"], 2) -> ["A B", "B C", "C D"]; a
  // second row ["E"] has no bigram.
  auto out = RunSingleOp("StringNGrams", {Tensor::FromVector<std::string>({"A", "B", "C", "D", "E"}),
                                          Tensor::FromVector<int64_t>({0, 4, 5})},
                         Attrs({2}));
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<std::string>({"A B", "B C", "C D"})));
  EXPECT_TRUE(TensorsEqual((*out)[1], Tensor::FromVector<int64_t>({0, 3, 3})));
}

TEST(StringNGramsTest, PaddingAndPreservedShortSequence) {
  // pad_width 1, width 2 on ["x"]: "< x", "x >". Width 4 without padding on
  // ["x", "y"] yields nothing, so preserve_short_sequences keeps "x y".
  auto padded = RunSingleOp("StringNGrams", {Tensor::FromVector<std::string>({"x"}), Tensor::FromVector<int64_t>({0, 1})},
                            Attrs({2}, 1));
  ASSERT_TRUE(padded.ok()) << padded.status().ToString();
  EXPECT_TRUE(TensorsEqual((*padded)[0], Tensor::FromVector<std::string>({"< x", "x >"})));
  auto kept = RunSingleOp("StringNGrams", {Tensor::FromVector<std::string>({"x", "y"}), Tensor::FromVector<int64_t>({0, 2})},
                          Attrs({4}, 0, true));
  ASSERT_TRUE(kept.ok());
  EXPECT_TRUE(TensorsEqual((*kept)[0], Tensor::FromVector<std::string>({"x y"})));
}

TEST(StringNGramsTest, BadSplitsAreErrors) {
  Tensor data = Tensor::FromVector<std::string>({"a", "b"});
  TFHOST_EXPECT_ERROR(RunSingleOp("StringNGrams", {data, Tensor::FromVector<int64_t>({0, 3})}, Attrs({2})), StatusCode::kInvalidArgument,
                      "Last split value must be data size. Expected 2, got 3");
  TFHOST_EXPECT_ERROR(RunSingleOp("StringNGrams", {data, Tensor::FromVector<int64_t>({1, 2})}, Attrs({2})), StatusCode::kInvalidArgument,
                      "First split value must be 0, got 1");
  TFHOST_EXPECT_ERROR(RunSingleOp("StringNGrams", {data, Tensor::FromVector<int64_t>({0, 2, 1, 2})}, Attrs({2})), StatusCode::kInvalidArgument,
                      "Invalid split value 1 at data_splits[2]");
}

}  // namespace
}  // namespace tfhost::ops
