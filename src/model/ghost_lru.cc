#include "model/ghost_lru.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "model/slot_index.h"
#include "base/hash.h"

namespace symbiosis {

// How it works. Every access gets a timestamp t = 0, 1, 2, ... and a slot
// at index t holding the key's hash and size. When a key is accessed again
// its old slot is zeroed, so the live slots are exactly the recency stack
// in time order, and the byte stack distance of an access is the sum of the
// sizes in the slots from the key's previous timestamp to the end. To sum a
// suffix in O(log n) the slots are grouped in blocks of kBlock with a
// Fenwick tree over the block sums: a suffix is a partial block (a short
// contiguous scan from the nearer end) plus a Fenwick prefix over blocks,
// which is small (8 bytes per kBlock slots) and stays in cache.
//
// Timestamps run out at the end of the slot array. Then Compact() moves the
// live slots to the front, in order, into an array of `headroom` (h) times
// their number, and renumbers the index: the next (h - 1) n accesses need
// no compaction, so its O(n) cost is O(h / (h - 1)) per access.
// Forgetting beyond the capacity takes the oldest live slot, found by a
// cursor that only moves forward between compactions.
//
// Memory per entry, once settled: a slot array of at most 4/3 h slots per
// entry (h after a compaction; Erase and SetCapacity compact above 4/3 h)
// and an index of 8-byte buckets at load at least 3/4 / g, g = min(h, 2)
// (it grows by g, and a compaction shrinks it to that): 12 * 4/3 h +
// 8 * 4/3 g, plus 8 bytes per 32 slots of block sums, under 27 h bytes.
// A slot is 12 bytes, not 16, as sizes are 32-bit. That, h = 1.25, and an
// index sized to its entries rather than to a power of two take the online
// controller's full ghost (4,096 entries) from 48.5 to 27.3 bytes each.
//
// An access of a key not used lately costs two dependent cache misses (its
// index bucket, then its old slot); the rest stays in cache.
//
// AccessBatch overlaps those misses across accesses. It knows the keys to
// come, so kBucketAhead accesses early it prefetches a key's index bucket,
// and kSlotAhead accesses early, when that bucket has most likely arrived,
// it reads the slot there and prefetches it.
// Prefetches are only hints: each access is still done in order, by the
// same code as Access, so a key that repeats inside the window, a
// compaction that renumbers slots, or a tag shared by two keys can make a
// prefetch useless but never an answer wrong.

namespace {

// Sums over an array of uint64 values: point updates and prefix sums in
// O(log n). Arithmetic is modulo 2^64, so transient wraps cancel.
class FenwickTree {
 public:
  // Makes the tree over `values` (consumed).
  void Build(std::vector<uint64_t> values) {
    tree_ = std::move(values);
    for (size_t i = 1; i <= tree_.size(); ++i) {
      const size_t parent = i + (i & (0 - i));
      if (parent <= tree_.size()) tree_[parent - 1] += tree_[i - 1];
    }
  }

  void Add(size_t index, uint64_t delta) {
    for (size_t i = index + 1; i <= tree_.size(); i += i & (0 - i)) {
      tree_[i - 1] += delta;
    }
  }

  // Sum of values [0, end).
  uint64_t PrefixSum(size_t end) const {
    uint64_t sum = 0;
    for (size_t i = end; i > 0; i &= i - 1) sum += tree_[i - 1];
    return sum;
  }

  size_t MemoryUsage() const { return tree_.capacity() * sizeof(uint64_t); }

 private:
  std::vector<uint64_t> tree_;  // tree_[i-1] covers (i - lowbit(i), i]
};

// std::popcount, inline: without -mpopcnt it is a library call.
inline uint32_t BitCount(uint64_t x) {
  x -= (x >> 1) & 0x5555555555555555;
  x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0f;
  return static_cast<uint32_t>((x * 0x0101010101010101) >> 56);
}

}  // namespace

// Invariants:
//  - slots_[t] describes the access at timestamp t; its bytes are > 0 iff
//    it is the latest access of a tracked key. Slots at or after next_ are
//    empty (zero), and so are slots before oldest_.
//  - index_ maps the hash of every tracked key to its latest timestamp.
//  - block_sums_ holds the bytes of the slots of each closed block of
//    kBlock, those before next_ / kBlock; the open block next_ / kBlock
//    has 0 there and its bytes in open_bytes_. Nearly every access adds
//    to the open block, so the tree is updated only once per kBlock
//    appends, and a vacated slot's update walks up from one node, not two.
//  - tracked_bytes_ is the bytes of all slots, and <= capacity_ between
//    calls.
// Timestamps are 32-bit, so at most 2^31 entries are tracked.
class GhostLru::Rep {
 public:
  Rep(uint64_t capacity, const Options& options)
      : capacity_(capacity),
        headroom_(options.headroom),
        index_growth_(std::min(options.headroom, 2.0)) {
    Reset();
  }

  uint64_t Access(uint64_t key, uint64_t bytes) {
    return AccessHash(Mix64(key), bytes);
  }

  // Access, given Mix64(key).
  uint64_t AccessHash(uint64_t hash, uint64_t bytes) {
    if (next_ == slots_.size()) Compact();
    uint64_t distance = kColdMiss;
    SlotIndex::Bucket* bucket = index_.Find(hash, SlotHash{slots_});
    if (bucket != nullptr) {
      distance = BytesFrom(bucket->slot);
      Vacate(bucket->slot);
      bucket->slot = next_;
    } else {
      index_.Insert(hash, next_);
    }
    Append(hash, bytes);
    ForgetBeyondCapacity();
    return distance;
  }

  void AccessBatch(const uint64_t* keys, const uint32_t* sizes, size_t n,
                   uint64_t* distances) {
    // hashes[i % kBucketAhead] is the hash of keys[i], from the time its
    // bucket is prefetched until it is accessed.
    uint64_t hashes[kBucketAhead];
    for (size_t i = 0; i < std::min(n, kBucketAhead); ++i) {
      hashes[i] = Mix64(keys[i]);
      index_.Prefetch(hashes[i]);
    }
    for (size_t i = 0; i < n; ++i) {
      if (i + kSlotAhead < n) PrefetchSlot(hashes[(i + kSlotAhead) % kBucketAhead]);
      distances[i] = AccessHash(hashes[i % kBucketAhead], sizes[i]);
      if (i + kBucketAhead < n) {
        hashes[i % kBucketAhead] = Mix64(keys[i + kBucketAhead]);
        index_.Prefetch(hashes[i % kBucketAhead]);
      }
    }
  }

  void Erase(uint64_t key) {
    const uint64_t hash = Mix64(key);
    const SlotIndex::Bucket* bucket = index_.Find(hash, SlotHash{slots_});
    if (bucket == nullptr) return;
    const uint32_t slot = bucket->slot;
    index_.Erase(hash, slot);
    Vacate(slot);
    CompactIfSparse();
  }

  void SetCapacity(uint64_t capacity) {
    capacity_ = capacity;
    ForgetBeyondCapacity();
    CompactIfSparse();
  }

  void Reset() {
    index_ = SlotIndex(0, index_growth_);
    std::vector<Slot>(kMinSlots).swap(slots_);
    block_sums_.Build(std::vector<uint64_t>(kMinSlots / kBlock, 0));
    next_ = 0;
    oldest_ = 0;
    open_bytes_ = 0;
    tracked_bytes_ = 0;
  }

  uint64_t capacity() const { return capacity_; }
  size_t entries() const { return index_.size(); }
  uint64_t tracked_bytes() const { return tracked_bytes_; }

  size_t MemoryUsage() const {
    return sizeof(*this) + index_.MemoryUsage() + block_sums_.MemoryUsage() +
           slots_.capacity() * sizeof(Slot);
  }

 private:
  static constexpr size_t kBlock = 32;
  static constexpr size_t kMinSlots = 16 * kBlock;
  // AccessBatch's prefetch distances, in accesses. Measured on the
  // benchmark: 8/4 to 32/16 perform alike, 40/20 is slower.
  static constexpr size_t kBucketAhead = 16;
  static constexpr size_t kSlotAhead = 8;

  // The hash and the size are read together, so they share a cache line
  // (most of the time: a slot is 12 bytes, 4-byte aligned).
  struct Slot {
    uint32_t hash_words[2] = {0, 0};  // the 64-bit hash
    uint32_t bytes = 0;

    Slot() = default;
    Slot(uint64_t hash, uint32_t size) : bytes(size) {
      std::memcpy(hash_words, &hash, sizeof hash);
    }
    uint64_t hash() const {
      uint64_t hash;
      std::memcpy(&hash, hash_words, sizeof hash);
      return hash;
    }
  };
  static_assert(sizeof(Slot) == 12);

  // The full hash of a slot, for SlotIndex::Find.
  struct SlotHash {
    const std::vector<Slot>& slots;
    uint64_t operator()(uint32_t slot) const { return slots[slot].hash(); }
  };

  // Starts loading the guessed old slot of `hash`. Only the slot's line:
  // prefetching all that BytesFrom scans was slower.
  void PrefetchSlot(uint64_t hash) const {
    const uint32_t slot = index_.GuessSlot(hash);
    if (slot >= next_) return;
    __builtin_prefetch(&slots_[slot]);
    // GCC deems the prefetch free of side effects and would delete this
    // function's work; an empty volatile asm keeps it, at no cost.
    asm volatile("" : : "r"(&slots_[slot]));
  }

  // Bytes of the slots [slot, next_): whole blocks from the Fenwick tree
  // and the rest of slot's block, summed from its nearer end. The open
  // block has no entry in the tree yet, so PrefixSum(block) also counts
  // every closed block when `block` is the open one.
  uint64_t BytesFrom(uint32_t slot) const {
    const size_t block = slot / kBlock;
    const size_t begin = block * kBlock;
    const size_t end = begin + kBlock;
    uint64_t partial = 0;
    if (slot - begin < end - slot) {
      for (size_t i = begin; i < slot; ++i) partial += slots_[i].bytes;
      return tracked_bytes_ - block_sums_.PrefixSum(block) - partial;
    }
    for (size_t i = slot; i < end; ++i) partial += slots_[i].bytes;
    if (block == next_ / kBlock) return partial;
    return partial + tracked_bytes_ - block_sums_.PrefixSum(block + 1);
  }

  // Bytes of the slots [begin, end), summed in a register: adding each to
  // a sum in memory instead chains every slot on a store.
  uint64_t BytesIn(size_t begin, size_t end) const {
    uint64_t sum = 0;
    for (size_t i = begin; i < end; ++i) sum += slots_[i].bytes;
    return sum;
  }

  void Append(uint64_t hash, uint64_t bytes) {
    slots_[next_++] = Slot(hash, static_cast<uint32_t>(bytes));
    open_bytes_ += bytes;
    tracked_bytes_ += bytes;
    if (next_ % kBlock == 0) {
      block_sums_.Add(next_ / kBlock - 1, open_bytes_);
      open_bytes_ = 0;
    }
  }

  void Vacate(uint32_t slot) {
    const uint64_t bytes = slots_[slot].bytes;
    slots_[slot].bytes = 0;
    if (slot / kBlock == next_ / kBlock) {
      open_bytes_ -= bytes;
    } else {
      block_sums_.Add(slot / kBlock, 0 - bytes);
    }
    tracked_bytes_ -= bytes;
  }

  void ForgetBeyondCapacity() {
    while (tracked_bytes_ > capacity_) {
      while (slots_[oldest_].bytes == 0) ++oldest_;
      index_.Erase(slots_[oldest_].hash(), oldest_);
      Vacate(oldest_);
    }
  }

  // Moves the live slots, in order, to the front of an array of about
  // headroom_ times their number, and renumbers the index in one sequential
  // pass over it; then shrinks the index (after forgetting) if it is larger
  // than growth would have made it.
  // A slot's new number is the count of live slots before it, read from a
  // live bit mask and a running count per 64 slots: 12 bytes per 64 slots,
  // small enough to stay in cache while the index streams by.
  void Compact() {
    // At least one word: Renumber also maps slot 0 (for empty buckets).
    const size_t words = std::max<size_t>(1, (next_ + 63) / 64);
    std::vector<uint64_t> live_mask(words, 0);
    std::vector<uint32_t> live_before(words, 0);
    // Branch-free: live and dead slots interleave at random. A dead slot
    // is copied too, to where the next live one (or the final clearing)
    // overwrites it.
    uint32_t live = 0;
    for (uint32_t old = oldest_; old < next_; ++old) {
      if (old % 64 == 0) live_before[old / 64] = live;
      const bool is_live = slots_[old].bytes != 0;
      live_mask[old / 64] |= uint64_t{is_live} << (old % 64);
      slots_[live] = slots_[old];
      live += is_live;
    }
    index_.Renumber([&](uint32_t old) {
      const uint64_t below = (uint64_t{1} << (old % 64)) - 1;
      return live_before[old / 64] + BitCount(live_mask[old / 64] & below);
    });

    // At least one free slot whatever the rounding; a whole block, in fact.
    const size_t wanted = std::max(
        size_t{live} + 1, static_cast<size_t>(std::ceil(live * headroom_)));
    const size_t slots =
        std::max(kMinSlots, (wanted + kBlock - 1) / kBlock * kBlock);
    if (slots == slots_.size()) {
      std::fill(slots_.begin() + live, slots_.begin() + next_, Slot{});
    } else {
      std::vector<Slot> resized(slots);
      std::copy(slots_.begin(), slots_.begin() + live, resized.begin());
      slots_.swap(resized);
    }
    std::vector<uint64_t> block_sums(slots / kBlock, 0);
    const size_t open_block = live / kBlock;
    for (size_t b = 0; b < open_block; ++b) {
      block_sums[b] = BytesIn(b * kBlock, (b + 1) * kBlock);
    }
    block_sums_.Build(std::move(block_sums));
    open_bytes_ = BytesIn(open_block * kBlock, live);
    next_ = live;
    oldest_ = 0;
    index_.ShrinkTo(static_cast<size_t>(std::ceil(live * index_growth_)));
  }

  // Keeps memory proportional to the entries after mass forgetting:
  // compacts when fewer than 3/4 of the slots a compaction would leave
  // are live, i.e. more than 4/3 headroom_ slots per entry.
  void CompactIfSparse() {
    if (slots_.size() > kMinSlots &&
        static_cast<double>(index_.size()) * headroom_ * 4 <
            static_cast<double>(slots_.size()) * 3) {
      Compact();
    }
  }

  uint64_t capacity_;
  double headroom_;
  double index_growth_;
  SlotIndex index_;
  std::vector<Slot> slots_;
  FenwickTree block_sums_;
  uint32_t next_ = 0;    // next timestamp
  uint32_t oldest_ = 0;  // no live slot before it
  uint64_t open_bytes_ = 0;  // bytes of the open block
  uint64_t tracked_bytes_ = 0;
};

GhostLru::GhostLru(uint64_t capacity_bytes)
    : GhostLru(capacity_bytes, Options()) {}
GhostLru::GhostLru(uint64_t capacity_bytes, const Options& options)
    : rep_(std::make_unique<Rep>(capacity_bytes, options)) {}
GhostLru::~GhostLru() = default;

uint64_t GhostLru::Access(uint64_t key, uint64_t bytes) {
  return rep_->Access(key, bytes);
}
void GhostLru::AccessBatch(const uint64_t* keys, const uint32_t* sizes,
                           size_t n, uint64_t* distances) {
  rep_->AccessBatch(keys, sizes, n, distances);
}
void GhostLru::Erase(uint64_t key) { rep_->Erase(key); }
void GhostLru::SetCapacity(uint64_t capacity_bytes) {
  rep_->SetCapacity(capacity_bytes);
}
void GhostLru::Clear() { rep_->Reset(); }
uint64_t GhostLru::capacity() const { return rep_->capacity(); }
size_t GhostLru::entries() const { return rep_->entries(); }
uint64_t GhostLru::tracked_bytes() const { return rep_->tracked_bytes(); }
size_t GhostLru::MemoryUsage() const {
  return sizeof(GhostLru) + rep_->MemoryUsage();
}

}  // namespace symbiosis
