// What the simulators that run one cache per size (KLruSimMrc,
// RedisSimMrc) share: the check of their sizes, the curve read off their
// caches' hits and misses, and their memory. A Cache has hits(), misses(),
// hit_bytes(), miss_bytes() and MemoryUsage().

#ifndef SYMBIOSIS_MRC_PER_SIZE_CURVE_H_
#define SYMBIOSIS_MRC_PER_SIZE_CURVE_H_

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "symbiosis/error.h"
#include "symbiosis/mrc.h"

namespace symbiosis {

// Throws InputError, naming `what`, unless `sizes` are above 0 and ascending.
inline void CheckPerSizeSizes(const std::vector<uint64_t>& sizes, const std::string& what) {
  if (sizes.empty() || !std::is_sorted(sizes.begin(), sizes.end()) || sizes.front() == 0) {
    throw InputError(what + " needs capacities above 0 in ascending order");
  }
}

// The curve of `caches`, one per size of `built`. Throws InputError unless
// `asked` are the sizes the caches were built with.
template <typename Cache>
MissRatioCurve PerSizeCurve(const std::string& what, CacheUnit unit,
                            const std::vector<uint64_t>& built, const std::vector<uint64_t>& asked,
                            uint64_t requests, const std::vector<std::unique_ptr<Cache>>& caches) {
  if (asked != built) {
    throw InputError(what + " ran at other capacities; ask for the ones it was built with");
  }
  MissRatioCurve curve;
  curve.unit = unit;
  curve.sizes = built;
  curve.requests = curve.sampled_requests = requests;
  for (const auto& cache : caches) {
    const uint64_t n = cache->hits() + cache->misses();
    curve.miss_ratios.push_back(n ? static_cast<double>(cache->misses()) / n : 0);
    if (unit == CacheUnit::kBytes) {
      const uint64_t b = cache->hit_bytes() + cache->miss_bytes();
      curve.byte_miss_ratios.push_back(b ? static_cast<double>(cache->miss_bytes()) / b : 0);
    }
  }
  return curve;
}

template <typename Cache>
size_t PerSizeMemory(const std::vector<std::unique_ptr<Cache>>& caches) {
  size_t total = 0;
  for (const auto& cache : caches) total += cache->MemoryUsage();
  return total;
}

}  // namespace symbiosis

#endif  // SYMBIOSIS_MRC_PER_SIZE_CURVE_H_
