// NCCL environment rules: NCCL_SOCKET_IFNAME must select a real interface
// (with NCCL's "^" exclude and "=" exact-match prefixes), NCCL_IB_GID_INDEX
// must point at a RoCE v2 GID on the RoCE ports, and NCCL_ALGO / NCCL_PROTO
// must name algorithms and protocols NCCL knows.
#include <algorithm>
#include <cctype>
#include <set>

#include "host/doctor/doctor.h"
#include "host/probe/fs_reader.h"

namespace tfhost::host {

namespace {

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// NCCL's interface filter: "eth,ib" prefixes; "^docker" excludes; "=eth0"
// (or "^=docker0") matches whole names.
struct IfFilter {
  bool exclude = false, exact = false;
  std::vector<std::string> items;
  bool Matches(const std::string& name) const {
    for (const std::string& i : items) {
      if (exact ? name == i : name.rfind(i, 0) == 0) return true;
    }
    return false;
  }
};

IfFilter ParseIfFilter(std::string v) {
  IfFilter f;
  v = Trim(v);
  if (!v.empty() && v[0] == '^') f.exclude = true, v.erase(0, 1);
  if (!v.empty() && v[0] == '=') f.exact = true, v.erase(0, 1);
  f.items = SplitNonEmpty(v, ",");
  return f;
}

void CheckSocketIfname(const DoctorInput& in, std::vector<Finding>* out) {
  const std::string* v = EnvValue(in, "NCCL_SOCKET_IFNAME");
  if (v == nullptr) return;
  IfFilter filter = ParseIfFilter(*v);
  std::vector<std::string> chosen, all;
  for (const NetInterface& n : in.facts.net) {
    all.push_back(n.name);
    bool m = filter.Matches(n.name);
    // Excluding leaves NCCL's defaults, which skip loopback.
    if (filter.exclude ? (!m && !n.is_loopback) : m) chosen.push_back(n.name);
  }
  std::string names;
  for (const std::string& a : all) names += (names.empty() ? "" : ", ") + a;
  if (chosen.empty()) {
    out->push_back({"nccl_socket_ifname_no_match", Severity::kError,
                    "NCCL_SOCKET_IFNAME selects no network interface on this host",
                    "NCCL_SOCKET_IFNAME=" + *v + "; interfaces here: " + (names.empty() ? "none" : names),
                    "NCCL bootstraps (and, without RDMA, moves all data) over the interfaces this selects; with none "
                    "it fails with 'Bootstrap : no socket interface found' and the job never starts.",
                    "Name an existing interface: a prefix (NCCL_SOCKET_IFNAME=ens), an exact name with '=' "
                    "(NCCL_SOCKET_IFNAME==ens1f0np0), or exclusions with '^' (NCCL_SOCKET_IFNAME=^docker,lo)."});
    return;
  }
  bool any_up = false;
  for (const NetInterface& n : in.facts.net) {
    if (std::find(chosen.begin(), chosen.end(), n.name) != chosen.end()) any_up |= n.operstate == "up" || n.is_loopback;
  }
  if (!any_up) {
    std::string c;
    for (const std::string& x : chosen) c += (c.empty() ? "" : ", ") + x;
    out->push_back({"nccl_socket_ifname_no_match", Severity::kError,
                    "NCCL_SOCKET_IFNAME selects only interfaces that are down", "NCCL_SOCKET_IFNAME=" + *v +
                    " selects " + c + ", none of them up",
                    "NCCL cannot reach its peers through an interface whose link is down.",
                    "Bring the interface up or select one that is (see `tfhost probe`, Network)."});
  }
}

void CheckGidIndex(const DoctorInput& in, std::vector<Finding>* out) {
  const std::string* v = EnvValue(in, "NCCL_IB_GID_INDEX");
  if (v == nullptr) return;
  std::string t = Trim(*v);
  bool numeric = !t.empty() && std::all_of(t.begin(), t.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  if (!numeric || t.size() > 6) {
    out->push_back({"nccl_ib_gid_index_not_roce_v2", Severity::kError, "NCCL_IB_GID_INDEX is not a GID index",
                    "NCCL_IB_GID_INDEX=\"" + *v + "\"", "NCCL expects a small integer index into the port's GID table.",
                    "Set the index of a RoCE v2 GID (see `tfhost probe`, RDMA: 'GIDs i:RoCE v2')."});
    return;
  }
  int index = std::stoi(t);
  std::vector<std::string> bad;
  bool any_roce = false, any_v1 = false, any_missing = false;
  std::string v2_indices;
  for (const RdmaDevice& d : in.facts.rdma) {
    for (const RdmaPort& p : d.ports) {
      if (p.link_layer != "Ethernet") continue;  // InfiniBand ports ignore the GID index for routing
      any_roce = true;
      const RdmaGid* gid = nullptr;
      for (const RdmaGid& g : p.gids) {
        if (g.index == index) gid = &g;
        if (g.type == "RoCE v2" && v2_indices.find(d.name + ":") == std::string::npos) {
          v2_indices += (v2_indices.empty() ? "" : ", ") + d.name + ":" + std::to_string(g.index);
        }
      }
      std::string where = d.name + " port " + std::to_string(p.port);
      if (gid == nullptr) {
        bad.push_back(where + " has no GID " + t);
        any_missing = true;
      } else if (gid->type != "RoCE v2") {
        bad.push_back(where + " GID " + t + " is " + (gid->type.empty() ? "untyped" : gid->type));
        any_v1 = true;
      }
    }
  }
  if (!any_roce || bad.empty()) return;
  std::string ev = "NCCL_IB_GID_INDEX=" + t + ": ";
  for (size_t i = 0; i < bad.size(); ++i) ev += (i ? "; " : "") + bad[i];
  out->push_back({"nccl_ib_gid_index_not_roce_v2", any_missing ? Severity::kError : Severity::kWarning,
                  "NCCL_IB_GID_INDEX does not point at a RoCE v2 GID", ev,
                  any_missing ? "With a GID index the port does not have, NCCL fails to create its queue pairs and "
                                "the collective errors out or hangs."
                              : (any_v1 ? "RoCE v1 traffic is not IP-routable: it only works inside one L2 domain and "
                                          "usually misses the lossless (PFC/ECN) class the fabric gives RoCE v2."
                                        : "The GID has no RoCE v2 type."),
                  "Set NCCL_IB_GID_INDEX to the index of a RoCE v2 GID carrying the interface's IPv4 address" +
                      (v2_indices.empty() ? std::string() : " (RoCE v2 GIDs here: " + v2_indices + ")") +
                      "; `show_gids` lists them."});
}

// "Ring,Tree", "^NVLS", "allreduce:tree,ring;broadcast:ring" -> the names used.
std::vector<std::string> NcclNames(const std::string& v) {
  std::vector<std::string> names;
  for (std::string part : SplitNonEmpty(v, ";")) {
    size_t colon = part.find(':');
    if (colon != std::string::npos) part = part.substr(colon + 1);
    part = Trim(part);
    if (!part.empty() && part[0] == '^') part.erase(0, 1);
    for (const std::string& n : SplitNonEmpty(part, ",")) names.push_back(Trim(n));
  }
  return names;
}

void CheckNames(const DoctorInput& in, const char* var, const std::set<std::string>& known, const char* id,
                const char* valid_list, std::vector<Finding>* out) {
  const std::string* v = EnvValue(in, var);
  if (v == nullptr) return;
  std::vector<std::string> unknown;
  for (const std::string& n : NcclNames(*v)) if (!known.count(Lower(n))) unknown.push_back(n);
  if (NcclNames(*v).empty()) unknown.push_back("(empty)");
  if (unknown.empty()) return;
  std::string u;
  for (const std::string& x : unknown) u += (u.empty() ? "" : ", ") + x;
  out->push_back({id, Severity::kError, std::string(var) + " names something NCCL does not know",
                  std::string(var) + "=" + *v + ": unknown " + u,
                  "NCCL rejects the value (ncclInvalidUsage / 'unknown algorithm' warnings) and either fails the "
                  "communicator or ignores the setting, so the tuning you meant does not happen.",
                  std::string("Use only ") + valid_list + " (comma-separated, '^' to exclude), or unset " + var +
                      " and let NCCL's tuner choose."});
}

}  // namespace

void CheckNcclEnv(const DoctorInput& in, std::vector<Finding>* out) {
  CheckSocketIfname(in, out);
  CheckGidIndex(in, out);
  CheckNames(in, "NCCL_ALGO", {"ring", "tree", "collnet", "collnetdirect", "collnetchain", "nvls", "nvlstree", "pat"},
             "nccl_algo_unknown", "Ring, Tree, CollnetDirect, CollnetChain, NVLS, NVLSTree, PAT", out);
  CheckNames(in, "NCCL_PROTO", {"ll", "ll128", "simple"}, "nccl_proto_unknown", "LL, LL128, Simple", out);
}

}  // namespace tfhost::host
