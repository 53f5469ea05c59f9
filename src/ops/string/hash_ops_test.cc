#include <gtest/gtest.h>

#include "ops/run_single_op.h"
#include "ops/string/string_ops.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

using string_internal::Fingerprint64;
using string_internal::SipHash24;

TEST(Fingerprint64Test, EmptyStringIsFarmHashConstantK2) {
  // FarmHash's na::Hash64 returns its constant k2 for a zero-length input.
  EXPECT_EQ(Fingerprint64(""), 0x9ae16a3b2f90404fULL);
}

TEST(SipHash24Test, MatchesReferenceVectorsOfThePaper) {
  // Key 00 01 .. 0f; messages 00 01 .. (n-1) (SipHash paper, appendix A).
  const uint64_t k0 = 0x0706050403020100ULL, k1 = 0x0f0e0d0c0b0a0908ULL;
  std::string msg;
  EXPECT_EQ(SipHash24(k0, k1, msg), 0x726fdb47dd0e0e31ULL);
  for (int i = 0; i < 15; ++i) msg.push_back(static_cast<char>(i));
  EXPECT_EQ(SipHash24(k0, k1, msg), 0xa129ca6149be45e5ULL);
}

TEST(StringToHashBucketFastTest, MatchesTensorFlowDocumentationExample) {
  // tf.strings.to_hash_bucket_fast(["Hello", "TensorFlow", "2.x"], 3) -> [0, 2, 2]
  auto out = RunSingleOp("StringToHashBucketFast",
                         {Tensor::FromVector<std::string>({"Hello", "TensorFlow", "2.x"})},
                         {{"num_buckets", MakeAttr(3)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int64_t>({0, 2, 2})));
}

TEST(StringToHashBucketFastTest, KeepsShapeAndReducesModuloBuckets) {
  Tensor in = Tensor::FromVector<std::string>({"a", "b", "c", ""}, Shape({2, 2}));
  auto out = RunSingleOp("StringToHashBucketFast", {in}, {{"num_buckets", MakeAttr(int64_t{1} << 40)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].shape(), Shape({2, 2}));
  EXPECT_EQ((*out)[0].data<int64_t>()[3], static_cast<int64_t>(0x9ae16a3b2f90404fULL % (uint64_t{1} << 40)));
}

TEST(StringToHashBucketFastTest, ZeroBucketsIsAnError) {
  auto out = RunSingleOp("StringToHashBucketFast", {Tensor::FromVector<std::string>({"a"})},
                         {{"num_buckets", MakeAttr(0)}});
  TFHOST_EXPECT_ERROR(out, StatusCode::kInvalidArgument, "node 'test_StringToHashBucketFast' (StringToHashBucketFast): attr 'num_buckets' is 0, below its minimum 1");
}

TEST(StringToHashBucketStrongTest, MatchesTensorFlowDocumentationExample) {
  // tf.strings.to_hash_bucket_strong(["Hello", "TF"], 3, [1, 2]) -> [2, 0]
  auto out = RunSingleOp("StringToHashBucketStrong", {Tensor::FromVector<std::string>({"Hello", "TF"})},
                         {{"num_buckets", MakeAttr(3)}, {"key", MakeAttr(std::vector<int64_t>{1, 2})}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int64_t>({2, 0})));
}

TEST(StringToHashBucketTest, MatchesTensorFlowDocumentationExample) {
  // tf.strings.to_hash_bucket(["Hello", "TensorFlow", "2.x"], 3) -> [2, 0, 1]
  auto out = RunSingleOp("StringToHashBucket", {Tensor::FromVector<std::string>({"Hello", "TensorFlow", "2.x"})},
                         {{"num_buckets", MakeAttr(3)}});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], Tensor::FromVector<int64_t>({2, 0, 1})));
}

TEST(StringToHashBucketStrongTest, KeyOfWrongLengthIsAnError) {
  auto out = RunSingleOp("StringToHashBucketStrong", {Tensor::FromVector<std::string>({"a"})},
                         {{"num_buckets", MakeAttr(3)}, {"key", MakeAttr(std::vector<int64_t>{1})}});
  TFHOST_EXPECT_ERROR(out, StatusCode::kInvalidArgument, "key must have size 2, got 1");
}

}  // namespace
}  // namespace tfhost::ops
