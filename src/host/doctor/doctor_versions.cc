// Version rules: the NVIDIA driver against the CUDA runtime in use, and the
// CUDA/cuDNN found on the system against TensorFlow's tested builds.
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "host/doctor/doctor.h"
#include "host/probe/fs_reader.h"

namespace tfhost::host {

namespace {

// Minimum Linux driver shipped with each CUDA toolkit release (CUDA Toolkit
// release notes, "CUDA Toolkit and Corresponding Driver Versions").
struct DriverFloor {
  int cuda;  // 12020 = 12.2
  const char* driver;
};
const DriverFloor kToolkitDrivers[] = {
    {11000, "450.36.06"}, {11010, "455.23"},    {11020, "460.27.03"}, {11030, "465.19.01"}, {11040, "470.42.01"},
    {11050, "495.29.05"}, {11060, "510.39.01"}, {11070, "515.43.04"}, {11080, "520.61.05"}, {12000, "525.60.13"},
    {12010, "530.30.02"}, {12020, "535.54.03"}, {12030, "545.23.06"}, {12040, "550.54.14"}, {12050, "555.42.02"},
    {12060, "560.28.03"}, {12080, "570.26"},    {12090, "575.51.03"}, {13000, "580.65.06"}};

// Minor-version compatibility: a driver at least this new runs any CUDA
// runtime of the same major version (without PTX JIT of newer PTX).
const char* MinorCompatFloor(int major) {
  switch (major) {
    case 11: return "450.80.02";
    case 12: return "525.60.13";
    case 13: return "580.65.06";
    default: return nullptr;
  }
}

// Compares dotted driver versions ("535.104.05") numerically: <0, 0, >0.
int CompareDotted(const std::string& a, const std::string& b) {
  std::vector<std::string> x = SplitNonEmpty(a, "."), y = SplitNonEmpty(b, ".");
  for (size_t i = 0; i < std::max(x.size(), y.size()); ++i) {
    long xi = i < x.size() ? std::strtol(x[i].c_str(), nullptr, 10) : 0;
    long yi = i < y.size() ? std::strtol(y[i].c_str(), nullptr, 10) : 0;
    if (xi != yi) return xi < yi ? -1 : 1;
  }
  return 0;
}

std::string DriverFor(int cuda) {
  std::string best;
  for (const DriverFloor& d : kToolkitDrivers) if (d.cuda <= cuda) best = d.driver;
  return best;
}

std::string MM(std::pair<int, int> v) { return std::to_string(v.first) + "." + std::to_string(v.second); }

}  // namespace

void CheckVersions(const DoctorInput& in, std::vector<Finding>* out) {
  const HostFacts& f = in.facts;
  const LibraryFacts* cudart = f.FindLibrary("cudart");
  std::pair<int, int> rt = cudart ? MajorMinor(cudart->version) : std::pair<int, int>{-1, -1};
  if (f.nvidia.nvml_loaded && !f.nvidia.gpus.empty() && rt.first > 0 && rt.second >= 0 &&
      f.nvidia.cuda_driver_version > 0) {
    int runtime = rt.first * 1000 + rt.second * 10;
    int driver = f.nvidia.cuda_driver_version;
    if (runtime > driver) {
      const char* compat = MinorCompatFloor(rt.first);
      bool minor_ok = rt.first == driver / 1000 && compat != nullptr &&
                      CompareDotted(f.nvidia.driver_version, compat) >= 0;
      std::string need = DriverFor(runtime);
      out->push_back(
          {"driver_too_old_for_cuda", minor_ok ? Severity::kWarning : Severity::kError,
           "the NVIDIA driver is older than the CUDA runtime in use",
           "driver " + f.nvidia.driver_version + " supports CUDA " + CudaVersionString(driver) + "; " + cudart->path +
               " is CUDA " + MM(rt),
           minor_ok ? "The runtime only works through CUDA minor-version compatibility: kernels run, but PTX compiled "
                      "for the newer CUDA cannot be JIT-compiled by this driver, so XLA and any op shipped as PTX "
                      "fail with CUDA_ERROR_UNSUPPORTED_PTX_VERSION."
                    : "A CUDA runtime newer than the driver's major version cannot create a context: TensorFlow "
                      "reports 'CUDA driver version is insufficient for CUDA runtime version' and runs on the CPU.",
           "Install NVIDIA driver " + (need.empty() ? std::string("newer than ") + f.nvidia.driver_version : need) +
               " or newer (CUDA " + MM(rt) + "'s toolkit driver), or use a CUDA " +
               CudaVersionString(driver) + " build of the libraries."});
    }
  }
  if (in.tensorflow_version.empty()) return;
  const std::vector<TfBuild>& matrix = in.build_matrix.empty() ? DefaultTfBuildMatrix() : in.build_matrix;
  const TfBuild* row = FindTfBuild(matrix, in.tensorflow_version);
  if (row == nullptr) return;
  const std::string tested = "TensorFlow " + row->tensorflow + " was built and tested with CUDA " + row->cuda +
                             " and cuDNN " + row->cudnn + " (tensorflow.org/install/source#gpu)";
  std::pair<int, int> want_cuda = MajorMinor(row->cuda);
  if (cudart != nullptr && rt.first > 0 && rt != want_cuda) {
    bool major = rt.first != want_cuda.first;
    bool older = rt < want_cuda;
    out->push_back(
        {"tf_cuda_mismatch", major ? Severity::kError : older ? Severity::kWarning : Severity::kInfo,
         "the CUDA runtime differs from the one TensorFlow " + in.tensorflow_version + " was tested with",
         cudart->path + " is CUDA " + (rt.second >= 0 ? MM(rt) : std::to_string(rt.first)) + "; " + tested,
         major ? "TensorFlow loads libcudart.so." + std::to_string(want_cuda.first) +
                     " by name; with another major version it finds no CUDA and silently runs on the CPU."
               : older ? "An older CUDA minor release than TensorFlow was built with can miss symbols and kernels "
                         "TensorFlow expects."
                       : "A newer CUDA minor release usually works, but it is not the tested combination.",
         "Install CUDA " + row->cuda + " (pip install 'tensorflow[and-cuda]==" + in.tensorflow_version +
             "' brings the matching NVIDIA wheels), or use the TensorFlow release whose row matches your CUDA."});
  }
  const LibraryFacts* cudnn = f.FindLibrary("cudnn");
  std::pair<int, int> dnn = cudnn ? MajorMinor(cudnn->version) : std::pair<int, int>{-1, -1};
  std::pair<int, int> want_dnn = MajorMinor(row->cudnn);
  if (cudnn != nullptr && dnn.first > 0 && (dnn.first != want_dnn.first || (dnn.second >= 0 && dnn < want_dnn))) {
    out->push_back(
        {"tf_cudnn_mismatch", Severity::kError,
         "cuDNN does not satisfy TensorFlow " + in.tensorflow_version + "'s requirement",
         cudnn->path + " is cuDNN " + (dnn.second >= 0 ? MM(dnn) : std::to_string(dnn.first)) + "; " + tested,
         "TensorFlow requires the cuDNN major version it was built with and an equal or newer minor version; "
         "otherwise it logs 'Loaded runtime CuDNN library ... but source was compiled with ...' and convolution, "
         "RNN and batch-norm ops fail.",
         "Install cuDNN " + row->cudnn + ".x for CUDA " + row->cuda + " (or pip install 'tensorflow[and-cuda]==" +
             in.tensorflow_version + "'), and make sure it comes first on LD_LIBRARY_PATH."});
  }
}

}  // namespace tfhost::host
