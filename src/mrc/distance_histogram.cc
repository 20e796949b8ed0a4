#include "mrc/distance_histogram.h"

#include <algorithm>
#include <bit>
#include <utility>
#include <iterator>

namespace symbiosis {

namespace {

// Pending entries are merged once there are this many, or as many as
// merged ones: amortized O(log n) per request, memory within twice the
// distinct distances.
constexpr size_t kMinPending = 1 << 16;

// LSD radix sort by distance on the bits that vary, in digits of at most
// 11 bits (a count table that stays in L1): two to four passes where
// std::sort took 30% of an exact LRU curve's time (bench/mrc.md).
template <typename Entry>
void SortByDistance(std::vector<Entry>& entries, std::vector<Entry>& scratch) {
  uint64_t any = 0, all = ~uint64_t{0};
  for (const Entry& e : entries) {
    any |= e.distance;
    all &= e.distance;
  }
  const uint64_t varying = any & ~all;
  if (varying == 0) return;
  const int low = std::countr_zero(varying);
  const int bits = 64 - std::countl_zero(varying) - low;
  const int passes = (bits + 10) / 11;
  const int width = (bits + passes - 1) / passes;
  const uint64_t mask = (uint64_t{1} << width) - 1;
  scratch.resize(entries.size());
  std::vector<size_t> next(size_t{1} << width);
  for (int pass = 0; pass < passes; ++pass) {
    const int shift = low + pass * width;
    std::fill(next.begin(), next.end(), 0);
    for (const Entry& e : entries) ++next[(e.distance >> shift) & mask];
    size_t start = 0;
    for (size_t& count : next) start += std::exchange(count, start);
    for (const Entry& e : entries) scratch[next[(e.distance >> shift) & mask]++] = e;
    entries.swap(scratch);
  }
}

}  // namespace

void DistanceHistogram::Add(uint64_t distance, uint64_t bytes, double weight) {
  total_weight_ += weight;
  total_bytes_ += weight * static_cast<double>(bytes);
  if (distance == kInfinite) return;
  pending_.push_back({distance, weight, weight * static_cast<double>(bytes)});
  if (pending_.size() >= std::max(kMinPending, cumulative_.size())) Compact();
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

void DistanceHistogram::Compact() const {
  if (pending_.empty()) return;
  SortByDistance(pending_, scratch_);
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

size_t DistanceHistogram::MemoryUsage() const {
  return (pending_.capacity() + cumulative_.capacity() + scratch_.capacity()) * sizeof(Entry);
}

}  // namespace symbiosis
