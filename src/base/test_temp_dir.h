// Test helper: a fresh directory under the system's temp folder, removed
// with everything in it when the object goes out of scope.
//
//   testing::TempDir dir("tfhost_log");   // /tmp/tfhost_log_XXXXXX
//   WriteFile(dir.Sub("models.config"), text);
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <system_error>

namespace tfhost::testing {

class TempDir {
 public:
  explicit TempDir(const std::string& prefix) {
    std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "_XXXXXX")).string();
    const char* made = ::mkdtemp(tmpl.data());
    path_ = made != nullptr ? made : "";
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  // Empty when the directory could not be made (tests then fail on use).
  const std::string& path() const { return path_; }
  std::string Sub(const std::string& name) const { return (std::filesystem::path(path_) / name).string(); }

 private:
  std::string path_;
};

}  // namespace tfhost::testing
