// KLruCache: a cache that evicts as Redis does under allkeys-lru: to make
// room it draws K resident keys at random and evicts the least recently
// used of them (K-LRU, Redis's maxmemory-samples). The ground truth that
// KRR (krr.h) is measured against, and a simulator in its own right.
//
// Two variants: the plain one (draw K, evict the oldest; KRR's model and
// the paper's simulator), and Redis's eviction pool (evict.c,
// EVPOOL_SIZE 16): the drawn keys enter a pool that keeps the oldest ones
// seen over successive evictions, with their age when drawn, and the
// oldest pool entry still resident is evicted. Redis draws keys from
// neighbouring hash buckets (dictGetSomeKeys); this cache draws them
// uniformly, with or without replacement. Seeded: the same seed and
// requests give the same hits.
//
// Cost: O(K) per eviction, O(1) per hit; about 40 bytes per resident key.
// Not thread-safe.

#ifndef SYMBIOSIS_KLRU_CACHE_H_
#define SYMBIOSIS_KLRU_CACHE_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "symbiosis/mrc.h"

namespace symbiosis {

struct KLruOptions {
  CacheUnit unit = CacheUnit::kObjects;
  uint64_t capacity = 0;        // objects or bytes
  uint32_t k = 5;               // keys drawn per eviction
  bool with_replacement = true;  // a key may be drawn twice in one eviction
  uint32_t pool_size = 0;        // 0: no pool; Redis: 16
  uint64_t seed = 1;
};

class KLruCache {
 public:
  // Throws InputError for capacity 0 or k 0.
  explicit KLruCache(const KLruOptions& options);
  ~KLruCache();
  KLruCache(const KLruCache&) = delete;
  KLruCache& operator=(const KLruCache&) = delete;

  // Requests `size` bytes of `key`; true on a hit. A miss inserts the key,
  // then evicts while the cache is over capacity (an object larger than
  // the cache may evict itself). REQUIRES: size > 0 in bytes mode.
  bool Access(uint64_t key, uint32_t size);

  uint64_t hits() const;
  uint64_t misses() const;
  uint64_t hit_bytes() const;
  uint64_t miss_bytes() const;
  size_t resident() const;  // keys held
  uint64_t used() const;    // objects or bytes held
  size_t MemoryUsage() const;

 private:
  class Rep;
  std::unique_ptr<Rep> rep_;
};

// One KLruCache per capacity, all fed every request: the K-LRU curve by
// brute force, at the capacities given here.
class KLruSimMrc final : public MrcBuilder {
 public:
  // `options.capacity` is ignored; one cache per size. Throws InputError
  // as KLruCache, or for sizes not ascending or empty.
  KLruSimMrc(const KLruOptions& options, const std::vector<uint64_t>& sizes);
  ~KLruSimMrc() override;

  void Access(uint64_t key, uint32_t size) override;
  // Throws InputError unless `sizes` are the constructor's.
  MissRatioCurve Curve(const std::vector<uint64_t>& sizes) override;
  uint64_t WorkingSet() const override { return working_set_; }
  size_t MemoryUsage() const override;

 private:
  std::vector<uint64_t> sizes_;
  std::vector<std::unique_ptr<KLruCache>> caches_;
  uint64_t requests_ = 0;
  uint64_t working_set_ = 0;  // the largest cache's peak use, a lower bound
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_KLRU_CACHE_H_
