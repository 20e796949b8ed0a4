// SlotIndex: an open-addressing hash index from a key's mixed 64-bit hash
// to a 32-bit slot number in an array owned by the caller. Private to the
// models and simulators (GhostLru, LruSim, the page cache model); not part
// of the public API.
//
// Keys are identified by Mix64(key): Mix64 is a bijection on 64-bit
// integers, so two keys collide only if they are equal. The caller keeps
// each slot's full hash; the index keeps 8 bytes per bucket, the hash's top
// 32 bits (the tag) and the slot. A key's home bucket is the tag's top bits,
// so growing and backward-shift deletion never touch the caller's array;
// only a tag match is confirmed there (`hash_of(slot)`).
//
// Linear probing; deletion by backward shift, so there are no tombstones
// and probe runs stay short at any age; the table doubles at 3/4 load.
//
// REQUIRES: slots < kEmpty, at most one bucket per hash.

#ifndef SYMBIOSIS_MODEL_SLOT_INDEX_H_
#define SYMBIOSIS_MODEL_SLOT_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace symbiosis {

class SlotIndex {
 public:
  struct Bucket {
    uint32_t tag;
    uint32_t slot;  // kEmpty in an unused bucket
  };
  static constexpr uint32_t kEmpty = UINT32_MAX;

  // Sized for `expected` entries without growing.
  explicit SlotIndex(size_t expected = 0) { Reset(BitsFor(expected)); }

  // The bucket of `hash`, or nullptr. `hash_of(slot)` returns the full hash
  // stored for `slot`. The pointer is valid until the next Insert or Erase.
  template <typename HashOf>
  const Bucket* Find(uint64_t hash, const HashOf& hash_of) const {
    const uint32_t tag = static_cast<uint32_t>(hash >> 32);
    for (size_t i = Home(tag);; i = (i + 1) & mask_) {
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
    for (size_t i = Home(tag);; i = (i + 1) & mask_) {
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
    while (buckets_[hole].slot != slot) hole = (hole + 1) & mask_;
    // Backward shift: pull later members of the run into the hole unless
    // that would move them before their home bucket.
    for (size_t i = (hole + 1) & mask_; buckets_[i].slot != kEmpty;
         i = (i + 1) & mask_) {
      const size_t home = Home(buckets_[i].tag);
      const bool may_fill_hole = ((i - home) & mask_) >= ((i - hole) & mask_);
      if (may_fill_hole) {
        buckets_[hole] = buckets_[i];
        hole = i;
      }
    }
    buckets_[hole].slot = kEmpty;
    --size_;
  }

  // Replaces every slot s by new_slot(s).
  template <typename NewSlot>
  void Renumber(const NewSlot& new_slot) {
    for (Bucket& bucket : buckets_) {
      if (bucket.slot != kEmpty) bucket.slot = new_slot(bucket.slot);
    }
  }

  // Rebuilds at the smallest size that holds the entries.
  void ShrinkToFit() {
    const int bits = BitsFor(size_);
    if (bits < bits_) Rehash(bits);
  }

  size_t size() const { return size_; }
  size_t MemoryUsage() const { return buckets_.capacity() * sizeof(Bucket); }

 private:
  static constexpr int kMinBits = 10;

  size_t Home(uint32_t tag) const { return tag >> (32 - bits_); }

  void Place(uint32_t tag, uint32_t slot) {
    size_t i = Home(tag);
    while (buckets_[i].slot != kEmpty) i = (i + 1) & mask_;
    buckets_[i] = Bucket{tag, slot};
  }

  void Reset(int bits) {
    bits_ = bits;
    mask_ = (size_t{1} << bits) - 1;
    max_size_ = (mask_ + 1) / 4 * 3;
    size_ = 0;
    std::vector<Bucket>(mask_ + 1, Bucket{0, kEmpty}).swap(buckets_);
  }

  // Fewest bits (at least kMinBits) whose table holds `size` at 3/4 load.
  static int BitsFor(size_t size) {
    int bits = kMinBits;
    while ((size_t{1} << bits) / 4 * 3 < size) ++bits;
    return bits;
  }

  void Grow() { Rehash(bits_ + 1); }

  void Rehash(int bits) {
    std::vector<Bucket> old;
    old.swap(buckets_);
    const size_t size = size_;
    Reset(bits);
    for (const Bucket& bucket : old) {
      if (bucket.slot != kEmpty) Place(bucket.tag, bucket.slot);
    }
    size_ = size;
  }

  std::vector<Bucket> buckets_;
  int bits_ = 0;  // log2 of the bucket count, in [kMinBits, 32]
  size_t mask_ = 0;
  size_t max_size_ = 0;
  size_t size_ = 0;
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_MODEL_SLOT_INDEX_H_
