// CUDA-stack libraries on disk: libcudart, libcudnn, libnccl, libcublas and
// libnvidia-ml, looked up by file name in the places installers put them
// (CUDA toolkit, distro packages, conda, pip wheels under site-packages/nvidia)
// and LD_LIBRARY_PATH. The version comes from the file name
// (libcudnn.so.8.9.7); where the name only carries the major version
// (pip wheels ship libcudnn.so.9), the live probe asks the library itself
// with dlopen + its version call.
#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "host/probe/probe.h"

namespace tfhost::host {

namespace {

struct LibSpec {
  const char* name;    // fact name
  const char* prefix;  // file name prefix up to and including ".so"
};

const LibSpec kLibs[] = {{"cudart", "libcudart.so"},
                         {"cudnn", "libcudnn.so"},
                         {"nccl", "libnccl.so"},
                         {"cublas", "libcublas.so"},
                         {"nvidia-ml", "libnvidia-ml.so"}};

// "libcudnn.so.8.9.7" with prefix "libcudnn.so" -> "8.9.7"; "" when the
// suffix is not a dotted number.
std::string VersionFromName(const std::string& file, const std::string& prefix) {
  if (file.compare(0, prefix.size(), prefix) != 0) return "-";
  std::string rest = file.substr(prefix.size());
  if (rest.empty()) return "";
  if (rest[0] != '.') return "-";
  rest = rest.substr(1);
  for (char c : rest) if (!std::isdigit(static_cast<unsigned char>(c)) && c != '.') return "-";
  return rest;
}

int Parts(const std::string& v) { return v.empty() ? 0 : static_cast<int>(std::count(v.begin(), v.end(), '.')) + 1; }

// Asks the library for its version (live machine only).
std::string VersionByDlopen(const std::string& name, const std::string& path) {
  void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (h == nullptr) return "";
  std::string v;
  if (name == "cudart") {
    // cudaRuntimeGetVersion(int*): 12020 = 12.2.
    if (auto fn = reinterpret_cast<int (*)(int*)>(dlsym(h, "cudaRuntimeGetVersion"))) {
      int x = 0;
      if (fn(&x) == 0 && x > 0) v = std::to_string(x / 1000) + "." + std::to_string((x % 1000) / 10);
    }
  } else if (name == "cudnn") {
    // cudnnGetVersion(): 8907 = 8.9.7 (cuDNN 8), 90100 = 9.1.0 (cuDNN 9).
    if (auto fn = reinterpret_cast<size_t (*)()>(dlsym(h, "cudnnGetVersion"))) {
      size_t x = fn();
      if (x >= 90000) v = std::to_string(x / 10000) + "." + std::to_string((x % 10000) / 100) + "." + std::to_string(x % 100);
      else if (x > 0) v = std::to_string(x / 1000) + "." + std::to_string((x % 1000) / 100) + "." + std::to_string(x % 100);
    }
  } else if (name == "nccl") {
    // ncclGetVersion(int*): 21805 = 2.18.5 (NCCL >= 2.9 encodes major*10000+minor*100+patch).
    if (auto fn = reinterpret_cast<int (*)(int*)>(dlsym(h, "ncclGetVersion"))) {
      int x = 0;
      if (fn(&x) == 0 && x > 0) {
        v = x >= 20900 ? std::to_string(x / 10000) + "." + std::to_string((x % 10000) / 100) + "." + std::to_string(x % 100)
                       : std::to_string(x / 1000) + "." + std::to_string((x % 1000) / 100) + "." + std::to_string(x % 100);
      }
    }
  } else if (name == "cublas") {
    // cublasGetProperty(libraryPropertyType, int*): MAJOR_VERSION 0, MINOR_VERSION 1, PATCH_LEVEL 2.
    if (auto fn = reinterpret_cast<int (*)(int, int*)>(dlsym(h, "cublasGetProperty"))) {
      int major = 0, minor = 0, patch = 0;
      if (fn(0, &major) == 0 && fn(1, &minor) == 0 && fn(2, &patch) == 0 && major > 0) {
        v = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
      }
    }
  }
  // The library stays loaded: unloading CUDA libraries after their static
  // initialisers ran leaks what those allocated (LeakSanitizer reports it),
  // and their pages are file-backed, so keeping them mapped costs little.
  return v;
}

std::vector<std::string> DefaultDirs(const FsReader& fs) {
  std::vector<std::string> dirs = {"/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib",
                                   "/usr/local/cuda/targets/sbsa-linux/lib", "/usr/lib/x86_64-linux-gnu",
                                   "/usr/lib/aarch64-linux-gnu", "/usr/lib64", "/usr/lib", "/usr/local/lib",
                                   "/usr/local/nvidia/lib64", "/opt/conda/lib"};
  // Versioned toolkits (/usr/local/cuda-12.2) and pip wheels (site-packages/nvidia/<pkg>/lib).
  if (StatusOr<std::vector<std::string>> local = fs.ListDir("/usr/local"); local.ok()) {
    for (const std::string& e : *local) if (e.rfind("cuda-", 0) == 0) dirs.push_back("/usr/local/" + e + "/lib64");
  }
  for (const std::string& base : {std::string("/usr/local/lib"), std::string("/usr/lib")}) {
    StatusOr<std::vector<std::string>> pys = fs.ListDir(base);
    if (!pys.ok()) continue;
    for (const std::string& py : *pys) {
      if (py.rfind("python3", 0) != 0) continue;
      for (const char* sub : {"/dist-packages/nvidia", "/site-packages/nvidia"}) {
        std::string nv = base + "/" + py + sub;
        StatusOr<std::vector<std::string>> pkgs = fs.ListDir(nv);
        if (!pkgs.ok()) continue;
        for (const std::string& p : *pkgs) dirs.push_back(nv + "/" + p + "/lib");
      }
    }
  }
  return dirs;
}

}  // namespace

std::vector<LibraryFacts> ProbeLibraries(const FsReader& fs, const std::vector<std::string>& dirs_in,
                                         const std::string& ld_library_path, Notes* notes) {
  (void)notes;
  std::vector<std::string> dirs = SplitNonEmpty(ld_library_path, ":");
  std::vector<std::string> more = dirs_in.empty() ? DefaultDirs(fs) : dirs_in;
  dirs.insert(dirs.end(), more.begin(), more.end());
  std::vector<LibraryFacts> out;
  for (const LibSpec& spec : kLibs) {
    LibraryFacts best;
    std::set<std::string> seen_dirs;
    for (const std::string& dir : dirs) {
      if (!seen_dirs.insert(dir).second) continue;
      StatusOr<std::vector<std::string>> files = fs.ListDir(dir);
      if (!files.ok()) continue;
      for (const std::string& f : *files) {
        std::string v = VersionFromName(f, spec.prefix);
        if (v == "-") continue;
        // The first directory that has the library wins (search order), and
        // within it the most specific version.
        if (best.path.empty() || (best.path.rfind(dir + "/", 0) == 0 && Parts(v) > Parts(best.version))) {
          best.name = spec.name;
          best.path = dir + "/" + f;
          best.version = v;
          best.how = "file name";
        }
      }
      if (!best.path.empty()) break;
    }
    if (best.path.empty()) continue;
    if (fs.live() && Parts(best.version) < 2) {
      std::string v = VersionByDlopen(spec.name, best.path);
      if (!v.empty()) {
        best.version = v;
        best.how = "dlopen";
      }
    }
    out.push_back(std::move(best));
  }
  return out;
}

}  // namespace tfhost::host

namespace tfhost::host {

LibraryFacts ProbeTensorFlow(const FsReader& fs, const std::map<std::string, std::string>& env) {
  // pip installs leave "tensorflow-2.15.0.dist-info" in site-packages;
  // "tensorflow_cpu"/"tensorflow_gpu" are the older split packages.
  std::vector<std::string> roots;
  auto get = [&](const char* k) {
    auto it = env.find(k);
    return it == env.end() ? std::string() : it->second;
  };
  for (const std::string& p : SplitNonEmpty(get("PYTHONPATH"), ":")) roots.push_back("=" + p);
  if (!get("VIRTUAL_ENV").empty()) roots.push_back(get("VIRTUAL_ENV") + "/lib");
  if (!get("CONDA_PREFIX").empty()) roots.push_back(get("CONDA_PREFIX") + "/lib");
  if (!get("HOME").empty()) roots.push_back(get("HOME") + "/.local/lib");
  for (const char* r : {"/usr/local/lib", "/usr/lib", "/opt/conda/lib"}) roots.push_back(r);
  std::vector<std::string> dirs;
  for (const std::string& r : roots) {
    if (r[0] == '=') {
      dirs.push_back(r.substr(1));
      continue;
    }
    StatusOr<std::vector<std::string>> pys = fs.ListDir(r);
    if (!pys.ok()) continue;
    for (const std::string& py : *pys) {
      if (py.rfind("python3", 0) != 0) continue;
      dirs.push_back(r + "/" + py + "/site-packages");
      dirs.push_back(r + "/" + py + "/dist-packages");
    }
  }
  dirs.push_back("/usr/lib/python3/dist-packages");
  for (const std::string& d : dirs) {
    StatusOr<std::vector<std::string>> entries = fs.ListDir(d);
    if (!entries.ok()) continue;
    for (const std::string& e : *entries) {
      for (const char* prefix : {"tensorflow-", "tensorflow_gpu-", "tensorflow_cpu-"}) {
        std::string p = prefix;
        const std::string suffix = ".dist-info";
        if (e.rfind(p, 0) != 0 || e.size() <= p.size() + suffix.size() ||
            e.compare(e.size() - suffix.size(), suffix.size(), suffix) != 0) {
          continue;
        }
        LibraryFacts f;
        f.name = "tensorflow";
        f.version = e.substr(p.size(), e.size() - p.size() - suffix.size());
        f.path = d + "/" + e;
        f.how = "dist-info";
        return f;
      }
    }
  }
  return {};
}

}  // namespace tfhost::host
