#include "data/pipeline/cached_dataset.h"

#include <cstring>

#include "data/input_stream.h"

namespace tfhost::data::pipeline {
namespace {

// Serves bytes the RAM tier holds, without copying them.
class SharedBytesStream : public InputStream {
 public:
  explicit SharedBytesStream(std::shared_ptr<const std::string> bytes) : bytes_(std::move(bytes)) {}
  StatusOr<size_t> Read(char* buf, size_t n) override {
    size_t take = std::min(n, bytes_->size() - pos_);
    std::memcpy(buf, bytes_->data() + pos_, take);
    pos_ += take;
    return take;
  }
  std::optional<uint64_t> Size() const override { return bytes_->size(); }
  uint64_t RawBytesConsumed() const override { return pos_; }

 private:
  std::shared_ptr<const std::string> bytes_;
  size_t pos_ = 0;
};

class ErrorIterator : public Iterator<std::string> {
 public:
  explicit ErrorIterator(Status s) : s_(std::move(s)) {}
  NextResult<std::string> Next() override { return s_; }
  void Cancel() override {}

 private:
  Status s_;
};

// One shard's records; the shard is fetched (or found in the cache) on the
// first Next(), so opening a slot of the interleave is what schedules the
// read-ahead of the shards after it.
class CachedRecordIterator : public Iterator<std::string> {
 public:
  CachedRecordIterator(std::shared_ptr<cache::TieredCache> cache, std::string uri, TFRecordReaderOptions options,
                       bool from_ram)
      : cache_(std::move(cache)), uri_(std::move(uri)), options_(options), from_ram_(from_ram) {}
  NextResult<std::string> Next() override {
    if (cancelled_) return CancelledError();
    if (!reader_) {
      if (from_ram_) {
        auto bytes = cache_->ReadBytes(uri_);
        if (!bytes.ok()) return bytes.status().WithContext("reading " + uri_ + " through the cache");
        // Compression is detected from the bytes and the URI, as for files.
        TFRecordReaderOptions o = options_;
        if (!o.compression) {
          o.compression = DetectCompression(std::string_view(**bytes).substr(0, 12), uri_);
        }
        reader_ = TFRecordReader::FromStream(std::make_unique<SharedBytesStream>(*bytes), uri_, o);
      } else {
        auto path = cache_->OpenPath(uri_);
        if (!path.ok()) return path.status().WithContext("reading " + uri_ + " through the cache");
        TFHOST_ASSIGN_OR_RETURN(reader_, TFRecordReader::Open(*path, options_));
      }
    }
    std::string_view view;
    TFHOST_ASSIGN_OR_RETURN(bool got, reader_->ReadView(&view));
    if (!got) return std::optional<std::string>();
    return std::optional<std::string>(std::string(view));
  }
  void Cancel() override { cancelled_ = true; }

 private:
  std::shared_ptr<cache::TieredCache> cache_;
  std::string uri_;
  TFRecordReaderOptions options_;
  bool from_ram_;
  std::unique_ptr<TFRecordReader> reader_;
  std::atomic<bool> cancelled_{false};
};

}  // namespace

Pipeline<std::string> ListObjects(std::shared_ptr<cache::TieredCache> cache, std::string uri) {
  return Pipeline<std::string>([cache, uri]() -> IteratorPtr<std::string> {
    auto objects = cache->disk().Expand(uri);
    if (!objects.ok()) return std::make_unique<ErrorIterator>(objects.status());
    std::vector<std::string> uris;
    for (const auto& o : *objects) uris.push_back(o.uri);
    return Pipeline<std::string>::FromVector(std::move(uris)).MakeIterator();
  });
}

Pipeline<std::string> CachedTFRecordDataset(std::shared_ptr<cache::TieredCache> cache, Pipeline<std::string> uris,
                                            InterleaveOptions interleave, TFRecordReaderOptions options,
                                            bool from_ram) {
  return Pipeline<std::string>([cache, uris, interleave, options, from_ram]() -> IteratorPtr<std::string> {
    // The list is small (one entry per shard): take it whole so the cache
    // knows the order this pass opens shards in.
    std::vector<std::string> order;
    auto it = uris.MakeIterator();
    while (true) {
      auto next = it->Next();
      if (!next.ok()) return std::make_unique<ErrorIterator>(next.status());
      if (!*next) break;
      order.push_back(std::move(**next));
    }
    cache->SetOrder(order);
    auto shard = [cache, options, from_ram](const std::string& uri) {
      return Pipeline<std::string>([cache, uri, options, from_ram] {
        return IteratorPtr<std::string>(new CachedRecordIterator(cache, uri, options, from_ram));
      });
    };
    return Pipeline<std::string>::FromVector(std::move(order))
        .Interleave<std::string>(shard, interleave)
        .MakeIterator();
  });
}

}  // namespace tfhost::data::pipeline
