#include "backends/backend_registry.h"

#include <gtest/gtest.h>

#include "backends/kernel_table.h"
#include "backends/reference_backend.h"
#include "backends/testing/fake_device_backend.h"
#include "base/test_status.h"

namespace tfhost::backends {
namespace {

ir::Node NodeWithOp(const std::string& op) {
  ir::Node node;
  node.name = "n";
  node.op = op;
  return node;
}

ops::KernelFn Counting(int* calls) {
  return [calls](ops::KernelContext&) {
    ++*calls;
    return OkStatus();
  };
}

// A host backend whose only op is `op`, made by `factory`.
std::unique_ptr<Backend> HostBackend(const std::string& name, int priority, const std::string& op,
                                     KernelFactory factory, BackendCapabilities caps = {}) {
  KernelTable table;
  table.Add(op, std::move(factory));
  return std::make_unique<HostKernelBackend>(name, priority, caps, std::move(table));
}

KernelFactory Always(int* calls) {
  return [calls](const ir::Node&, const ops::KernelFn&) { return Counting(calls); };
}
KernelFactory Declines() {
  return [](const ir::Node&, const ops::KernelFn&) { return ops::KernelFn(); };
}
KernelFactory HandsOn() {
  return [](const ir::Node&, const ops::KernelFn& fallback) {
    return [fallback](ops::KernelContext& ctx) { return fallback(ctx); };
  };
}

TEST(KernelTableTest, FirstFactoryThatAcceptsTheNodeWinsAndHandsDeclinedCallsToTheLaterOnes) {
  KernelTable table;
  int later = 0, fallback_calls = 0;
  table.Add("Conv2D", Declines());
  table.Add("Conv2D", HandsOn());
  table.Add("Conv2D", Always(&later));
  ops::KernelFn kernel = table.Make(NodeWithOp("Conv2D"), Counting(&fallback_calls));
  ASSERT_TRUE(kernel);
  ir::Node node = NodeWithOp("Conv2D");
  ops::KernelContext ctx(node, {}, {}, nullptr, nullptr);
  ASSERT_TRUE(kernel(ctx).ok());
  EXPECT_EQ(later, 1);
  EXPECT_EQ(fallback_calls, 0);
  EXPECT_FALSE(table.Make(NodeWithOp("Relu"), Counting(&later)));
  EXPECT_EQ(table.Ops(), std::vector<std::string>{"Conv2D"});
}

TEST(BackendRegistryTest, PriorityNotRegistrationOrderDecidesPlacement) {
  BackendRegistry registry;
  int low = 0, high = 0;
  ASSERT_TRUE(registry.Add(std::make_unique<ReferenceBackend>()).ok());
  ASSERT_TRUE(registry.Add(HostBackend("low", 5, "Relu", Always(&low))).ok());
  ASSERT_TRUE(registry.Add(HostBackend("high", 50, "Relu", Always(&high))).ok());
  ASSERT_EQ(registry.backends().size(), 3u);
  EXPECT_EQ(registry.backends()[0]->name(), "high");
  EXPECT_EQ(registry.backends()[2]->name(), "reference");
  EXPECT_EQ(registry.Choose(NodeWithOp("Relu"), KernelChoice::kFast)->name(), "high");
  EXPECT_EQ(registry.Choose(NodeWithOp("Relu"), KernelChoice::kReference)->name(), "reference");
  EXPECT_EQ(registry.Choose(NodeWithOp("Neg"), KernelChoice::kFast)->name(), "reference");
  EXPECT_EQ(registry.Choose(NodeWithOp("NoSuchOp"), KernelChoice::kFast), nullptr);
}

TEST(BackendRegistryTest, SecondBackendWithATakenNameIsRefused) {
  BackendRegistry registry;
  int calls = 0;
  ASSERT_TRUE(registry.Add(HostBackend("simd", 5, "Relu", Always(&calls))).ok());
  Status st = registry.Add(HostBackend("simd", 7, "Neg", Always(&calls)));
  EXPECT_EQ(st.code(), StatusCode::kAlreadyExists);
  EXPECT_NE(st.message().find("backend 'simd' is already registered"), std::string::npos);
}

TEST(BackendRegistryTest, DeclinedCallsFallToTheNextBackendOfTheSameSpaceThenTheReference) {
  BackendRegistry registry;
  ASSERT_TRUE(registry.Add(std::make_unique<ReferenceBackend>()).ok());
  int alternate_calls = 0, reference_calls = 0;
  // "first" hands every call on; "alternates" computes odd calls and hands
  // even ones to the reference kernel.
  ASSERT_TRUE(registry.Add(HostBackend("first", 30, "Conv2D", HandsOn())).ok());
  ASSERT_TRUE(registry.Add(HostBackend("alternates", 20, "Conv2D", [&](const ir::Node&, const ops::KernelFn& fb) {
    return [&alternate_calls, fb](ops::KernelContext& ctx) { return ++alternate_calls % 2 == 0 ? fb(ctx) : OkStatus(); };
  })).ok());
  const ir::Node node = NodeWithOp("Conv2D");
  const Backend* placed = registry.Choose(node, KernelChoice::kFast);
  ASSERT_EQ(placed->name(), "first");
  NodeKernel made = registry.MakeKernel(node, *placed, Counting(&reference_calls));
  ASSERT_TRUE(made.kernel);
  EXPECT_EQ(made.backend, "first");
  ops::KernelContext odd(node, {}, {}, nullptr, nullptr);
  ASSERT_TRUE(made.kernel(odd).ok());
  EXPECT_EQ(odd.backend_id(), BackendId("alternates"));
  ops::KernelContext even(node, {}, {}, nullptr, nullptr);
  ASSERT_TRUE(made.kernel(even).ok());
  EXPECT_EQ(even.backend_id(), 0);  // the reference kernel
  EXPECT_EQ(reference_calls, 1);
  EXPECT_EQ(BackendNames((1u << BackendId("alternates")) | 1u), "reference+alternates");
  EXPECT_EQ(BackendNames(0), "");
}

TEST(BackendRegistryTest, NodePlacedOnTheReferenceGetsTheReferenceKernelUnwrapped) {
  BackendRegistry registry;
  ASSERT_TRUE(registry.Add(std::make_unique<ReferenceBackend>()).ok());
  int calls = 0;
  NodeKernel made = registry.MakeKernel(NodeWithOp("Neg"), *registry.reference(), Counting(&calls));
  EXPECT_EQ(made.backend, "");
  ir::Node node = NodeWithOp("Neg");
  ops::KernelContext ctx(node, {}, {}, nullptr, nullptr);
  ASSERT_TRUE(made.kernel(ctx).ok());
  EXPECT_EQ(calls, 1);
  EXPECT_FALSE(registry.MakeFastKernel(node, Counting(&calls)).kernel);
}

TEST(BackendRegistryTest, MakeKernelFromUsesOnlyTheNamedBackend) {
  BackendRegistry registry;
  ASSERT_TRUE(registry.Add(std::make_unique<ReferenceBackend>()).ok());
  int first_calls = 0, second_calls = 0;
  ASSERT_TRUE(registry.Add(HostBackend("first", 30, "Conv2D", Always(&first_calls))).ok());
  ASSERT_TRUE(registry.Add(HostBackend("second", 20, "Conv2D", Always(&second_calls))).ok());
  const ir::Node node = NodeWithOp("Conv2D");
  NodeKernel made = registry.MakeKernelFrom("second", node, ops::KernelFn());
  EXPECT_EQ(made.backend, "second");
  ops::KernelContext ctx(node, {}, {}, nullptr, nullptr);
  ASSERT_TRUE(made.kernel(ctx).ok());
  EXPECT_EQ(first_calls, 0);
  EXPECT_EQ(second_calls, 1);
  EXPECT_FALSE(registry.MakeKernelFrom("third", node, ops::KernelFn()).kernel);
  EXPECT_FALSE(registry.MakeKernelFrom("first", NodeWithOp("Relu"), ops::KernelFn()).kernel);
}

TEST(BackendRegistryTest, SupportCheckSaysWhyABackendTurnsANodeDown) {
  const auto backend = HostBackend("picky", 5, "Conv2D", Declines());
  EXPECT_TRUE(backend->Supports(NodeWithOp("Relu")).reason.find("picky has no kernel for Relu") == 0);
  const NodeSupport conv = backend->Supports(NodeWithOp("Conv2D"));
  EXPECT_FALSE(conv.supported);
  EXPECT_NE(conv.reason.find("do not take this node's dtypes or attrs"), std::string::npos);
}

TEST(BackendRegistryTest, NativeBf16IsAskedOfTheHostBackends) {
  BackendRegistry plain, bf16;
  int calls = 0;
  ASSERT_TRUE(plain.Add(HostBackend("plain", 5, "Relu", Always(&calls))).ok());
  BackendCapabilities caps;
  caps.native_bf16 = true;
  ASSERT_TRUE(bf16.Add(HostBackend("bf16", 5, "Relu", Always(&calls), caps)).ok());
  EXPECT_FALSE(plain.HostHasNativeBf16());
  EXPECT_TRUE(bf16.HostHasNativeBf16());
}

TEST(BackendRegistryTest, ADeviceBackendIsOneWhoseMemoryTheHostCannotRead) {
  BackendRegistry host_only, with_device;
  int calls = 0;
  ASSERT_TRUE(host_only.Add(HostBackend("host", 5, "Relu", Always(&calls))).ok());
  ASSERT_TRUE(with_device.Add(HostBackend("host", 5, "Relu", Always(&calls))).ok());
  ASSERT_TRUE(with_device.Add(std::make_unique<testing::FakeDeviceBackend>()).ok());
  EXPECT_FALSE(host_only.HasDeviceBackend());
  EXPECT_TRUE(with_device.HasDeviceBackend());
}

TEST(BackendRegistryTest, GlobalRegistryHasTheReferenceBackendLast) {
  const auto& global = BackendRegistry::Global();
  ASSERT_NE(global.reference(), nullptr);
  EXPECT_EQ(global.backends().back()->name(), "reference");
}

TEST(BackendRegistryTest, KernelChoiceParsesBothSpellingsAndNamesThemOnError) {
  EXPECT_EQ(*ParseKernelChoice("fast"), KernelChoice::kFast);
  EXPECT_EQ(*ParseKernelChoice("reference"), KernelChoice::kReference);
  auto bad = ParseKernelChoice("onednn");
  TFHOST_ASSERT_ERROR(bad, StatusCode::kInvalidArgument, "kernel choice 'onednn' is not one of: fast, reference");
  EXPECT_STREQ(KernelChoiceName(KernelChoice::kReference), "reference");
}

}  // namespace
}  // namespace tfhost::backends
