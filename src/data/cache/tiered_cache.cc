// RAM tier and read-ahead over the disk tier.
#include "data/cache/tiered_cache.h"

#include <algorithm>

namespace tfhost::data::cache {

std::shared_ptr<const std::string> MemoryTier::Get(const std::string& uri) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = map_.find(uri);
  if (it == map_.end()) return nullptr;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->second;
}

void MemoryTier::Put(const std::string& uri, std::shared_ptr<const std::string> bytes) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = map_.find(uri);
  if (it != map_.end()) {
    bytes_ -= it->second->second->size();
    lru_.erase(it->second);
    map_.erase(it);
  }
  if (!bytes || bytes->size() > max_bytes_) return;
  lru_.emplace_front(uri, std::move(bytes));
  map_[uri] = lru_.begin();
  bytes_ += lru_.front().second->size();
  while (bytes_ > max_bytes_ && !lru_.empty()) {
    bytes_ -= lru_.back().second->size();
    map_.erase(lru_.back().first);
    lru_.pop_back();
  }
}

void MemoryTier::Erase(const std::string& uri) {
  std::lock_guard<std::mutex> l(mu_);
  auto it = map_.find(uri);
  if (it == map_.end()) return;
  bytes_ -= it->second->second->size();
  lru_.erase(it->second);
  map_.erase(it);
}

bool MemoryTier::Contains(const std::string& uri) {
  std::lock_guard<std::mutex> l(mu_);
  return map_.count(uri) > 0;
}

uint64_t MemoryTier::bytes() {
  std::lock_guard<std::mutex> l(mu_);
  return bytes_;
}

std::vector<std::string> MemoryTier::Keys() {
  std::lock_guard<std::mutex> l(mu_);
  std::vector<std::string> out;
  for (const auto& [k, v] : lru_) out.push_back(k);
  return out;
}

TieredCache::TieredCache(TieredCacheOptions options, std::unique_ptr<DiskCache> disk)
    : options_(std::move(options)), disk_(std::move(disk)), ram_(options_.ram_bytes) {
  int n = std::clamp(options_.read_ahead_threads, 0, 64);
  if (options_.read_ahead <= 0) n = 0;
  for (int i = 0; i < n; ++i) threads_.emplace_back([this] { Worker(); });
}

StatusOr<std::unique_ptr<TieredCache>> TieredCache::Open(TieredCacheOptions options) {
  TFHOST_ASSIGN_OR_RETURN(auto disk, DiskCache::Open(options.disk));
  return std::unique_ptr<TieredCache>(new TieredCache(std::move(options), std::move(disk)));
}

TieredCache::~TieredCache() {
  {
    std::lock_guard<std::mutex> l(mu_);
    stop_ = true;
    queue_.clear();
  }
  cv_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void TieredCache::SetOrder(std::vector<std::string> uris) {
  std::lock_guard<std::mutex> l(mu_);
  order_ = std::move(uris);
  position_.clear();
  for (size_t i = 0; i < order_.size(); ++i) position_.emplace(order_[i], i);
}

void TieredCache::ScheduleAfter(const std::string& uri) {
  if (threads_.empty()) return;
  {
    std::lock_guard<std::mutex> l(mu_);
    auto it = position_.find(uri);
    if (it == position_.end()) return;
    for (size_t i = it->second + 1; i < order_.size() && i <= it->second + options_.read_ahead; ++i) {
      const std::string& next = order_[i];
      if (pending_.count(next) || (options_.ram_bytes > 0 && ram_.Contains(next))) continue;
      pending_.insert(next);
      queue_.push_back(next);
    }
  }
  cv_.notify_all();
}

void TieredCache::Worker() {
  while (true) {
    std::string uri;
    {
      std::unique_lock<std::mutex> l(mu_);
      cv_.wait(l, [&] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      uri = queue_.front();
      queue_.pop_front();
    }
    bool ok;
    if (options_.ram_bytes > 0) ok = LoadIntoRam(uri).ok();
    else ok = disk_->Get(uri).ok();
    {
      std::lock_guard<std::mutex> l(mu_);
      pending_.erase(uri);
      ++(ok ? stats_.read_ahead_done : stats_.read_ahead_failed);
      if (pending_.empty()) idle_cv_.notify_all();
    }
  }
}

void TieredCache::WaitForReadAhead() {
  std::unique_lock<std::mutex> l(mu_);
  idle_cv_.wait(l, [&] { return pending_.empty() || stop_; });
}

StatusOr<std::shared_ptr<const std::string>> TieredCache::LoadIntoRam(const std::string& uri) {
  if (auto hot = ram_.Get(uri)) return hot;
  auto bytes = std::make_shared<std::string>();
  TFHOST_ASSIGN_OR_RETURN(CachedObject obj, disk_->Get(uri, bytes.get()));
  (void)obj;
  std::shared_ptr<const std::string> frozen = std::move(bytes);
  ram_.Put(uri, frozen);
  return frozen;
}

StatusOr<std::string> TieredCache::OpenPath(const std::string& uri) {
  ScheduleAfter(uri);
  TFHOST_ASSIGN_OR_RETURN(CachedObject obj, disk_->Get(uri));
  return obj.path;
}

StatusOr<std::shared_ptr<const std::string>> TieredCache::ReadBytes(const std::string& uri) {
  ScheduleAfter(uri);
  if (auto hot = ram_.Get(uri)) {
    std::lock_guard<std::mutex> l(mu_);
    ++stats_.ram_hits;
    return hot;
  }
  {
    std::lock_guard<std::mutex> l(mu_);
    ++stats_.ram_misses;
  }
  if (options_.ram_bytes == 0) {
    auto bytes = std::make_shared<std::string>();
    TFHOST_ASSIGN_OR_RETURN(CachedObject obj, disk_->Get(uri, bytes.get()));
    (void)obj;
    return std::shared_ptr<const std::string>(std::move(bytes));
  }
  return LoadIntoRam(uri);
}

TieredStats TieredCache::stats() {
  std::lock_guard<std::mutex> l(mu_);
  TieredStats s = stats_;
  s.ram_bytes = ram_.bytes();
  return s;
}

}  // namespace tfhost::data::cache
