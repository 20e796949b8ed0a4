#include "symbiosis/redis_cache.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <string>

#include "base/hash.h"
#include "mrc/per_size_curve.h"
#include "symbiosis/error.h"

namespace symbiosis {

namespace {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();
constexpr uint32_t kPoolSize = 16;          // EVPOOL_SIZE
constexpr uint64_t kInitialBuckets = 4;     // DICT_HT_INITIAL_SIZE
constexpr double kMaxLoadFactor = 1.618;    // HASHTABLE_MAX_LOAD_FACTOR
constexpr uint64_t kDictEntryBytes = 24;    // key, value, next
constexpr uint64_t kObjectBytes = 16;       // robj
constexpr uint32_t kEmbstrLimit = 44;       // OBJ_ENCODING_EMBSTR_SIZE_LIMIT

// jemalloc's size class of an allocation of n bytes (lg_quantum 4: 8, then
// steps of 16 to 128, then four classes per doubling); Redis counts
// allocations by their usable size.
uint64_t SizeClass(uint64_t n) {
  if (n <= 8) return 8;
  if (n <= 128) return (n + 15) & ~uint64_t{15};
  const int lg = std::bit_width(n - 1) - 1;  // 2^lg < n <= 2^(lg + 1)
  const uint64_t step = (uint64_t{1} << lg) / 4;
  return (n + step - 1) / step * step;
}

// An sds string of `len` bytes: the smallest header that holds its length
// (sdsReqType), the bytes, a terminating zero.
uint64_t SdsBytes(uint64_t len) {
  const uint64_t header = len < 32 ? 1 : len < 256 ? 3 : len < 65536 ? 5 : 9;
  return SizeClass(header + len + 1);
}

// A string value: embedded (object and sds in one allocation) up to 44
// bytes, else an object and a raw sds.
uint64_t ValueBytes(uint64_t len) {
  if (len <= kEmbstrLimit) return SizeClass(kObjectBytes + 3 + len + 1);
  return SizeClass(kObjectBytes) + SdsBytes(len);
}

uint64_t BucketsFor(uint64_t keys) {
  return std::max(kInitialBuckets, std::bit_ceil(std::max<uint64_t>(keys, 1)));
}

}  // namespace

uint64_t RedisKeyBytes(uint32_t key_bytes, uint32_t value_bytes) {
  return SizeClass(kDictEntryBytes) + SdsBytes(key_bytes) + ValueBytes(value_bytes);
}

uint64_t RedisTableBytes(uint64_t keys) { return 8 * BucketsFor(keys); }

// Invariants: table_ has a power-of-two number of buckets (or none before
// the first key), each the head of a chain of entries_ linked by `next`;
// every held key is in the chain of its bucket, Mix64(key ^ hash_seed_) &
// mask. free_ lists the unused entries. keys_ counts the held keys;
// bytes_ is the sum of their costs plus the table's 8 bytes per bucket.
// pool_[0, pool_count_) is sorted by idle time ascending (Redis keeps the
// pool packed to the left: evictions take from the right).
class RedisCache::Rep {
 public:
  explicit Rep(const RedisCacheOptions& o)
      : options_(o), rng_(o.seed), hash_seed_(Mix64(o.seed ^ 0x5eed)) {}

  bool Access(uint64_t time_us, uint64_t key, uint32_t value_bytes) {
    clock_ = static_cast<uint32_t>(time_us / 1'000'000);
    EvictToCapacity();  // before the GET
    const uint32_t found = Find(key);
    if (found != kNone) {
      entries_[found].lru = clock_;
      hits_++;
      hit_bytes_ += value_bytes;
      return true;
    }
    misses_++;
    miss_bytes_ += value_bytes;
    // The SET's own eviction finds what the GET left: nothing to do.
    Add(key, options_.unit == CacheUnit::kBytes
                 ? RedisKeyBytes(options_.key_bytes, value_bytes)
                 : 0);
    return false;
  }

  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }
  uint64_t hit_bytes() const { return hit_bytes_; }
  uint64_t miss_bytes() const { return miss_bytes_; }
  uint64_t keys() const { return keys_; }
  uint64_t used() const { return options_.unit == CacheUnit::kBytes ? bytes_ : keys_; }
  size_t MemoryUsage() const {
    return entries_.capacity() * sizeof(Entry) + free_.capacity() * sizeof(uint32_t) +
           table_.capacity() * sizeof(uint32_t) + sampled_.capacity() * sizeof(uint32_t);
  }

 private:
  struct Entry {
    uint64_t key;
    uint32_t next;   // in its chain, or kNone
    uint32_t lru;    // the clock at its last request
    uint32_t bytes;  // its cost
  };
  struct PoolEntry {
    uint64_t key;
    uint64_t idle;  // when drawn
  };

  uint64_t Random() { return SplitMix64(&rng_); }
  uint64_t Mask() const { return table_.size() - 1; }
  uint64_t BucketOf(uint64_t key) const { return Mix64(key ^ hash_seed_) & Mask(); }

  bool Over() const {
    return options_.unit == CacheUnit::kBytes ? bytes_ > options_.capacity
                                              : keys_ > options_.capacity;
  }

  uint32_t Find(uint64_t key) const {
    if (table_.empty()) return kNone;
    for (uint32_t e = table_[BucketOf(key)]; e != kNone; e = entries_[e].next) {
      if (entries_[e].key == key) return e;
    }
    return kNone;
  }

  // dictAdd: the table grows first, then the key goes to its chain's head.
  void Add(uint64_t key, uint64_t bytes) {
    ExpandIfNeeded();
    uint32_t e;
    if (!free_.empty()) {
      e = free_.back();
      free_.pop_back();
    } else {
      e = static_cast<uint32_t>(entries_.size());
      entries_.push_back({});
    }
    const uint64_t b = BucketOf(key);
    entries_[e] = {key, table_[b], clock_, static_cast<uint32_t>(bytes)};
    table_[b] = e;
    keys_++;
    bytes_ += bytes;
  }

  void Delete(uint32_t e) {
    uint32_t* link = &table_[BucketOf(entries_[e].key)];
    while (*link != e) link = &entries_[*link].next;
    *link = entries_[e].next;
    keys_--;
    bytes_ -= entries_[e].bytes;
    free_.push_back(e);
  }

  // _dictExpandIfNeeded with dictExpandAllowed: at one key per bucket the
  // table doubles, unless the new buckets would take the server over
  // maxmemory and the load is still under 1.618.
  void ExpandIfNeeded() {
    if (table_.empty()) return Resize(kInitialBuckets);
    if (keys_ < table_.size()) return;
    const uint64_t buckets = std::bit_ceil(keys_ + 1);
    if (options_.unit == CacheUnit::kBytes &&
        static_cast<double>(keys_) / table_.size() <= kMaxLoadFactor &&
        bytes_ + 8 * buckets > options_.capacity) {
      return;
    }
    Resize(buckets);
  }

  // All at once, in dictRehash's order: bucket by bucket, each chain from
  // its head, each key to the head of its new chain.
  void Resize(uint64_t buckets) {
    std::vector<uint32_t> old(buckets, kNone);
    old.swap(table_);
    bytes_ += 8 * table_.size();
    bytes_ -= 8 * old.size();
    for (uint32_t head : old) {
      while (head != kNone) {
        const uint32_t next = entries_[head].next;
        const uint64_t b = BucketOf(entries_[head].key);
        entries_[head].next = table_[b];
        table_[b] = head;
        head = next;
      }
    }
  }

  // dictGetSomeKeys: from a random bucket onward, the keys of the
  // non-empty buckets met, up to `count`, the last chain reservoir-sampled;
  // after a run of empty buckets longer than `count` (and at least 5), a
  // jump to another random bucket; at most 10 * count buckets visited.
  void SomeKeys(uint32_t count) {
    sampled_.clear();
    if (keys_ < count) count = static_cast<uint32_t>(keys_);
    uint64_t steps = uint64_t{count} * 10;
    uint64_t i = Random() & Mask();
    uint64_t empty_run = 0;
    uint64_t stored = 0;
    while (stored < count && steps-- > 0) {
      uint32_t e = table_[i];
      if (e == kNone) {
        if (++empty_run >= 5 && empty_run > count) {
          i = Random() & Mask();
          empty_run = 0;
        }
      } else {
        empty_run = 0;
        for (; e != kNone; e = entries_[e].next) {
          if (stored < count) {
            sampled_.push_back(e);
          } else {
            const uint64_t r = Random() % (stored + 1);
            if (r < count) sampled_[r] = e;
          }
          stored++;
        }
        if (stored >= count) return;
      }
      i = (i + 1) & Mask();
    }
  }

  // evictionPoolPopulate: each drawn key enters the pool in idle order
  // (after the entries at least as idle); into a full pool only a key
  // idler than its least idle entry, which then leaves.
  void Populate() {
    SomeKeys(options_.samples);
    for (const uint32_t e : sampled_) {
      const uint64_t idle = clock_ - std::min(clock_, entries_[e].lru);
      uint32_t k = 0;
      while (k < pool_count_ && pool_[k].idle < idle) k++;
      if (k == 0 && pool_count_ == kPoolSize) continue;
      if (pool_count_ < kPoolSize) {
        std::copy_backward(pool_ + k, pool_ + pool_count_, pool_ + pool_count_ + 1);
        pool_count_++;
      } else {
        k--;
        std::copy(pool_ + 1, pool_ + k + 1, pool_);
      }
      pool_[k] = {entries_[e].key, idle};
    }
  }

  // performEvictions: before each command, while over maxmemory, the
  // idlest pool entry still held is evicted; entries no longer held are
  // dropped on the way; an empty pool is refilled.
  void EvictToCapacity() {
    while (Over() && keys_ > 0) {
      bool evicted = false;
      while (!evicted) {
        Populate();
        while (pool_count_ > 0 && !evicted) {
          const uint32_t e = Find(pool_[--pool_count_].key);
          if (e != kNone) {
            Delete(e);
            evicted = true;
          }
        }
      }
    }
  }

  const RedisCacheOptions options_;
  uint64_t rng_;
  const uint64_t hash_seed_;
  std::vector<Entry> entries_;
  std::vector<uint32_t> free_;
  std::vector<uint32_t> table_;
  std::vector<uint32_t> sampled_;
  PoolEntry pool_[kPoolSize] = {};
  uint32_t pool_count_ = 0;
  uint32_t clock_ = 0;
  uint64_t keys_ = 0;
  uint64_t bytes_ = 0;
  uint64_t hits_ = 0;
  uint64_t misses_ = 0;
  uint64_t hit_bytes_ = 0;
  uint64_t miss_bytes_ = 0;
};

RedisCache::RedisCache(const RedisCacheOptions& options) {
  if (options.capacity == 0) throw InputError("a Redis model needs a capacity above 0");
  if (options.samples == 0 || options.samples > 64) {
    throw InputError("maxmemory-samples must be in [1, 64] (Redis's default is 5); got " +
                     std::to_string(options.samples));
  }
  if (options.unit == CacheUnit::kBytes && options.key_bytes == 0) {
    throw InputError("a Redis model in bytes needs the key names' length (key bytes) above 0");
  }
  rep_ = std::make_unique<Rep>(options);
}
RedisCache::~RedisCache() = default;
bool RedisCache::Access(uint64_t time_us, uint64_t key, uint32_t value_bytes) {
  return rep_->Access(time_us, key, value_bytes);
}
uint64_t RedisCache::hits() const { return rep_->hits(); }
uint64_t RedisCache::misses() const { return rep_->misses(); }
uint64_t RedisCache::hit_bytes() const { return rep_->hit_bytes(); }
uint64_t RedisCache::miss_bytes() const { return rep_->miss_bytes(); }
uint64_t RedisCache::keys() const { return rep_->keys(); }
uint64_t RedisCache::used() const { return rep_->used(); }
size_t RedisCache::MemoryUsage() const { return rep_->MemoryUsage(); }

RedisSimMrc::RedisSimMrc(const RedisSimOptions& options, const std::vector<uint64_t>& sizes)
    : MrcBuilder(options.cache.unit), options_(options), sizes_(sizes) {
  CheckPerSizeSizes(sizes, "the Redis model");
  if (!(options.request_rate >= 0)) {
    throw InputError("the request rate must be 0 (times from the trace) or above");
  }
  for (const uint64_t size : sizes) {
    RedisCacheOptions o = options.cache;
    o.capacity = size;
    caches_.push_back(std::make_unique<RedisCache>(o));
  }
}

RedisSimMrc::~RedisSimMrc() = default;

void RedisSimMrc::Access(uint64_t key, uint32_t size) {
  if (options_.request_rate <= 0) {
    throw InputError("the Redis model needs each request's time, as the server's LRU clock "
                     "has it: give a trace with times (oracleGeneral, csv time=N) or the "
                     "rate they come at (--request-rate)");
  }
  AccessAt(key, size,
           static_cast<uint64_t>(static_cast<double>(requests_) / options_.request_rate * 1e6));
}

void RedisSimMrc::AccessAt(uint64_t key, uint32_t size, uint64_t time_us) {
  requests_++;
  for (auto& cache : caches_) cache->Access(time_us, key, size);
  working_set_ = std::max(working_set_, caches_.back()->used());
}

MissRatioCurve RedisSimMrc::Curve(const std::vector<uint64_t>& sizes) {
  return PerSizeCurve("the Redis model", unit(), sizes_, sizes, requests_, caches_);
}

size_t RedisSimMrc::MemoryUsage() const { return PerSizeMemory(caches_); }

}  // namespace symbiosis
