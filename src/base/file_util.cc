#include "base/file_util.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>

namespace tfhost {
namespace {

Status OsError(int err, const std::string& message) {
  StatusCode code = (err == EACCES || err == EPERM || err == EROFS) ? StatusCode::kPermissionDenied
                                                                    : StatusCode::kUnavailable;
  return Status(code, message + ": " + std::strerror(err));
}

bool IsDirectory(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// `for_path` is the output the directory is made for ("" when the caller asked
// for the directory itself); it goes into errors so that a user who passed
// `--out x/y/z` sees which of their paths is meant.
Status MakeDirs(const std::string& dir, const std::string& for_path) {
  if (dir.empty() || IsDirectory(dir)) return OkStatus();
  std::string target = "cannot create directory '" + dir + "'" + (for_path.empty() ? "" : " for '" + for_path + "'");
  // Walk from the top so that the first component that is in the way is the
  // one named, rather than whatever mkdir of the full path reports.
  for (size_t end = 1; end <= dir.size(); ++end) {
    if (end != dir.size() && dir[end] != '/') continue;
    if (dir[end - 1] == '/') continue;  // "a//b": the empty component is no directory
    std::string prefix = dir.substr(0, end);
    struct stat st;
    if (::stat(prefix.c_str(), &st) == 0) {
      if (S_ISDIR(st.st_mode)) continue;
      return FailedPrecondition(target + ": '" + prefix + "' exists and is not a directory");
    }
    if (errno != ENOENT) return OsError(errno, target + ": cannot examine '" + prefix + "'");
    if (::mkdir(prefix.c_str(), 0755) == 0) continue;
    int err = errno;
    // Another thread or process made it between our stat and our mkdir.
    if (err == EEXIST && IsDirectory(prefix)) continue;
    if (err == EEXIST) return FailedPrecondition(target + ": '" + prefix + "' exists and is not a directory");
    return OsError(err, target + ": mkdir '" + prefix + "' failed");
  }
  return OkStatus();
}

}  // namespace

Status CreateDirectories(const std::string& dir) { return MakeDirs(dir, ""); }

Status CreateParentDirectories(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos || slash == 0) return OkStatus();
  return MakeDirs(path.substr(0, slash), path);
}

}  // namespace tfhost
