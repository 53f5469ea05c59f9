// Tensors in an Allocator's memory: where they say they live, what returns
// to the allocator and when, and what host-only helpers do with them.
#include "base/allocator.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "base/tensor.h"
#include "base/test_status.h"

namespace tfhost {
namespace {

// Memory tagged device:1, really from the host heap, with a byte limit.
class TaggedAllocator : public Allocator {
 public:
  explicit TaggedAllocator(int64_t limit) : counters_(limit) {}
  std::string name() const override { return "tagged"; }
  MemorySpace space() const override { return MemorySpace::Device(1); }
  StatusOr<void*> Allocate(size_t bytes) override {
    if (!counters_.Reserve(bytes)) return AllocationFailure(*this, bytes);
    return std::aligned_alloc(64, (bytes + 64) / 64 * 64);
  }
  void Deallocate(void* ptr, size_t bytes) override {
    std::free(ptr);
    counters_.Release(bytes);
  }
  Status CopyWithin(void* dst, const void* src, size_t bytes) override {
    std::memcpy(dst, src, bytes);
    ++copies;
    return OkStatus();
  }
  AllocatorStats stats() const override { return counters_.Snapshot(); }
  int copies = 0;

 private:
  AllocatorCounters counters_;
};

TEST(AllocatorTest, TensorKnowsItsSpaceAndReturnsItsBytesWhenTheLastCopyGoes) {
  TaggedAllocator allocator(1 << 20);
  {
    auto t = Tensor::Allocate(DType::kFloat, Shape({4, 4}), &allocator);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    EXPECT_EQ(t->memory_space(), MemorySpace::Device(1));
    EXPECT_EQ(t->allocator(), &allocator);
    EXPECT_EQ(allocator.stats().bytes_in_use, 64);
    Tensor shared = *t;
    t = Tensor();
    EXPECT_EQ(allocator.stats().bytes_in_use, 64);  // `shared` still holds it
  }
  const AllocatorStats s = allocator.stats();
  EXPECT_EQ(s.bytes_in_use, 0);
  EXPECT_EQ(s.peak_bytes_in_use, 64);
  EXPECT_EQ(s.allocations, 1);
}

TEST(AllocatorTest, HostTensorsAreInHostMemoryWithoutAnAllocator) {
  Tensor t(DType::kFloat, Shape({2}));
  EXPECT_EQ(t.memory_space(), MemorySpace::Host());
  EXPECT_EQ(t.allocator(), nullptr);
  auto same = Tensor::Allocate(DType::kInt32, Shape({3}), nullptr);
  ASSERT_TRUE(same.ok());
  EXPECT_EQ(same->memory_space(), MemorySpace::Host());
}

TEST(AllocatorTest, PassingTheLimitIsResourceExhaustedNamingAllocatorSpaceAndUse) {
  TaggedAllocator allocator(100);
  auto first = Tensor::Allocate(DType::kFloat, Shape({16}), &allocator);
  ASSERT_TRUE(first.ok());
  auto second = Tensor::Allocate(DType::kFloat, Shape({16}), &allocator);
  TFHOST_ASSERT_ERROR(second, StatusCode::kResourceExhausted,
                      "tagged: cannot allocate 64 bytes in device:1 (in use 64 of limit 100)");
  EXPECT_EQ(second.status().message(), "tagged: cannot allocate 64 bytes in device:1 (in use 64 of limit 100)");
  EXPECT_EQ(allocator.stats().failed, 1);
  EXPECT_EQ(allocator.stats().bytes_in_use, 64);
}

TEST(AllocatorTest, StringsCannotLiveInAnAllocatorsMemory) {
  TaggedAllocator allocator(0);
  auto s = Tensor::Allocate(DType::kString, Shape({1}), &allocator);
  TFHOST_ASSERT_ERROR(s, StatusCode::kInvalidArgument,
                      "a DT_STRING tensor cannot live in device:1 (tagged): only fixed-size dtypes can");
  EXPECT_NE(s.status().message().find("cannot live in device:1 (tagged): only fixed-size dtypes can"),
            std::string::npos)
      << s.status().ToString();
}

TEST(AllocatorTest, CloneCopiesWithinTheAllocatorAndHostHelpersDoNotReadDeviceValues) {
  TaggedAllocator allocator(0);
  auto t = Tensor::Allocate(DType::kInt32, Shape({2}), &allocator);
  ASSERT_TRUE(t.ok());
  t->data<int32_t>()[0] = 7;  // the tagged memory is host memory underneath
  t->data<int32_t>()[1] = 9;
  Tensor c = t->Clone();
  EXPECT_EQ(allocator.copies, 1);
  EXPECT_EQ(c.memory_space(), MemorySpace::Device(1));
  EXPECT_FALSE(c.SharesBufferWith(*t));
  EXPECT_EQ(c.DebugString(), "int32[2] in device:1");
  EXPECT_TRUE(c.ToDoubleVector().empty());
  auto ints = c.ToInt64Vector();
  TFHOST_ASSERT_ERROR(ints, StatusCode::kFailedPrecondition, "the tensor is in device:1, not readable on the host");
  EXPECT_FALSE(TensorsEqual(c, *t));
}

TEST(MemorySpaceTest, ParseAndToStringRoundTripAndBadSpellingsAreNamed) {
  for (MemorySpace s : {MemorySpace::Host(), MemorySpace::PinnedHost(), MemorySpace::Device(0), MemorySpace::Device(12)}) {
    auto parsed = MemorySpace::Parse(s.ToString());
    ASSERT_TRUE(parsed.ok()) << s.ToString();
    EXPECT_EQ(*parsed, s);
  }
  EXPECT_TRUE(MemorySpace::PinnedHost().host_accessible());
  EXPECT_FALSE(MemorySpace::Device(0).host_accessible());
  for (const char* bad : {"gpu", "device:", "device:x", "device:123456", "Host"}) {
    auto parsed = MemorySpace::Parse(bad);
    TFHOST_ASSERT_ERROR(parsed, StatusCode::kInvalidArgument,
                        "' is not one of: host, pinned_host, device:N (N = 0..9999)")
        << bad;
    EXPECT_NE(parsed.status().message().find(std::string("memory space '") + bad + "' is not one of: host, pinned_host, device:N"),
              std::string::npos);
  }
}

}  // namespace
}  // namespace tfhost
