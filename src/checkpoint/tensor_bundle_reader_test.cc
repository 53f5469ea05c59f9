#include "checkpoint/tensor_bundle_reader.h"

#include <filesystem>
#include <fstream>
#include <vector>

#include <gtest/gtest.h>

#include "base/test_fixtures.h"
#include "checkpoint/test_util.h"
#include "checkpoint/tensor_bundle_writer.h"
#include "tensorflow/core/protobuf/trackable_object_graph.pb.h"
#include "base/test_status.h"

namespace tfhost::checkpoint {
namespace {

namespace fs = std::filesystem;

std::string TfServingModel(const std::string& name) {
  return tfhost::testing::FixturePath("models/tfserving/" + name + "/00000123/variables/variables");
}

float ReadFloatScalar(const TensorBundleReader& reader, const std::string& key) {
  auto t = reader.Read(key);
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  if (!t.ok()) return -1;
  EXPECT_EQ(t->dtype(), DType::kFloat) << key;
  EXPECT_TRUE(t->shape().IsScalar()) << key;
  return *t->data<float>();
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void WriteFile(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(data.data(), static_cast<std::streamsize>(data.size()));
}

TEST(TensorBundleReaderTest, ReadsTf1HalfPlusTwoVariables) {
  const std::string prefix = TfServingModel("saved_model_half_plus_two_cpu");
  TFHOST_REQUIRE_FIXTURE(prefix + ".index");
  auto reader = TensorBundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ((*reader)->header().num_shards(), 1);
  EXPECT_EQ((*reader)->Keys(), (std::vector<std::string>{"a", "a2", "b", "c", "c2"}));
  EXPECT_EQ(ReadFloatScalar(**reader, "a"), 0.5f);
  EXPECT_EQ(ReadFloatScalar(**reader, "a2"), 0.5f);
  EXPECT_EQ(ReadFloatScalar(**reader, "b"), 2.0f);
  EXPECT_EQ(ReadFloatScalar(**reader, "c"), 3.0f);
  EXPECT_EQ(ReadFloatScalar(**reader, "c2"), 3.0f);
}

TEST(TensorBundleReaderTest, ReadsTf2VariablesAndObjectGraph) {
  const std::string prefix = TfServingModel("saved_model_half_plus_two_tf2_cpu");
  TFHOST_REQUIRE_FIXTURE(prefix + ".index");
  auto reader = TensorBundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  EXPECT_EQ(ReadFloatScalar(**reader, "a/.ATTRIBUTES/VARIABLE_VALUE"), 0.5f);
  auto graph = (*reader)->Read("_CHECKPOINTABLE_OBJECT_GRAPH");
  ASSERT_TRUE(graph.ok()) << graph.status().ToString();
  ASSERT_EQ(graph->dtype(), DType::kString);
  ASSERT_TRUE(graph->shape().IsScalar());
  tensorflow::TrackableObjectGraph object_graph;
  ASSERT_TRUE(object_graph.ParseFromString(graph->strings()[0]));
  ASSERT_GT(object_graph.nodes_size(), 1);
  bool found_a = false;
  for (const auto& node : object_graph.nodes()) {
    for (const auto& attr : node.attributes()) {
      if (attr.checkpoint_key() == "a/.ATTRIBUTES/VARIABLE_VALUE") found_a = true;
    }
  }
  EXPECT_TRUE(found_a);
}

TEST(TensorBundleReaderTest, ReadsEveryTensorOfEveryTfServingFixture) {
  const std::string root = tfhost::testing::FixturePath("models/tfserving");
  TFHOST_REQUIRE_FIXTURE(root);
  int bundles = 0, tensors = 0;
  for (const auto& model : fs::directory_iterator(root)) {
    if (!model.is_directory()) continue;
    for (const auto& version : fs::directory_iterator(model.path())) {
      const fs::path index = version.path() / "variables" / "variables.index";
      if (!fs::exists(index)) continue;
      const std::string prefix = (version.path() / "variables" / "variables").string();
      SCOPED_TRACE(prefix);
      auto reader = TensorBundleReader::Open(prefix);
      ASSERT_TRUE(reader.ok()) << reader.status().ToString();
      for (const std::string& key : (*reader)->Keys()) {
        auto t = (*reader)->Read(key);
        EXPECT_TRUE(t.ok()) << key << ": " << t.status().ToString();
        ++tensors;
      }
      ++bundles;
    }
  }
  EXPECT_GE(bundles, 5);
  EXPECT_GE(tensors, bundles);
}

TEST(TensorBundleReaderTest, MissingIndexIsNotFoundNamingTheFile) {
  checkpoint::testing::TempDir dir;
  auto reader = TensorBundleReader::Open(dir.Join("nothing"));
  TFHOST_ASSERT_ERROR(reader, StatusCode::kNotFound, "nothing.index does not exist");
  EXPECT_NE(reader.status().message().find("nothing.index"), std::string::npos);
}

TEST(TensorBundleReaderTest, UnknownKeyIsNotFoundNamingTheKey) {
  checkpoint::testing::TempDir dir;
  TensorBundleWriter writer(dir.Join("ckpt"));
  ASSERT_TRUE(writer.Add("x", Tensor::Scalar<float>(1)).ok());
  ASSERT_TRUE(writer.Finish().ok());
  auto reader = TensorBundleReader::Open(dir.Join("ckpt"));
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto t = (*reader)->Read("y");
  TFHOST_ASSERT_ERROR(t, StatusCode::kNotFound, "tensor 'y' is not in checkpoint");
  EXPECT_NE(t.status().message().find("'y'"), std::string::npos);
}

// A bundle with one float vector "a" and one string vector "s", for the
// corruption tests below.
std::string WriteSmallBundle(const checkpoint::testing::TempDir& dir, bool compress = true) {
  const std::string prefix = dir.Join("ckpt");
  TensorBundleWriter writer(prefix, TensorBundleWriterOptions{compress});
  EXPECT_TRUE(writer.Add("a", Tensor::FromVector<float>({1, 2, 3, 4})).ok());
  Tensor s(DType::kString, Shape({2}));
  s.strings()[0] = "hello";
  s.strings()[1] = "world";
  EXPECT_TRUE(writer.Add("s", s).ok());
  EXPECT_TRUE(writer.Finish().ok());
  return prefix;
}

TEST(TensorBundleReaderTest, FlippedDataByteIsCrcMismatchNamingTensorAndFile) {
  checkpoint::testing::TempDir dir;
  const std::string prefix = WriteSmallBundle(dir);
  const std::string data_path = DataFileName(prefix, 0, 1);
  std::string data = ReadFile(data_path);
  data[5] ^= 0x40;  // inside tensor "a" (bytes 0..15)
  WriteFile(data_path, data);
  auto reader = TensorBundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok()) << reader.status().ToString();
  auto t = (*reader)->Read("a");
  TFHOST_ASSERT_ERROR(t, StatusCode::kDataLoss, "CRC mismatch for tensor 'a' in");
  const std::string& msg = t.status().message();
  EXPECT_NE(msg.find("CRC mismatch for tensor 'a'"), std::string::npos) << msg;
  EXPECT_NE(msg.find(data_path), std::string::npos) << msg;
  EXPECT_NE(msg.find("stored 0x"), std::string::npos) << msg;
  // The other tensor is still readable.
  EXPECT_TRUE((*reader)->Read("s").ok());
}

TEST(TensorBundleReaderTest, FlippedStringByteIsCrcMismatch) {
  checkpoint::testing::TempDir dir;
  const std::string prefix = WriteSmallBundle(dir);
  const std::string data_path = DataFileName(prefix, 0, 1);
  std::string data = ReadFile(data_path);
  data[data.size() - 2] ^= 0x01;  // a byte of "world"
  WriteFile(data_path, data);
  auto reader = TensorBundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok());
  auto t = (*reader)->Read("s");
  TFHOST_ASSERT_ERROR(t, StatusCode::kDataLoss, "CRC mismatch for tensor 's' in");
}

TEST(TensorBundleReaderTest, FlippedStringLengthIsReportedForThatTensor) {
  checkpoint::testing::TempDir dir;
  const std::string prefix = WriteSmallBundle(dir);
  const std::string data_path = DataFileName(prefix, 0, 1);
  std::string data = ReadFile(data_path);
  data[16] = 4;  // first varint length of "s": 5 -> 4
  WriteFile(data_path, data);
  auto reader = TensorBundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok());
  auto t = (*reader)->Read("s");
  TFHOST_ASSERT_ERROR(t, StatusCode::kDataLoss, "string length checksum mismatch: stored");
  EXPECT_NE(t.status().message().find("tensor 's'"), std::string::npos) << t.status().message();
}

TEST(TensorBundleReaderTest, EveryFlippedIndexByteIsAnErrorOrHarmless) {
  // Every block byte is covered by a checksum and the footer magic is checked,
  // so flipping any of them must give an error naming the index file. Footer
  // padding is never read: flipping it must leave the values intact. Never a
  // crash.
  for (bool compress : {true, false}) {
    checkpoint::testing::TempDir dir;
    const std::string prefix = WriteSmallBundle(dir, compress);
    const std::string index_path = IndexFileName(prefix);
    const std::string original = ReadFile(index_path);
    const size_t footer = original.size() - 48;
    for (size_t i = 0; i < original.size(); ++i) {
      std::string bad = original;
      bad[i] ^= 0x5a;
      WriteFile(index_path, bad);
      auto reader = TensorBundleReader::Open(prefix);
      const bool must_fail = i < footer || i >= original.size() - 8;
      if (!reader.ok()) {
        EXPECT_NE(reader.status().message().find(index_path), std::string::npos)
            << "byte " << i << ": " << reader.status().message();
        continue;
      }
      EXPECT_FALSE(must_fail) << "flipping byte " << i << " of " << original.size()
                              << " went unnoticed (compress " << compress << ")";
      auto a = (*reader)->Read("a");
      ASSERT_TRUE(a.ok()) << i;
      EXPECT_TRUE(TensorsEqual(*a, Tensor::FromVector<float>({1, 2, 3, 4}))) << i;
    }
  }
}

TEST(TensorBundleReaderTest, FlippedIndexBlockByteIsChecksumError) {
  checkpoint::testing::TempDir dir;
  const std::string prefix = WriteSmallBundle(dir);
  const std::string index_path = IndexFileName(prefix);
  std::string index = ReadFile(index_path);
  index[3] ^= 0x10;  // inside the first data block
  WriteFile(index_path, index);
  auto reader = TensorBundleReader::Open(prefix);
  TFHOST_ASSERT_ERROR(reader, StatusCode::kDataLoss, "is corrupt: Corruption: block checksum mismatch");
  EXPECT_NE(reader.status().message().find("checksum"), std::string::npos)
      << reader.status().message();
}

TEST(TensorBundleReaderTest, TruncatedIndexIsAnErrorAtEveryLength) {
  checkpoint::testing::TempDir dir;
  const std::string prefix = WriteSmallBundle(dir);
  const std::string index_path = IndexFileName(prefix);
  const std::string original = ReadFile(index_path);
  for (size_t len = 0; len < original.size(); ++len) {
    WriteFile(index_path, original.substr(0, len));
    auto reader = TensorBundleReader::Open(prefix);
    TFHOST_ASSERT_ERROR(reader, StatusCode::kDataLoss, "ckpt.index is ") << "length " << len;
    EXPECT_NE(reader.status().message().find(index_path), std::string::npos)
        << reader.status().message();
  }
}

TEST(TensorBundleReaderTest, MissingShardIsAnErrorNamingShardAndCount) {
  checkpoint::testing::TempDir dir;
  const std::string prefix = WriteSmallBundle(dir);
  fs::remove(DataFileName(prefix, 0, 1));
  auto reader = TensorBundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok());  // shards are opened lazily
  auto t = (*reader)->Read("a");
  TFHOST_ASSERT_ERROR(t, StatusCode::kNotFound, "is missing (shard 0 of 1)");
  EXPECT_NE(t.status().message().find("data file " + DataFileName(prefix, 0, 1) +
                                      " is missing (shard 0 of 1)"),
            std::string::npos)
      << t.status().message();
}

TEST(TensorBundleReaderTest, TruncatedDataFileIsOutOfBoundsError) {
  checkpoint::testing::TempDir dir;
  const std::string prefix = WriteSmallBundle(dir);
  fs::resize_file(DataFileName(prefix, 0, 1), 10);
  auto reader = TensorBundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok());
  auto t = (*reader)->Read("a");
  TFHOST_ASSERT_ERROR(t, StatusCode::kDataLoss,
                      "ckpt.data-00000-of-00001: bytes [0, 16) lie outside the file of 10 bytes");
}

// Rewrites the index of `prefix` with `edit` applied to entry `key`.
template <typename Edit>
void EditEntry(const std::string& prefix, const std::string& key, Edit edit,
               int num_shards = 1) {
  auto reader = TensorBundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok());
  auto entries = (*reader)->entries();
  edit(entries[key]);
  tensorflow::BundleHeaderProto header = (*reader)->header();
  header.set_num_shards(num_shards);
  ASSERT_TRUE(WriteBundleIndex(IndexFileName(prefix), header, entries, true).ok());
}

TEST(TensorBundleReaderTest, HugeShapeWithSmallSizeIsRejectedBeforeAllocating) {
  checkpoint::testing::TempDir dir;
  const std::string prefix = WriteSmallBundle(dir);
  EditEntry(prefix, "a", [](tensorflow::BundleEntryProto& e) {
    e.mutable_shape()->mutable_dim(0)->set_size(int64_t{1} << 39);
  });
  auto reader = TensorBundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok());
  auto t = (*reader)->Read("a");
  TFHOST_ASSERT_ERROR(t, StatusCode::kDataLoss,
                      "ckpt.index: size 16 does not match shape [549755813888] of float32 (expected 2199023255552 bytes)");
}

TEST(TensorBundleReaderTest, HugeStringCountIsRejectedBeforeAllocating) {
  checkpoint::testing::TempDir dir;
  const std::string prefix = WriteSmallBundle(dir);
  EditEntry(prefix, "s", [](tensorflow::BundleEntryProto& e) {
    e.mutable_shape()->mutable_dim(0)->set_size(int64_t{1} << 39);
  });
  auto reader = TensorBundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok());
  auto t = (*reader)->Read("s");
  TFHOST_ASSERT_ERROR(t, StatusCode::kDataLoss, "ckpt.index: 549755813888 strings cannot fit in 16 bytes");
}

TEST(TensorBundleReaderTest, SlicedEntryIsUnimplemented) {
  checkpoint::testing::TempDir dir;
  const std::string prefix = WriteSmallBundle(dir);
  EditEntry(prefix, "a", [](tensorflow::BundleEntryProto& e) { e.add_slices()->add_extent(); });
  auto reader = TensorBundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok());
  auto t = (*reader)->Read("a");
  TFHOST_ASSERT_ERROR(t, StatusCode::kUnimplemented, "tensor 'a' is sliced (partitioned); not supported (");
  EXPECT_NE(t.status().message().find("tensor 'a' is sliced (partitioned); not supported"),
            std::string::npos);
}

TEST(TensorBundleReaderTest, MissingSecondShardNamesItsPosition) {
  checkpoint::testing::TempDir dir;
  const std::string prefix = WriteSmallBundle(dir);
  EditEntry(prefix, "a", [](tensorflow::BundleEntryProto& e) { e.set_shard_id(1); }, 2);
  auto reader = TensorBundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok());
  auto t = (*reader)->Read("a");
  TFHOST_ASSERT_ERROR(t, StatusCode::kNotFound, "ckpt.data-00001-of-00002 is missing (shard 1 of 2)");
  EXPECT_NE(t.status().message().find(DataFileName(prefix, 1, 2) + " is missing (shard 1 of 2)"),
            std::string::npos)
      << t.status().message();
}

TEST(TensorBundleReaderTest, BigEndianHeaderIsRejected) {
  checkpoint::testing::TempDir dir;
  const std::string prefix = WriteSmallBundle(dir);
  auto reader = TensorBundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok());
  tensorflow::BundleHeaderProto header = (*reader)->header();
  header.set_endianness(tensorflow::BundleHeaderProto::BIG);
  ASSERT_TRUE(WriteBundleIndex(IndexFileName(prefix), header, (*reader)->entries(), true).ok());
  auto reopened = TensorBundleReader::Open(prefix);
  TFHOST_ASSERT_ERROR(reopened, StatusCode::kUnimplemented,
                      "ckpt.index describes a big-endian bundle; only little-endian bundles are supported");
}

TEST(TensorBundleReaderTest, NewerMinConsumerIsRejected) {
  checkpoint::testing::TempDir dir;
  const std::string prefix = WriteSmallBundle(dir);
  auto reader = TensorBundleReader::Open(prefix);
  ASSERT_TRUE(reader.ok());
  tensorflow::BundleHeaderProto header = (*reader)->header();
  header.mutable_version()->set_min_consumer(2);
  ASSERT_TRUE(WriteBundleIndex(IndexFileName(prefix), header, (*reader)->entries(), true).ok());
  auto reopened = TensorBundleReader::Open(prefix);
  TFHOST_ASSERT_ERROR(reopened, StatusCode::kFailedPrecondition,
                      "ckpt.index needs a reader of version >= 2; tfhost reads version 1");
}

}  // namespace
}  // namespace tfhost::checkpoint
