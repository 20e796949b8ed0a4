// ResizableCache: a sharded LRU leveldb::Cache whose capacity can change
// while the DB runs (LevelDB's own NewLRUCache cannot), and which tells an
// observer about every lookup of a data block.
//
// Semantics are those of LevelDB's LRU cache: entries are charged their
// `charge`; an entry referenced by a client (an open Handle) is never
// freed, and stays out of the eviction order until released; usage may
// exceed the capacity while handles pin entries. Capacity 0 turns caching
// off (Insert returns a handle to an entry that is not kept).
//
// Why report at Insert rather than at a missed Lookup: LevelDB looks a block
// up, reads (offset, size + 5) through the Env on the same thread, then
// inserts it with charge = its uncompressed size; only at Insert are the
// block's file and sizes all known (see BlockObserver). A lookup that misses
// and never inserts (compaction reads with fill_cache = false) is not a
// block access of the foreground workload.

#ifndef SYMBIOSIS_ENGINES_LEVELDB_RESIZABLE_CACHE_H_
#define SYMBIOSIS_ENGINES_LEVELDB_RESIZABLE_CACHE_H_

#include <leveldb/cache.h>

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>

namespace symbiosis::leveldb {

// What the cache keeps per entry about the block, from the observer.
struct BlockTag {
  uint64_t file_id = 0;
  uint32_t disk_size = 0;
  bool tracked = false;  // false: not a foreground data block; not reported
};

class BlockObserver {
 public:
  virtual ~BlockObserver() = default;
  // A block is being inserted after a miss. `offset` comes from the cache
  // key (LevelDB's key is cache id || offset, fixed64 each); `charge` is
  // its uncompressed size. Returns the tag to keep with the entry.
  virtual BlockTag OnInsert(uint64_t offset, size_t charge) = 0;
  // A lookup hit an entry inserted with `tag` (tracked only).
  virtual void OnHit(const BlockTag& tag, uint64_t offset, size_t charge) = 0;
};

class ResizableCache final : public ::leveldb::Cache {
 public:
  // REQUIRES: `observer` (may be null) outlives the cache.
  ResizableCache(size_t capacity, BlockObserver* observer);
  ~ResizableCache() override;

  Handle* Insert(const ::leveldb::Slice& key, void* value, size_t charge,
                 void (*deleter)(const ::leveldb::Slice& key, void* value)) override;
  Handle* Lookup(const ::leveldb::Slice& key) override;
  void Release(Handle* handle) override;
  void* Value(Handle* handle) override;
  void Erase(const ::leveldb::Slice& key) override;
  uint64_t NewId() override;
  void Prune() override;
  size_t TotalCharge() const override;

  // Changes the capacity; shrinking evicts unpinned entries, oldest first,
  // until usage fits (each shard gets an equal part, rounded up).
  void SetCapacity(size_t capacity);
  size_t capacity() const { return capacity_.load(std::memory_order_relaxed); }

 private:
  class Shard;
  static constexpr int kShardBits = 4;
  static constexpr int kShards = 1 << kShardBits;

  Shard& ShardOf(uint32_t hash) { return *shards_[hash >> (32 - kShardBits)]; }

  std::array<std::unique_ptr<Shard>, kShards> shards_;
  std::atomic<size_t> capacity_;
  std::atomic<uint64_t> last_id_{0};
  BlockObserver* const observer_;
};

}  // namespace symbiosis::leveldb

#endif  // SYMBIOSIS_ENGINES_LEVELDB_RESIZABLE_CACHE_H_
