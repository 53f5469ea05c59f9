// Creating the directories an output file needs, so that every command that
// writes files accepts an output path under folders that do not exist yet
// (`--out conv/taxi` with no conv/), like `mkdir -p`.
//
// Contract:
// - A path component that already exists as a directory (or a symlink to one)
//   is used as it is; nothing that exists is changed or removed.
// - New directories get mode 0755 less the process umask.
// - On failure the Status names the directory that could not be created, the
//   output path it was for (CreateParentDirectories), and why: a component
//   that exists but is not a directory is FAILED_PRECONDITION naming that
//   component; a refusal by the OS (EACCES, EROFS, ENOSPC, ...) carries
//   strerror's text, PERMISSION_DENIED for EACCES/EPERM/EROFS, else
//   UNAVAILABLE. Directories created before the failure stay.
//
// Thread-safety: safe to call from any number of threads and processes at
// once, on the same or overlapping paths; a directory someone else creates
// between our check and our mkdir counts as success.
#pragma once

#include <string>

#include "base/status.h"

namespace tfhost {

// Creates directory `dir` and every missing ancestor. An empty `dir`, ".",
// and "/" need nothing and return OK.
Status CreateDirectories(const std::string& dir);

// Creates the missing parent directories of the file `path` (not `path`
// itself): "out/a/taxi" creates out/ and out/a/. A bare file name ("taxi")
// or a path whose parent exists returns OK without touching the filesystem
// beyond a stat.
Status CreateParentDirectories(const std::string& path);

}  // namespace tfhost
