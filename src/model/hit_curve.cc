#include "model/hit_curve.h"

#include <algorithm>
#include <iterator>
#include <utility>
#include <vector>

#include "model/radix_sort.h"
#include "model/ghost_lru.h"

namespace symbiosis {

// Invariants: cumulative_ is sorted by distance with distinct distances,
// and its second members are the running sums of weight up to and
// including each distance. pending_ holds finite distances added since the
// last Compact(), in any order. Cold misses only add to total_weight_.

void HitCurve::Add(uint64_t distance, double weight) {
  total_weight_ += weight;
  if (distance != GhostLru::kColdMiss) pending_.emplace_back(distance, weight);
}

double HitCurve::HitRatio(uint64_t capacity_bytes) const {
  Compact();
  if (total_weight_ <= 0) return 0;
  // First entry with distance > capacity; the one before holds the answer.
  auto above = std::upper_bound(
      cumulative_.begin(), cumulative_.end(), capacity_bytes,
      [](uint64_t capacity, const std::pair<uint64_t, double>& entry) {
        return capacity < entry.first;
      });
  if (above == cumulative_.begin()) return 0;
  return std::prev(above)->second / total_weight_;
}

std::vector<std::pair<uint64_t, double>> HitCurve::Points() const {
  Compact();
  std::vector<std::pair<uint64_t, double>> points;
  points.reserve(cumulative_.size());
  for (const auto& [distance, weight_up_to] : cumulative_) {
    points.emplace_back(distance, weight_up_to / total_weight_);
  }
  return points;
}

// Merges pending_ into cumulative_: both become per-distance weights, are
// merged in distance order, and are summed again. O(n log n) in the number
// pending, O(n) in the table, so repeated queries between many Adds stay
// cheap.
void HitCurve::Compact() const {
  if (pending_.empty()) return;
  std::sort(pending_.begin(), pending_.end());
  for (size_t i = cumulative_.size(); i-- > 1;) {
    cumulative_[i].second -= cumulative_[i - 1].second;
  }
  std::vector<std::pair<uint64_t, double>> merged;
  merged.reserve(cumulative_.size() + pending_.size());
  std::merge(cumulative_.begin(), cumulative_.end(), pending_.begin(),
             pending_.end(), std::back_inserter(merged),
             [](const auto& a, const auto& b) { return a.first < b.first; });
  cumulative_.clear();
  double running = 0;
  for (const auto& [distance, weight] : merged) {
    running += weight;
    if (!cumulative_.empty() && cumulative_.back().first == distance) {
      cumulative_.back().second = running;
    } else {
      cumulative_.emplace_back(distance, running);
    }
  }
  pending_.clear();
}

HitCurve BuildHitCurve(const uint64_t* keys, const uint32_t* sizes, size_t n,
                       uint64_t capacity) {
  std::vector<uint64_t> distances(n);
  GhostLru(capacity).AccessBatch(keys, sizes, n, distances.data());
  distances.erase(
      std::remove(distances.begin(), distances.end(), GhostLru::kColdMiss),
      distances.end());
  std::vector<uint64_t> scratch;
  RadixSortBy(distances, scratch, [](uint64_t d) { return d; });
  HitCurve curve;
  curve.total_weight_ = static_cast<double>(n);
  for (size_t i = 0; i < distances.size();) {
    const uint64_t distance = distances[i];
    while (i < distances.size() && distances[i] == distance) ++i;
    curve.cumulative_.emplace_back(distance, static_cast<double>(i));
  }
  return curve;
}

}  // namespace symbiosis
