// Request latencies: a Histogram per reader thread (relaxed atomic adds,
// read while the readers run), and the Window a span of it summarizes to.

#ifndef SYMBIOSIS_TOOLS_DRIVER_HISTOGRAM_H_
#define SYMBIOSIS_TOOLS_DRIVER_HISTOGRAM_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <vector>

namespace symbiosis::bench {

// Latencies in log-linear buckets: 16 per power of two (6% resolution).
// Thread-safe: one writer per Histogram, any number of readers.
class Histogram {
 public:
  static constexpr int kBuckets = 64 * 16;
  static int Bucket(uint64_t ns);
  static double Lower(int bucket);  // the bucket's lowest latency, ns

  void Add(uint64_t ns) {
    counts_[Bucket(ns)].fetch_add(1, std::memory_order_relaxed);
    sum_.fetch_add(ns, std::memory_order_relaxed);
  }
  // Adds this histogram's counts and sum to `counts` (kBuckets long) and `sum`.
  void AddTo(std::vector<uint64_t>* counts, uint64_t* sum) const;

 private:
  std::array<std::atomic<uint64_t>, kBuckets> counts_{};
  std::atomic<uint64_t> sum_{0};
};

struct Window {
  uint64_t ops = 0;
  double mean_us = 0, p50_us = 0, p95_us = 0, p99_us = 0;
};

// The requests counted in `counts` (per bucket) whose latencies sum to
// `sum_ns`: their count, mean and the middle of the buckets that hold the
// 50th, 95th and 99th percentiles.
Window Summarize(const std::vector<uint64_t>& counts, uint64_t sum_ns);

}  // namespace symbiosis::bench

#endif  // SYMBIOSIS_TOOLS_DRIVER_HISTOGRAM_H_
