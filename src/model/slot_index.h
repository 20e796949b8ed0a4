// SlotIndex: an open-addressing hash index from a key's mixed 64-bit hash
// to a 32-bit slot number in an array owned by the caller. Private to the
// models and simulators (GhostLru, LruSim, RocksDbCacheModel's shards);
// not part of the public API.
//
// Keys are identified by Mix64(key): Mix64 is a bijection on 64-bit
// integers, so two keys collide only if they are equal. The caller keeps
// each slot's full hash; the index keeps 8 bytes per bucket, the hash's top
// 32 bits (the tag) and the slot. A key's home bucket is a function of the
// tag alone, so growing and backward-shift deletion never touch the
// caller's array; only a tag match is confirmed there (`hash_of(slot)`).
//
// The home bucket of a tag in a table of n buckets is tag * n / 2^32
// (multiply-shift, "fastrange"), so n can be any count and a caller can
// size the table to its entries. Linear probing that wraps at n; deletion
// by backward shift, so there are no tombstones and probe runs stay short
// at any age. The table grows by a factor chosen at construction (2 by
// default) when an insert would pass 3/4 load.
//
// Two variants: SlotIndex, any n, for GhostLru, whose memory matters
// (GhostSim keeps one per controller round); PowerOfTwoSlotIndex, n a
// power of two, where the home is a shift (the same bucket: tag >> (32 -
// log2 n)) and the wrap a mask, for LruSim: its accesses are mostly index
// work, and in cache the compare and multiply of any n cost it ~5%.
//
// REQUIRES: slots < kEmpty, at most one bucket per hash.

#ifndef SYMBIOSIS_MODEL_SLOT_INDEX_H_
#define SYMBIOSIS_MODEL_SLOT_INDEX_H_

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace symbiosis {

template <bool kPowerOfTwo>
class BasicSlotIndex {
 public:
  struct Bucket {
    uint32_t tag;
    uint32_t slot;  // kEmpty in an unused bucket
  };
  static constexpr uint32_t kEmpty = UINT32_MAX;

  // Sized for `expected` entries without growing, and never below
  // `min_buckets` (many small indexes, as a sharded cache's, want few);
  // when full, grows to `growth` times as many buckets (rounded up to a
  // power of two in PowerOfTwoSlotIndex). REQUIRES: growth > 1,
  // min_buckets >= 2.
  explicit BasicSlotIndex(size_t expected = 0, double growth = 2,
                          size_t min_buckets = kDefaultMinBuckets)
      : growth_(growth), min_buckets_(min_buckets) {
    Reset(BucketsFor(expected));
  }

  // The bucket of `hash`, or nullptr. `hash_of(slot)` returns the full hash
  // stored for `slot`. The pointer is valid until the next Insert or Erase.
  template <typename HashOf>
  const Bucket* Find(uint64_t hash, const HashOf& hash_of) const {
    const uint32_t tag = static_cast<uint32_t>(hash >> 32);
    for (size_t i = Home(tag);; i = Next(i)) {
      const Bucket& bucket = buckets_[i];
      if (bucket.slot == kEmpty) return nullptr;
      if (bucket.tag == tag && hash_of(bucket.slot) == hash) return &bucket;
    }
  }
  template <typename HashOf>
  Bucket* Find(uint64_t hash, const HashOf& hash_of) {
    return const_cast<Bucket*>(std::as_const(*this).Find(hash, hash_of));
  }

  // Hints for callers that know their lookups ahead of time. Prefetch
  // starts loading the home bucket of `hash`. Once it has arrived,
  // GuessSlot returns the slot of the first bucket in the probe run with
  // the tag of `hash`, or kEmpty: unconfirmed, good only for prefetching
  // that slot's data.
  void Prefetch(uint64_t hash) const {
    const Bucket* bucket = &buckets_[Home(static_cast<uint32_t>(hash >> 32))];
    __builtin_prefetch(bucket);
    // GCC deems the prefetch free of side effects and may delete a call
    // that does nothing else; an empty volatile asm keeps it, at no cost.
    asm volatile("" : : "r"(bucket));
  }
  uint32_t GuessSlot(uint64_t hash) const {
    const uint32_t tag = static_cast<uint32_t>(hash >> 32);
    for (size_t i = Home(tag);; i = Next(i)) {
      const Bucket& bucket = buckets_[i];
      if (bucket.slot == kEmpty || bucket.tag == tag) return bucket.slot;
    }
  }

  // REQUIRES: `hash` is absent.
  void Insert(uint64_t hash, uint32_t slot) {
    if (size_ + 1 > max_size_) Grow();
    Place(static_cast<uint32_t>(hash >> 32), slot);
    ++size_;
  }

  // Removes the bucket of `hash`, which holds `slot`.
  // REQUIRES: present.
  void Erase(uint64_t hash, uint32_t slot) {
    const uint32_t tag = static_cast<uint32_t>(hash >> 32);
    size_t hole = Home(tag);
    while (buckets_[hole].slot != slot) hole = Next(hole);
    // Backward shift: pull later members of the run into the hole unless
    // that would move them before their home bucket. The distances back
    // from i, i - home and i - hole, lie in (-n, n); as unsigned 64-bit
    // values they compare as they would modulo n, so the wrap needs no
    // correction.
    for (size_t i = Next(hole); buckets_[i].slot != kEmpty; i = Next(i)) {
      const size_t home = Home(buckets_[i].tag);
      if (i - home >= i - hole) {
        buckets_[hole] = buckets_[i];
        hole = i;
      }
    }
    buckets_[hole].slot = kEmpty;
    --size_;
  }

  // Replaces every slot s by new_slot(s). Without branches, as empty and
  // full buckets alternate at random: new_slot(0) is also computed for
  // each empty bucket, and dropped.
  // REQUIRES: new_slot(0) is safe to call.
  template <typename NewSlot>
  void Renumber(const NewSlot& new_slot) {
    static_assert(kEmpty == ~uint32_t{0});
    for (Bucket& bucket : buckets_) {
      // All ones in an empty bucket; masks, since GCC turns ?: into a branch.
      const uint32_t empty = 0 - uint32_t{bucket.slot == kEmpty};
      bucket.slot = new_slot(bucket.slot & ~empty) | empty;
    }
  }

  // Rebuilds at the size for `expected` entries if that is smaller.
  // REQUIRES: expected >= size().
  void ShrinkTo(size_t expected) {
    const size_t buckets = BucketsFor(expected);
    if (buckets < buckets_.size()) Rehash(buckets);
  }

  size_t size() const { return size_; }
  size_t buckets() const { return buckets_.size(); }
  size_t MemoryUsage() const { return buckets_.capacity() * sizeof(Bucket); }

  // Fewest buckets (at least min_buckets) that hold `size` at 3/4 load.
  size_t BucketsFor(size_t size) const {
    return Allowed(std::max(min_buckets_, (4 * size + 2) / 3));
  }

  static constexpr size_t kDefaultMinBuckets = 1024;

 private:

  // The least allowed bucket count >= n.
  static size_t Allowed(size_t n) {
    if constexpr (kPowerOfTwo) return std::bit_ceil(n);
    return n;
  }

  size_t Home(uint32_t tag) const {
    if constexpr (kPowerOfTwo) return tag >> shift_;
    return static_cast<size_t>((uint64_t{tag} * n_) >> 32);
  }
  size_t Next(size_t i) const {
    if constexpr (kPowerOfTwo) return (i + 1) & (n_ - 1);
    return i + 1 == n_ ? 0 : i + 1;
  }

  void Place(uint32_t tag, uint32_t slot) {
    size_t i = Home(tag);
    while (buckets_[i].slot != kEmpty) i = Next(i);
    buckets_[i] = Bucket{tag, slot};
  }

  void Reset(size_t buckets) {
    n_ = buckets;
    shift_ = 32 - std::countr_zero(buckets);  // used if a power of two
    max_size_ = buckets / 4 * 3 + buckets % 4 * 3 / 4;  // floor(3/4 buckets)
    size_ = 0;
    std::vector<Bucket>(buckets, Bucket{0, kEmpty}).swap(buckets_);
  }

  void Grow() {
    const auto scaled = static_cast<size_t>(static_cast<double>(n_) * growth_);
    Rehash(std::max(Allowed(scaled), BucketsFor(size_ + 1)));
  }

  void Rehash(size_t buckets) {
    std::vector<Bucket> old;
    old.swap(buckets_);
    const size_t size = size_;
    Reset(buckets);
    for (const Bucket& bucket : old) {
      if (bucket.slot != kEmpty) Place(bucket.tag, bucket.slot);
    }
    size_ = size;
  }

  std::vector<Bucket> buckets_;
  size_t n_ = 0;  // buckets_.size(), at most 2^32 (Home scales a 32-bit tag)
  int shift_ = 0;
  double growth_;
  size_t min_buckets_;
  size_t max_size_ = 0;  // floor(3/4 of the buckets)
  size_t size_ = 0;
};

using SlotIndex = BasicSlotIndex<false>;
using PowerOfTwoSlotIndex = BasicSlotIndex<true>;

}  // namespace symbiosis

#endif  // SYMBIOSIS_MODEL_SLOT_INDEX_H_
