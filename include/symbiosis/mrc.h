// MrcBuilder: a miss-ratio curve from one pass over a request stream.
//
// Every method sits behind this one interface, so that adding one touches
// one file: exact LRU (exact_lru_mrc.h), SHARDS (shards.h), KRR for
// random-sampling LRU (krr.h), and the K-LRU simulator that is KRR's
// ground truth (klru_cache.h). A request is (key, size in bytes).
// Capacities are counted in objects (each key counts one, whatever its
// size) or in bytes (the sizes of the keys held); in bytes mode the curve
// has the byte miss ratio (missed bytes / requested bytes) beside the miss
// ratio (missed requests / requests).
//
// Not thread-safe: callers serialize access.

#ifndef SYMBIOSIS_MRC_H_
#define SYMBIOSIS_MRC_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "symbiosis/cache_unit.h"

namespace symbiosis {

struct MissRatioCurve {
  CacheUnit unit = CacheUnit::kObjects;
  std::vector<uint64_t> sizes;           // capacities, ascending
  std::vector<double> miss_ratios;       // one per size
  std::vector<double> byte_miss_ratios;  // one per size in bytes mode, else empty
  uint64_t requests = 0;                 // seen by Access
  uint64_t sampled_requests = 0;         // of them, the ones the method modelled
  // The spatial sampling rate at the end of the pass, 1 unsampled: below
  // the rate asked for with a fixed size, above it with a floor of keys.
  double sample_rate = 1;
};

class MrcBuilder {
 public:
  virtual ~MrcBuilder() = default;

  // One request of `size` bytes for `key`.
  // REQUIRES: 0 < size in bytes mode (objects mode ignores sizes).
  virtual void Access(uint64_t key, uint32_t size) = 0;

  // The same request at `time_us` on the trace's clock, for methods whose
  // cache keeps time (Redis's LRU clock: redis_cache.h); the others
  // ignore it. REQUIRES: times do not decrease.
  virtual void AccessAt(uint64_t key, uint32_t size, uint64_t time_us) {
    (void)time_us;
    Access(key, size);
  }

  // The curve at `sizes`, for the requests so far; may be called again
  // after more requests. REQUIRES: sizes ascending, each > 0.
  virtual MissRatioCurve Curve(const std::vector<uint64_t>& sizes) = 0;

  // The working set seen so far in the capacity unit (distinct objects, or
  // their bytes), estimated from the sample when the method samples: the
  // capacity beyond which the curve is flat.
  virtual uint64_t WorkingSet() const = 0;

  // Heap bytes held.
  virtual size_t MemoryUsage() const = 0;

  CacheUnit unit() const { return unit_; }

 protected:
  explicit MrcBuilder(CacheUnit unit) : unit_(unit) {}

 private:
  const CacheUnit unit_;
};

// `count` capacities spread evenly over (0, working_set]: working_set *
// i / count for i = 1..count, rounded up, duplicates dropped.
// REQUIRES: count > 0.
std::vector<uint64_t> EvenSizes(uint64_t working_set, size_t count);

}  // namespace symbiosis

#endif  // SYMBIOSIS_MRC_H_
