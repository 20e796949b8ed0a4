#include "driver/histogram.h"

#include <cmath>

namespace symbiosis::bench {

int Histogram::Bucket(uint64_t ns) {
  if (ns < 16) return static_cast<int>(ns);
  const int e = 63 - __builtin_clzll(ns);
  return (e - 3) * 16 + static_cast<int>((ns >> (e - 4)) & 15);
}

double Histogram::Lower(int bucket) {
  if (bucket < 16) return bucket;
  const int e = bucket / 16 + 3;
  return std::ldexp(16 + bucket % 16, e - 4);
}

void Histogram::AddTo(std::vector<uint64_t>* counts, uint64_t* sum) const {
  counts->resize(kBuckets);
  for (int i = 0; i < kBuckets; ++i) (*counts)[i] += counts_[i].load(std::memory_order_relaxed);
  *sum += sum_.load(std::memory_order_relaxed);
}

Window Summarize(const std::vector<uint64_t>& counts, uint64_t sum_ns) {
  Window w;
  for (uint64_t c : counts) w.ops += c;
  if (w.ops == 0) return w;
  w.mean_us = sum_ns / 1e3 / w.ops;
  const auto quantile = [&](double q) {
    const uint64_t rank = static_cast<uint64_t>(std::ceil(q * w.ops));
    uint64_t seen = 0;
    for (int b = 0; b < Histogram::kBuckets; ++b) {
      seen += counts[b];
      if (seen >= rank) return (Histogram::Lower(b) + Histogram::Lower(b + 1)) / 2 / 1e3;
    }
    return 0.0;
  };
  w.p50_us = quantile(0.50);
  w.p95_us = quantile(0.95);
  w.p99_us = quantile(0.99);
  return w;
}

}  // namespace symbiosis::bench
