// Network interfaces (/sys/class/net, addresses) and RDMA devices
// (/sys/class/infiniband): what NCCL_SOCKET_IFNAME, NCCL_IB_* and TF_CONFIG
// are checked against, and what launch uses to pick interfaces.
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>

#include <algorithm>
#include <cctype>
#include <sstream>

#include "host/probe/probe.h"

namespace tfhost::host {

namespace {

bool LooksLikePciAddress(const std::string& s) {
  // "0000:17:00.0"
  return s.size() == 12 && s[4] == ':' && s[7] == ':' && s[10] == '.';
}

std::string Basename(const std::string& p) {
  size_t slash = p.find_last_of('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

// PCI address of a sysfs device link ("/sys/class/net/eth0/device"), or "".
std::string PciAddressOf(const FsReader& fs, const std::string& device_link) {
  StatusOr<std::string> real = fs.RealPath(device_link);
  if (real.ok() && LooksLikePciAddress(Basename(*real))) return Basename(*real);
  StatusOr<std::string> link = fs.ReadLink(device_link);
  if (link.ok() && LooksLikePciAddress(Basename(*link))) return Basename(*link);
  return "";
}

// /proc/net/route: interface networks, to attribute fib_trie's LOCAL addresses.
struct Route {
  std::string iface;
  uint32_t dest = 0, mask = 0;  // host byte order
};

std::vector<Route> ReadRoutes(const FsReader& fs) {
  std::vector<Route> routes;
  StatusOr<std::string> text = fs.ReadFile("/proc/net/route");
  if (!text.ok()) return routes;
  std::istringstream in(*text);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> f = SplitNonEmpty(line, " \t");
    if (f.size() < 8) continue;
    // Hex in the kernel's (little-endian) byte order.
    uint32_t dest = static_cast<uint32_t>(std::strtoul(f[1].c_str(), nullptr, 16));
    uint32_t mask = static_cast<uint32_t>(std::strtoul(f[7].c_str(), nullptr, 16));
    routes.push_back({f[0], ntohl(dest), ntohl(mask)});
  }
  return routes;
}

// Local IPv4 addresses from /proc/net/fib_trie ("|-- A.B.C.D" followed by
// "/32 host LOCAL"), attributed to interfaces through the routing table.
void AddressesFromProc(const FsReader& fs, std::vector<NetInterface>* ifaces) {
  StatusOr<std::string> trie = fs.ReadFile("/proc/net/fib_trie");
  if (!trie.ok()) return;
  std::vector<Route> routes = ReadRoutes(fs);
  std::istringstream in(*trie);
  std::string line, last_addr;
  std::vector<std::string> locals;
  while (std::getline(in, line)) {
    std::string t = Trim(line);
    size_t dash = t.find("|-- ");
    if (dash != std::string::npos) {
      last_addr = t.substr(dash + 4);
    } else if (t.find("host LOCAL") != std::string::npos && !last_addr.empty()) {
      if (std::find(locals.begin(), locals.end(), last_addr) == locals.end()) locals.push_back(last_addr);
    }
  }
  for (const std::string& a : locals) {
    in_addr addr{};
    if (inet_pton(AF_INET, a.c_str(), &addr) != 1) continue;
    uint32_t ip = ntohl(addr.s_addr);
    std::string iface;
    if ((ip >> 24) == 127) {
      iface = "lo";
    } else {
      int best_bits = -1;
      for (const Route& r : routes) {
        if (r.mask == 0 || (ip & r.mask) != (r.dest & r.mask)) continue;
        int bits = __builtin_popcount(r.mask);
        if (bits > best_bits) best_bits = bits, iface = r.iface;
      }
    }
    for (NetInterface& n : *ifaces) {
      if (n.name == iface) n.ipv4.push_back(a);
    }
  }
}

void AddressesFromKernel(std::vector<NetInterface>* ifaces) {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return;
  for (ifaddrs* p = list; p != nullptr; p = p->ifa_next) {
    if (p->ifa_addr == nullptr || p->ifa_addr->sa_family != AF_INET) continue;
    char buf[INET_ADDRSTRLEN];
    const auto* sin = reinterpret_cast<const sockaddr_in*>(p->ifa_addr);
    if (inet_ntop(AF_INET, &sin->sin_addr, buf, sizeof(buf)) == nullptr) continue;
    for (NetInterface& n : *ifaces) {
      if (n.name == p->ifa_name) n.ipv4.push_back(buf);
    }
  }
  freeifaddrs(list);
}

// "200 Gb/sec (4X HDR)" -> 200.
double ParseRate(const std::string& rate) { return rate.empty() ? -1 : std::strtod(rate.c_str(), nullptr); }

}  // namespace

std::vector<NetInterface> ProbeNetInterfaces(const FsReader& fs, Notes* notes) {
  std::vector<NetInterface> out;
  StatusOr<std::vector<std::string>> names = fs.ListDir("/sys/class/net");
  if (!names.ok()) {
    notes->push_back("network: " + names.status().message());
    return out;
  }
  for (const std::string& name : *names) {
    std::string base = "/sys/class/net/" + name;
    if (!fs.Exists(base + "/operstate") && !fs.Exists(base + "/address")) continue;  // bonding_masters etc.
    NetInterface n;
    n.name = name;
    n.mac = fs.ReadTrimmed(base + "/address");
    n.operstate = fs.ReadTrimmed(base + "/operstate", "unknown");
    int64_t speed = fs.ReadInt(base + "/speed");
    // Down links report -1 or 4294967295 (SPEED_UNKNOWN as unsigned).
    n.speed_mbps = (speed > 0 && speed < 10000000) ? speed : -1;
    n.mtu = static_cast<int>(fs.ReadInt(base + "/mtu"));
    int64_t type = fs.ReadInt(base + "/type");
    n.type = type == 1 ? "ether" : type == 32 ? "infiniband" : type == 772 ? "loopback" : "other";
    n.is_loopback = type == 772 || name == "lo";
    n.is_virtual = !fs.Exists(base + "/device");
    if (!n.is_virtual) {
      StatusOr<std::string> driver = fs.ReadLink(base + "/device/driver");
      if (driver.ok()) n.driver = Basename(*driver);
      n.pci_address = PciAddressOf(fs, base + "/device");
      n.numa_node = static_cast<int>(fs.ReadInt(base + "/device/numa_node"));
    }
    out.push_back(std::move(n));
  }
  if (fs.live()) AddressesFromKernel(&out);
  else AddressesFromProc(fs, &out);
  return out;
}

std::vector<RdmaDevice> ProbeRdma(const FsReader& fs, Notes* notes) {
  std::vector<RdmaDevice> out;
  StatusOr<std::vector<std::string>> names = fs.ListDir("/sys/class/infiniband");
  if (!names.ok()) return out;  // no RDMA stack: common, not worth a note
  (void)notes;
  for (const std::string& name : *names) {
    std::string base = "/sys/class/infiniband/" + name;
    RdmaDevice d;
    d.name = name;
    d.pci_address = PciAddressOf(fs, base + "/device");
    d.numa_node = static_cast<int>(fs.ReadInt(base + "/device/numa_node"));
    StatusOr<std::vector<std::string>> netdevs = fs.ListDir(base + "/device/net");
    if (netdevs.ok()) d.net_devices = *netdevs;
    StatusOr<std::vector<std::string>> ports = fs.ListDir(base + "/ports");
    if (ports.ok()) {
      for (const std::string& p : *ports) {
        std::string pb = base + "/ports/" + p;
        RdmaPort port;
        port.port = std::atoi(p.c_str());
        std::string state = fs.ReadTrimmed(pb + "/state");  // "4: ACTIVE"
        size_t colon = state.find(':');
        port.state = colon == std::string::npos ? state : Trim(state.substr(colon + 1));
        port.link_layer = fs.ReadTrimmed(pb + "/link_layer");
        port.rate = fs.ReadTrimmed(pb + "/rate");
        port.rate_gbps = ParseRate(port.rate);
        StatusOr<std::vector<std::string>> gids = fs.ListDir(pb + "/gids");
        if (gids.ok()) {
          std::vector<int> indices;
          for (const std::string& g : *gids) {
            if (!g.empty() && std::isdigit(static_cast<unsigned char>(g[0]))) indices.push_back(std::atoi(g.c_str()));
          }
          std::sort(indices.begin(), indices.end());
          for (int i : indices) {
            if (port.gids.size() >= 1024) break;
            std::string gid = fs.ReadTrimmed(pb + "/gids/" + std::to_string(i));
            if (gid.empty() || gid == "0000:0000:0000:0000:0000:0000:0000:0000") continue;
            RdmaGid entry;
            entry.index = i;
            entry.gid = gid;
            entry.type = fs.ReadTrimmed(pb + "/gid_attrs/types/" + std::to_string(i));
            entry.net_device = fs.ReadTrimmed(pb + "/gid_attrs/ndevs/" + std::to_string(i));
            port.gids.push_back(std::move(entry));
          }
        }
        d.ports.push_back(std::move(port));
      }
    }
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace tfhost::host
