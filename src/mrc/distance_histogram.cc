#include "mrc/distance_histogram.h"

#include "model/radix_sort.h"

#include <algorithm>
#include <cmath>
#include <iterator>

namespace symbiosis {

// Pending entries are merged once there are min_pending_ of them, or as
// many as merged ones: amortized O(log n) per request, memory within twice
// the distinct distances.
void DistanceHistogram::Add(uint64_t distance, uint64_t bytes, double weight) {
  total_weight_ += weight;
  total_bytes_ += weight * static_cast<double>(bytes);
  if (distance == kInfinite) return;
  pending_.push_back({distance, weight, weight * static_cast<double>(bytes)});
  if (pending_.size() >= std::max(min_pending_, cumulative_.size())) Compact();
}

void DistanceHistogram::Scale(double factor) {
  for (Entry& e : pending_) {
    e.weight *= factor;
    e.bytes *= factor;
  }
  for (Entry& e : cumulative_) {
    e.weight *= factor;
    e.bytes *= factor;
  }
  total_weight_ *= factor;
  total_bytes_ *= factor;
}

void DistanceHistogram::Shrink(double factor) {
  Compact();
  // Rounding up keeps the order, and cumulative_ holds running sums: of
  // entries that now share a distance, the last one holds them all.
  size_t kept = 0;
  for (const Entry& e : cumulative_) {
    const uint64_t d = std::max<uint64_t>(
        1, static_cast<uint64_t>(std::ceil(static_cast<double>(e.distance) * factor)));
    if (kept > 0 && cumulative_[kept - 1].distance == d) kept--;
    cumulative_[kept++] = {d, e.weight, e.bytes};
  }
  cumulative_.resize(kept);
  Scale(factor);
}

void DistanceHistogram::Compact() const {
  if (pending_.empty()) return;
  RadixSortBy(pending_, scratch_, [](const Entry& e) { return e.distance; });
  for (size_t i = cumulative_.size(); i-- > 1;) {  // back to per-distance sums
    cumulative_[i].weight -= cumulative_[i - 1].weight;
    cumulative_[i].bytes -= cumulative_[i - 1].bytes;
  }
  std::vector<Entry>& merged = scratch_;
  merged.clear();
  std::merge(cumulative_.begin(), cumulative_.end(), pending_.begin(), pending_.end(),
             std::back_inserter(merged),
             [](const Entry& a, const Entry& b) { return a.distance < b.distance; });
  cumulative_.clear();
  Entry running{0, 0, 0};
  for (const Entry& e : merged) {
    running.weight += e.weight;
    running.bytes += e.bytes;
    if (!cumulative_.empty() && cumulative_.back().distance == e.distance) {
      cumulative_.back().weight = running.weight;
      cumulative_.back().bytes = running.bytes;
    } else {
      cumulative_.push_back({e.distance, running.weight, running.bytes});
    }
  }
  pending_.clear();
}

void DistanceHistogram::Fill(bool bytes, MissRatioCurve* curve, double expected_weight,
                             double expected_bytes) const {
  const double weight = expected_weight > 0 ? expected_weight : total_weight_;
  const double byte_total = expected_bytes > 0 ? expected_bytes : total_bytes_;
  Compact();
  curve->miss_ratios.assign(curve->sizes.size(), 0);
  curve->byte_miss_ratios.assign(bytes ? curve->sizes.size() : 0, 0);
  for (size_t i = 0; i < curve->sizes.size(); i++) {
    // The last entry with distance <= size holds the hits.
    auto above = std::upper_bound(
        cumulative_.begin(), cumulative_.end(), curve->sizes[i],
        [](uint64_t size, const Entry& e) { return size < e.distance; });
    const Entry hits = above == cumulative_.begin() ? Entry{0, 0, 0} : *std::prev(above);
    auto ratio = [](double missed, double total) {
      return total > 0 ? std::clamp(missed / total, 0.0, 1.0) : 0.0;
    };
    curve->miss_ratios[i] = ratio(total_weight_ - hits.weight, weight);
    if (bytes) curve->byte_miss_ratios[i] = ratio(total_bytes_ - hits.bytes, byte_total);
  }
}

void DistanceHistogram::FillSampled(bool bytes, double share, double requests,
                                    double requested_bytes, MissRatioCurve* curve) const {
  const std::vector<uint64_t> sizes = curve->sizes;
  for (uint64_t& size : curve->sizes) {
    size = static_cast<uint64_t>(std::floor(static_cast<double>(size) * share));
  }
  Fill(bytes, curve, share * requests, share * requested_bytes);
  curve->sizes = sizes;
}

size_t DistanceHistogram::MemoryUsage() const {
  return (pending_.capacity() + cumulative_.capacity() + scratch_.capacity()) * sizeof(Entry);
}

}  // namespace symbiosis
