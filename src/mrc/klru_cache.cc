#include "symbiosis/klru_cache.h"

#include <algorithm>
#include <string>

#include "model/slot_index.h"
#include "mrc/per_size_curve.h"
#include "symbiosis/error.h"
#include "base/hash.h"

namespace symbiosis {

// Invariants: entries_[0, n) are the resident keys in no order, so a
// uniform draw is one random index; index_ maps Mix64(key) to the entry;
// used_ is the sum of their charges (1 each, or their sizes). clock_
// counts requests; an entry's `last` is the clock of its latest request.
// pool_ (pool variant) is sorted by `last` descending, so the oldest is
// at the back; its entries may have left the cache or been requested
// since they were drawn (Redis does not update them either).
class KLruCache::Rep {
 public:
  explicit Rep(const KLruOptions& o) : options_(o), rng_(o.seed) {}

  bool Access(uint64_t key, uint32_t size) {
    clock_++;
    const uint64_t charge = options_.unit == CacheUnit::kBytes ? size : 1;
    auto* bucket = index_.Find(Mix64(key), HashOf{entries_});
    if (bucket != nullptr) {
      Entry& e = entries_[bucket->slot];
      used_ += charge - e.charge;
      e.charge = charge;
      e.last = clock_;
      hits_++;
      hit_bytes_ += size;
      while (used_ > options_.capacity) EvictOne();
      return true;
    }
    misses_++;
    miss_bytes_ += size;
    index_.Insert(Mix64(key), static_cast<uint32_t>(entries_.size()));
    entries_.push_back({key, charge, clock_});
    used_ += charge;
    while (used_ > options_.capacity) EvictOne();
    return false;
  }

  uint64_t hits() const { return hits_; }
  uint64_t misses() const { return misses_; }
  uint64_t hit_bytes() const { return hit_bytes_; }
  uint64_t miss_bytes() const { return miss_bytes_; }
  size_t resident() const { return entries_.size(); }
  uint64_t used() const { return used_; }
  size_t MemoryUsage() const {
    return entries_.capacity() * sizeof(Entry) + index_.MemoryUsage() +
           pool_.capacity() * sizeof(PoolEntry) + drawn_.capacity() * sizeof(uint32_t);
  }

 private:
  struct Entry {
    uint64_t key;
    uint64_t charge;
    uint64_t last;
  };
  struct PoolEntry {
    uint64_t key;
    uint64_t last;  // when drawn
  };
  struct HashOf {
    const std::vector<Entry>& entries;
    uint64_t operator()(uint32_t slot) const { return Mix64(entries[slot].key); }
  };

  uint32_t Uniform(size_t n) {  // in [0, n), by multiply-shift
    return static_cast<uint32_t>((static_cast<unsigned __int128>(SplitMix64(&rng_)) * n) >> 64);
  }

  // K entries drawn at random (distinct unless with_replacement, and at
  // most all of them).
  void Draw() {
    const size_t n = entries_.size();
    drawn_.clear();
    if (options_.with_replacement) {
      for (uint32_t i = 0; i < options_.k; i++) drawn_.push_back(Uniform(n));
      return;
    }
    if (options_.k >= n) {
      for (uint32_t i = 0; i < n; i++) drawn_.push_back(i);
      return;
    }
    while (drawn_.size() < options_.k) {  // rejection: K is small beside n
      const uint32_t i = Uniform(n);
      if (std::find(drawn_.begin(), drawn_.end(), i) == drawn_.end()) drawn_.push_back(i);
    }
  }

  void EvictOne() {
    Draw();
    if (options_.pool_size == 0) {
      uint32_t victim = drawn_[0];
      for (const uint32_t i : drawn_) {
        if (entries_[i].last < entries_[victim].last) victim = i;
      }
      Remove(victim);
      return;
    }
    for (const uint32_t i : drawn_) AddToPool(entries_[i]);
    // The oldest pool entry whose key is still resident.
    while (!pool_.empty()) {
      const PoolEntry best = pool_.back();
      pool_.pop_back();
      auto* bucket = index_.Find(Mix64(best.key), HashOf{entries_});
      if (bucket != nullptr) {
        Remove(bucket->slot);
        return;
      }
    }
    Remove(drawn_[0]);  // unreachable: the drawn keys are resident
  }

  void AddToPool(const Entry& e) {
    for (PoolEntry& p : pool_) {
      if (p.key == e.key) {
        p.last = e.last;
        std::sort(pool_.begin(), pool_.end(),
                  [](const PoolEntry& a, const PoolEntry& b) { return a.last > b.last; });
        return;
      }
    }
    if (pool_.size() == options_.pool_size) {
      if (e.last >= pool_.front().last) return;  // younger than every entry
      pool_.erase(pool_.begin());                 // drop the youngest
    }
    auto at = std::find_if(pool_.begin(), pool_.end(),
                           [&](const PoolEntry& p) { return p.last < e.last; });
    pool_.insert(at, {e.key, e.last});
  }

  void Remove(uint32_t slot) {
    const uint64_t hash = Mix64(entries_[slot].key);
    used_ -= entries_[slot].charge;
    index_.Erase(hash, slot);
    const uint32_t last = static_cast<uint32_t>(entries_.size() - 1);
    if (slot != last) {
      auto* moved = index_.Find(Mix64(entries_[last].key), HashOf{entries_});
      moved->slot = slot;
      entries_[slot] = entries_[last];
    }
    entries_.pop_back();
  }

  const KLruOptions options_;
  uint64_t rng_;
  std::vector<Entry> entries_;
  PowerOfTwoSlotIndex index_;
  std::vector<PoolEntry> pool_;
  std::vector<uint32_t> drawn_;
  uint64_t used_ = 0;
  uint64_t clock_ = 0;
  uint64_t hits_ = 0;
  uint64_t misses_ = 0;
  uint64_t hit_bytes_ = 0;
  uint64_t miss_bytes_ = 0;
};

KLruCache::KLruCache(const KLruOptions& options) {
  if (options.capacity == 0) throw InputError("a K-LRU cache needs a capacity above 0");
  if (options.k == 0) throw InputError("K-LRU's K must be at least 1 (Redis's default is 5)");
  rep_ = std::make_unique<Rep>(options);
}
KLruCache::~KLruCache() = default;
bool KLruCache::Access(uint64_t key, uint32_t size) { return rep_->Access(key, size); }
uint64_t KLruCache::hits() const { return rep_->hits(); }
uint64_t KLruCache::misses() const { return rep_->misses(); }
uint64_t KLruCache::hit_bytes() const { return rep_->hit_bytes(); }
uint64_t KLruCache::miss_bytes() const { return rep_->miss_bytes(); }
size_t KLruCache::resident() const { return rep_->resident(); }
uint64_t KLruCache::used() const { return rep_->used(); }
size_t KLruCache::MemoryUsage() const { return rep_->MemoryUsage(); }

KLruSimMrc::KLruSimMrc(const KLruOptions& options, const std::vector<uint64_t>& sizes)
    : MrcBuilder(options.unit), sizes_(sizes) {
  CheckPerSizeSizes(sizes, "the K-LRU simulator");
  for (const uint64_t size : sizes) {
    KLruOptions o = options;
    o.capacity = size;
    caches_.push_back(std::make_unique<KLruCache>(o));
  }
}

KLruSimMrc::~KLruSimMrc() = default;

void KLruSimMrc::Access(uint64_t key, uint32_t size) {
  requests_++;
  for (auto& cache : caches_) cache->Access(key, size);
  working_set_ = std::max(working_set_, caches_.back()->used());
}

MissRatioCurve KLruSimMrc::Curve(const std::vector<uint64_t>& sizes) {
  return PerSizeCurve("the K-LRU simulator", unit(), sizes_, sizes, requests_, caches_);
}

size_t KLruSimMrc::MemoryUsage() const { return PerSizeMemory(caches_); }

}  // namespace symbiosis
