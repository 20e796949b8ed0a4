#include "engines/rocksdb/entry_metadata.h"

#include <rocksdb/cache.h>

namespace symbiosis::rocksdb {

uint32_t EntryMetadataBytes() {
  static const uint32_t bytes = [] {
    constexpr size_t kCharge = 4096;
    const auto cache = ::rocksdb::NewLRUCache(1 << 20, /*num_shard_bits=*/0);
    if (!cache->Insert("0123456789abcdef", nullptr, kCharge, nullptr).ok()) return uint32_t{0};
    return static_cast<uint32_t>(cache->GetUsage() - kCharge);
  }();
  return bytes;
}

}  // namespace symbiosis::rocksdb
