// `tfhost data cache warm|status|evict`: the tiered data cache from the
// command line (docs/data_cache.md). Dispatched from data_command.cc.
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <iomanip>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "cli/cli.h"
#include "cli/command_util.h"
#include "cli/flags.h"
#include "data/cache/disk_cache.h"

namespace tfhost::cli {
namespace {

using data::cache::CacheEntry;
using data::cache::CacheStats;
using data::cache::DiskCache;
using data::cache::DiskCacheOptions;
using data::cache::FormatBytes;
using data::cache::ObjectInfo;
using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

// The cache directory when --cache-dir is not given.
std::string DefaultCacheDir() {
  if (const char* d = std::getenv("TFHOST_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/tfhost/data";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/tfhost/data";
  return ".tfhost-cache";
}

// Flags every cache subcommand shares.
struct CommonFlags {
  std::string cache_dir;
  std::string max_bytes;
  std::string endpoint, region, access_key, secret_key;
  std::string tfrecord_check = "auto";
  bool json = false;

  void Add(FlagParser& f) {
    f.AddString("cache-dir", &cache_dir, "D", "cache directory (default $TFHOST_CACHE_DIR or ~/.cache/tfhost/data)");
    f.AddString("max-bytes", &max_bytes, "N", "size limit, e.g. 50G (recorded in the cache; default 10G)");
    f.AddString("endpoint", &endpoint, "URL", "S3-compatible endpoint, path-style (default $AWS_ENDPOINT_URL)");
    f.AddString("region", &region, "R", "SigV4 signing region (default $AWS_REGION or us-east-1)");
    f.AddString("access-key", &access_key, "K", "access key id (default $AWS_ACCESS_KEY_ID)");
    f.AddString("secret-key", &secret_key, "S", "secret key (default $AWS_SECRET_ACCESS_KEY; prefer the variable)");
    f.AddString("tfrecord-check", &tfrecord_check, "auto|always|never",
                "verify every record CRC of downloads (auto: names containing 'tfrecord' or ending .tfr)");
    f.AddBool("json", &json, "print one JSON document");
  }

  StatusOr<DiskCacheOptions> Options() const {
    DiskCacheOptions o;
    o.dir = cache_dir.empty() ? DefaultCacheDir() : cache_dir;
    if (!max_bytes.empty()) {
      TFHOST_ASSIGN_OR_RETURN(o.max_bytes, data::cache::ParseByteSize(max_bytes));
      if (o.max_bytes == 0) return InvalidArgument("--max-bytes must be above 0");
    }
    if (!endpoint.empty()) o.s3.endpoint = endpoint;
    if (!region.empty()) o.s3.region = region;
    if (!access_key.empty()) o.s3.access_key = access_key;
    if (!secret_key.empty()) o.s3.secret_key = secret_key;
    if (tfrecord_check == "auto") o.tfrecord_check = data::cache::TFRecordCheck::kAuto;
    else if (tfrecord_check == "always") o.tfrecord_check = data::cache::TFRecordCheck::kAlways;
    else if (tfrecord_check == "never") o.tfrecord_check = data::cache::TFRecordCheck::kNever;
    else return InvalidArgument("--tfrecord-check must be auto, always or never");
    return o;
  }
};

// Splits URIs from flags; `value_flags` take a value ("--f v" or "--f=v").
void SplitArgs(const std::vector<std::string>& args, const std::set<std::string>& value_flags,
               std::vector<std::string>* uris, std::vector<std::string>* flag_args) {
  bool done = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (!done && a == "--") {
      done = true;
      continue;
    }
    if (done || a.size() < 2 || a[0] != '-') {
      uris->push_back(a);
      continue;
    }
    flag_args->push_back(a);
    std::string name = a.substr(a[1] == '-' ? 2 : 1);
    if (name.find('=') == std::string::npos && value_flags.count(name) && i + 1 < args.size()) {
      flag_args->push_back(args[++i]);
    }
  }
}

const std::set<std::string> kValueFlags = {"cache-dir", "max-bytes", "endpoint",       "region",
                                           "access-key", "secret-key", "tfrecord-check", "jobs"};

void JsonString(JsonWriter& w, const std::string& s) { w.String(s.c_str(), static_cast<rapidjson::SizeType>(s.size())); }

int Warm(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const std::string cmd = "data cache warm";
  FlagParser flags("tfhost data cache warm URIS... [flags]",
                   "Downloads objects into the local cache (verifying them) so later reads are local.\n"
                   "URIS are s3://bucket/key, s3://bucket/prefix/ (every object under it), files or directories.");
  CommonFlags common;
  common.Add(flags);
  int jobs = 4;
  flags.AddInt("jobs", &jobs, "N", "parallel downloads (default 4)");
  std::vector<std::string> uris, flag_args;
  SplitArgs(args, kValueFlags, &uris, &flag_args);
  if (int rc = ParseOrExit(flags, flag_args, cmd, out, err); rc >= 0) return rc;
  if (uris.empty()) return ReportUsage(err, cmd, "no URIs given");
  if (jobs < 1 || jobs > 256) return ReportUsage(err, cmd, "--jobs must be 1..256");
  auto options = common.Options();
  if (!options.ok()) return ReportUsage(err, cmd, options.status().message());
  auto cache = DiskCache::Open(*options);
  if (!cache.ok()) return ReportFailure(err, cmd, cache.status());

  std::vector<ObjectInfo> objects;
  for (const std::string& u : uris) {
    auto expanded = (*cache)->Expand(u);
    if (!expanded.ok()) return ReportFailure(err, cmd, expanded.status());
    objects.insert(objects.end(), expanded->begin(), expanded->end());
  }
  struct Result {
    Status status;
    bool hit = false;
    uint64_t size = 0;
  };
  std::vector<Result> results(objects.size());
  std::atomic<size_t> next{0};
  std::mutex print_mu;
  auto worker = [&] {
    while (true) {
      size_t i = next.fetch_add(1);
      if (i >= objects.size()) return;
      auto got = (*cache)->Get(objects[i].uri);
      Result& r = results[i];
      if (got.ok()) {
        r.hit = got->hit;
        r.size = got->size;
      } else {
        r.status = got.status();
      }
      if (!common.json) {
        std::lock_guard<std::mutex> l(print_mu);
        if (r.status.ok()) {
          out << (r.hit ? "cached     " : "downloaded ") << objects[i].uri << "  " << FormatBytes(r.size) << "\n";
        } else {
          out << "FAILED     " << objects[i].uri << ": " << r.status.message() << "\n";
        }
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < std::min<int>(jobs, static_cast<int>(objects.size())); ++t) threads.emplace_back(worker);
  for (auto& t : threads) t.join();

  size_t failed = 0, hits = 0;
  uint64_t bytes = 0;
  for (const Result& r : results) {
    if (!r.status.ok()) ++failed;
    else {
      hits += r.hit;
      bytes += r.size;
    }
  }
  if (common.json) {
    rapidjson::StringBuffer buf;
    JsonWriter w(buf);
    w.StartObject();
    w.Key("cache_dir");
    JsonString(w, (*cache)->dir());
    w.Key("objects");
    w.StartArray();
    for (size_t i = 0; i < objects.size(); ++i) {
      w.StartObject();
      w.Key("uri");
      JsonString(w, objects[i].uri);
      w.Key("ok");
      w.Bool(results[i].status.ok());
      if (results[i].status.ok()) {
        w.Key("hit");
        w.Bool(results[i].hit);
        w.Key("size");
        w.Uint64(results[i].size);
      } else {
        w.Key("error");
        JsonString(w, results[i].status.ToString());
      }
      w.EndObject();
    }
    w.EndArray();
    w.Key("failed");
    w.Uint64(failed);
    w.EndObject();
    out << buf.GetString() << "\n";
  } else {
    out << objects.size() - failed << " of " << objects.size() << " object(s) warmed into " << (*cache)->dir()
        << " (" << hits << " already cached, " << FormatBytes(bytes) << ")";
    auto stats = (*cache)->Stats();
    if (stats.ok() && bytes > stats->max_bytes) out << "; more than --max-bytes, so older objects were evicted";
    if (failed) out << "; " << failed << " FAILED";
    out << "\n";
  }
  return failed ? kExitFailure : kExitOk;
}

int Status_(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const std::string cmd = "data cache status";
  FlagParser flags("tfhost data cache status [flags]",
                   "Lists cached objects (most recently used first), sizes, the limit and hit/miss counts.");
  CommonFlags common;
  common.Add(flags);
  std::vector<std::string> uris, flag_args;
  SplitArgs(args, kValueFlags, &uris, &flag_args);
  if (int rc = ParseOrExit(flags, flag_args, cmd, out, err); rc >= 0) return rc;
  if (!uris.empty()) return ReportUsage(err, cmd, "status takes no URIs");
  auto options = common.Options();
  if (!options.ok()) return ReportUsage(err, cmd, options.status().message());
  auto cache = DiskCache::Open(*options);
  if (!cache.ok()) return ReportFailure(err, cmd, cache.status());
  auto entries = (*cache)->Entries();
  if (!entries.ok()) return ReportFailure(err, cmd, entries.status());
  auto stats = (*cache)->Stats();
  if (!stats.ok()) return ReportFailure(err, cmd, stats.status());
  std::reverse(entries->begin(), entries->end());
  const CacheStats& s = *stats;
  if (common.json) {
    rapidjson::StringBuffer buf;
    JsonWriter w(buf);
    w.StartObject();
    w.Key("cache_dir");
    JsonString(w, (*cache)->dir());
    for (auto [k, v] : {std::pair{"entries", s.entries}, {"bytes", s.bytes}, {"max_bytes", s.max_bytes},
                        {"hits", s.hits}, {"misses", s.misses}, {"downloads", s.downloads},
                        {"bytes_downloaded", s.bytes_downloaded}, {"evictions", s.evictions},
                        {"integrity_failures", s.integrity_failures}, {"failed_fetches", s.failed_fetches},
                        {"resumed_downloads", s.resumed_downloads}}) {
      w.Key(k);
      w.Uint64(v);
    }
    w.Key("objects");
    w.StartArray();
    for (const CacheEntry& e : *entries) {
      w.StartObject();
      w.Key("uri");
      JsonString(w, e.uri);
      w.Key("size");
      w.Uint64(e.size);
      w.Key("etag");
      JsonString(w, e.etag);
      w.Key("hits");
      w.Uint64(e.hits);
      w.Key("path");
      JsonString(w, (*cache)->dir() + "/data/" + e.file);
      w.EndObject();
    }
    w.EndArray();
    w.EndObject();
    out << buf.GetString() << "\n";
    return kExitOk;
  }
  out << "cache " << (*cache)->dir() << ": " << s.entries << " object(s), " << FormatBytes(s.bytes) << " of "
      << FormatBytes(s.max_bytes) << "\n";
  uint64_t lookups = s.hits + s.misses;
  out << "hits " << s.hits << ", misses " << s.misses;
  if (lookups) out << " (" << std::fixed << std::setprecision(1) << 100.0 * s.hits / lookups << "% hit)";
  out << "; downloads " << s.downloads << " (" << FormatBytes(s.bytes_downloaded) << "), evictions " << s.evictions
      << ", integrity failures " << s.integrity_failures << ", failed fetches " << s.failed_fetches << ", resumed downloads " << s.resumed_downloads << "\n";
  for (const CacheEntry& e : *entries) {
    out << "  " << std::setw(10) << FormatBytes(e.size) << "  " << std::setw(6) << e.hits << " hit(s)  " << e.uri
        << "\n";
  }
  return kExitOk;
}

int Evict(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  const std::string cmd = "data cache evict";
  FlagParser flags("tfhost data cache evict [URIS...|--all] [flags]",
                   "Removes objects from the cache (a prefix s3://b/p/ or a directory removes every cached\n"
                   "object under it).");
  CommonFlags common;
  common.Add(flags);
  bool all = false;
  flags.AddBool("all", &all, "remove everything");
  std::vector<std::string> uris, flag_args;
  SplitArgs(args, kValueFlags, &uris, &flag_args);
  if (int rc = ParseOrExit(flags, flag_args, cmd, out, err); rc >= 0) return rc;
  if (all == !uris.empty()) return ReportUsage(err, cmd, "give URIs or --all (not both)");
  auto options = common.Options();
  if (!options.ok()) return ReportUsage(err, cmd, options.status().message());
  auto cache = DiskCache::Open(*options);
  if (!cache.ok()) return ReportFailure(err, cmd, cache.status());
  if (all) {
    auto before = (*cache)->Stats();
    Status s = (*cache)->EvictAll();
    if (!s.ok()) return ReportFailure(err, cmd, s);
    out << "evicted " << (before.ok() ? before->entries : 0) << " object(s) from " << (*cache)->dir() << "\n";
    return kExitOk;
  }
  auto entries = (*cache)->Entries();
  if (!entries.ok()) return ReportFailure(err, cmd, entries.status());
  size_t evicted = 0, missing = 0;
  for (const std::string& u : uris) {
    // A URI ending in '/' removes every cached object under it.
    std::vector<std::string> targets;
    if (!u.empty() && u.back() == '/') {
      for (const CacheEntry& e : *entries) {
        if (e.uri.compare(0, u.size(), u) == 0) targets.push_back(e.uri);
      }
    } else {
      targets.push_back(u);
    }
    if (targets.empty()) {
      ++missing;
      err << "tfhost data cache evict: nothing cached under " << u << "\n";
    }
    for (const std::string& t : targets) {
      Status s = (*cache)->Evict(t);
      if (s.ok()) {
        ++evicted;
        if (!common.json) out << "evicted " << t << "\n";
      } else {
        ++missing;
        err << "tfhost data cache evict: " << s.message() << "\n";
      }
    }
  }
  out << evicted << " object(s) evicted" << (missing ? ", " + std::to_string(missing) + " not cached" : "") << "\n";
  return missing ? kExitFailure : kExitOk;
}

std::string CacheHelp() {
  return "Usage: tfhost data cache <warm|status|evict> [args]\n\n"
         "Local-disk cache of remote datasets (S3-compatible stores or network paths).\n\n"
         "  warm URIS... [--cache-dir D] [--max-bytes N]   download and verify into the cache\n"
         "  status [--json]                                entries, sizes, hit/miss counts\n"
         "  evict [URIS...|--all]                          remove entries\n\n"
         "Credentials: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION, AWS_ENDPOINT_URL (or flags).\n"
         "Run 'tfhost data cache <subcommand> --help' for its flags.\n";
}

}  // namespace

int DataCacheCommand(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty()) {
    err << CacheHelp();
    return kExitUsage;
  }
  const std::string& sub = args[0];
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (sub == "--help" || sub == "-h" || sub == "help") {
    out << CacheHelp();
    return kExitOk;
  }
  if (sub == "warm") return Warm(rest, out, err);
  if (sub == "status") return Status_(rest, out, err);
  if (sub == "evict") return Evict(rest, out, err);
  err << "tfhost data cache: unknown subcommand '" << sub << "'\n" << CacheHelp();
  return kExitUsage;
}

}  // namespace tfhost::cli
