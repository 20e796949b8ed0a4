// RocksDbCacheModel: RocksDB 7.8's block cache as the engine budget builds
// it, an LRUCache of uncompressed blocks above a CompressedSecondaryCache
// of compressed ones, simulated entry by entry, so that a ghost can tell
// what each tier would hit at a given split of the memory.
//
// No LRU stack predicts these two tiers
// (docs/decisions/rocksdb-tier-model.md):
//  - Each cache inserts at its midpoint. The top high_pri_pool_ratio of a
//    cache holds the entries that were hit since they came in; a new entry
//    starts below them; the pool's overflow moves down (a segmented LRU).
//  - The secondary admits a block at its second eviction from the primary:
//    the first leaves a dummy entry (metadata only) to be found.
//  - A primary miss that the secondary serves leaves the block there and
//    puts a dummy in the primary; at the next miss on that block (the dummy
//    found) the block moves up, leaving a dummy in the secondary.
//  - Every entry is also charged its metadata (kFullChargeCacheMetadata).
// So a block the secondary serves needs a second miss to enter the primary,
// and a block hit once in the primary outlives any number of blocks read
// once: on a skewed workload the primary holds its hot blocks better than
// an LRU of its size would.
//
// Both caches are sharded as RocksDB shards them: 2^bits shards, each an
// LRU of ceil(capacity / 2^bits) bytes, a block going to the shard that
// the low bits of its key's hash name, the same hash for both caches (so
// a block-cache shard's evictions go to the secondary shards that share
// its low bits). The shard counts are fixed when the caches are created;
// near the edge of fitting, the fuller shards miss where one cache would
// not. The model's hash is its own, not RocksDB's of the engine's cache
// key: shard loads match in distribution, not block by block. Blocks are
// keyed by Block::key() and charged disk_size in the secondary (the
// table's compression stands for the secondary's). In the primary a block
// the secondary serves is charged mem_size, its contents (7.8's create
// callback charges the size it is given), but one read from the device
// its memory usage (the allocation's usable size and the Block object):
// read_charge_overhead more. With no second tier every block comes from
// the device, so a block cache of M holds fewer blocks than the contents'
// sizes say: 2.2% fewer of 4 KiB.
//
// Not thread-safe.

#ifndef SYMBIOSIS_ROCKSDB_CACHE_MODEL_H_
#define SYMBIOSIS_ROCKSDB_CACHE_MODEL_H_

#include <cstddef>
#include <cstdint>
#include <memory>

#include "symbiosis/block.h"

namespace symbiosis {

struct RocksDbCacheModelOptions {
  uint64_t primary_bytes = 0;
  uint64_t secondary_bytes = 0;
  // LRUCacheOptions::high_pri_pool_ratio of both caches (RocksDB's
  // default); 0 makes each a plain LRU.
  double high_pri_pool_ratio = 0.5;
  // What RocksDB charges for an entry's metadata (its LRUHandle and key):
  // the charge of a dummy entry, added to every other's.
  uint32_t entry_metadata_bytes = 88;
  // What the primary charges a block read from the device beyond its
  // mem_size (see above); the engine's, learned as it reads.
  uint32_t read_charge_overhead = 0;
  // Each cache's num_shard_bits as created (RocksDbDefaultShardBits for
  // RocksDB's default); 0, one shard.
  int primary_shard_bits = 0;
  int secondary_shard_bits = 0;
};

// The shard bits RocksDB 7.8 gives a cache of `capacity_bytes` created
// with num_shard_bits -1: shards of at least 512 KiB, at most 64 of them.
int RocksDbDefaultShardBits(uint64_t capacity_bytes);

class RocksDbCacheModel {
 public:
  enum class Served { kPrimary, kSecondary, kDevice };

  // REQUIRES: 0 <= options.high_pri_pool_ratio <= 1; shard bits in
  // [0, kMaxShardBits].
  static constexpr int kMaxShardBits = 19;  // RocksDB's own bound
  explicit RocksDbCacheModel(const RocksDbCacheModelOptions& options);
  ~RocksDbCacheModel();
  // A copy holds the same entries in the same order: a snapshot to run
  // another candidate from.
  RocksDbCacheModel(const RocksDbCacheModel& other);
  RocksDbCacheModel& operator=(const RocksDbCacheModel& other);

  // One data-block read as RocksDB's table reader does it: a lookup in
  // the primary, then the secondary; on a miss, the block read from the
  // device is inserted into the primary. Returns which tier served it.
  Served Access(const Block& block);

  // Filling from cold: the secondary stores a block at its first eviction,
  // without the dummy (see GhostSim: a ghost cannot wait out the engine's
  // history). Off by default.
  void SetFastFill(bool on) { fast_fill_ = on; }

  // RocksDbCacheModelOptions::read_charge_overhead, for the reads to come.
  void SetReadChargeOverhead(uint32_t bytes) { options_.read_charge_overhead = bytes; }

  // Resizes; a shrink evicts at once (the primary's evictions go to the
  // secondary, as RocksDB's SetCapacity does).
  void SetCapacities(uint64_t primary_bytes, uint64_t secondary_bytes);

  // Resizes as if the split had been this one for long, which a stage of a
  // few hundred thousand accesses cannot wait out: each block-cache shard's
  // new room takes the most recently used of the secondary's blocks that
  // belong to it (in the engine they would come up at their next misses,
  // charged as promoted; with no secondary left, as read from the device,
  // the only way they could have come), and what the block cache gives up
  // is stored below at once. But for no block cache at all: then nothing
  // enters the secondary again, so what the shrink leaves out stays out,
  // and it is demoted by RocksDB's rule (a block evicted for the first time
  // leaves only a dummy).
  void Resettle(uint64_t primary_bytes, uint64_t secondary_bytes);

  // Blocks stored in the secondary so far (not dummies), each compressed
  // by RocksDB on the thread whose insert evicted it: a cost per access
  // that depends on the split (none where the secondary is never found).
  uint64_t stores() const { return stores_; }

  // Bytes charged in each cache, dummies included.
  uint64_t primary_used() const;
  uint64_t secondary_used() const;
  uint64_t primary_capacity() const;
  uint64_t secondary_capacity() const;
  size_t MemoryUsage() const;

 private:
  class PooledLru;
  class ShardedLru;
  // Inserts into the secondary the real entries the primary evicted.
  void Demote();

  RocksDbCacheModelOptions options_;
  bool fast_fill_ = false;
  uint64_t stores_ = 0;
  std::unique_ptr<ShardedLru> primary_;
  std::unique_ptr<ShardedLru> secondary_;
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_ROCKSDB_CACHE_MODEL_H_
