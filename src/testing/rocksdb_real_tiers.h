// RealTiers: RocksDB 7.8's own LRUCache (high_pri_pool_ratio 0.5) above
// its CompressedSecondaryCache, one shard each unless told, used as the
// table reader uses them, to hold RocksDbCacheModel against (tests,
// bench/rocksdb_shards.cc); ModelTiers, the model behind the same calls;
// ReplaySecondHalf, what either serves of a stream of block numbers.
// Blocks are numbers; each is a string of kDiskBytes, charged kMemBytes in
// the block cache and stored uncompressed below, as if compressed 2:1.

#ifndef SYMBIOSIS_TESTING_ROCKSDB_REAL_TIERS_H_
#define SYMBIOSIS_TESTING_ROCKSDB_REAL_TIERS_H_

#include <rocksdb/cache.h>
#include <rocksdb/perf_context.h>
#include <rocksdb/secondary_cache.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "symbiosis/block.h"
#include "model/rocksdb_cache_model.h"
#include "testing/rocksdb_string_values.h"

namespace symbiosis::testing {

class RealTiers {
 public:
  static constexpr uint32_t kMemBytes = 4096;
  static constexpr uint32_t kDiskBytes = 2048;

  // The shard bits: each cache's num_shard_bits (-1: RocksDB's default,
  // shards of at least 512 KiB, at most 64).
  RealTiers(uint64_t primary_bytes, uint64_t secondary_bytes, int primary_shard_bits = 0,
            int secondary_shard_bits = 0) {
    ::rocksdb::CompressedSecondaryCacheOptions s;
    s.capacity = secondary_bytes;
    s.num_shard_bits = secondary_shard_bits;
    s.compression_type = ::rocksdb::kNoCompression;
    ::rocksdb::LRUCacheOptions p(primary_bytes, primary_shard_bits, false, 0.5);
    secondary_ = ::rocksdb::NewCompressedSecondaryCache(s);
    p.secondary_cache = secondary_;
    cache_ = ::rocksdb::NewLRUCache(p);
  }

  // As the Resizer does: the shrinking cache first.
  void SetCapacities(uint64_t primary_bytes, uint64_t secondary_bytes) {
    if (primary_bytes < cache_->GetCapacity()) {
      cache_->SetCapacity(primary_bytes);
      secondary_->SetCapacity(secondary_bytes).PermitUncheckedError();
    } else {
      secondary_->SetCapacity(secondary_bytes).PermitUncheckedError();
      cache_->SetCapacity(primary_bytes);
    }
  }

  // Reads block `i`: a lookup through both tiers, and on a miss in both,
  // its insert into the block cache. Returns which tier served it.
  // Throws std::runtime_error if RocksDB refuses the insert.
  RocksDbCacheModel::Served Access(uint64_t i) {
    using Served = RocksDbCacheModel::Served;
    char key[16] = {};
    std::memcpy(key, &i, sizeof i);
    bool created = false;
    const ::rocksdb::Cache::CreateCallback create = [&created](const void* buf, size_t size,
                                                               void** out, size_t* charge) {
      created = true;
      *out = new std::string(static_cast<const char*>(buf), size);
      *charge = kMemBytes;
      return ::rocksdb::Status::OK();
    };
    ::rocksdb::Cache::Handle* h = cache_->Lookup(::rocksdb::Slice(key, 16), &kStringHelper, create,
                                                 ::rocksdb::Cache::Priority::LOW, /*wait=*/true);
    const Served served =
        h == nullptr ? Served::kDevice : created ? Served::kSecondary : Served::kPrimary;
    if (h == nullptr) {
      const ::rocksdb::Status s =
          cache_->Insert(::rocksdb::Slice(key, 16), new std::string(kDiskBytes, 'v'),
                         &kStringHelper, kMemBytes, &h, ::rocksdb::Cache::Priority::LOW);
      if (!s.ok()) throw std::runtime_error("RealTiers: insert refused: " + s.ToString());
    }
    cache_->Release(h);
    return served;
  }

  // Blocks the secondary stored (not dummies), from the thread's perf
  // context (counted at RocksDB's default level): this thread makes every
  // insert.
  static uint64_t Stores() {
    return ::rocksdb::get_perf_context()->compressed_sec_cache_insert_real_count;
  }

 private:
  std::shared_ptr<::rocksdb::SecondaryCache> secondary_;
  std::shared_ptr<::rocksdb::Cache> cache_;
};

// A RocksDbCacheModel fed RealTiers's blocks.
struct ModelTiers {
  // Block `i`, of RealTiers's sizes.
  static Block BlockOf(uint64_t i) {
    return Block{1, i * RealTiers::kDiskBytes, RealTiers::kDiskBytes, RealTiers::kMemBytes};
  }

  explicit ModelTiers(const RocksDbCacheModelOptions& o) : model(o) {}
  RocksDbCacheModel::Served Access(uint64_t i) { return model.Access(BlockOf(i)); }
  uint64_t Stores() const { return model.stores(); }

  RocksDbCacheModel model;
};

struct TierRatios {
  double primary = 0;    // hits over accesses
  double secondary = 0;  // of the misses, served by the secondary (1 if none missed)
  double stores = 0;     // blocks stored in the secondary per access
};

// Feeds `stream` to `tiers` (RealTiers or ModelTiers) and counts its
// second half.
template <typename Tiers>
TierRatios ReplaySecondHalf(Tiers& tiers, const std::vector<uint64_t>& stream) {
  using Served = RocksDbCacheModel::Served;
  uint64_t counted = 0, primary = 0, secondary = 0, stores_before = 0;
  for (size_t n = 0; n < stream.size(); ++n) {
    if (n == stream.size() / 2) stores_before = tiers.Stores();
    const Served s = tiers.Access(stream[n]);
    if (n < stream.size() / 2) continue;
    ++counted;
    primary += s == Served::kPrimary;
    secondary += s == Served::kSecondary;
  }
  return TierRatios{
      static_cast<double>(primary) / counted,
      counted > primary ? static_cast<double>(secondary) / (counted - primary) : 1.0,
      static_cast<double>(tiers.Stores() - stores_before) / counted};
}

}  // namespace symbiosis::testing

#endif  // SYMBIOSIS_TESTING_ROCKSDB_REAL_TIERS_H_
