// The key under which the CUDA backend keeps a cuDNN convolution algorithm
// (cuda/conv_plan.h CudnnConvKey, backends/algorithm_cache.h): two calls
// that differ in anything the choice depends on get different keys, and two
// that do not share one.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "backends/algorithm_cache.h"
#include "backends/cuda/conv_plan.h"
#include "base/test_temp_dir.h"

namespace tfhost::backends::cuda {
namespace {

struct Variant {
  std::string name;
  WindowOp op = WindowOp::kConv2D;
  std::vector<int64_t> x = {2, 16, 16, 8};
  std::vector<int64_t> filter = {3, 3, 8, 16};
  std::vector<int64_t> strides = {1, 1, 1, 1};
  std::vector<int64_t> dilations = {1, 1, 1, 1};
  std::string padding = "SAME";
  std::vector<int64_t> explicit_paddings;
  std::string direction = "fwd";
  std::vector<std::string> fused;  // as ParseConvEpilogue would give
  bool tf32 = true;
  std::string device = "NVIDIA H100 80GB HBM3 sm_90";
  std::string library = "cudnn 9.19.0";
};

AlgorithmKey ConvKeyOf(const Variant& v) {
  auto window = ops::nn::MakeWindow2D(v.strides, v.padding, v.explicit_paddings, "NHWC", v.dilations, true);
  EXPECT_TRUE(window.ok()) << v.name << ": " << window.status().ToString();
  auto plan = MakeConvPlan(v.op, *window, Shape(v.x), Shape(v.filter));
  EXPECT_TRUE(plan.ok()) << v.name << ": " << plan.status().ToString();
  ConvEpilogue e;
  for (const std::string& op : v.fused) {
    if (op == "BiasAdd") e.bias = true;
    if (op == "Add") e.residual = true;
    if (op == "Relu") e.act = UnaryOp::kRelu;
    if (op == "Tanh") e.act = UnaryOp::kTanh;
  }
  return CudnnConvKey(*plan, v.direction, e, v.tf32, v.device, v.library);
}

std::string KeyOf(const Variant& v) { return ConvKeyOf(v).ToString(); }

TEST(CudnnAlgorithmKeyTest, EveryFieldTheChoiceDependsOnChangesTheKey) {
  std::vector<Variant> variants(1);
  variants[0].name = "base";
  auto add = [&](const std::string& name, auto edit) {
    Variant v;
    v.name = name;
    edit(v);
    variants.push_back(v);
  };
  add("batch", [](Variant& v) { v.x[0] = 4; });
  add("height", [](Variant& v) { v.x[1] = 15; });
  add("width", [](Variant& v) { v.x[2] = 17; });
  add("in channels (2 groups)", [](Variant& v) { v.x[3] = 16; });
  add("out channels", [](Variant& v) { v.filter[3] = 32; });
  add("kernel height", [](Variant& v) { v.filter[0] = 5; });
  add("kernel width", [](Variant& v) { v.filter[1] = 1; });
  add("stride h", [](Variant& v) { v.strides = {1, 2, 1, 1}; });
  add("stride w", [](Variant& v) { v.strides = {1, 1, 2, 1}; });
  add("dilation h", [](Variant& v) { v.dilations = {1, 2, 1, 1}; });
  add("dilation w", [](Variant& v) { v.dilations = {1, 1, 2, 1}; });
  add("valid", [](Variant& v) { v.padding = "VALID"; });
  add("explicit pads", [](Variant& v) {
    v.padding = "EXPLICIT";
    v.explicit_paddings = {0, 0, 2, 2, 2, 2, 0, 0};
  });
  add("groups", [](Variant& v) {  // same shapes cuDNN sees but the filter's, 4 groups of 2
    v.filter = {3, 3, 2, 16};
  });
  add("depthwise", [](Variant& v) {
    v.op = WindowOp::kDepthwise;
    v.filter = {3, 3, 8, 2};
  });
  add("backward data", [](Variant& v) { v.direction = "bwd_data"; });
  add("bias relu", [](Variant& v) { v.fused = {"BiasAdd", "Relu"}; });
  add("bias identity", [](Variant& v) { v.fused = {"BiasAdd", "Tanh"}; });
  add("bias relu add", [](Variant& v) { v.fused = {"BiasAdd", "Add", "Relu"}; });
  add("fp32 strict", [](Variant& v) { v.tf32 = false; });
  add("device", [](Variant& v) { v.device = "NVIDIA A100-SXM4-80GB sm_80"; });
  add("library", [](Variant& v) { v.library = "cudnn 9.20.0"; });
  std::set<std::string> keys;
  for (const Variant& v : variants) {
    const std::string key = KeyOf(v);
    EXPECT_TRUE(keys.insert(key).second) << v.name << " shares its key with another variant: " << key;
  }
}

TEST(CudnnAlgorithmKeyTest, TheSameProblemHasTheSameKey) {
  Variant a, b;
  b.name = "another node of the same shape";
  EXPECT_EQ(KeyOf(a), KeyOf(b));
  // An activation cuDNN does not run (it follows in an element-wise kernel)
  // is not part of cuDNN's problem.
  a.fused = {"BiasAdd", "Tanh"};
  b.fused = {"BiasAdd"};
  EXPECT_EQ(KeyOf(a), KeyOf(b));
}

// The backend keeps cuDNN's choices (enum values, no blob) in a file across
// starts: a key made again in a new process finds what the last one saved,
// heuristic and measured entries alike.
TEST(CudnnAlgorithmKeyTest, ChoicesRoundTripThroughTheCacheFile) {
  testing::TempDir dir("tfhost_cudnn_keys");
  const std::string path = dir.Sub("gpu_algorithms.tsv");
  Variant fwd, bwd, fused;
  bwd.direction = "bwd_data";
  fused.fused = {"BiasAdd", "Add", "Relu"};
  fused.padding = "EXPLICIT";
  fused.explicit_paddings = {0, 0, 2, 2, 2, 2, 0, 0};
  AlgorithmCache saved;
  saved.Insert(ConvKeyOf(fwd), AlgorithmChoice{1, 0, -1, ""});
  saved.Insert(ConvKeyOf(bwd), AlgorithmChoice{5, 4 << 20, 37.5, ""});
  saved.Insert(ConvKeyOf(fused), AlgorithmChoice{2, 1 << 20, -1, ""});
  ASSERT_TRUE(saved.Save(path).ok());
  AlgorithmCache loaded;
  ASSERT_TRUE(loaded.Load(path).ok());
  EXPECT_EQ(loaded.size(), 3u);
  auto f = loaded.Lookup(ConvKeyOf(fwd), 32 << 20);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->algorithm, 1);
  EXPECT_FALSE(f->measured());
  auto b = loaded.Lookup(ConvKeyOf(bwd), 32 << 20, /*need_measured=*/true);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->algorithm, 5);
  EXPECT_EQ(b->workspace_bytes, 4 << 20);
  EXPECT_DOUBLE_EQ(b->micros, 37.5);
  auto u = loaded.Lookup(ConvKeyOf(fused), 32 << 20);
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->algorithm, 2);
  EXPECT_EQ(u->blob, "");
}

}  // namespace
}  // namespace tfhost::backends::cuda
