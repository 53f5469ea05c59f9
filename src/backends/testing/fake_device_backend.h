// A device backend for tests of placement, copies and allocators on
// machines without an accelerator. Its "device:0" memory is host memory
// from its own allocator, but everything treats it as device memory: host
// kernels refuse it and only copy nodes move tensors in and out. Its kernels
// compute float32 Relu, and AddV2/Mul of equal shapes or with a one-element
// operand (other shapes are handed to their fallback, so tests can see that
// fallbacks stay within the device's memory space); it takes the view ops
// (backends/view_ops.h) as a GPU backend does.
//
// Its memory comes from a FakeDeviceAllocator (a counting allocator with an
// optional limit), or, as the stand-in GPU plugin makes it (WithBfc), from a
// BfcAllocator over host regions, as a CUDA backend's comes from one over
// cudaMalloc: device_memory() then reports what the BFC reserved.
//
// Header-only (tests only). Thread-safety: counters are atomic; kernels may
// run concurrently.
#pragma once

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "backends/backend.h"
#include "backends/bfc_allocator.h"
#include "backends/view_ops.h"
#include "ir/attrs.h"

namespace tfhost::backends::testing {

class FakeDeviceAllocator : public Allocator {
 public:
  explicit FakeDeviceAllocator(int64_t limit = 0) : counters_(limit) {}
  std::string name() const override { return "fake_device_allocator"; }
  MemorySpace space() const override { return MemorySpace::Device(0); }
  StatusOr<void*> Allocate(size_t bytes) override {
    if (!counters_.Reserve(bytes)) return AllocationFailure(*this, bytes);
    void* p = std::aligned_alloc(64, (std::max<size_t>(bytes, 1) + 63) / 64 * 64);
    if (p == nullptr) {
      counters_.Unreserve(bytes);
      return AllocationFailure(*this, bytes);
    }
    return p;
  }
  void Deallocate(void* ptr, size_t bytes) override {
    std::free(ptr);
    counters_.Release(bytes);
  }
  Status CopyWithin(void* dst, const void* src, size_t bytes) override {
    std::memcpy(dst, src, bytes);
    return OkStatus();
  }
  AllocatorStats stats() const override { return counters_.Snapshot(); }

 private:
  AllocatorCounters counters_;
};

// Host memory standing in for device:0 regions of a BfcAllocator.
class FakeRegionSource : public RegionSource {
 public:
  std::string name() const override { return "fake_device:0"; }
  MemorySpace space() const override { return MemorySpace::Device(0); }
  StatusOr<void*> AllocateRegion(size_t bytes) override {
    void* p = std::aligned_alloc(256, (std::max<size_t>(bytes, 1) + 255) / 256 * 256);
    if (p == nullptr) return ResourceExhausted("fake_device:0: no host memory for a " + std::to_string(bytes) +
                                               " byte region");
    return p;
  }
  void FreeRegion(void* ptr, size_t) override { std::free(ptr); }
  Status Copy(void* dst, const void* src, size_t bytes) override {
    std::memcpy(dst, src, bytes);
    return OkStatus();
  }
};

class FakeStream : public Stream {
 public:
  std::string name() const override { return "fake_stream"; }
  MemorySpace space() const override { return MemorySpace::Device(0); }
  Status Synchronize() override { return OkStatus(); }
};

class FakeDeviceBackend : public Backend {
 public:
  explicit FakeDeviceBackend(int64_t memory_limit = 0, std::string name = "fake_device")
      : name_(std::move(name)), allocator_(std::make_unique<FakeDeviceAllocator>(memory_limit)) {}

  // Memory from a BfcAllocator over host regions (FakeRegionSource); an
  // error names the bad BFC option.
  static StatusOr<std::unique_ptr<FakeDeviceBackend>> WithBfc(std::string name, BfcOptions options) {
    auto bfc = BfcAllocator::Create(std::make_unique<FakeRegionSource>(), options);
    if (!bfc.ok()) return bfc.status();
    std::unique_ptr<FakeDeviceBackend> b(new FakeDeviceBackend(std::move(name), std::move(*bfc)));
    return b;
  }

  const std::string& name() const override { return name_; }
  int priority() const override { return 100; }
  MemorySpace memory_space() const override { return MemorySpace::Device(0); }
  BackendCapabilities capabilities() const override {
    BackendCapabilities c;
    c.asynchronous = true;
    return c;
  }
  Allocator* allocator() const override { return allocator_.get(); }
  std::optional<DeviceMemoryStats> device_memory() const override {
    if (bfc_ == nullptr) return Backend::device_memory();
    const BfcStats s = bfc_->bfc_stats();
    return DeviceMemoryStats{s.allocator, s.bytes_reserved};
  }
  Stream* stream() const override { return &stream_; }

  NodeSupport Supports(const ir::Node& node) const override {
    if (IsDeviceViewOp(node)) return NodeSupport::Yes();
    if (node.op != "Relu" && node.op != "AddV2" && node.op != "Mul") return NodeSupport::No("not a fake device op");
    auto t = ir::GetAttr<DType>(node, "T");
    if (!t.ok() || *t != DType::kFloat) return NodeSupport::No("float32 only");
    return NodeSupport::Yes();
  }

  bool InputInHostMemory(const ir::Node& node, int index) const override {
    return ViewOpInputInHostMemory(node.op, index);
  }

  ops::KernelFn MakeKernel(const ir::Node& node, const ops::KernelFn& fallback) const override {
    if (IsViewOp(node.op)) return ViewOpKernel(node.op);
    const bool relu = node.op == "Relu";
    const bool add = node.op == "AddV2";
    return [this, relu, add, fallback](ops::KernelContext& ctx) -> Status {
      if (ctx.stream() != &stream_ || ctx.allocator() != allocator_.get()) return ctx.Error("kernel ran without its stream");
      const Tensor& a = ctx.input(0);
      // Equal shapes, or one operand a single element; other broadcasts go
      // to the fallback.
      const bool same = relu || a.shape() == ctx.input(1).shape();
      const bool b_one = !relu && ctx.input(1).NumElements() == 1;
      const bool a_one = !relu && a.NumElements() == 1;
      if (!same && !b_one && !a_one) return fallback(ctx);
      const Tensor& shaped = same || b_one ? a : ctx.input(1);
      auto out = ctx.AllocateOutput(DType::kFloat, shaped.shape());
      if (!out.ok()) return out.status();
      float* y = out->data<float>();
      const float* x = a.data<float>();
      const float* b = relu ? nullptr : ctx.input(1).data<float>();
      for (int64_t i = 0; i < shaped.NumElements(); ++i) {
        const float u = a_one && !same ? x[0] : x[i];
        const float v = relu ? 0.0f : (b_one && !same ? b[0] : b[i]);
        y[i] = relu ? (u < 0 ? 0.0f : u) : add ? u + v : u * v;  // NaN passes Relu, as in TensorFlow
      }
      kernel_calls.fetch_add(1);
      ctx.set_output(0, *std::move(out));
      return OkStatus();
    };
  }

  StatusOr<Tensor> CopyIn(const Tensor& src) const override {
    if (src.memory_space() != MemorySpace::Host()) return InvalidArgument("CopyIn of a non-host tensor");
    auto t = Tensor::Allocate(src.dtype(), src.shape(), allocator_.get());
    if (!t.ok()) return t.status();
    std::memcpy(t->raw_data(), src.raw_data(), src.ByteSize());
    copies_in.fetch_add(1);
    return t;
  }
  StatusOr<Tensor> CopyOut(const Tensor& src) const override {
    if (src.memory_space() != MemorySpace::Device(0)) return InvalidArgument("CopyOut of a non-device tensor");
    Tensor t = Tensor::Uninitialized(src.dtype(), src.shape());
    std::memcpy(t.raw_data(), src.raw_data(), src.ByteSize());
    copies_out.fetch_add(1);
    return t;
  }

  mutable std::atomic<int> kernel_calls{0};
  mutable std::atomic<int> copies_in{0};
  mutable std::atomic<int> copies_out{0};

 private:
  FakeDeviceBackend(std::string name, std::unique_ptr<BfcAllocator> bfc)
      : name_(std::move(name)), bfc_(bfc.get()), allocator_(std::move(bfc)) {}

  const std::string name_;
  const BfcAllocator* bfc_ = nullptr;  // allocator_, when WithBfc made it
  std::unique_ptr<Allocator> allocator_;
  mutable FakeStream stream_;
};

}  // namespace tfhost::backends::testing
