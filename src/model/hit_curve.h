// HitCurve: the hit ratio of an LRU cache at every capacity, built from
// stack distances (see ghost_lru.h).
//
// An access with stack distance d hits every cache of at least d bytes, so
// the hit ratio at capacity C is the weighted fraction of accesses with
// d <= C. Weights let a sampled stream stand for the whole one (each
// sampled access weighs 1/R).

#ifndef SYMBIOSIS_HIT_CURVE_H_
#define SYMBIOSIS_HIT_CURVE_H_

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "model/ghost_lru.h"

namespace symbiosis {

class HitCurve;

// The hit curve of the accesses (keys[i], sizes[i]), i = 0, ..., n-1: the
// same curve as Add(ghost.Access(keys[i], sizes[i])) for each i in turn on
// a GhostLru(capacity), built faster (GhostLru::AccessBatch and a radix
// sort). Holds 16 bytes per access until it returns.
// REQUIRES: sizes[i] > 0.
HitCurve BuildHitCurve(const uint64_t* keys, const uint32_t* sizes, size_t n,
                       uint64_t capacity = GhostLru::kUnbounded);

class HitCurve {
 public:
  // Records one access; `distance` may be GhostLru::kColdMiss.
  void Add(uint64_t distance, double weight = 1.0);

  // Weighted fraction of accesses with distance <= capacity_bytes; 0 if
  // nothing was added.
  double HitRatio(uint64_t capacity_bytes) const;

  double total_weight() const { return total_weight_; }

  // (capacity, hit ratio) at each distinct finite distance, ascending.
  std::vector<std::pair<uint64_t, double>> Points() const;

 private:
  friend HitCurve BuildHitCurve(const uint64_t* keys, const uint32_t* sizes,
                                size_t n, uint64_t capacity);

  void Compact() const;

  // Exact: distances are kept until queried, then merged into a sorted
  // (distance, cumulative weight) table.
  mutable std::vector<std::pair<uint64_t, double>> pending_;
  mutable std::vector<std::pair<uint64_t, double>> cumulative_;
  double total_weight_ = 0;
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_HIT_CURVE_H_
