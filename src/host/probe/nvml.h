// Nvml: where the probe gets GPU facts. The real implementation loads
// libnvidia-ml.so.1 with dlopen at run time (no link-time NVIDIA dependency,
// no NVIDIA headers: the few NVML entry points used are declared from NVML's
// public API reference). The recorded one replays `nvidia-smi -q -x` XML plus,
// optionally, `nvidia-smi topo -m` text from a real machine, so tests and
// `tfhost probe --nvml-recording` work without a GPU.
//
// Thread-safety: Query() may be called from one thread at a time.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "base/status.h"
#include "host/probe/gpu_sample.h"
#include "host/probe/host_facts.h"

namespace tfhost::host {

class Nvml {
 public:
  virtual ~Nvml() = default;
  // Driver/CUDA versions and every GPU with its NVLinks. An error (library
  // missing, no driver, nvmlInit failing) says why; callers note it and go on.
  virtual StatusOr<NvidiaFacts> Query() = 0;
  // A topology matrix the source recorded itself (`nvidia-smi topo -m`);
  // empty when the matrix must be computed from PCIe paths and NVLinks.
  virtual TopologyMatrix RecordedTopology() const { return {}; }
  // Current metrics of every GPU (for `tfhost monitor`); cheap enough to
  // call once a second. Unimplemented where the source has none.
  virtual StatusOr<std::vector<GpuSample>> Sample() { return Unimplemented("this GPU source has no live metrics"); }
};

// dlopen("libnvidia-ml.so.1"); never fails here: Query() reports a missing
// library or driver. The library stays loaded for the object's lifetime.
std::unique_ptr<Nvml> LoadNvml();

// Replays recordings. `smi_xml` is `nvidia-smi -q -x` output; `topo_text`
// (may be empty) is `nvidia-smi topo -m` output, whose NV<n> cells also give
// the NVLink peers. Errors name the field that did not parse.
StatusOr<std::unique_ptr<Nvml>> NvmlFromRecording(const std::string& smi_xml, const std::string& topo_text,
                                                  const std::string& source_name);

// Parses `nvidia-smi topo -m` text into a matrix (legend lines are skipped).
StatusOr<TopologyMatrix> ParseTopoMatrix(const std::string& text);

// Parses the NVML / nvidia-smi CUDA version "12.2" -> 12020.
int ParseCudaVersion(const std::string& text);

}  // namespace tfhost::host
