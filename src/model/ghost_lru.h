// GhostLru: a byte-weighted LRU ghost cache that reports exact stack
// distances, so the hit ratio of every capacity comes out of one pass.
//
// A ghost keeps keys and sizes, never data. For each access it returns the
// byte stack distance: the total size of the distinct keys accessed since
// the previous access of the same key, plus that key's own size. In a byte
// LRU cache the resident set is always the longest prefix of the recency
// stack whose sizes fit, so an access hits a cache of C bytes exactly when
// its stack distance is <= C, for entries of any size. (The reference
// implementation kept eight fixed marks in the list that were exact only
// when all entries had the same size.)
//
// Cost: O(log n) time per access, n the number of tracked entries, plus
// an O(n) compaction every (headroom - 1) * n accesses (see Options).
// Memory: 12-byte slots, headroom of them per entry after a compaction
// (Erase and SetCapacity compact above 4/3 headroom), and 8-byte index
// buckets at load 3/4 / min(headroom, 2) to 3/4: at most 27 * headroom
// bytes per entry once settled, 54 at the default. A full ghost of 4,096
// entries takes 40.5 bytes per entry at the default, 27.3 at 1.25.
//
// Not thread-safe: callers serialize access.

#ifndef SYMBIOSIS_GHOST_LRU_H_
#define SYMBIOSIS_GHOST_LRU_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>

namespace symbiosis {

class GhostLru {
 public:
  static constexpr uint64_t kUnbounded = std::numeric_limits<uint64_t>::max();
  // Returned for an access to a key the ghost does not hold (first access,
  // erased, or forgotten beyond the capacity).
  static constexpr uint64_t kColdMiss = std::numeric_limits<uint64_t>::max();

  struct Options {
    // Slots a compaction leaves, as a multiple of the entries: each access
    // takes a free slot, and when none is left an O(entries) compaction
    // makes room, every (headroom - 1) * entries accesses. So the amortized
    // compaction work per access goes as headroom / (headroom - 1), 2 at
    // the default and 5 at 1.25, and memory as headroom (see the top).
    // The default suits the offline simulators, which want speed; the
    // online controller's ghost (GhostSim) uses 1.25: a third less memory,
    // ~40% more time per access, on sampled accesses only.
    // REQUIRES: headroom > 1.
    double headroom = 2;
  };

  // Tracks at most `capacity_bytes` of the most recent entries; older ones
  // are forgotten and their next access is a cold miss. Distances up to the
  // capacity are exact.
  explicit GhostLru(uint64_t capacity_bytes = kUnbounded);
  GhostLru(uint64_t capacity_bytes, const Options& options);
  ~GhostLru();
  GhostLru(const GhostLru&) = delete;
  GhostLru& operator=(const GhostLru&) = delete;

  // Records an access of `bytes` bytes to `key` and moves it to the top of
  // the stack. Returns its byte stack distance (see above), or kColdMiss.
  // A key whose size changed is charged its new size from now on; the
  // returned distance uses the size of its previous access.
  // REQUIRES: 0 < bytes < 2^32 (a slot stores 32 bits; capacity and sums
  // are 64-bit).
  uint64_t Access(uint64_t key, uint64_t bytes);

  // Same as Access(keys[i], sizes[i]) for i = 0, ..., n-1 in turn, with
  // the results stored in distances[i], but faster when the ghost is
  // larger than the CPU caches: it starts loading the state of the next
  // few keys while it updates the current one.
  // REQUIRES: sizes[i] > 0; distances holds n values.
  void AccessBatch(const uint64_t* keys, const uint32_t* sizes, size_t n,
                   uint64_t* distances);

  // Forgets `key` (e.g. its file was deleted). No effect if absent.
  void Erase(uint64_t key);

  // Changes the capacity; shrinking forgets the oldest entries at once.
  void SetCapacity(uint64_t capacity_bytes);

  // Drops every entry.
  void Clear();

  uint64_t capacity() const;
  size_t entries() const;        // tracked keys
  uint64_t tracked_bytes() const;  // sum of tracked sizes
  size_t MemoryUsage() const;    // bytes of heap held by the ghost

 private:
  class Rep;
  std::unique_ptr<Rep> rep_;
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_GHOST_LRU_H_
