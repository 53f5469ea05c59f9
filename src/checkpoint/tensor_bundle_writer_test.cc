#include "checkpoint/tensor_bundle_writer.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "base/crc32c.h"
#include "checkpoint/tensor_bundle_reader.h"
#include "checkpoint/test_util.h"
#include "base/test_status.h"

namespace tfhost::checkpoint {
namespace {

namespace fs = std::filesystem;

StatusOr<Tensor> RoundTrip(const Tensor& t, bool compress = true) {
  checkpoint::testing::TempDir dir;
  TensorBundleWriter writer(dir.Join("ckpt"), TensorBundleWriterOptions{compress});
  TFHOST_RETURN_IF_ERROR(writer.Add("t", t));
  TFHOST_RETURN_IF_ERROR(writer.Finish());
  TFHOST_ASSIGN_OR_RETURN(auto reader, TensorBundleReader::Open(dir.Join("ckpt")));
  return reader->Read("t");
}

void ExpectRoundTrips(const Tensor& t) {
  for (bool compress : {true, false}) {
    auto back = RoundTrip(t, compress);
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_TRUE(TensorsEqual(*back, t)) << t.DebugString() << " vs " << back->DebugString();
  }
}

TEST(TensorBundleWriterTest, FloatMatrixRoundTrips) {
  ExpectRoundTrips(Tensor::FromVector<float>({1.5f, -2, 3e30f, 0, 5, 6}, Shape({2, 3})));
}

TEST(TensorBundleWriterTest, Int64AndOtherIntegersRoundTrip) {
  ExpectRoundTrips(Tensor::FromVector<int64_t>({INT64_MIN, -1, 0, INT64_MAX}));
  ExpectRoundTrips(Tensor::FromVector<int32_t>({7, -7}));
  ExpectRoundTrips(Tensor::FromVector<uint8_t>({0, 255, 9}));
  ExpectRoundTrips(Tensor::FromVector<bool>({true, false, true}));
  ExpectRoundTrips(Tensor::FromVector<double>({3.25, -1e300}));
  ExpectRoundTrips(Tensor::FromVector<uint64_t>({~uint64_t{0}}));
}

TEST(TensorBundleWriterTest, HalfAndBFloat16RoundTripBitExact) {
  Tensor h(DType::kHalf, Shape({3}));
  h.data<uint16_t>()[0] = FloatToHalf(0.5f);
  h.data<uint16_t>()[1] = FloatToHalf(-65504.f);
  h.data<uint16_t>()[2] = 0x7e01;  // a NaN payload must survive
  ExpectRoundTrips(h);
  Tensor b(DType::kBFloat16, Shape({2}));
  b.data<uint16_t>()[0] = FloatToBFloat16(1.0f);
  b.data<uint16_t>()[1] = FloatToBFloat16(-3.5f);
  ExpectRoundTrips(b);
  auto back = RoundTrip(h);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->dtype(), DType::kHalf);
  EXPECT_EQ(HalfToFloat(back->data<uint16_t>()[0]), 0.5f);
}

TEST(TensorBundleWriterTest, StringsRoundTripIncludingEmptyAndLong) {
  Tensor s(DType::kString, Shape({2, 2}));
  s.strings()[0] = "";
  s.strings()[1] = std::string("with\0nul", 8);
  s.strings()[2] = std::string(300, 'x');  // two-byte varint length
  s.strings()[3] = "z";
  ExpectRoundTrips(s);
  ExpectRoundTrips(Tensor::StringScalar("scalar"));
}

TEST(TensorBundleWriterTest, EmptyTensorsRoundTrip) {
  ExpectRoundTrips(Tensor(DType::kFloat, Shape({0})));
  ExpectRoundTrips(Tensor(DType::kInt64, Shape({3, 0})));
  ExpectRoundTrips(Tensor(DType::kString, Shape({0, 2})));
}

TEST(TensorBundleWriterTest, StringLayoutMatchesFormatSpec) {
  // docs/formats.md §3.3: varint lengths, masked crc of fixed32 lengths, bytes.
  std::string strs[2] = {"ab", "cde"};
  std::string out;
  uint32_t crc = EncodeStringTensorData(strs, 2, &out);
  ASSERT_EQ(out.size(), 1 + 1 + 4 + 5u);
  EXPECT_EQ(out[0], 2);
  EXPECT_EQ(out[1], 3);
  uint32_t lens[2] = {2, 3};
  uint32_t len_crc = crc32c::Value(lens, 8);
  uint32_t stored;
  std::memcpy(&stored, out.data() + 2, 4);
  EXPECT_EQ(stored, crc32c::Mask(len_crc));
  EXPECT_EQ(out.substr(6), "abcde");
  uint32_t expected = crc32c::Extend(crc32c::Extend(len_crc, &stored, 4), "abcde", 5);
  EXPECT_EQ(crc, expected);
}

TEST(TensorBundleWriterTest, ManyTensorsSpanSeveralIndexBlocksAndStaySorted) {
  checkpoint::testing::TempDir dir;
  const std::string prefix = dir.Join("many");
  TensorBundleWriter writer(prefix);
  const int n = 6000;  // ~60 bytes per entry: more than one 256 KiB block
  for (int i = n - 1; i >= 0; --i) {  // added out of order on purpose
    ASSERT_TRUE(writer.Add("layer_" + std::to_string(i) + "/kernel/.ATTRIBUTES/VARIABLE_VALUE",
                           Tensor::FromVector<int32_t>({i, -i}))
                    .ok());
  }
  ASSERT_TRUE(writer.Finish().ok());
  auto reader = TensorBundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto keys = (*reader)->Keys();
  ASSERT_EQ(keys.size(), static_cast<size_t>(n));
  EXPECT_TRUE(std::is_sorted(keys.begin(), keys.end()));
  auto t = (*reader)->Read("layer_4321/kernel/.ATTRIBUTES/VARIABLE_VALUE");
  ASSERT_TRUE(t.ok());
  EXPECT_TRUE(TensorsEqual(*t, Tensor::FromVector<int32_t>({4321, -4321})));
}

TEST(TensorBundleWriterTest, HeaderHasOneLittleEndianShardAndVersion) {
  checkpoint::testing::TempDir dir;
  TensorBundleWriter writer(dir.Join("ckpt"));
  ASSERT_TRUE(writer.Add("x", Tensor::Scalar<float>(1)).ok());
  ASSERT_TRUE(writer.Finish().ok());
  auto reader = TensorBundleReader::Open(dir.Join("ckpt"));
  ASSERT_TRUE(reader.ok());
  const auto& h = (*reader)->header();
  EXPECT_EQ(h.num_shards(), 1);
  EXPECT_EQ(h.endianness(), tensorflow::BundleHeaderProto::LITTLE);
  EXPECT_EQ(h.version().producer(), 1);
  auto entry = (*reader)->Entry("x");
  ASSERT_TRUE(entry.ok());
  EXPECT_EQ((*entry)->size(), 4);
  EXPECT_EQ((*entry)->offset(), 0);
}

TEST(TensorBundleWriterTest, OnlyFinalFilesRemainAfterFinish) {
  checkpoint::testing::TempDir dir;
  {
    TensorBundleWriter writer(dir.Join("ckpt"));
    ASSERT_TRUE(writer.Add("x", Tensor::Scalar<float>(1)).ok());
    ASSERT_TRUE(writer.Finish().ok());
  }
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir.path())) names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"ckpt.data-00000-of-00001", "ckpt.index"}));
}

TEST(TensorBundleWriterTest, AbandonedWriterLeavesNoFiles) {
  checkpoint::testing::TempDir dir;
  {
    TensorBundleWriter writer(dir.Join("ckpt"));
    ASSERT_TRUE(writer.Add("x", Tensor::Scalar<float>(1)).ok());
  }
  EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(TensorBundleWriterTest, EmptyBundleIsReadable) {
  checkpoint::testing::TempDir dir;
  TensorBundleWriter writer(dir.Join("empty"));
  ASSERT_TRUE(writer.Finish().ok());
  auto reader = TensorBundleReader::Open(dir.Join("empty"));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_TRUE((*reader)->Keys().empty());
}

TEST(TensorBundleWriterTest, DuplicateAndEmptyKeysAreRejected) {
  checkpoint::testing::TempDir dir;
  TensorBundleWriter writer(dir.Join("ckpt"));
  ASSERT_TRUE(writer.Add("x", Tensor::Scalar<float>(1)).ok());
  Status dup = writer.Add("x", Tensor::Scalar<float>(2));
  TFHOST_EXPECT_ERROR(dup, StatusCode::kInvalidArgument, "ckpt: tensor 'x' was added twice");
  TFHOST_EXPECT_ERROR(writer.Add("", Tensor::Scalar<float>(2)), StatusCode::kInvalidArgument,
                      "ckpt: tensor keys must not be empty");
}

TEST(TensorBundleWriterTest, ResourceTensorsCannotBeSaved) {
  checkpoint::testing::TempDir dir;
  TensorBundleWriter writer(dir.Join("ckpt"));
  Status s = writer.Add("r", Tensor(DType::kResource, Shape()));
  TFHOST_EXPECT_ERROR(s, StatusCode::kInvalidArgument, "ckpt: tensor 'r' has dtype DT_RESOURCE, which cannot be saved");
}

}  // namespace
}  // namespace tfhost::checkpoint
