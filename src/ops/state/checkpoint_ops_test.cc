#include <filesystem>

#include <gtest/gtest.h>

#include "base/test_fixtures.h"
#include "checkpoint/tensor_bundle_reader.h"
#include "checkpoint/tensor_bundle_writer.h"
#include "checkpoint/test_util.h"
#include "ops/run_single_op.h"
#include "ops/state/state_ops.h"
#include "base/test_status.h"

namespace tfhost::ops {
namespace {

namespace fs = std::filesystem;
using checkpoint::testing::TempDir;

Tensor Strings(const std::vector<std::string>& v) {
  Tensor t(DType::kString, Shape({static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) t.strings()[i] = v[i];
  return t;
}

StatusOr<std::vector<Tensor>> Restore(const std::string& prefix, const std::vector<std::string>& keys,
                                      const std::vector<DType>& dtypes,
                                      std::vector<std::string> slices = {}) {
  if (slices.empty()) slices.assign(keys.size(), "");
  return RunSingleOp("RestoreV2", {Tensor::StringScalar(prefix), Strings(keys), Strings(slices)},
                     {{"dtypes", MakeAttr(dtypes)}});
}

TEST(RestoreV2Test, RestoresTf1HalfPlusTwoVariables) {
  const std::string prefix = tfhost::testing::FixturePath(
      "models/tfserving/saved_model_half_plus_two_cpu/00000123/variables/variables");
  TFHOST_REQUIRE_FIXTURE(prefix + ".index");
  auto out = Restore(prefix, {"a", "b", "c"}, {DType::kFloat, DType::kFloat, DType::kFloat});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  ASSERT_EQ(out->size(), 3u);
  EXPECT_EQ(*(*out)[0].data<float>(), 0.5f);
  EXPECT_EQ(*(*out)[1].data<float>(), 2.0f);
  EXPECT_EQ(*(*out)[2].data<float>(), 3.0f);
}

TEST(RestoreV2Test, DTypeMismatchNamesTheKey) {
  const std::string prefix = tfhost::testing::FixturePath(
      "models/tfserving/saved_model_half_plus_two_cpu/00000123/variables/variables");
  TFHOST_REQUIRE_FIXTURE(prefix + ".index");
  auto out = Restore(prefix, {"a", "b"}, {DType::kFloat, DType::kInt64});
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument, "tensor 'b'");
  EXPECT_NE(out.status().message().find("int64"), std::string::npos);
}

TEST(RestoreV2Test, SliceSpecIsUnimplemented) {
  TempDir dir;
  auto out = Restore(dir.Join("x"), {"a"}, {DType::kFloat}, {"4 0,2"});
  TFHOST_ASSERT_ERROR(
      out, StatusCode::kUnimplemented,
      "node 'test_RestoreV2' (RestoreV2): tensor 'a' requests slice '4 0,2'; partitioned variables are not supported");
  EXPECT_NE(out.status().message().find("'a'"), std::string::npos);
}

TEST(RestoreV2Test, MissingKeyAndMissingBundleAreErrors) {
  TempDir dir;
  auto none = Restore(dir.Join("nothing"), {"a"}, {DType::kFloat});
  TFHOST_ASSERT_ERROR(none, StatusCode::kNotFound, "node 'test_RestoreV2' (RestoreV2): index file");
  EXPECT_NE(none.status().message().find("nothing.index"), std::string::npos);

  checkpoint::TensorBundleWriter writer(dir.Join("ckpt"));
  ASSERT_TRUE(writer.Add("a", Tensor::Scalar<float>(1)).ok());
  ASSERT_TRUE(writer.Finish().ok());
  auto missing = Restore(dir.Join("ckpt"), {"zz"}, {DType::kFloat});
  TFHOST_ASSERT_ERROR(missing, StatusCode::kNotFound, "tensor 'zz' is not in checkpoint");
}

TEST(RestoreV2Test, NameCountMustMatchDTypes) {
  TempDir dir;
  auto out = RunSingleOp("RestoreV2",
                         {Tensor::StringScalar(dir.Join("x")), Strings({"a", "b"}), Strings({"", ""})},
                         {{"dtypes", MakeAttr(std::vector<DType>{DType::kFloat})}});
  TFHOST_ASSERT_ERROR(out, StatusCode::kInvalidArgument,
                      "tensor_names must hold 1 strings (one per dtype), got string[2]");
}

TEST(SaveV2Test, SavedTensorsRestore) {
  TempDir dir;
  const std::string prefix = dir.Join("sub/model.ckpt");
  Tensor w = Tensor::FromVector<float>({1, 2, 3, 4}, Shape({2, 2}));
  Tensor step = Tensor::Scalar<int64_t>(42);
  Tensor names = Tensor::StringScalar("graph bytes");
  auto saved = RunSingleOp(
      "SaveV2",
      {Tensor::StringScalar(prefix), Strings({"w", "global_step", "s"}), Strings({"", "", ""}), w, step, names},
      {{"dtypes", MakeAttr(std::vector<DType>{DType::kFloat, DType::kInt64, DType::kString})}});
  ASSERT_TRUE(saved.ok()) << saved.status().ToString();
  auto out = Restore(prefix, {"s", "w", "global_step"}, {DType::kString, DType::kFloat, DType::kInt64});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_TRUE(TensorsEqual((*out)[0], names));
  EXPECT_TRUE(TensorsEqual((*out)[1], w));
  EXPECT_TRUE(TensorsEqual((*out)[2], step));
}

TEST(MergeV2CheckpointsTest, SingleSourceIsMovedToTheDestination) {
  TempDir dir;
  const std::string src = dir.Join("tmp_part/part-0");
  {
    checkpoint::TensorBundleWriter writer(src);
    ASSERT_TRUE(writer.Add("v", Tensor::Scalar<float>(9)).ok());
    ASSERT_TRUE(writer.Finish().ok());
  }
  const std::string dest = dir.Join("model.ckpt");
  auto merged = RunSingleOp("MergeV2Checkpoints", {Strings({src}), Tensor::StringScalar(dest)});
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_FALSE(fs::exists(dir.Join("tmp_part")));  // delete_old_dirs
  auto out = Restore(dest, {"v"}, {DType::kFloat});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ(*(*out)[0].data<float>(), 9.0f);
}

TEST(MergeV2CheckpointsTest, TwoSourcesBecomeTwoShards) {
  TempDir dir;
  const std::string a = dir.Join("p0/part"), b = dir.Join("p1/part");
  for (const auto& [prefix, key, value] : {std::tuple{a, "x", 1.0f}, std::tuple{b, "y", 2.0f}}) {
    checkpoint::TensorBundleWriter writer(prefix);
    ASSERT_TRUE(writer.Add(key, Tensor::Scalar<float>(value)).ok());
    ASSERT_TRUE(writer.Finish().ok());
  }
  const std::string dest = dir.Join("merged");
  auto merged = RunSingleOp("MergeV2Checkpoints", {Strings({a, b}), Tensor::StringScalar(dest)});
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_TRUE(fs::exists(dest + ".data-00001-of-00002"));
  auto reader = checkpoint::TensorBundleReader::Open(dest);
  ASSERT_TRUE(reader.ok());
  EXPECT_EQ((*reader)->header().num_shards(), 2);
  auto y = (*reader)->Read("y");
  ASSERT_TRUE(y.ok()) << y.status().ToString();
  EXPECT_EQ(*y->data<float>(), 2.0f);
  EXPECT_EQ((*(*reader)->Entry("y"))->shard_id(), 1);
}

TEST(MergeV2CheckpointsTest, MissingSourceIsAnErrorUnlessAllowed) {
  TempDir dir;
  auto out = RunSingleOp("MergeV2Checkpoints", {Strings({dir.Join("gone")}), Tensor::StringScalar(dir.Join("d"))});
  TFHOST_ASSERT_ERROR(out, StatusCode::kNotFound, "gone.index does not exist");
}

TEST(ShardedFilenameTest, FormatsShardAndCount) {
  auto out = RunSingleOp("ShardedFilename", {Tensor::StringScalar("/tmp/model"), Tensor::Scalar<int32_t>(3),
                                             Tensor::Scalar<int32_t>(10)});
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  EXPECT_EQ((*out)[0].strings()[0], "/tmp/model-00003-of-00010");
  auto spec = RunSingleOp("ShardedFilespec", {Tensor::StringScalar("m"), Tensor::Scalar<int32_t>(2)});
  ASSERT_TRUE(spec.ok());
  EXPECT_EQ((*spec)[0].strings()[0], "m-" + std::string(5, '?') + "-of-00002");
}

}  // namespace
}  // namespace tfhost::ops
