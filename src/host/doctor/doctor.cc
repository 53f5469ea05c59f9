// The doctor's frame: runs the rule groups, orders findings, formats them and
// maps them to an exit status.
#include "host/doctor/doctor.h"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <sstream>

namespace tfhost::host {

const char* SeverityName(Severity s) {
  switch (s) {
    case Severity::kInfo: return "info";
    case Severity::kWarning: return "warning";
    case Severity::kError: return "error";
  }
  return "?";
}

std::string GiB(uint64_t bytes) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f GiB", static_cast<double>(bytes) / (1024.0 * 1024 * 1024));
  return buf;
}

std::string CudaVersionString(int v) {
  if (v < 0) return "?";
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

const std::string* EnvValue(const DoctorInput& in, const std::string& name) {
  auto it = in.env.find(name);
  return it == in.env.end() ? nullptr : &it->second;
}

const std::vector<std::string>& DoctorRuleIds() {
  static const std::vector<std::string> ids = {
      "host_ram_vs_gpu_memory", "cpu_cores_per_gpu", "multi_gpu_without_nvlink", "multi_node_without_rdma",
      "driver_too_old_for_cuda", "tf_cuda_mismatch", "tf_cudnn_mismatch", "tf_config_invalid_json",
      "tf_config_inconsistent", "tf_config_multiple_chiefs", "tf_config_ps_with_collective",
      "tf_config_host_not_in_cluster", "tf_xla_flags_unknown", "tf_cpp_min_log_level_hides_errors",
      "tf_force_gpu_allow_growth_invalid", "tf_gpu_allocator_invalid", "nccl_socket_ifname_no_match",
      "nccl_ib_gid_index_not_roce_v2", "nccl_algo_unknown", "nccl_proto_unknown", "data_on_network_filesystem",
      "data_path_missing", "swap_enabled", "cpu_governor_not_performance", "thp_defrag_always",
      "memlock_limited_with_rdma", "nofile_limit_low"};
  return ids;
}

std::vector<Finding> RunDoctor(const DoctorInput& input) {
  std::vector<Finding> out;
  CheckHardware(input, &out);
  CheckVersions(input, &out);
  CheckTfConfig(input, &out);
  CheckTfEnv(input, &out);
  CheckNcclEnv(input, &out);
  CheckOsSettings(input, &out);
  return out;
}

int DoctorExitStatus(const std::vector<Finding>& findings) {
  int worst = 0;
  for (const Finding& f : findings) worst = std::max(worst, static_cast<int>(f.severity));
  return worst;
}

std::string FormatFindingsText(const std::vector<Finding>& findings) {
  std::ostringstream o;
  int counts[3] = {0, 0, 0};
  // Errors first, then warnings, then info; rule order within each.
  for (int s = 2; s >= 0; --s) {
    for (const Finding& f : findings) {
      if (static_cast<int>(f.severity) != s) continue;
      ++counts[s];
      std::string tag = SeverityName(f.severity);
      for (char& c : tag) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      o << "[" << tag << "] " << f.id << ": " << f.title << "\n"
        << "  evidence: " << f.evidence << "\n"
        << "  why:      " << f.why << "\n"
        << "  fix:      " << f.fix << "\n\n";
    }
  }
  if (findings.empty()) o << "No problems found.\n";
  o << counts[2] << " error(s), " << counts[1] << " warning(s), " << counts[0] << " note(s)\n";
  return o.str();
}

std::string FormatFindingsJson(const std::vector<Finding>& findings) {
  rapidjson::StringBuffer buf;
  rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buf);
  w.StartObject();
  w.Key("status");
  w.Int(DoctorExitStatus(findings));
  w.Key("findings");
  w.StartArray();
  for (const Finding& f : findings) {
    w.StartObject();
    for (auto [k, v] : {std::pair{"id", &f.id}, {"title", &f.title}, {"evidence", &f.evidence}, {"why", &f.why},
                        {"fix", &f.fix}}) {
      w.Key(k);
      w.String(v->c_str(), static_cast<rapidjson::SizeType>(v->size()));
    }
    w.Key("severity");
    w.String(SeverityName(f.severity));
    w.EndObject();
  }
  w.EndArray();
  w.EndObject();
  return std::string(buf.GetString(), buf.GetSize()) + "\n";
}

}  // namespace tfhost::host
