// LruSim: an exact LRU cache of one capacity, for miss ratios of traces.
//
// The cache holds keys and sizes, never data. Capacity is counted either in
// objects (sizes only feed the byte counters) or in bytes. In byte mode an
// access inserts or refreshes its key at the top of the recency list with
// its current size, then evicts from the bottom while the cache is over
// capacity; an object larger than the whole cache therefore evicts
// everything, itself included. This is the stack model of GhostLru: an
// access hits LruSim(C, bytes) exactly when GhostLru reports a distance
// <= C for it (when sizes of a key do not change).
//
// Cost: O(1) time per access; about 40 bytes of memory per resident object.
//
// Not thread-safe: callers serialize access.

#ifndef SYMBIOSIS_LRU_SIM_H_
#define SYMBIOSIS_LRU_SIM_H_

#include <cstddef>
#include <cstdint>
#include <memory>

namespace symbiosis {

class LruSim {
 public:
  // `count_objects`: true, capacity is a number of objects and sizes are
  // ignored for eviction; false, capacity is in bytes.
  LruSim(uint64_t capacity, bool count_objects);
  ~LruSim();
  LruSim(const LruSim&) = delete;
  LruSim& operator=(const LruSim&) = delete;

  // Requests `size` bytes of `key`; returns true on a hit. A miss inserts
  // the key. A hit with a new size charges the new size.
  bool Access(uint64_t key, uint64_t size);

  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }
  // misses / accesses, and missed bytes / requested bytes; 0 before any
  // access.
  double miss_ratio() const;
  double byte_miss_ratio() const;

  uint64_t capacity() const;
  bool count_objects() const;
  size_t resident_objects() const;

 private:
  class Rep;
  std::unique_ptr<Rep> rep_;
  uint64_t hits_ = 0;
  uint64_t misses_ = 0;
  uint64_t requested_bytes_ = 0;
  uint64_t missed_bytes_ = 0;
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_LRU_SIM_H_
