// HitCurve: the hit ratio of an LRU cache at every capacity, built from
// stack distances (see ghost_lru.h).
//
// An access with stack distance d hits every cache of at least d bytes, so
// the hit ratio at capacity C is the weighted fraction of accesses with
// d <= C. Weights let a sampled stream stand for the whole one (each
// sampled access weighs 1/R).

#ifndef SYMBIOSIS_HIT_CURVE_H_
#define SYMBIOSIS_HIT_CURVE_H_

#include <cstdint>
#include <utility>
#include <vector>

namespace symbiosis {

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
  void Compact() const;

  // Exact: distances are kept until queried, then merged into a sorted
  // (distance, cumulative weight) table.
  mutable std::vector<std::pair<uint64_t, double>> pending_;
  mutable std::vector<std::pair<uint64_t, double>> cumulative_;
  double total_weight_ = 0;
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_HIT_CURVE_H_
