#include "data/cache/object_source.h"

#include <gtest/gtest.h>

#include "data/cache/disk_cache.h"
#include "base/test_status.h"

namespace tfhost::data::cache {
namespace {

TEST(ParseListObjectsV2, ReadsKeysSizesEtagsAndDecodesEntities) {
  auto page = ParseListObjectsV2(
      "<?xml version=\"1.0\"?><ListBucketResult><IsTruncated>true</IsTruncated>"
      "<NextContinuationToken>a&amp;b</NextContinuationToken>"
      "<Contents><Key>d/x&lt;1&gt;&#233;.tfrecord</Key><Size>12</Size><ETag>&quot;abc&quot;</ETag></Contents>"
      "<Contents><ETag>\"e\"</ETag><Key>d/y</Key><Size>0</Size></Contents></ListBucketResult>");
  ASSERT_TRUE(page.ok()) << page.status().ToString();
  ASSERT_EQ(page->objects.size(), 2u);
  EXPECT_EQ(page->objects[0].uri, "d/x<1>\xc3\xa9.tfrecord");
  EXPECT_EQ(page->objects[0].size, 12u);
  EXPECT_EQ(page->objects[0].etag, "\"abc\"");
  EXPECT_EQ(page->objects[1].uri, "d/y");
  EXPECT_TRUE(page->truncated);
  EXPECT_EQ(page->next_token, "a&b");
}

TEST(ParseListObjectsV2, RejectsMalformedAnswers) {
  TFHOST_EXPECT_ERROR(ParseListObjectsV2("<Error><Code>AccessDenied</Code></Error>"), StatusCode::kInvalidArgument,
                      "not a ListObjectsV2 answer (no <ListBucketResult>)");
  TFHOST_EXPECT_ERROR(ParseListObjectsV2("<ListBucketResult><Contents><Key>k</Key><Size>-1</Size></Contents>"), StatusCode::kInvalidArgument,
                      "ListObjectsV2: bad <Size> '-1'");
  EXPECT_FALSE(ParseListObjectsV2("<ListBucketResult><Contents><Key>k</Key><Size>99999999999999999999</Size>"
                                  "</Contents>").ok());
  TFHOST_EXPECT_ERROR(ParseListObjectsV2("<ListBucketResult><Contents><Size>1</Size></Contents>"), StatusCode::kInvalidArgument,
                      "ListObjectsV2: <Contents> without <Key>");
  TFHOST_EXPECT_ERROR(ParseListObjectsV2("<ListBucketResult><Contents><Key>&bogus;</Key><Size>1</Size></Contents>"), StatusCode::kInvalidArgument,
                      "ListObjectsV2: unknown XML entity &bogus");
  TFHOST_EXPECT_ERROR(ParseListObjectsV2("<ListBucketResult><Contents><Key>&#x110000;</Key><Size>1</Size></Contents>"), StatusCode::kInvalidArgument,
                      "ListObjectsV2: character reference out of range");
  auto empty = ParseListObjectsV2("<ListBucketResult><KeyCount>0</KeyCount></ListBucketResult>");
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->objects.empty());
  EXPECT_FALSE(empty->truncated);
}

TEST(S3Uri, SplitsBucketAndKeyAndRejectsBadBuckets) {
  std::string b, k;
  ASSERT_TRUE(ParseS3Uri("s3://my-bucket/a/b.tfrecord", &b, &k).ok());
  EXPECT_EQ(b, "my-bucket");
  EXPECT_EQ(k, "a/b.tfrecord");
  ASSERT_TRUE(ParseS3Uri("s3://bkt", &b, &k).ok());
  EXPECT_EQ(k, "");
  TFHOST_EXPECT_ERROR(ParseS3Uri("s3:///key", &b, &k), StatusCode::kInvalidArgument, "s3:///key': empty bucket name");
  TFHOST_EXPECT_ERROR(ParseS3Uri("s3://b@d/key", &b, &k), StatusCode::kInvalidArgument,
                      "s3://b@d/key': bad character in bucket name");
  TFHOST_EXPECT_ERROR(ParseS3Uri("/local/path", &b, &k), StatusCode::kInvalidArgument,
                      "'/local/path' is not an s3://bucket/key URI");
}

TEST(UriEncode, KeepsUnreservedAndOptionallySlashes) {
  EXPECT_EQ(UriEncode("a b/c+d~e", true), "a%20b/c%2Bd~e");
  EXPECT_EQ(UriEncode("a/b", false), "a%2Fb");
}

TEST(ParseByteSize, AcceptsBinaryUnitsAndRejectsGarbage) {
  EXPECT_EQ(*ParseByteSize("1000"), 1000u);
  EXPECT_EQ(*ParseByteSize("4K"), 4096u);
  EXPECT_EQ(*ParseByteSize("1.5GiB"), uint64_t{3} << 29);
  EXPECT_EQ(*ParseByteSize("10G"), uint64_t{10} << 30);
  TFHOST_EXPECT_ERROR(ParseByteSize("ten"), StatusCode::kInvalidArgument,
                      "bad size 'ten' (expected e.g. 500M, 10G, 1048576)");
  TFHOST_EXPECT_ERROR(ParseByteSize("5X"), StatusCode::kInvalidArgument, "bad size unit in '5X' (K, M, G or T)");
  TFHOST_EXPECT_ERROR(ParseByteSize("-5"), StatusCode::kInvalidArgument, "size '-5' out of range");
}

TEST(CacheFileName, IsStableDistinctAndHasNoPathSeparators) {
  std::string a = CacheFileName("s3://b/dir/shard-00001.tfrecord");
  EXPECT_EQ(a, CacheFileName("s3://b/dir/shard-00001.tfrecord"));
  EXPECT_NE(a, CacheFileName("s3://b/other/shard-00001.tfrecord"));
  EXPECT_EQ(a.find('/'), std::string::npos);
  EXPECT_NE(a.find("shard-00001.tfrecord"), std::string::npos);
  EXPECT_EQ(CacheFileName("s3://b/..").find(".."), std::string::npos);
}

}  // namespace
}  // namespace tfhost::data::cache
