#include "backends/fast_kernel_registry.h"

#include <gtest/gtest.h>

namespace tfhost::backends {
namespace {

ir::Node NodeWithOp(const std::string& op) {
  ir::Node node;
  node.name = "n";
  node.op = op;
  return node;
}

ops::KernelFn Marker(int* calls) {
  return [calls](ops::KernelContext&) {
    ++*calls;
    return OkStatus();
  };
}

TEST(FastKernelRegistryTest, FirstFactoryThatAcceptsTheNodeWins) {
  FastKernelRegistry registry;
  int declined_calls = 0, second_calls = 0, third_calls = 0;
  registry.Register("Conv2D", "declines", [&](const ir::Node&, const ops::KernelFn&) {
    ++declined_calls;
    return ops::KernelFn();
  });
  registry.Register("Conv2D", "second", [&](const ir::Node&, const ops::KernelFn&) { return Marker(&second_calls); });
  registry.Register("Conv2D", "third", [&](const ir::Node&, const ops::KernelFn&) { return Marker(&third_calls); });
  FastKernel fast = registry.Make(NodeWithOp("Conv2D"), ops::KernelFn());
  ASSERT_TRUE(fast.kernel);
  EXPECT_EQ(fast.backend, "second");
  EXPECT_EQ(declined_calls, 1);
  ir::Node node = NodeWithOp("Conv2D");
  ops::KernelContext ctx(node, {}, {}, nullptr, nullptr);
  ASSERT_TRUE(fast.kernel(ctx).ok());
  EXPECT_EQ(second_calls, 1);
  EXPECT_EQ(third_calls, 0);
}

TEST(FastKernelRegistryTest, OpWithoutFactoryOrOnlyDecliningFactoriesGetsNoKernel) {
  FastKernelRegistry registry;
  registry.Register("MatMul", "declines", [](const ir::Node&, const ops::KernelFn&) { return ops::KernelFn(); });
  EXPECT_FALSE(registry.Make(NodeWithOp("MatMul"), ops::KernelFn()).kernel);
  EXPECT_FALSE(registry.Make(NodeWithOp("Relu"), ops::KernelFn()).kernel);
  EXPECT_EQ(registry.Ops(), std::vector<std::string>{"MatMul"});
}

TEST(FastKernelRegistryTest, FactoryReceivesTheReferenceKernelToFallBackOn) {
  FastKernelRegistry registry;
  registry.Register("Relu", "wrapper", [](const ir::Node&, const ops::KernelFn& reference) {
    return [reference](ops::KernelContext& ctx) { return reference(ctx); };
  });
  int reference_calls = 0;
  FastKernel fast = registry.Make(NodeWithOp("Relu"), Marker(&reference_calls));
  ir::Node node = NodeWithOp("Relu");
  ops::KernelContext ctx(node, {}, {}, nullptr, nullptr);
  ASSERT_TRUE(fast.kernel(ctx).ok());
  EXPECT_EQ(reference_calls, 1);
}

TEST(FastKernelRegistryTest, DeclinedCallsGoToTheNextAcceptingFactorysKernelThenTheReference) {
  FastKernelRegistry registry;
  // "first" hands every call on; "declines" makes nothing; "last" hands on
  // every second call.
  registry.Register("Conv2D", "first", [](const ir::Node&, const ops::KernelFn& fallback) {
    return [fallback](ops::KernelContext& ctx) { return fallback(ctx); };
  });
  registry.Register("Conv2D", "declines", [](const ir::Node&, const ops::KernelFn&) { return ops::KernelFn(); });
  int last_calls = 0;
  registry.Register("Conv2D", "last", [&](const ir::Node&, const ops::KernelFn& fallback) {
    return [&last_calls, fallback](ops::KernelContext& ctx) {
      return ++last_calls % 2 == 0 ? fallback(ctx) : OkStatus();
    };
  });
  int reference_calls = 0;
  FastKernel fast = registry.Make(NodeWithOp("Conv2D"), Marker(&reference_calls));
  ASSERT_TRUE(fast.kernel);
  EXPECT_EQ(fast.backend, "first");
  ir::Node node = NodeWithOp("Conv2D");
  ops::KernelContext ctx(node, {}, {}, nullptr, nullptr);
  ASSERT_TRUE(fast.kernel(ctx).ok());
  ASSERT_TRUE(fast.kernel(ctx).ok());
  EXPECT_EQ(last_calls, 2);
  EXPECT_EQ(reference_calls, 1);
}

TEST(FastKernelRegistryTest, EachCallIsMarkedWithTheBackendThatComputedIt) {
  FastKernelRegistry registry;
  // "hands_on" passes every call on; "alternates" computes odd calls and
  // hands even ones to the reference kernel.
  registry.Register("Conv2D", "hands_on", [](const ir::Node&, const ops::KernelFn& fallback) {
    return [fallback](ops::KernelContext& ctx) { return fallback(ctx); };
  });
  int calls = 0;
  registry.Register("Conv2D", "alternates", [&](const ir::Node&, const ops::KernelFn& fallback) {
    return [&calls, fallback](ops::KernelContext& ctx) { return ++calls % 2 == 0 ? fallback(ctx) : OkStatus(); };
  });
  FastKernel fast = registry.Make(NodeWithOp("Conv2D"), Marker(&calls));
  ASSERT_EQ(fast.backend, "hands_on");
  ir::Node node = NodeWithOp("Conv2D");
  ops::KernelContext first(node, {}, {}, nullptr, nullptr);
  ASSERT_TRUE(fast.kernel(first).ok());
  EXPECT_EQ(first.backend_id(), BackendId("alternates"));
  ops::KernelContext second(node, {}, {}, nullptr, nullptr);
  ASSERT_TRUE(fast.kernel(second).ok());
  EXPECT_EQ(second.backend_id(), 0);  // the reference kernel
  EXPECT_NE(BackendId("hands_on"), BackendId("alternates"));
  EXPECT_EQ(BackendName(BackendId("alternates")), "alternates");
  EXPECT_EQ(BackendNames((1u << BackendId("alternates")) | 1u), "reference+alternates");
  EXPECT_EQ(BackendNames(0), "");
}

TEST(FastKernelRegistryTest, MakeFromUsesOnlyTheNamedBackend) {
  FastKernelRegistry registry;
  int first_calls = 0, second_calls = 0;
  registry.Register("Conv2D", "first", [&](const ir::Node&, const ops::KernelFn&) { return Marker(&first_calls); });
  registry.Register("Conv2D", "second", [&](const ir::Node&, const ops::KernelFn&) { return Marker(&second_calls); });
  FastKernel fast = registry.MakeFrom("second", NodeWithOp("Conv2D"), ops::KernelFn());
  EXPECT_EQ(fast.backend, "second");
  ir::Node node = NodeWithOp("Conv2D");
  ops::KernelContext ctx(node, {}, {}, nullptr, nullptr);
  ASSERT_TRUE(fast.kernel(ctx).ok());
  EXPECT_EQ(first_calls, 0);
  EXPECT_EQ(second_calls, 1);
  EXPECT_FALSE(registry.MakeFrom("third", NodeWithOp("Conv2D"), ops::KernelFn()).kernel);
}

TEST(FastKernelRegistryTest, KernelChoiceParsesBothSpellingsAndNamesThemOnError) {
  EXPECT_EQ(*ParseKernelChoice("fast"), KernelChoice::kFast);
  EXPECT_EQ(*ParseKernelChoice("reference"), KernelChoice::kReference);
  auto bad = ParseKernelChoice("onednn");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("fast, reference"), std::string::npos);
  EXPECT_STREQ(KernelChoiceName(KernelChoice::kReference), "reference");
}

}  // namespace
}  // namespace tfhost::backends
