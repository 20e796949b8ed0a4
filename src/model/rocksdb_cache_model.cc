#include "model/rocksdb_cache_model.h"

#include <algorithm>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "symbiosis/error.h"
#include "base/hash.h"
#include "model/slot_index.h"

namespace symbiosis {

// One LRUCacheShard of RocksDB 7.8 with low_pri_pool_ratio 0: a list from
// the least recently used entry (sentinel.next) to the most (sentinel.prev),
// whose top high_ratio of the capacity is the high-pri pool. `low_` is the
// newest entry below the pool: new entries go after it, entries that were
// hit go to the top, and the pool's overflow moves `low_` up. Evictions
// take the least recently used entry, in either part. Each entry keeps the
// tick of its last use, which orders entries across shards.
class RocksDbCacheModel::PooledLru {
 public:
  enum class Found { kNone, kDummy, kReal };
  // A block's key and sizes.
  struct BlockEntry {
    uint64_t key;
    uint32_t mem;
    uint32_t disk;
  };

  // A real entry and the tick of its last use.
  struct UsedEntry {
    BlockEntry block;
    uint64_t tick;
  };
  // Where the methods that evict append the real entries they evict
  // (dummies go unreported); null, nowhere.
  using EvictedSink = std::vector<BlockEntry>*;

  explicit PooledLru(double high_ratio) : high_ratio_(high_ratio), nodes_(1) {
    nodes_[0].prev = nodes_[0].next = 0;
  }

  Found Find(uint64_t key) const {
    const uint32_t i = NodeOf(key);
    if (i == kNoNode) return Found::kNone;
    return nodes_[i].dummy ? Found::kDummy : Found::kReal;
  }

  // A lookup that returns the entry, and its release: it is marked hit
  // and goes back to the top. REQUIRES: `key` is in the cache.
  void Hit(uint64_t key, uint64_t tick) {
    const uint32_t i = NodeOf(key);
    Unlink(i);
    nodes_[i].hit = true;
    nodes_[i].tick = tick;
    Link(i);
  }

  // Inserts (or overwrites) `key`, evicting the least recently used
  // entries to make room. With `held`, the caller keeps a handle: the entry
  // goes in over capacity if need be, and at its release is dropped if the
  // cache is still over (RocksDB's Release), not evicted.
  void Insert(uint64_t key, uint64_t charge, const BlockEntry& block, bool dummy, bool held,
              uint64_t tick, EvictedSink evicted) {
    EvictToFit(charge, evicted);
    if (usage_ + charge > capacity_ && !held) return;  // as if inserted and evicted at once
    if (const uint32_t old = NodeOf(key); old != kNoNode) Remove(old);  // overwritten
    if (usage_ + charge > capacity_) return;      // released while over capacity
    const uint32_t i = Allocate();
    Node& n = nodes_[i];
    n = Node{};
    n.key = key;
    n.charge = charge;
    n.mem = block.mem;
    n.disk = block.disk;
    n.dummy = dummy;
    n.tick = tick;
    index_.Insert(Mix64(key), i);
    usage_ += charge;
    Link(i);
  }

  // A charge held by a handle that is not in the cache (RocksDB's
  // standalone handle): room is made for it until it is released.
  void Hold(uint64_t charge, EvictedSink evicted) {
    EvictToFit(charge, evicted);
    usage_ += charge;
  }
  void Release(uint64_t charge) { usage_ -= charge; }

  void Erase(uint64_t key) {
    if (const uint32_t i = NodeOf(key); i != kNoNode) Remove(i);
  }

  void SetCapacity(uint64_t bytes, EvictedSink evicted) {
    capacity_ = bytes;
    high_capacity_ = static_cast<uint64_t>(static_cast<double>(bytes) * high_ratio_);
    EvictToFit(0, evicted);
  }

  // Appends the real entries from the top of the list down.
  void AppendReal(std::vector<UsedEntry>* out) const {
    for (uint32_t i = nodes_[0].prev; i != 0; i = nodes_[i].prev) {
      const Node& n = nodes_[i];
      if (!n.dummy) out->push_back({{n.key, n.mem, n.disk}, n.tick});
    }
  }

  uint64_t usage() const { return usage_; }
  uint64_t capacity() const { return capacity_; }
  size_t MemoryUsage() const {
    return nodes_.capacity() * sizeof(Node) + index_.MemoryUsage() +
           free_.capacity() * sizeof(uint32_t);
  }

 private:
  struct Node {
    uint64_t key = 0;
    uint64_t charge = 0;
    uint64_t tick = 0;
    uint32_t mem = 0;
    uint32_t disk = 0;
    uint32_t prev = 0;
    uint32_t next = 0;
    bool dummy = false;
    bool hit = false;
    bool high = false;
  };

  static constexpr uint32_t kNoNode = SlotIndex::kEmpty;
  // A shard of a sampled cache holds a few dozen blocks: a small index to
  // start with.
  static constexpr size_t kMinIndexBuckets = 16;

  // The node of `key`, or kNoNode.
  uint32_t NodeOf(uint64_t key) const {
    const SlotIndex::Bucket* bucket =
        index_.Find(Mix64(key), [this](uint32_t i) { return Mix64(nodes_[i].key); });
    return bucket != nullptr ? bucket->slot : kNoNode;
  }

  uint32_t Allocate() {
    if (!free_.empty()) {
      const uint32_t i = free_.back();
      free_.pop_back();
      return i;
    }
    nodes_.emplace_back();
    return static_cast<uint32_t>(nodes_.size() - 1);
  }

  void Link(uint32_t i) {
    Node& n = nodes_[i];
    if (high_ratio_ > 0 && n.hit) {
      InsertAfter(nodes_[0].prev, i);
      n.high = true;
      high_usage_ += n.charge;
      while (high_usage_ > high_capacity_) {
        low_ = nodes_[low_].next;
        nodes_[low_].high = false;
        high_usage_ -= nodes_[low_].charge;
      }
    } else {
      InsertAfter(low_, i);
      n.high = false;
      low_ = i;
    }
  }

  void InsertAfter(uint32_t at, uint32_t i) {
    Node& n = nodes_[i];
    n.prev = at;
    n.next = nodes_[at].next;
    nodes_[n.next].prev = i;
    nodes_[at].next = i;
  }

  void Unlink(uint32_t i) {
    Node& n = nodes_[i];
    if (low_ == i) low_ = n.prev;
    nodes_[n.prev].next = n.next;
    nodes_[n.next].prev = n.prev;
    if (n.high) high_usage_ -= n.charge;
    n.high = false;
  }

  void Remove(uint32_t i) {
    Unlink(i);
    usage_ -= nodes_[i].charge;
    index_.Erase(Mix64(nodes_[i].key), i);
    free_.push_back(i);
  }

  void EvictToFit(uint64_t charge, EvictedSink evicted) {
    while (usage_ + charge > capacity_ && nodes_[0].next != 0) {
      const uint32_t i = nodes_[0].next;
      const Node& n = nodes_[i];
      if (evicted != nullptr && !n.dummy) evicted->push_back({n.key, n.mem, n.disk});
      Remove(i);
    }
  }

  double high_ratio_;
  uint64_t capacity_ = 0;
  uint64_t high_capacity_ = 0;
  uint64_t usage_ = 0;
  uint64_t high_usage_ = 0;
  std::vector<Node> nodes_;  // [0] is the list's sentinel
  uint32_t low_ = 0;
  std::vector<uint32_t> free_;
  // Mix64 of a key to its node: Mix64 is a bijection, so keys never
  // collide (slot_index.h).
  SlotIndex index_{0, 2, kMinIndexBuckets};
};

// A ShardedCache of PooledLru shards: 2^bits of them, each of
// ceil(capacity / 2^bits) bytes (RocksDB's per-shard capacity), a key
// going to the shard that its hash's low bits name. A clock ticks at every
// use, in whichever shard, so that entries compare in recency across them.
class RocksDbCacheModel::ShardedLru {
 public:
  using BlockEntry = PooledLru::BlockEntry;
  using Found = PooledLru::Found;

  // `reports_evictions`: TakeEvicted returns them (the primary's, which go
  // to the secondary); else they leave.
  ShardedLru(int shard_bits, double high_ratio, bool reports_evictions)
      : mask_((uint64_t{1} << shard_bits) - 1),
        reports_evictions_(reports_evictions),
        shards_(size_t{1} << shard_bits, PooledLru(high_ratio)) {}

  Found Find(uint64_t key) const { return shards_[ShardOf(key)].Find(key); }
  void Hit(uint64_t key) { Shard(key).Hit(key, ++clock_); }
  void Insert(uint64_t key, uint64_t charge, const BlockEntry& block, bool dummy, bool held) {
    Shard(key).Insert(key, charge, block, dummy, held, ++clock_, Sink());
  }
  // A standalone handle of `key` is charged to its shard.
  void Hold(uint64_t key, uint64_t charge) { Shard(key).Hold(charge, Sink()); }
  void Release(uint64_t key, uint64_t charge) { Shard(key).Release(charge); }
  void Erase(uint64_t key) { Shard(key).Erase(key); }

  void SetCapacity(uint64_t bytes) {
    capacity_ = bytes;
    const uint64_t per_shard = bytes / shards_.size() + (bytes % shards_.size() != 0);
    for (PooledLru& shard : shards_) shard.SetCapacity(per_shard, Sink());
  }

  // The real entries, newest first: each shard's in its list's order from
  // the top (as one cache's would be taken: the high-pri pool first), the
  // shards merged by the tick of their next entry.
  std::vector<BlockEntry> ByRecency() const {
    std::vector<std::vector<PooledLru::UsedEntry>> lists(shards_.size());
    using Head = std::pair<uint64_t, size_t>;  // an entry's tick, its shard
    std::priority_queue<Head> heads;
    size_t total = 0;
    for (size_t i = 0; i < shards_.size(); ++i) {
      shards_[i].AppendReal(&lists[i]);
      total += lists[i].size();
      if (!lists[i].empty()) heads.push({lists[i].front().tick, i});
    }
    std::vector<size_t> next(shards_.size(), 0);
    std::vector<BlockEntry> out;
    out.reserve(total);
    while (!heads.empty()) {
      const size_t i = heads.top().second;
      heads.pop();
      out.push_back(lists[i][next[i]].block);
      if (++next[i] < lists[i].size()) heads.push({lists[i][next[i]].tick, i});
    }
    return out;
  }

  // Those of `newest_first` that fit in the room the shards have left, each
  // charged its mem size plus `extra`: each shard takes its own in order
  // until the first that does not fit.
  std::vector<BlockEntry> Fitting(const std::vector<BlockEntry>& newest_first,
                                  uint64_t extra) const {
    std::vector<uint64_t> room(shards_.size());
    for (size_t i = 0; i < shards_.size(); ++i) {
      room[i] = shards_[i].capacity() - std::min(shards_[i].capacity(), shards_[i].usage());
    }
    std::vector<bool> full(shards_.size(), false);
    size_t open = shards_.size();
    std::vector<BlockEntry> out;
    for (const BlockEntry& e : newest_first) {
      if (open == 0) break;
      const size_t i = ShardOf(e.key);
      if (full[i]) continue;
      if (e.mem + extra > room[i]) {
        full[i] = true;
        --open;
        continue;
      }
      room[i] -= e.mem + extra;
      out.push_back(e);
    }
    return out;
  }

  // The real entries evicted since the last call.
  std::vector<BlockEntry> TakeEvicted() {
    std::vector<BlockEntry> out;
    out.swap(evicted_);
    return out;
  }

  uint64_t usage() const {
    uint64_t sum = 0;
    for (const PooledLru& shard : shards_) sum += shard.usage();
    return sum;
  }
  uint64_t capacity() const { return capacity_; }
  size_t MemoryUsage() const {
    size_t sum = shards_.capacity() * sizeof(PooledLru);
    for (const PooledLru& shard : shards_) sum += shard.MemoryUsage();
    return sum;
  }

 private:
  size_t ShardOf(uint64_t key) const { return Mix64(key ^ 0x5bd1e9955bd1e995ULL) & mask_; }
  PooledLru& Shard(uint64_t key) { return shards_[ShardOf(key)]; }
  PooledLru::EvictedSink Sink() { return reports_evictions_ ? &evicted_ : nullptr; }

  uint64_t mask_;
  bool reports_evictions_;
  std::vector<PooledLru> shards_;
  uint64_t capacity_ = 0;
  uint64_t clock_ = 0;
  std::vector<BlockEntry> evicted_;  // TakeEvicted
};

int RocksDbDefaultShardBits(uint64_t capacity_bytes) {
  int bits = 0;
  for (uint64_t shards = capacity_bytes / (512 * 1024); shards >>= 1;) {
    if (++bits >= 6) break;
  }
  return bits;
}

RocksDbCacheModel::RocksDbCacheModel(const RocksDbCacheModelOptions& options)
    : options_(options) {
  if (!(options.high_pri_pool_ratio >= 0 && options.high_pri_pool_ratio <= 1)) {
    throw InputError("RocksDbCacheModel: high_pri_pool_ratio must be in [0, 1]");
  }
  for (const int bits : {options.primary_shard_bits, options.secondary_shard_bits}) {
    if (bits < 0 || bits > kMaxShardBits) {
      throw InputError("RocksDbCacheModel: shard bits must be in [0, " +
                       std::to_string(kMaxShardBits) + "], not " + std::to_string(bits));
    }
  }
  primary_ = std::make_unique<ShardedLru>(options.primary_shard_bits, options.high_pri_pool_ratio,
                                          /*reports_evictions=*/true);
  secondary_ = std::make_unique<ShardedLru>(options.secondary_shard_bits,
                                            options.high_pri_pool_ratio,
                                            /*reports_evictions=*/false);
  SetCapacities(options.primary_bytes, options.secondary_bytes);
}

RocksDbCacheModel::~RocksDbCacheModel() = default;

RocksDbCacheModel::RocksDbCacheModel(const RocksDbCacheModel& other)
    : options_(other.options_),
      fast_fill_(other.fast_fill_),
      stores_(other.stores_),
      primary_(std::make_unique<ShardedLru>(*other.primary_)),
      secondary_(std::make_unique<ShardedLru>(*other.secondary_)) {}

RocksDbCacheModel& RocksDbCacheModel::operator=(const RocksDbCacheModel& other) {
  if (this != &other) {
    options_ = other.options_;
    fast_fill_ = other.fast_fill_;
    stores_ = other.stores_;
    *primary_ = *other.primary_;
    *secondary_ = *other.secondary_;
  }
  return *this;
}

RocksDbCacheModel::Served RocksDbCacheModel::Access(const Block& block) {
  const uint64_t key = block.key();
  const uint64_t meta = options_.entry_metadata_bytes;
  const PooledLru::BlockEntry self{key, block.mem_size, block.disk_size};
  const PooledLru::Found in_primary = primary_->Find(key);
  if (in_primary == PooledLru::Found::kReal) {
    primary_->Hit(key);
    return Served::kPrimary;
  }
  const PooledLru::Found in_secondary = secondary_->Find(key);
  if (in_secondary != PooledLru::Found::kNone) secondary_->Hit(key);  // its Lookup
  if (in_secondary != PooledLru::Found::kReal) {
    // Read from the device; the table reader inserts it, over a dummy.
    primary_->Insert(key, block.mem_size + options_.read_charge_overhead + meta, self,
                     /*dummy=*/false, /*held=*/true);
    Demote();
    return Served::kDevice;
  }
  if (in_primary == PooledLru::Found::kDummy) {
    // The second miss: the block moves up, a dummy stays below.
    secondary_->Erase(key);
    secondary_->Insert(key, meta, self, /*dummy=*/true, /*held=*/false);
    primary_->Insert(key, block.mem_size + meta, self, /*dummy=*/false, /*held=*/true);
  } else {
    // The first: served standalone, charged while in use; a dummy marks it.
    primary_->Hold(key, block.mem_size + meta);
    primary_->Insert(key, meta, self, /*dummy=*/true, /*held=*/false);
    primary_->Release(key, block.mem_size + meta);
  }
  Demote();
  return Served::kSecondary;
}

// CompressedSecondaryCache::Insert: a block seen for the first time leaves
// a dummy; one found (dummy or not) is stored, compressed.
void RocksDbCacheModel::Demote() {
  const uint64_t meta = options_.entry_metadata_bytes;
  for (const PooledLru::BlockEntry& e : primary_->TakeEvicted()) {
    const bool seen = secondary_->Find(e.key) != PooledLru::Found::kNone;
    if (!seen && !fast_fill_) {
      secondary_->Insert(e.key, meta, e, /*dummy=*/true, /*held=*/false);
      continue;
    }
    if (seen) secondary_->Hit(e.key);  // Insert's own Lookup
    ++stores_;  // compressed even if it does not fit
    secondary_->Insert(e.key, e.disk + meta, e, /*dummy=*/false, /*held=*/false);
  }
}

// Shrinking before growing, as the Controller resizes.
void RocksDbCacheModel::SetCapacities(uint64_t primary_bytes, uint64_t secondary_bytes) {
  if (primary_bytes < primary_->capacity()) {
    primary_->SetCapacity(primary_bytes);
    Demote();
    secondary_->SetCapacity(secondary_bytes);
  } else {
    secondary_->SetCapacity(secondary_bytes);
    primary_->SetCapacity(primary_bytes);
    Demote();
  }
}

// RocksDB frees a block released while its cache is over capacity, which a
// block cache of 0 always is: nothing reaches the secondary after the
// shrink. The blocks the engine never evicted are its hottest; a fast fill
// stored them below, and the model put H_k at 0 MiB at 0.99-1.00 in
// zipfian at M/D_u 0.8, where RocksDB measured 0.74-0.80 (outside zipfian
// within 0.04 in 11 of 12 cells; docs/decisions/rocksdb-tier-model.md).
void RocksDbCacheModel::Resettle(uint64_t primary_bytes, uint64_t secondary_bytes) {
  const bool fast_fill = fast_fill_;
  fast_fill_ = primary_bytes > 0;
  if (primary_bytes < primary_->capacity()) {
    SetCapacities(primary_bytes, secondary_bytes);
  } else {
    const uint64_t meta = options_.entry_metadata_bytes;
    // With no secondary to promote them, the blocks came from the device.
    const uint64_t extra = meta + (secondary_bytes == 0 ? options_.read_charge_overhead : 0);
    primary_->SetCapacity(primary_bytes);
    const std::vector<PooledLru::BlockEntry> up =
        primary_->Fitting(secondary_->ByRecency(), extra);
    for (auto it = up.rbegin(); it != up.rend(); ++it) {  // the most recent ends on top
      // As a promotion does: a dummy stays below.
      secondary_->Erase(it->key);
      secondary_->Insert(it->key, meta, *it, /*dummy=*/true, /*held=*/false);
      primary_->Insert(it->key, it->mem + extra, *it, /*dummy=*/false, /*held=*/false);
    }
    secondary_->SetCapacity(secondary_bytes);
  }
  fast_fill_ = fast_fill;
}

uint64_t RocksDbCacheModel::primary_used() const { return primary_->usage(); }
uint64_t RocksDbCacheModel::secondary_used() const { return secondary_->usage(); }
uint64_t RocksDbCacheModel::primary_capacity() const { return primary_->capacity(); }
uint64_t RocksDbCacheModel::secondary_capacity() const { return secondary_->capacity(); }

size_t RocksDbCacheModel::MemoryUsage() const {
  return sizeof(*this) + primary_->MemoryUsage() + secondary_->MemoryUsage();
}

}  // namespace symbiosis
