// Adapter: turns RocksDB's block-cache, secondary-cache and file-system
// callbacks into the Controller's block accesses, and counts them.
//
// A foreground data-block read is seen on one thread as:
//   block cache Lookup(key)           -> OnLookupStart, then OnLookupEnd
//     (primary miss) secondary Lookup -> OnSecondaryLookup (hit or miss)
//       (it missed) flash tier hit   -> OnFlashHit
//   (both missed) table file Read     -> OnRead(file, offset, n)
//   block cache Insert(key)           -> OnInsert(key, charge, size)
// and an insert into the primary that evicts a block may have the
// secondary store it (compressed): OnSecondaryStore, on the same thread.
// A primary hit is an application-cache hit. A secondary hit is an
// application miss that the second tier served (engine budget). A read is
// an application miss that went to the table file: with the kernel budget
// the page cache may have held it (probed), with the engine budget
// (the file system wrapper reads with O_DIRECT) it is a device read. The
// miss is reported at the Insert that follows, timed from the read to the
// Insert's return (read, checksum, decompression, insert), and the pair
// (key, read) teaches the CacheKeyMap the key's file and offset. A block's
// size to the ghosts is its contents' (what its cache item helper says):
// RocksDB charges a block read from its table its memory usage, about 90
// bytes more on glibc, but one its secondary promotes only its contents,
// so the charge of a hit depends on where the block came from. The
// difference is learned at the inserts and given to the Controller
// (SetReadChargeOverhead). A miss's
// time leaves out the stores into the secondary made during it: they are
// reported apart (Controller::RecordSecondTierStore).
//
// Background threads (RocksDB's flush and compaction pools, named
// "rocksdb:...") report nothing: compaction reads are not the workload
// whose latency the split optimizes.
//
// Thread-safe; counters are per thread (ThreadCounters).

#ifndef SYMBIOSIS_ENGINES_ROCKSDB_ADAPTER_H_
#define SYMBIOSIS_ENGINES_ROCKSDB_ADAPTER_H_

#include <atomic>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "engines/rocksdb/cache_key_map.h"
#include "online/controller_link.h"
#include "symbiosis/controller.h"
#include "symbiosis/sched_times.h"
#include "base/thread_counters.h"

namespace symbiosis::rocksdb {

struct AccessCounts {
  uint64_t lookups = 0;          // foreground block-cache lookups
  uint64_t hits = 0;             // of which primary hits
  uint64_t reads = 0;            // misses served below the primary cache
  uint64_t second_tier_hits = 0;  // of which the second tier served
  uint64_t flash_hits = 0;       // of which the flash tier served
  uint64_t miss_ns = 0;          // summed time of those misses
  uint64_t second_tier_stores = 0;  // blocks the secondary stored, compressed
  uint64_t store_ns = 0;            // summed time of those stores
  uint64_t unmapped = 0;         // lookups whose file was not known yet
};

class Adapter {
 public:
  Adapter() = default;

  // Where events go (null controller: counting only), and whether
  // accesses are suspended.
  ControllerLink& link() { return link_; }
  const ControllerLink& link() const { return link_; }

  // Whether the calling thread reports: false on RocksDB's background
  // threads (decided once per thread from its name).
  static bool Foreground();

  // Block cache. OnLookupStart before the lookup is passed on; OnLookupEnd
  // after, with whether a handle came back and the size of its contents
  // (its charge where no helper tells it; 0 for a pending handle).
  void OnLookupStart(std::string_view key);
  void OnLookupEnd(std::string_view key, bool found, size_t size);
  // The secondary cache was consulted during the current lookup, from
  // `start_ns` (steady clock). A hit is timed from then to OnLookupEnd:
  // lookup, decompression, the object's creation, its insert into the
  // primary and the eviction it causes, less any store (below).
  void OnSecondaryLookup(bool hit, uint64_t start_ns);
  // The flash tier served the lookup the secondary missed (after
  // OnSecondaryLookup). To the Controller it is a device read, timed as a
  // secondary hit is.
  void OnFlashHit();
  // An insert's charge and its contents' size (the charge where no helper
  // tells it).
  void OnInsert(std::string_view key, size_t charge, size_t size);
  // The secondary stored a block (not a dummy) in `ns` on this thread.
  void OnSecondaryStore(uint64_t ns);
  // The flash tier took `ns` of this thread to consider an insert: left
  // out of the miss it happened in, as a store is, but no store to the
  // Controller (its model has no flash).
  void OnFlashInsert(uint64_t ns);

  // A foreground read of `n` bytes at `offset` of table `file_id`;
  // `second_tier_hit`: the page cache held them all (kernel budget).
  // `start_ns` when the read began (steady clock); `sched_start` for a
  // device read, the thread's scheduler times then, or nullopt.
  void OnRead(uint64_t file_id, uint64_t offset, uint64_t n, bool second_tier_hit,
              uint64_t start_ns, std::optional<SchedTimes> sched_start);

  // Returns the file's cache-key prefixes (for the secondary cache).
  std::vector<uint64_t> OnFileDeleted(uint64_t file_id);
  void OnFileOpened(uint64_t file_id, uint64_t bytes);

  const CacheKeyMap& key_map() const { return key_map_; }
  AccessCounts Counts() const;

 private:
  struct Counters {
    Counter lookups;
    Counter hits;
    Counter reads;
    Counter second_tier_hits;
    Counter flash_hits;
    Counter miss_ns;
    Counter second_tier_stores;
    Counter store_ns;
    Counter unmapped;
  };

  // A hit's on-disk size is unknown (the key map knows where a block is,
  // not how large it is on disk): its size times the compressed over
  // uncompressed bytes of recent reads, kept in 1/4096ths. Racy updates
  // are fine; any recent value will do.
  uint32_t DiskPerMem() const;
  uint32_t DiskBytes(size_t size) const;
  void LearnRatio(uint64_t disk, size_t size);
  // The mean of charge - size over the inserts of blocks read, to the
  // Controller when it moves by 4 bytes or more.
  void LearnReadOverhead(size_t charge, size_t size);

  ControllerLink link_;
  CacheKeyMap key_map_;
  std::atomic<uint32_t> disk_per_mem_{4096 / 2};
  std::atomic<uint32_t> read_overhead_{0};       // in 1/16 bytes; 0 unknown
  static constexpr uint32_t kNeverTold = UINT32_MAX;
  std::atomic<uint32_t> read_overhead_told_{kNeverTold};  // bytes, to the Controller
  ThreadCounters<Counters> counts_;
};

}  // namespace symbiosis::rocksdb

#endif  // SYMBIOSIS_ENGINES_ROCKSDB_ADAPTER_H_
