// DistanceHistogram: weighted stack distances, turned into the miss ratio
// and byte miss ratio of any capacity.
//
// A request with stack distance d hits every cache of capacity >= d. Each
// request adds its weight to the request total and its size times the
// weight to the byte total; a finite distance adds both to the distance's
// entry. Exact: entries are merged per distinct distance, so memory grows
// with the distinct distances, not with the requests.

#ifndef SYMBIOSIS_MRC_DISTANCE_HISTOGRAM_H_
#define SYMBIOSIS_MRC_DISTANCE_HISTOGRAM_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

#include "symbiosis/mrc.h"

namespace symbiosis {

class DistanceHistogram {
 public:
  static constexpr uint64_t kInfinite = std::numeric_limits<uint64_t>::max();

  // `min_pending`: requests buffered before they are sorted into the
  // histogram (at least; more while the histogram is larger). Large for a
  // fast pass over a trace, small where memory counts (a server's module).
  static constexpr size_t kDefaultMinPending = size_t{1} << 16;
  explicit DistanceHistogram(size_t min_pending = kDefaultMinPending)
      : min_pending_(min_pending) {}

  // A request of `bytes` bytes at `distance` (kInfinite: a miss at every
  // capacity), standing for `weight` requests.
  void Add(uint64_t distance, uint64_t bytes, double weight = 1.0);

  // Multiplies every weight so far by `factor` (fixed-size SHARDS lowering
  // its rate). REQUIRES: factor > 0.
  void Scale(double factor);

  // For a spatial sample that kept `factor` of its keys: every weight and
  // every finite distance times `factor` (distances rounded up, at least
  // 1), so that the distances so far are in the smaller sample's units.
  // REQUIRES: 0 < factor <= 1.
  void Shrink(double factor);

  // Fills curve->miss_ratios (and byte_miss_ratios if `bytes`) at
  // curve->sizes: misses over the total weight (bytes), or over
  // `expected_weight` (`expected_bytes`) when given, > 0: a spatial
  // sample's expected size, which credits its shortfall as hits at
  // distance 0 (SHARDS-adj). Ratios are clamped to [0, 1]; 0 with no
  // requests.
  void Fill(bool bytes, MissRatioCurve* curve, double expected_weight = 0,
            double expected_bytes = 0) const;

  // Fill for the distances of a spatial sample holding `share` of the
  // keys: a cache of C stands for one of C x share in the sample, and the
  // sample should hold the share of the `requests` and `bytes` (Fill's
  // expected totals). curve->sizes are kept.
  void FillSampled(bool bytes, double share, double requests, double requested_bytes,
                   MissRatioCurve* curve) const;

  double total_weight() const { return total_weight_; }
  double total_bytes() const { return total_bytes_; }
  size_t MemoryUsage() const;

 private:
  struct Entry {
    uint64_t distance;
    double weight;
    double bytes;
  };
  void Compact() const;

  // Invariant: cumulative_ is sorted by distance, one entry per distinct
  // distance, holding the running sums up to and including it; pending_
  // holds the entries added since the last Compact in any order.
  size_t min_pending_;
  mutable std::vector<Entry> pending_;
  mutable std::vector<Entry> cumulative_;
  mutable std::vector<Entry> scratch_;  // reused by Compact
  double total_weight_ = 0;
  double total_bytes_ = 0;
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_MRC_DISTANCE_HISTOGRAM_H_
