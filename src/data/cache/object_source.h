// Where the tiered cache (docs/data_cache.md) pulls objects from: an
// S3-compatible object store over HTTP (libcurl, AWS SigV4 signing) or a
// local/network filesystem path. A source only moves bytes; the disk cache
// decides what is kept, checks it and renames it into place.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace tfhost::data::cache {

// Size and version of a remote object. `etag` is the object store's ETag
// (quotes kept) or, for files, "<mtime_ns>-<size>".
struct ObjectInfo {
  std::string uri;
  uint64_t size = 0;
  std::string etag;
};

// Credentials and endpoint for S3-compatible stores.
struct S3Config {
  std::string endpoint;  // "http://127.0.0.1:9000"; empty: AWS (virtual-hosted https)
  std::string region = "us-east-1";
  std::string access_key;
  std::string secret_key;
  long connect_timeout_s = 10;
  // A transfer slower than 1 byte/s for this long is abandoned (a hung server).
  long stall_timeout_s = 30;
  // Attempts per request for transport errors and 5xx answers (>= 1).
  int attempts = 3;
  // Tests only: limits download speed (bytes/s, 0 = unlimited).
  int64_t max_recv_bytes_per_s = 0;

  // AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION (or
  // AWS_DEFAULT_REGION), AWS_ENDPOINT_URL (or AWS_ENDPOINT_URL_S3).
  static S3Config FromEnv();
};

// "s3://bucket/key" -> bucket, key. Errors name the URI.
Status ParseS3Uri(std::string_view uri, std::string* bucket, std::string* key);
bool IsS3Uri(std::string_view uri);

// One object from a ListObjectsV2 page.
struct ListPage {
  std::vector<ObjectInfo> objects;  // uri holds the key only
  bool truncated = false;
  std::string next_token;
};
// Parses a ListObjectsV2 XML answer. Untrusted: unknown elements are
// ignored, entities are decoded, malformed numbers and structure are errors.
StatusOr<ListPage> ParseListObjectsV2(std::string_view xml);
// Percent-encodes everything but unreserved characters (and '/' when keep_slash).
std::string UriEncode(std::string_view s, bool keep_slash);

class ObjectSource {
 public:
  virtual ~ObjectSource() = default;
  virtual StatusOr<ObjectInfo> Stat(const std::string& uri) = 0;
  // Writes the whole object to `fd` (at its current position). Returns what
  // was received; an error when fewer bytes than announced arrived.
  virtual StatusOr<ObjectInfo> Fetch(const std::string& uri, int fd) = 0;
  // Resumes a download: writes bytes [offset, size) of the object to `fd`
  // (at its current position), provided the object still has ETag `etag`.
  // Returns the whole object's size and ETag. FAILED_PRECONDITION when the
  // object changed since the first part was fetched; a source that cannot
  // serve a range sends the whole object, after truncating `fd` to 0 and
  // rewinding it (the caller checks the final size either way).
  virtual StatusOr<ObjectInfo> FetchFrom(const std::string& uri, int fd, uint64_t offset,
                                         const std::string& etag) = 0;
  // Objects under a prefix ("s3://b/dir/", or a directory), sorted by URI.
  virtual StatusOr<std::vector<ObjectInfo>> List(const std::string& prefix_uri) = 0;
};

// S3-compatible store (path-style URLs when an endpoint is set).
std::unique_ptr<ObjectSource> MakeS3Source(S3Config config);
// Files: uri is a path; Fetch copies it.
std::unique_ptr<ObjectSource> MakeFileSource();

}  // namespace tfhost::data::cache
