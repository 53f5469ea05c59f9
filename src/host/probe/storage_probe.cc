// Disks (/sys/block) and mounted filesystems (/proc/self/mounts + statvfs),
// including whether a path lives on a network filesystem: training input read
// over NFS/Lustre without a local cache is a classic cause of starved GPUs.
#include <algorithm>
#include <cctype>
#include <sstream>

#include "host/probe/probe.h"

namespace tfhost::host {

namespace {

bool StartsWith(const std::string& s, const std::string& p) { return s.compare(0, p.size(), p) == 0; }

// Filesystems that describe the kernel, not storage; not worth listing.
bool IsPseudoFilesystem(const std::string& t) {
  static const char* const kPseudo[] = {"proc",     "sysfs",     "devtmpfs",   "devpts",  "cgroup",     "cgroup2",
                                        "securityfs", "pstore",  "bpf",        "debugfs", "tracefs",    "mqueue",
                                        "hugetlbfs", "configfs", "fusectl",    "binfmt_misc", "autofs", "rpc_pipefs",
                                        "nsfs",     "efivarfs",  "selinuxfs",  "ramfs",   "rootfs"};
  for (const char* p : kPseudo) if (t == p) return true;
  return false;
}

// /proc/self/mounts escapes space, tab, newline and backslash as \ooo.
std::string UnescapeMount(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isdigit(static_cast<unsigned char>(s[i + 2])) && std::isdigit(static_cast<unsigned char>(s[i + 3]))) {
      out += static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

struct RawMount {
  std::string device, mount_point, fs_type;
};

StatusOr<std::vector<RawMount>> ReadMounts(const FsReader& fs) {
  StatusOr<std::string> text = fs.ReadFile("/proc/self/mounts");
  if (!text.ok()) text = fs.ReadFile("/proc/mounts");
  if (!text.ok()) return text.status();
  std::vector<RawMount> mounts;
  std::istringstream in(*text);
  std::string line;
  while (std::getline(in, line) && mounts.size() < 100000) {
    std::vector<std::string> f = SplitNonEmpty(line, " \t");
    if (f.size() < 3) continue;
    mounts.push_back({UnescapeMount(f[0]), UnescapeMount(f[1]), f[2]});
  }
  return mounts;
}

MountFacts ToFacts(const FsReader& fs, const RawMount& m) {
  MountFacts f;
  f.device = m.device;
  f.mount_point = m.mount_point;
  f.fs_type = m.fs_type;
  f.network = IsNetworkFilesystem(m.fs_type);
  StatusOr<FsSpace> space = fs.Space(m.mount_point);
  if (space.ok()) {
    f.total_bytes = space->total_bytes;
    f.free_bytes = space->free_bytes;
  }
  return f;
}

}  // namespace

bool IsNetworkFilesystem(const std::string& t) {
  static const char* const kNetwork[] = {"nfs",     "nfs4",    "cifs",     "smb3",    "smbfs",  "lustre",
                                         "gpfs",    "beegfs",  "ceph",     "glusterfs", "afs",  "panfs",
                                         "wekafs",  "orangefs", "pvfs2",   "ocfs2",   "gfs2",   "9p"};
  for (const char* n : kNetwork) if (t == n) return true;
  // FUSE clients of remote stores: fuse.sshfs, fuse.s3fs, fuse.gcsfuse, fuse.juicefs, fuse.blobfuse2 ...
  static const char* const kFuseRemote[] = {"fuse.sshfs",  "fuse.s3fs",   "fuse.gcsfuse", "fuse.juicefs", "fuse.blobfuse",
                                            "fuse.blobfuse2", "fuse.goofys", "fuse.glusterfs", "fuse.cephfs",
                                            "fuse.ceph-fuse", "fuse.rclone", "fuse.mountpoint-s3", "fuse.alluxio-fuse"};
  for (const char* n : kFuseRemote) if (t == n) return true;
  return false;
}

std::vector<DiskFacts> ProbeDisks(const FsReader& fs, Notes* notes) {
  std::vector<DiskFacts> disks;
  StatusOr<std::vector<std::string>> names = fs.ListDir("/sys/block");
  if (!names.ok()) {
    notes->push_back("disks: " + names.status().message());
    return disks;
  }
  for (const std::string& name : *names) {
    if (StartsWith(name, "loop") || StartsWith(name, "ram") || StartsWith(name, "zram") || StartsWith(name, "sr")) {
      continue;
    }
    std::string base = "/sys/block/" + name;
    DiskFacts d;
    d.name = name;
    int64_t sectors = fs.ReadInt(base + "/size");
    if (sectors > 0) d.size_bytes = static_cast<uint64_t>(sectors) * 512;  // always 512-byte units
    d.removable = fs.ReadInt(base + "/removable", 0) == 1;
    d.model = fs.ReadTrimmed(base + "/device/model");
    int64_t rotational = fs.ReadInt(base + "/queue/rotational");
    if (StartsWith(name, "nvme")) d.kind = "nvme";
    else if (StartsWith(name, "dm-") || StartsWith(name, "md")) d.kind = "virtual";
    else if (StartsWith(name, "vd") || StartsWith(name, "xvd")) d.kind = rotational == 0 ? "ssd" : "virtual";
    else if (rotational == 1) d.kind = "hdd";
    else if (rotational == 0) d.kind = "ssd";
    else d.kind = "unknown";
    disks.push_back(std::move(d));
  }
  return disks;
}

std::vector<MountFacts> ProbeMounts(const FsReader& fs, Notes* notes) {
  std::vector<MountFacts> out;
  StatusOr<std::vector<RawMount>> mounts = ReadMounts(fs);
  if (!mounts.ok()) {
    notes->push_back("mounts: " + mounts.status().message());
    return out;
  }
  for (const RawMount& m : *mounts) {
    if (IsPseudoFilesystem(m.fs_type)) continue;
    if (m.fs_type == "tmpfs" && m.mount_point != "/dev/shm") continue;  // /dev/shm matters to NCCL
    if (m.fs_type == "overlay" && m.mount_point != "/") continue;
    if (StartsWith(m.mount_point, "/proc") || StartsWith(m.mount_point, "/sys")) continue;
    // Bind mounts repeat a filesystem; keep each mount point once.
    bool seen = false;
    for (const MountFacts& f : out) seen |= f.mount_point == m.mount_point;
    if (!seen) out.push_back(ToFacts(fs, m));
  }
  return out;
}

StatusOr<MountFacts> MountForPath(const FsReader& fs, const std::string& path) {
  StatusOr<std::string> real = fs.RealPath(path);
  if (!real.ok()) return NotFound("path " + path + " does not exist (" + real.status().message() + ")");
  TFHOST_ASSIGN_OR_RETURN(std::vector<RawMount> mounts, ReadMounts(fs));
  const RawMount* best = nullptr;
  for (const RawMount& m : mounts) {
    const std::string& mp = m.mount_point;
    bool covers = mp == "/" || *real == mp || (StartsWith(*real, mp) && real->size() > mp.size() && (*real)[mp.size()] == '/');
    // Later entries shadow earlier ones at the same point (mount order).
    if (covers && (best == nullptr || mp.size() >= best->mount_point.size())) best = &m;
  }
  if (best == nullptr) return NotFound("no mount covers " + *real);
  return ToFacts(fs, *best);
}

}  // namespace tfhost::host
