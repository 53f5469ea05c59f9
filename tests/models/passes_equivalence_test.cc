// Graph passes on real models: every fixture SavedModel (TF Serving's test
// models) and TF.js graph model loads with and without the graph passes
// (LoadOptions::optimize_graph, freeze_variables), the optimised graph has no
// more nodes, and
// every signature gives the same outputs on the same deterministic inputs
// (or fails in both). Unknown dims take 1 (batch) or 32, so models with
// coupled shapes may fail both ways; at least some runs must succeed.
// The TF.js models also run on their recorded reference inputs (every
// frame, rvm's recurrent state included), where the passes must fuse
// something (all but emotion) and outputs must agree within 1e-5 of the
// output's magnitude.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

#include "base/test_fixtures.h"
#include "loaders/model_loader.h"

namespace tfhost {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> FixtureModels() {
  std::vector<std::string> paths;
  std::error_code ec;
  for (const char* sub : {"models/tfjs", "models/tfserving"}) {
    for (const auto& entry : fs::directory_iterator(testing::FixturePath(sub), ec)) {
      if (entry.is_directory()) paths.push_back(entry.path().string());
    }
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

StatusOr<Tensor> MakeInput(const runtime::TensorSpec& spec, std::mt19937* rng) {
  std::vector<int64_t> dims;
  if (spec.shape.unknown_rank) return InvalidArgument("unknown rank");
  for (int i = 0; i < spec.shape.rank(); ++i) {
    int64_t d = spec.shape.dim(i);
    dims.push_back(d >= 0 ? d : (i == 0 ? 1 : 32));
  }
  Tensor t(spec.dtype, Shape(dims));
  std::uniform_real_distribution<float> u(0.1f, 1.0f);
  for (int64_t k = 0; k < t.NumElements(); ++k) {
    switch (spec.dtype) {
      case DType::kFloat: t.data<float>()[k] = u(*rng); break;
      case DType::kInt32: t.data<int32_t>()[k] = static_cast<int32_t>((*rng)() % 4); break;
      case DType::kInt64: t.data<int64_t>()[k] = static_cast<int64_t>((*rng)() % 4); break;
      case DType::kBool: t.data<bool>()[k] = ((*rng)() & 1) != 0; break;
      default: return InvalidArgument("unsupported input dtype");
    }
  }
  return t;
}

double MaxRelError(const Tensor& a, const Tensor& b) {
  auto va = a.ToDoubleVector(), vb = b.ToDoubleVector();
  double worst = 0;
  for (size_t i = 0; i < va.size() && i < vb.size(); ++i) {
    if (std::isnan(va[i]) && std::isnan(vb[i])) continue;
    worst = std::max(worst, std::abs(va[i] - vb[i]) / std::max(1.0, std::abs(va[i])));
  }
  return worst;
}

TEST(PassesEquivalenceTest, EveryFixtureModelGivesTheSameOutputsWithAndWithoutPasses) {
  TFHOST_REQUIRE_FIXTURE(testing::FixturePath("models"));
  int compared = 0;
  for (const std::string& path : FixtureModels()) {
    SCOPED_TRACE(path);
    loaders::LoadOptions plain_options;
    plain_options.optimize_graph = false;
    plain_options.freeze_variables = false;
    auto plain = loaders::LoadModel(path, plain_options);
    auto optimized = loaders::LoadModel(path);
    EXPECT_EQ(plain.ok(), optimized.ok()) << (plain.ok() ? optimized.status() : plain.status()).ToString();
    if (!plain.ok() || !optimized.ok()) continue;
    const int before = (*plain)->session().graph().num_nodes();
    const int after = (*optimized)->session().graph().num_nodes();
    EXPECT_LE(after, before);
    std::printf("%s: %d -> %d nodes\n", fs::path(path).filename().c_str(), before, after);
    for (const auto& [name, sig] : (*plain)->signatures()) {
      std::mt19937 rng(7);
      std::map<std::string, Tensor> inputs;
      bool usable = true;
      for (const auto& spec : sig.inputs) {
        auto t = MakeInput(spec, &rng);
        if (!t.ok()) usable = false;
        if (t.ok()) inputs[spec.key] = *t;
      }
      if (!usable) continue;
      auto a = (*plain)->RunSignature(name, inputs);
      auto b = (*optimized)->RunSignature(name, inputs);
      EXPECT_EQ(a.ok(), b.ok()) << name << ": " << (a.ok() ? b.status() : a.status()).ToString();
      if (!a.ok() || !b.ok()) continue;
      ASSERT_EQ(a->size(), b->size());
      for (const auto& [key, ta] : *a) {
        const Tensor& tb = b->at(key);
        EXPECT_EQ(ta.shape().dims(), tb.shape().dims()) << name << "/" << key;
        if (ta.dtype() == DType::kString || ta.dtype() != tb.dtype()) continue;
        EXPECT_LE(MaxRelError(ta, tb), 1e-5) << name << "/" << key;
      }
      ++compared;
    }
  }
  EXPECT_GT(compared, 0) << "no fixture signature could be run";
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Tensor ReadFloatTensor(const fs::path& path, const rapidjson::Value& shape_json) {
  std::vector<int64_t> dims;
  for (const auto& d : shape_json.GetArray()) dims.push_back(d.GetInt64());
  Tensor t(DType::kFloat, Shape(dims));
  const std::string bytes = ReadFile(path);
  EXPECT_EQ(bytes.size(), t.ByteSize()) << path;
  std::memcpy(t.raw_data(), bytes.data(), std::min(bytes.size(), t.ByteSize()));
  return t;
}

std::map<std::string, int> Histogram(const ir::Graph& graph) {
  std::map<std::string, int> counts;
  for (const auto& n : graph.nodes()) ++counts[n.op];
  return counts;
}

class TfjsPassesTest : public ::testing::TestWithParam<std::string> {};

TEST_P(TfjsPassesTest, ReferenceInputsGiveTheSameOutputsWithFewerNodes) {
  const fs::path dir = fs::path(testing::FixturePath("models/tfjs")) / GetParam();
  TFHOST_REQUIRE_FIXTURE((dir / "reference" / "reference.json").string());
  rapidjson::Document ref;
  ref.Parse(ReadFile(dir / "reference" / "reference.json").c_str());
  ASSERT_FALSE(ref.HasParseError());
  loaders::LoadOptions plain_options;
  plain_options.optimize_graph = false;
  auto plain = loaders::LoadModel(dir.string(), plain_options);
  auto optimized = loaders::LoadModel(dir.string());
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  ASSERT_TRUE(optimized.ok()) << optimized.status().ToString();

  const ir::Graph& before = (*plain)->session().graph();
  const ir::Graph& after = (*optimized)->session().graph();
  // emotion is already fully fused by the TF.js converter: its residual
  // AddV2s are read twice and its depthwise convs have no bias.
  if (GetParam() == "emotion") {
    EXPECT_LE(after.num_nodes(), before.num_nodes());
  } else {
    EXPECT_LT(after.num_nodes(), before.num_nodes());
  }
  std::printf("%s: %d -> %d nodes\n", GetParam().c_str(), before.num_nodes(), after.num_nodes());
  const auto hb = Histogram(before), ha = Histogram(after);
  std::set<std::string> ops;
  for (const auto& [op, n] : hb) ops.insert(op);
  for (const auto& [op, n] : ha) ops.insert(op);
  for (const auto& op : ops) {
    const int b = hb.count(op) ? hb.at(op) : 0, a = ha.count(op) ? ha.at(op) : 0;
    if (a != b) std::printf("  %-28s %4d -> %4d\n", op.c_str(), b, a);
  }

  const auto& sig = (*plain)->signatures().at("serving_default");
  std::map<std::string, Tensor> previous;
  const auto& frames = ref["frames"];
  for (rapidjson::SizeType f = 0; f < frames.Size(); ++f) {
    SCOPED_TRACE("frame " + std::to_string(f));
    std::map<std::string, Tensor> inputs;
    for (const auto& in : frames[f]["inputs"].GetArray()) {
      const std::string tensor = in["graphTensor"].GetString();
      std::string key;
      for (const auto& spec : sig.inputs) {
        if (spec.tensor_name == tensor) key = spec.key;
      }
      ASSERT_FALSE(key.empty()) << tensor;
      const auto& gen = in["generator"];
      if (std::string(gen["kind"].GetString()) == "previous_frame_output") {
        ASSERT_TRUE(previous.count(gen["of"].GetString()));
        inputs[key] = previous[gen["of"].GetString()];
      } else {
        inputs[key] = ReadFloatTensor(dir / "reference" / in["file"].GetString(), in["shape"]);
      }
    }
    auto a = (*plain)->RunSignature("serving_default", inputs);
    auto b = (*optimized)->RunSignature("serving_default", inputs);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    ASSERT_TRUE(b.ok()) << b.status().ToString();
    previous.clear();
    for (const auto& out : frames[f]["outputs"].GetArray()) {
      const std::string tensor = out["graphTensor"].GetString();
      for (const auto& spec : sig.outputs) {
        if (spec.tensor_name != tensor) continue;
        const Tensor& ta = a->at(spec.key);
        const Tensor& tb = b->at(spec.key);
        ASSERT_EQ(ta.shape().dims(), tb.shape().dims()) << tensor;
        auto va = ta.ToDoubleVector(), vb = tb.ToDoubleVector();
        double max_mag = 0, max_diff = 0;
        for (size_t i = 0; i < va.size(); ++i) {
          max_mag = std::max(max_mag, std::abs(va[i]));
          const double d = std::abs(va[i] - vb[i]);
          max_diff = std::isnan(d) ? INFINITY : std::max(max_diff, d);
        }
        EXPECT_LE(max_diff, 1e-5 * std::max(1.0, max_mag)) << GetParam() << " " << tensor;
        previous[out["name"].GetString()] = tb;
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, TfjsPassesTest,
                         ::testing::Values("blazeface", "emotion", "nsfw_mobilenet_v2", "rvm"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace tfhost
