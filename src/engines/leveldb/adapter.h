// Adapter: turns LevelDB's cache and Env callbacks into the Controller's
// block accesses, and counts them for reports.
//
// A foreground block read is seen in three steps on one thread: the cache
// lookup misses, the Env reads (offset, size + 5) from the table file, the
// cache inserts the block. OnRead keeps the read in a thread-local slot;
// OnInsert matches it by offset and reports one application miss and one
// read (with whether the kernel or emulated cache held the bytes, and how
// long the miss took from the read to the insert: read, checksum,
// decompression; for a device read also how that time divides between the
// CPU, the run queue and the device, from the thread's scheduler times).
// A lookup hit is reported by OnHit. Threads marked as background
// (LevelDB's compaction thread) report nothing: compaction reads are not
// the workload whose latency the split optimizes.
//
// Thread-safe; the counters are per thread (ThreadCounters).

#ifndef SYMBIOSIS_ENGINES_LEVELDB_ADAPTER_H_
#define SYMBIOSIS_ENGINES_LEVELDB_ADAPTER_H_

#include <cstdint>
#include <optional>

#include "engines/leveldb/resizable_cache.h"
#include "online/controller_link.h"
#include "symbiosis/controller.h"
#include "symbiosis/sched_times.h"
#include "base/thread_counters.h"

namespace symbiosis::leveldb {

struct AccessCounts {
  uint64_t lookups = 0;      // foreground application-cache accesses
  uint64_t hits = 0;         // of which hits
  uint64_t reads = 0;        // block reads after a miss
  uint64_t second_tier_hits = 0;  // of which fully resident in the second tier
  uint64_t miss_ns = 0;      // summed time of those misses, read to insert
};

class Adapter final : public BlockObserver {
 public:
  Adapter() = default;

  // Where events go (null controller: counting only), and whether
  // accesses are suspended.
  ControllerLink& link() { return link_; }
  const ControllerLink& link() const { return link_; }

  // The Env read `length` bytes at `offset` of table `file_id`; the second
  // tier held them all iff `second_tier_hit`; `start_ns` is when the read began
  // (steady clock); `sched_start`, for a device read, the thread's
  // scheduler times then (ThisThreadSchedTimes), or nullopt.
  void OnRead(uint64_t file_id, uint64_t offset, uint64_t length, bool second_tier_hit,
              uint64_t start_ns, std::optional<SchedTimes> sched_start = std::nullopt);
  void OnFileDeleted(uint64_t file_id);
  // A table file was opened for reading; `bytes` is its (final) size.
  void OnFileOpened(uint64_t file_id, uint64_t bytes);

  BlockTag OnInsert(uint64_t offset, size_t charge) override;
  void OnHit(const BlockTag& tag, uint64_t offset, size_t charge) override;

  // Marks the calling thread as background for the rest of its life.
  static void MarkBackgroundThread();
  static bool IsBackgroundThread();

  AccessCounts Counts() const;

 private:
  struct Counters {
    Counter lookups;
    Counter hits;
    Counter reads;
    Counter second_tier_hits;
    Counter miss_ns;
  };

  ControllerLink link_;
  ThreadCounters<Counters> counts_;
};

}  // namespace symbiosis::leveldb

#endif  // SYMBIOSIS_ENGINES_LEVELDB_ADAPTER_H_
