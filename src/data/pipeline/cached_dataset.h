// TFRecord datasets whose shards live in object storage (s3://bucket/...) or
// on a network filesystem, read through the tiered cache
// (data/cache/tiered_cache.h): each shard is pulled into the local-disk
// cache (and RAM tier) on first use and verified before any record of it is
// read, and while shard i is read the cache already fetches the next shards
// in the order this pipeline will open them.
//
//   auto cache = std::shared_ptr(*TieredCache::Open({.disk = {.dir = "/nvme/cache"}, .read_ahead = 2}));
//   auto records = CachedTFRecordDataset(cache, ListObjects(cache, "s3://bucket/train/").Shard(n, i),
//                                        {.cycle_length = 2});
//
// The order given to TieredCache::SetOrder is the file list as this pass
// will consume it (after Shard/Shuffle of the list), so read-ahead follows
// the interleave exactly: with cycle_length c the first c shards open at
// once, and each later one opens when a slot frees, in list order.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "data/cache/tiered_cache.h"
#include "data/pipeline/pipeline.h"
#include "data/tfrecord_reader.h"

namespace tfhost::data::pipeline {

// URIs under a prefix ("s3://bucket/dir/", a directory) or the object itself,
// sorted; listed when an iterator starts. An empty listing is NOT_FOUND.
Pipeline<std::string> ListObjects(std::shared_ptr<cache::TieredCache> cache, std::string uri);

// Records of every shard in `uris`, through `cache`. Reads from the RAM tier
// when `from_ram` (the cache keeps the hottest shards' bytes), otherwise from
// the cached local file.
Pipeline<std::string> CachedTFRecordDataset(std::shared_ptr<cache::TieredCache> cache, Pipeline<std::string> uris,
                                            InterleaveOptions interleave = {}, TFRecordReaderOptions options = {},
                                            bool from_ram = true);

}  // namespace tfhost::data::pipeline
