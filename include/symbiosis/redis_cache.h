// RedisCache: a model of one redis-server 7.0 under maxmemory-policy
// allkeys-lru, fed cache-aside requests (GET; on a miss, SET), that
// predicts what the real server misses. RedisSimMrc: its miss-ratio curve,
// one model per size (`symbiosis mrc --algo redis`).
//
// The textbook K-LRU (klru_cache.h) misses more or less than the server
// in four ways, and the model follows the server in each (evict.c, dict.c
// and server.c of Redis 7.0.15):
//   - The LRU clock ticks once a second (LRU_CLOCK_RESOLUTION): keys
//     touched within one second look equally old. The model's clock is
//     the request's time: the trace's own, or its position at a given
//     request rate.
//   - An eviction draws maxmemory-samples keys with dictGetSomeKeys: from
//     a random bucket of the keyspace's chained hash table onward through
//     its neighbours, whole chains (the last one reservoir-sampled),
//     jumping elsewhere after a run of empty buckets. The model keeps such
//     a table: power-of-two buckets, a new key at its chain's head,
//     doubled when the keys reach the buckets (where memory allows, as
//     dictExpandAllowed decides).
//   - The drawn keys enter a 16-entry pool ordered by their idle time when
//     drawn; the pool lasts across evictions, may hold a key twice or a key
//     since evicted, and an eviction takes its idlest entry still present.
//   - maxmemory counts bytes: a key costs its dictEntry, its name's sds
//     and its value's object, each rounded up to jemalloc's size class, and
//     the table 8 bytes per bucket. Evictions run before each command, so a
//     SET's key stays until the next command.
// Not modelled: incremental rehashing (a resize is at once), shrinking
// the table, the eviction's time limit, lazy freeing, keys with a TTL, a
// saving child (run the server without persistence: save "").
//
// Capacity: in objects, the keys held; in bytes, maxmemory less what the
// server used before its first key (INFO memory's used_memory: its own
// structures and its clients' buffers).
//
// Cost: O(1) per hit, O(K) per eviction; about 24 bytes per key and 4 per
// bucket. Not thread-safe. Seeded: the same seed and requests give the
// same hits.

#ifndef SYMBIOSIS_REDIS_CACHE_H_
#define SYMBIOSIS_REDIS_CACHE_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "symbiosis/mrc.h"

namespace symbiosis {

struct RedisCacheOptions {
  CacheUnit unit = CacheUnit::kObjects;
  uint64_t capacity = 0;      // keys, or bytes of maxmemory less the empty server's use
  uint32_t samples = 5;       // maxmemory-samples
  uint32_t key_bytes = 16;    // bytes mode: the length of each key's name
  uint64_t seed = 1;
};

// What one key of a string value costs the server's used_memory, and the
// keyspace table for `keys` keys (the buckets it has grown to).
uint64_t RedisKeyBytes(uint32_t key_bytes, uint32_t value_bytes);
uint64_t RedisTableBytes(uint64_t keys);

class RedisCache {
 public:
  // Throws InputError for capacity 0, samples outside [1, 64], or
  // key_bytes 0 in bytes mode.
  explicit RedisCache(const RedisCacheOptions& options);
  ~RedisCache();
  RedisCache(const RedisCache&) = delete;
  RedisCache& operator=(const RedisCache&) = delete;

  // A GET of `key` at `time_us`, and on a miss a SET of `value_bytes`;
  // true on a hit. A hit returns what was set: `value_bytes` then only
  // counts toward the hit bytes. REQUIRES: times do not decrease;
  // value_bytes > 0 in bytes mode.
  bool Access(uint64_t time_us, uint64_t key, uint32_t value_bytes);

  uint64_t hits() const;
  uint64_t misses() const;
  uint64_t hit_bytes() const;
  uint64_t miss_bytes() const;
  uint64_t keys() const;  // held
  uint64_t used() const;  // keys, or bytes with the table's
  size_t MemoryUsage() const;

 private:
  class Rep;
  std::unique_ptr<Rep> rep_;
};

struct RedisSimOptions {
  RedisCacheOptions cache;  // its capacity is ignored: one cache per size
  // Requests per second, for requests that come without a time (Access):
  // the i-th is at i / request_rate seconds. 0: they must come with times.
  double request_rate = 0;
};

class RedisSimMrc final : public MrcBuilder {
 public:
  // Throws InputError as RedisCache, for sizes not ascending or empty, or
  // for a negative request rate.
  RedisSimMrc(const RedisSimOptions& options, const std::vector<uint64_t>& sizes);
  ~RedisSimMrc() override;

  // Throws InputError without a request rate: the model needs times.
  void Access(uint64_t key, uint32_t size) override;
  void AccessAt(uint64_t key, uint32_t size, uint64_t time_us) override;
  // Throws InputError unless `sizes` are the constructor's.
  MissRatioCurve Curve(const std::vector<uint64_t>& sizes) override;
  uint64_t WorkingSet() const override { return working_set_; }
  size_t MemoryUsage() const override;

 private:
  const RedisSimOptions options_;
  std::vector<uint64_t> sizes_;
  std::vector<std::unique_ptr<RedisCache>> caches_;
  uint64_t requests_ = 0;
  uint64_t working_set_ = 0;  // the largest cache's peak use, a lower bound
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_REDIS_CACHE_H_
