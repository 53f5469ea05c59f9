// S3 (libcurl + CURLOPT_AWS_SIGV4) and filesystem object sources.
#include "data/cache/object_source.h"

#include <curl/curl.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

namespace tfhost::data::cache {
namespace {

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::string(v) : std::string();
}

// Bounds on what a listing may make us hold: a hostile or broken server must
// not grow memory without limit.
constexpr size_t kMaxListBody = size_t{64} << 20;
constexpr size_t kMaxListObjects = 1'000'000;
constexpr int kMaxListPages = 100'000;

Status WriteAll(int fd, const char* p, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return Internal(std::string("write to cache file failed: ") + std::strerror(errno));
    }
    p += w;
    n -= static_cast<size_t>(w);
  }
  return OkStatus();
}

// Decodes the five XML entities and numeric references; anything else is an error.
StatusOr<std::string> XmlUnescape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '&') {
      out.push_back(s[i]);
      continue;
    }
    size_t semi = s.find(';', i);
    if (semi == std::string_view::npos || semi - i > 12) return InvalidArgument("ListObjectsV2: bad XML entity");
    std::string_view ent = s.substr(i + 1, semi - i - 1);
    if (ent == "amp") out.push_back('&');
    else if (ent == "lt") out.push_back('<');
    else if (ent == "gt") out.push_back('>');
    else if (ent == "quot") out.push_back('"');
    else if (ent == "apos") out.push_back('\'');
    else if (ent.size() >= 2 && ent[0] == '#') {
      bool hex = ent[1] == 'x' || ent[1] == 'X';
      std::string_view digits = ent.substr(hex ? 2 : 1);
      if (digits.empty()) return InvalidArgument("ListObjectsV2: bad character reference");
      uint32_t cp = 0;
      for (char c : digits) {
        int d;
        if (c >= '0' && c <= '9') d = c - '0';
        else if (hex && c >= 'a' && c <= 'f') d = c - 'a' + 10;
        else if (hex && c >= 'A' && c <= 'F') d = c - 'A' + 10;
        else return InvalidArgument("ListObjectsV2: bad character reference");
        cp = cp * (hex ? 16 : 10) + static_cast<uint32_t>(d);
        if (cp > 0x10FFFF) return InvalidArgument("ListObjectsV2: character reference out of range");
      }
      // UTF-8 encode.
      if (cp < 0x80) out.push_back(static_cast<char>(cp));
      else if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
      } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
      } else {
        out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
      }
    } else {
      return InvalidArgument("ListObjectsV2: unknown XML entity &" + std::string(ent) + ";");
    }
    i = semi;
  }
  return out;
}

// Text of the first <tag>...</tag> in `s` (nullopt-like: found=false).
bool FindElement(std::string_view s, std::string_view tag, std::string_view* text, size_t* after = nullptr) {
  std::string open = "<" + std::string(tag) + ">";
  std::string close = "</" + std::string(tag) + ">";
  size_t b = s.find(open);
  if (b == std::string_view::npos) return false;
  size_t e = s.find(close, b + open.size());
  if (e == std::string_view::npos) return false;
  *text = s.substr(b + open.size(), e - b - open.size());
  if (after) *after = e + close.size();
  return true;
}

StatusOr<uint64_t> ParseSize(std::string_view s) {
  if (s.empty() || s.size() > 19) return InvalidArgument("ListObjectsV2: bad <Size> '" + std::string(s) + "'");
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return InvalidArgument("ListObjectsV2: bad <Size> '" + std::string(s) + "'");
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  return v;
}

void CurlGlobalInit() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct Response {
  long code = 0;
  std::string etag;
  int64_t content_length = -1;
  std::string body;  // error bodies and listings (bounded)
  uint64_t body_bytes = 0;
  int fd = -1;       // when set, 2xx bodies go here
  Status write_error;
  long status = 0;          // HTTP status of the latest response's status line
  uint64_t range_from = 0;  // a ranged GET asked from this offset
  bool rewound = false;     // a 200 answer to a ranged GET: fd was truncated first
  uint64_t range_total = 0; // "/total" of a 206's Content-Range
};

size_t HeaderCb(char* data, size_t size, size_t n, void* user) {
  auto* r = static_cast<Response*>(user);
  std::string_view line(data, size * n);
  if (line.rfind("HTTP/", 0) == 0) {  // a new response (redirect, 100-continue): reset
    r->etag.clear();
    r->content_length = -1;
  }
  size_t colon = line.find(':');
  if (colon != std::string_view::npos) {
    std::string name(line.substr(0, colon));
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
    while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' ')) value.remove_suffix(1);
    if (name == "etag") r->etag = std::string(value);
    if (name == "content-range") {
      // bytes FIRST-LAST/TOTAL
      size_t slash = value.rfind('/');
      if (slash != std::string_view::npos) {
        auto v = ParseSize(value.substr(slash + 1));
        if (v.ok()) r->range_total = *v;
      }
    }
    if (name == "content-length") {
      auto v = ParseSize(value);
      if (v.ok()) r->content_length = static_cast<int64_t>(*v);
    }
  }
  return size * n;
}

size_t BodyCb(char* data, size_t size, size_t n, void* user) {
  auto* r = static_cast<Response*>(user);
  size_t bytes = size * n;
  if (r->fd >= 0 && r->code == 0) {
    if (r->range_from > 0 && r->status == 200 && !r->rewound) {
      // The server ignored the Range header and sends the whole object.
      r->rewound = true;
      if (::ftruncate(r->fd, 0) != 0 || ::lseek(r->fd, 0, SEEK_SET) != 0) {
        r->write_error = Internal(std::string("cannot rewind the partial download: ") + std::strerror(errno));
        return 0;
      }
    }
    r->write_error = WriteAll(r->fd, data, bytes);
    if (!r->write_error.ok()) return 0;
  } else {
    if (r->body.size() + bytes > kMaxListBody) return 0;  // aborts the transfer
    r->body.append(data, bytes);
  }
  r->body_bytes += bytes;
  return bytes;
}

class S3Source : public ObjectSource {
 public:
  explicit S3Source(S3Config c) : c_(std::move(c)) {
    CurlGlobalInit();
    while (!c_.endpoint.empty() && c_.endpoint.back() == '/') c_.endpoint.pop_back();
  }

  StatusOr<ObjectInfo> Stat(const std::string& uri) override {
    std::string bucket, key;
    TFHOST_RETURN_IF_ERROR(ParseS3Uri(uri, &bucket, &key));
    Response r;
    TFHOST_RETURN_IF_ERROR(Request(ObjectUrl(bucket, key), /*head=*/true, -1, &r, uri));
    if (r.code != 200) return HttpError(uri, "HEAD", r);
    if (r.content_length < 0) return Unavailable("HEAD " + uri + ": no Content-Length in the answer");
    return ObjectInfo{uri, static_cast<uint64_t>(r.content_length), r.etag};
  }

  StatusOr<ObjectInfo> Fetch(const std::string& uri, int fd) override {
    std::string bucket, key;
    TFHOST_RETURN_IF_ERROR(ParseS3Uri(uri, &bucket, &key));
    Response r;
    TFHOST_RETURN_IF_ERROR(Request(ObjectUrl(bucket, key), false, fd, &r, uri));
    if (r.code != 200) return HttpError(uri, "GET", r);
    if (r.content_length < 0) return Unavailable("GET " + uri + ": no Content-Length in the answer");
    if (r.body_bytes != static_cast<uint64_t>(r.content_length)) {
      return Unavailable("GET " + uri + ": received " + std::to_string(r.body_bytes) + " of " +
                         std::to_string(r.content_length) + " bytes");
    }
    return ObjectInfo{uri, r.body_bytes, r.etag};
  }

  StatusOr<ObjectInfo> FetchFrom(const std::string& uri, int fd, uint64_t offset, const std::string& etag) override {
    if (offset == 0) return Fetch(uri, fd);
    std::string bucket, key;
    TFHOST_RETURN_IF_ERROR(ParseS3Uri(uri, &bucket, &key));
    Response r;
    // If-Match: a changed object answers 412 instead of splicing two versions.
    std::vector<std::string> headers = {"Range: bytes=" + std::to_string(offset) + "-", "If-Match: " + etag};
    TFHOST_RETURN_IF_ERROR(Request(ObjectUrl(bucket, key), false, fd, &r, uri, headers, offset));
    if (r.code == 412) {
      return FailedPrecondition("GET " + uri + " from byte " + std::to_string(offset) + ": the object changed (ETag " +
                                etag + " no longer matches)");
    }
    if (r.code != 200 && r.code != 206) return HttpError(uri, "GET (resume)", r);
    if (r.content_length < 0) return Unavailable("GET " + uri + ": no Content-Length in the answer");
    if (r.body_bytes != static_cast<uint64_t>(r.content_length)) {
      return Unavailable("GET " + uri + " from byte " + std::to_string(offset) + ": received " +
                         std::to_string(r.body_bytes) + " of " + std::to_string(r.content_length) + " bytes");
    }
    if (r.code == 200) return ObjectInfo{uri, r.body_bytes, r.etag};
    if (r.range_total == 0 || r.range_total != offset + r.body_bytes) {
      return Unavailable("GET " + uri + " from byte " + std::to_string(offset) + ": Content-Range total " +
                         std::to_string(r.range_total) + " does not match " + std::to_string(offset) + " + " +
                         std::to_string(r.body_bytes) + " bytes received");
    }
    return ObjectInfo{uri, r.range_total, r.etag.empty() ? etag : r.etag};
  }

  StatusOr<std::vector<ObjectInfo>> List(const std::string& prefix_uri) override {
    std::string bucket, prefix;
    TFHOST_RETURN_IF_ERROR(ParseS3Uri(prefix_uri, &bucket, &prefix));
    std::vector<ObjectInfo> all;
    std::string token;
    for (int page = 0; page < kMaxListPages; ++page) {
      // Parameters in sorted order, fully encoded: libcurl before 8.x signs
      // the query string as given instead of canonicalising it, so it must
      // already be SigV4's canonical form.
      std::string url = BucketUrl(bucket) + "?";
      if (!token.empty()) url += "continuation-token=" + UriEncode(token, false) + "&";
      url += "list-type=2&prefix=" + UriEncode(prefix, false);
      Response r;
      TFHOST_RETURN_IF_ERROR(Request(url, false, -1, &r, prefix_uri));
      if (r.code != 200) return HttpError(prefix_uri, "ListObjectsV2", r);
      auto parsed = ParseListObjectsV2(r.body);
      if (!parsed.ok()) return InvalidArgument("listing " + prefix_uri + ": " + parsed.status().message());
      for (ObjectInfo& o : parsed->objects) {
        if (all.size() >= kMaxListObjects) {
          return ResourceExhausted("listing " + prefix_uri + ": more than " + std::to_string(kMaxListObjects) +
                                   " objects");
        }
        o.uri = "s3://" + bucket + "/" + o.uri;
        all.push_back(std::move(o));
      }
      if (!parsed->truncated) break;
      if (parsed->next_token.empty() || parsed->next_token == token) {
        return InvalidArgument("listing " + prefix_uri + ": truncated page without a new continuation token");
      }
      token = parsed->next_token;
    }
    std::sort(all.begin(), all.end(), [](const ObjectInfo& a, const ObjectInfo& b) { return a.uri < b.uri; });
    return all;
  }

 private:
  std::string BucketUrl(const std::string& bucket) const {
    if (c_.endpoint.empty()) return "https://" + bucket + ".s3." + c_.region + ".amazonaws.com/";
    return c_.endpoint + "/" + UriEncode(bucket, false);
  }
  std::string ObjectUrl(const std::string& bucket, const std::string& key) const {
    std::string base = BucketUrl(bucket);
    if (base.back() != '/') base += '/';
    return base + UriEncode(key, true);
  }

  static Status HttpError(const std::string& uri, const char* what, const Response& r) {
    std::string code;
    std::string_view text;
    if (FindElement(r.body, "Code", &text)) code = std::string(text.substr(0, 100));
    std::string msg = std::string(what) + " " + uri + ": HTTP " + std::to_string(r.code) +
                      (code.empty() ? "" : " (" + code + ")");
    if (r.code == 404) return NotFound(msg);
    if (r.code == 403 || r.code == 401) return FailedPrecondition(msg + "; check the credentials and region");
    if (r.code >= 500) return Unavailable(msg);
    return InvalidArgument(msg);
  }

  // Performs one request, retrying transport errors and 5xx answers. A body
  // going to `fd` is retried only if nothing has been written yet.
  Status Request(const std::string& url, bool head, int fd, Response* out, const std::string& uri,
                 const std::vector<std::string>& extra_headers = {}, uint64_t range_from = 0) {
    Status last;
    for (int attempt = 0; attempt < std::max(1, c_.attempts); ++attempt) {
      if (attempt > 0) std::this_thread::sleep_for(std::chrono::milliseconds(200 << std::min(attempt, 5)));
      *out = Response();
      out->fd = fd;
      out->range_from = range_from;
      CURL* h = curl_easy_init();
      if (!h) return Internal("curl_easy_init failed");
      char errbuf[CURL_ERROR_SIZE] = {0};
      curl_easy_setopt(h, CURLOPT_URL, url.c_str());
      curl_easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
      curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
      curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, c_.connect_timeout_s);
      curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
      curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, c_.stall_timeout_s);
      if (c_.max_recv_bytes_per_s > 0) {
        curl_easy_setopt(h, CURLOPT_MAX_RECV_SPEED_LARGE, static_cast<curl_off_t>(c_.max_recv_bytes_per_s));
      }
      curl_easy_setopt(h, CURLOPT_HEADERDATA, out);
      curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, BodyCb);
      curl_easy_setopt(h, CURLOPT_WRITEDATA, out);
      if (head) curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
      std::string sigv4 = "aws:amz:" + c_.region + ":s3";
      std::string userpwd = c_.access_key + ":" + c_.secret_key;
      curl_slist* headers = nullptr;
      if (!c_.access_key.empty()) {
        curl_easy_setopt(h, CURLOPT_AWS_SIGV4, sigv4.c_str());
        curl_easy_setopt(h, CURLOPT_USERPWD, userpwd.c_str());
        // S3 requires the payload hash header; requests here have no body.
        headers = curl_slist_append(
            headers, "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
      }
      for (const std::string& extra : extra_headers) headers = curl_slist_append(headers, extra.c_str());
      if (headers) curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
      // Error answers must not go into the cache file: BodyCb sends 2xx bodies
      // to fd only; it learns the code from the header callback's state.
      curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, +[](char* d, size_t s, size_t n, void* u) -> size_t {
        auto* r = static_cast<Response*>(u);
        std::string_view line(d, s * n);
        if (line.rfind("HTTP/", 0) == 0) {
          size_t sp = line.find(' ');
          long code = 0;
          if (sp != std::string_view::npos) code = std::strtol(std::string(line.substr(sp + 1, 3)).c_str(), nullptr, 10);
          // code 0 in Response means "body goes to fd"; a non-2xx sets it so
          // the body is kept in memory instead.
          r->code = (code >= 200 && code < 300) ? 0 : code;
          r->status = code;
        }
        return HeaderCb(d, s, n, u);
      });
      CURLcode rc = curl_easy_perform(h);
      long http = 0;
      curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &http);
      curl_slist_free_all(headers);
      curl_easy_cleanup(h);
      out->code = http;
      if (!out->write_error.ok()) return out->write_error;
      if (rc != CURLE_OK) {
        last = Unavailable(std::string(head ? "HEAD " : "GET ") + uri + " (" + url + "): " +
                           (errbuf[0] ? errbuf : curl_easy_strerror(rc)) + " after " +
                           std::to_string(out->body_bytes) + " body bytes");
        if (fd >= 0 && out->body_bytes > 0) return last;  // the caller must start a new file
        continue;
      }
      if (http >= 500 && (fd < 0 || out->body_bytes == 0)) {
        last = HttpError(uri, head ? "HEAD" : "GET", *out);
        continue;
      }
      return OkStatus();
    }
    return last;
  }

  S3Config c_;
};

class FileSource : public ObjectSource {
 public:
  StatusOr<ObjectInfo> Stat(const std::string& uri) override {
    struct stat st;
    if (::stat(uri.c_str(), &st) != 0) {
      if (errno == ENOENT) return NotFound(uri + ": no such file");
      return Unavailable(uri + ": " + std::strerror(errno));
    }
    if (!S_ISREG(st.st_mode)) return InvalidArgument(uri + ": not a regular file");
    return Info(uri, st);
  }

  StatusOr<ObjectInfo> Fetch(const std::string& uri, int fd) override { return FetchFrom(uri, fd, 0, ""); }

  StatusOr<ObjectInfo> FetchFrom(const std::string& uri, int fd, uint64_t offset, const std::string& etag) override {
    int in = ::open(uri.c_str(), O_RDONLY | O_CLOEXEC);
    if (in < 0) {
      if (errno == ENOENT) return NotFound(uri + ": no such file");
      return Unavailable(uri + ": " + std::strerror(errno));
    }
    struct stat st;
    if (::fstat(in, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(in);
      return InvalidArgument(uri + ": not a regular file");
    }
    if (offset > 0) {
      if (Info(uri, st).etag != etag) {
        ::close(in);
        return FailedPrecondition(uri + ": the file changed since byte " + std::to_string(offset) +
                                  " was copied (version " + etag + ")");
      }
      if (::lseek(in, static_cast<off_t>(offset), SEEK_SET) != static_cast<off_t>(offset)) {
        ::close(in);
        return Unavailable(uri + ": cannot seek to byte " + std::to_string(offset));
      }
    }
    std::string buf(1 << 20, '\0');
    uint64_t total = offset;
    Status s;
    while (true) {
      ssize_t n = ::read(in, buf.data(), buf.size());
      if (n < 0) {
        if (errno == EINTR) continue;
        s = Unavailable(uri + ": read failed after " + std::to_string(total) + " bytes: " + std::strerror(errno));
        break;
      }
      if (n == 0) break;
      s = WriteAll(fd, buf.data(), static_cast<size_t>(n));
      if (!s.ok()) break;
      total += static_cast<uint64_t>(n);
    }
    ::close(in);
    TFHOST_RETURN_IF_ERROR(s);
    if (total != static_cast<uint64_t>(st.st_size)) {
      return Unavailable(uri + ": copied " + std::to_string(total) + " bytes but the file has " +
                         std::to_string(st.st_size) + " (changed while copying?)");
    }
    return Info(uri, st);
  }

  StatusOr<std::vector<ObjectInfo>> List(const std::string& prefix_uri) override {
    std::vector<ObjectInfo> out;
    TFHOST_RETURN_IF_ERROR(Walk(prefix_uri, 0, &out));
    std::sort(out.begin(), out.end(), [](const ObjectInfo& a, const ObjectInfo& b) { return a.uri < b.uri; });
    return out;
  }

 private:
  static ObjectInfo Info(const std::string& uri, const struct stat& st) {
    int64_t ns = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
    return ObjectInfo{uri, static_cast<uint64_t>(st.st_size), std::to_string(ns) + "-" + std::to_string(st.st_size)};
  }
  Status Walk(const std::string& dir, int depth, std::vector<ObjectInfo>* out) {
    if (depth > 32) return InvalidArgument(dir + ": directories nested too deep");
    DIR* d = ::opendir(dir.c_str());
    if (!d) return NotFound(dir + ": cannot open directory: " + std::strerror(errno));
    std::vector<std::string> names;
    while (dirent* e = ::readdir(d)) {
      std::string n = e->d_name;
      if (n == "." || n == "..") continue;
      names.push_back(n);
    }
    ::closedir(d);
    for (const std::string& n : names) {
      std::string p = dir + (dir.back() == '/' ? "" : "/") + n;
      struct stat st;
      if (::stat(p.c_str(), &st) != 0) continue;
      if (S_ISDIR(st.st_mode)) {
        TFHOST_RETURN_IF_ERROR(Walk(p, depth + 1, out));
      } else if (S_ISREG(st.st_mode)) {
        if (out->size() >= kMaxListObjects) return ResourceExhausted(dir + ": too many files");
        out->push_back(Info(p, st));
      }
    }
    return OkStatus();
  }
};

}  // namespace

S3Config S3Config::FromEnv() {
  S3Config c;
  c.access_key = Env("AWS_ACCESS_KEY_ID");
  c.secret_key = Env("AWS_SECRET_ACCESS_KEY");
  std::string region = Env("AWS_REGION");
  if (region.empty()) region = Env("AWS_DEFAULT_REGION");
  if (!region.empty()) c.region = region;
  c.endpoint = Env("AWS_ENDPOINT_URL_S3");
  if (c.endpoint.empty()) c.endpoint = Env("AWS_ENDPOINT_URL");
  return c;
}

bool IsS3Uri(std::string_view uri) { return uri.rfind("s3://", 0) == 0; }

Status ParseS3Uri(std::string_view uri, std::string* bucket, std::string* key) {
  if (!IsS3Uri(uri)) return InvalidArgument("'" + std::string(uri) + "' is not an s3://bucket/key URI");
  std::string_view rest = uri.substr(5);
  size_t slash = rest.find('/');
  *bucket = std::string(rest.substr(0, slash));
  *key = slash == std::string_view::npos ? std::string() : std::string(rest.substr(slash + 1));
  if (bucket->empty()) return InvalidArgument("'" + std::string(uri) + "': empty bucket name");
  for (char c : *bucket) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_')) {
      return InvalidArgument("'" + std::string(uri) + "': bad character in bucket name");
    }
  }
  return OkStatus();
}

std::string UriEncode(std::string_view s, bool keep_slash) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || (keep_slash && c == '/')) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 15]);
    }
  }
  return out;
}

StatusOr<ListPage> ParseListObjectsV2(std::string_view xml) {
  if (xml.find("<ListBucketResult") == std::string_view::npos) {
    return InvalidArgument("not a ListObjectsV2 answer (no <ListBucketResult>)");
  }
  ListPage page;
  std::string_view text;
  if (FindElement(xml, "IsTruncated", &text)) page.truncated = text == "true";
  if (FindElement(xml, "NextContinuationToken", &text)) {
    TFHOST_ASSIGN_OR_RETURN(page.next_token, XmlUnescape(text));
  }
  size_t pos = 0;
  std::string_view contents;
  size_t after = 0;
  while (FindElement(xml.substr(pos), "Contents", &contents, &after)) {
    pos += after;
    ObjectInfo o;
    if (!FindElement(contents, "Key", &text)) return InvalidArgument("ListObjectsV2: <Contents> without <Key>");
    TFHOST_ASSIGN_OR_RETURN(o.uri, XmlUnescape(text));
    if (!FindElement(contents, "Size", &text)) return InvalidArgument("ListObjectsV2: <Contents> without <Size>");
    TFHOST_ASSIGN_OR_RETURN(o.size, ParseSize(text));
    if (FindElement(contents, "ETag", &text)) {
      TFHOST_ASSIGN_OR_RETURN(o.etag, XmlUnescape(text));
    }
    if (page.objects.size() >= kMaxListObjects) return ResourceExhausted("ListObjectsV2: too many objects in a page");
    page.objects.push_back(std::move(o));
  }
  return page;
}

std::unique_ptr<ObjectSource> MakeS3Source(S3Config config) { return std::make_unique<S3Source>(std::move(config)); }
std::unique_ptr<ObjectSource> MakeFileSource() { return std::make_unique<FileSource>(); }

}  // namespace tfhost::data::cache
