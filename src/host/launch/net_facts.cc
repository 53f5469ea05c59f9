#include "host/launch/net_facts.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

namespace tfhost::host::launch {

namespace {

namespace fs = std::filesystem;

std::string ReadLine(const fs::path& p) {
  std::ifstream in(p);
  std::string line;
  if (!in || !std::getline(in, line)) return "";
  while (!line.empty() && (line.back() == '\n' || line.back() == ' ' || line.back() == '\r')) line.pop_back();
  return line;
}

long long ReadNumber(const fs::path& p, long long fallback) {
  std::string s = ReadLine(p);
  if (s.empty()) return fallback;
  try {
    return std::stoll(s);
  } catch (...) {
    return fallback;
  }
}

std::vector<std::string> ListDir(const fs::path& p) {
  std::vector<std::string> out;
  std::error_code ec;
  for (fs::directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec)) {
    out.push_back(it->path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string AfterColon(const std::string& s) {  // "4: ACTIVE" -> "ACTIVE"
  size_t c = s.find(':');
  if (c == std::string::npos) return s;
  size_t b = s.find_first_not_of(' ', c + 1);
  return b == std::string::npos ? "" : s.substr(b);
}

}  // namespace

NetworkFacts ReadNetworkFacts(const std::string& root) {
  NetworkFacts facts;
  fs::path sys = fs::path(root) / "sys/class";
  for (const std::string& name : ListDir(sys / "net")) {
    fs::path dir = sys / "net" / name;
    NetInterface n;
    n.name = name;
    n.operstate = ReadLine(dir / "operstate");
    n.speed_mbps = ReadNumber(dir / "speed", -1);
    if (n.speed_mbps <= 0) n.speed_mbps = -1;  // virtio and friends report -1 or nothing
    n.mtu = static_cast<int>(ReadNumber(dir / "mtu", -1));
    long long type = ReadNumber(dir / "type", -1);  // ARPHRD_*: 1 ether, 32 infiniband, 772 loopback
    n.type = type == 1 ? "ether" : type == 32 ? "infiniband" : type == 772 ? "loopback" : "other";
    n.is_loopback = type == 772 || name == "lo";
    std::error_code ec;
    n.is_virtual = !fs::exists(dir / "device", ec);
    facts.interfaces.push_back(std::move(n));
  }
  if (root == "/") {
    ifaddrs* list = nullptr;
    if (::getifaddrs(&list) == 0) {
      for (ifaddrs* a = list; a != nullptr; a = a->ifa_next) {
        if (a->ifa_addr == nullptr || a->ifa_addr->sa_family != AF_INET) continue;
        char text[INET_ADDRSTRLEN] = {};
        auto* in = reinterpret_cast<sockaddr_in*>(a->ifa_addr);
        if (::inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text)) == nullptr) continue;
        for (NetInterface& n : facts.interfaces) {
          if (n.name == a->ifa_name) n.ipv4.push_back(text);
        }
      }
      ::freeifaddrs(list);
    }
  } else {
    // Snapshots record addresses as sys/class/net/<if>/ipv4 (one per line),
    // a test convenience: sysfs itself has no addresses.
    for (NetInterface& n : facts.interfaces) {
      std::ifstream in(sys / "net" / n.name / "ipv4");
      for (std::string line; std::getline(in, line);) {
        if (!line.empty()) n.ipv4.push_back(line);
      }
    }
  }

  for (const std::string& name : ListDir(sys / "infiniband")) {
    fs::path dir = sys / "infiniband" / name;
    RdmaDevice d;
    d.name = name;
    for (const std::string& ndev : ListDir(dir / "device/net")) d.net_devices.push_back(ndev);
    for (const std::string& port_name : ListDir(dir / "ports")) {
      fs::path pdir = dir / "ports" / port_name;
      RdmaPort p;
      try {
        p.port = std::stoi(port_name);
      } catch (...) {
        continue;
      }
      p.state = AfterColon(ReadLine(pdir / "state"));
      p.link_layer = ReadLine(pdir / "link_layer");
      p.rate = ReadLine(pdir / "rate");
      try {
        p.rate_gbps = p.rate.empty() ? -1 : std::stod(p.rate);
      } catch (...) {
        p.rate_gbps = -1;
      }
      for (const std::string& idx : ListDir(pdir / "gids")) {
        RdmaGid g;
        try {
          g.index = std::stoi(idx);
        } catch (...) {
          continue;
        }
        g.gid = ReadLine(pdir / "gids" / idx);
        if (g.gid.empty() || g.gid == "0000:0000:0000:0000:0000:0000:0000:0000") continue;
        g.type = ReadLine(pdir / "gid_attrs/types" / idx);
        g.net_device = ReadLine(pdir / "gid_attrs/ndevs" / idx);
        p.gids.push_back(std::move(g));
      }
      std::sort(p.gids.begin(), p.gids.end(), [](const RdmaGid& a, const RdmaGid& b) { return a.index < b.index; });
      d.ports.push_back(std::move(p));
    }
    facts.rdma.push_back(std::move(d));
  }
  return facts;
}

}  // namespace tfhost::host::launch
