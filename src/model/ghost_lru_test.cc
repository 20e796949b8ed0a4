#include "model/ghost_lru.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <list>
#include <random>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/hash.h"
#include "model/slot_index.h"
#include "testing/test_support.h"

namespace symbiosis {
namespace {

using testing::ListLru;

constexpr uint64_t kCold = GhostLru::kColdMiss;

// The recency stack itself: the distance of an access is the sum of the
// sizes above the key plus the key's stored (previous) size.
class ListStack {
 public:
  uint64_t Access(uint64_t key, uint64_t size) {
    uint64_t distance = 0;
    for (auto it = stack_.begin(); it != stack_.end(); ++it) {
      distance += it->second;
      if (it->first == key) {
        stack_.erase(it);
        stack_.emplace_front(key, size);
        return distance;
      }
    }
    stack_.emplace_front(key, size);
    return kCold;
  }

  void Erase(uint64_t key) {
    stack_.remove_if([key](const auto& entry) { return entry.first == key; });
  }

 private:
  std::list<std::pair<uint64_t, uint64_t>> stack_;
};

using Access = testing::SizedAccess;

uint64_t TotalDistinctBytes(const std::vector<Access>& trace) {
  std::unordered_map<uint64_t, uint64_t> size_of;
  for (const Access& a : trace) size_of[a.key] = a.size;
  uint64_t total = 0;
  for (const auto& [key, size] : size_of) total += size;
  return total;
}

TEST(GhostLruTest, HitsExactlyWhereAListLruHitsAtEveryCapacity) {
  for (uint64_t seed = 1; seed <= 4; ++seed) {
    const std::vector<Access> trace = testing::SkewedTrace(seed, 6000, 400);
    const uint64_t total = TotalDistinctBytes(trace);
    const std::vector<uint64_t> capacities = {
        0, 1, 19999, total / 50, total / 10, total / 3, total - 1, total};
    std::vector<ListLru> caches;
    for (uint64_t c : capacities) caches.emplace_back(c);
    GhostLru ghost;
    size_t mismatches = 0, hits = 0;
    for (const Access& a : trace) {
      const uint64_t distance = ghost.Access(a.key, a.size);
      for (size_t i = 0; i < capacities.size(); ++i) {
        const bool hit = caches[i].Access(a.key, a.size);
        hits += hit;
        mismatches += hit != (distance <= capacities[i]);
      }
    }
    EXPECT_EQ(mismatches, 0u) << "seed " << seed;
    EXPECT_GT(hits, trace.size());  // the check saw hits, not only misses
  }
}

TEST(GhostLruTest, DistancesEqualTheListStackIncludingSizeChanges) {
  std::mt19937_64 rng(7);
  ListStack stack;
  GhostLru ghost;
  size_t mismatches = 0;
  for (int i = 0; i < 8000; ++i) {
    const uint64_t key = rng() % 300;
    const uint64_t size = 1 + rng() % 20000;  // a new size almost every time
    mismatches += ghost.Access(key, size) != stack.Access(key, size);
  }
  EXPECT_EQ(mismatches, 0u);
}

TEST(GhostLruTest, SmallExample) {
  GhostLru ghost;
  EXPECT_EQ(ghost.Access(1, 100), kCold);
  EXPECT_EQ(ghost.Access(2, 10), kCold);
  EXPECT_EQ(ghost.Access(3, 1), kCold);
  EXPECT_EQ(ghost.Access(3, 1), 1u);      // its own size
  EXPECT_EQ(ghost.Access(1, 100), 111u);  // 3, 2 and itself
  EXPECT_EQ(ghost.Access(2, 50), 111u);   // charged 10, its previous size
  EXPECT_EQ(ghost.Access(3, 1), 151u);    // 2 now counts 50
  EXPECT_EQ(ghost.entries(), 3u);
  EXPECT_EQ(ghost.tracked_bytes(), 151u);
}

TEST(GhostLruTest, EraseMakesTheNextAccessColdAndShortensDistances) {
  GhostLru ghost;
  ghost.Access(1, 10);
  ghost.Access(2, 20);
  ghost.Access(3, 30);
  ghost.Erase(2);
  ghost.Erase(99);  // absent: no effect
  EXPECT_EQ(ghost.entries(), 2u);
  EXPECT_EQ(ghost.tracked_bytes(), 40u);
  EXPECT_EQ(ghost.Access(1, 10), 40u);
  EXPECT_EQ(ghost.Access(2, 20), kCold);
}

TEST(GhostLruTest, SetCapacityShrinkForgetsTheOldest) {
  GhostLru ghost;
  ghost.Access(1, 10);
  ghost.Access(2, 20);
  ghost.Access(3, 30);
  ghost.Access(1, 10);  // stack: 1, 3, 2
  ghost.SetCapacity(50);
  EXPECT_EQ(ghost.capacity(), 50u);
  EXPECT_EQ(ghost.entries(), 2u);
  EXPECT_EQ(ghost.tracked_bytes(), 40u);
  EXPECT_EQ(ghost.Access(2, 20), kCold);  // forgets 3: 60 > 50
  EXPECT_EQ(ghost.Access(3, 30), kCold);  // forgets 1
  EXPECT_EQ(ghost.Access(2, 20), 50u);
  ghost.SetCapacity(5);
  EXPECT_EQ(ghost.entries(), 0u);
  EXPECT_EQ(ghost.tracked_bytes(), 0u);
}

TEST(GhostLruTest, BoundedGhostIsExactUpToItsCapacity) {
  for (uint64_t seed = 11; seed <= 13; ++seed) {
    const std::vector<Access> trace = testing::SkewedTrace(seed, 20000, 2000);
    const uint64_t total = TotalDistinctBytes(trace);
    const uint64_t bound = total / 4;
    const std::vector<uint64_t> capacities = {total / 40, total / 10, bound};
    std::vector<ListLru> caches;
    for (uint64_t c : capacities) caches.emplace_back(c);
    GhostLru ghost(bound);
    size_t mismatches = 0, forgotten = 0;
    GhostLru unbounded;
    for (const Access& a : trace) {
      const uint64_t distance = ghost.Access(a.key, a.size);
      const uint64_t exact = unbounded.Access(a.key, a.size);
      forgotten += distance == kCold && exact != kCold;
      if (distance != kCold) mismatches += distance != exact;
      for (size_t i = 0; i < capacities.size(); ++i) {
        mismatches += caches[i].Access(a.key, a.size) !=
                      (distance <= capacities[i]);
      }
      ASSERT_LE(ghost.tracked_bytes(), bound);
    }
    EXPECT_EQ(mismatches, 0u) << "seed " << seed;
    EXPECT_GT(forgotten, 100u);  // the bound was exercised
  }
}

TEST(GhostLruTest, ObjectLargerThanCapacityIsForgottenAtOnce) {
  GhostLru ghost(100);
  ghost.Access(1, 60);
  EXPECT_EQ(ghost.Access(2, 500), kCold);
  EXPECT_EQ(ghost.entries(), 0u);
  EXPECT_EQ(ghost.Access(1, 60), kCold);
  EXPECT_EQ(ghost.Access(1, 60), 60u);
}

// Few keys, many accesses: the slot array is compacted hundreds of times.
// Growing key sets make compaction also resize.
TEST(GhostLruTest, LongTracesStayExactThroughCompaction) {
  std::mt19937_64 rng(3);
  ListStack stack;
  GhostLru ghost;
  size_t mismatches = 0;
  for (int i = 0; i < 200000; ++i) {
    const uint64_t universe = 20 + i / 1000;  // grows to 220 keys
    const uint64_t key = rng() % universe;
    const uint64_t size = 1 + (key * 7919) % 20000;
    mismatches += ghost.Access(key, size) != stack.Access(key, size);
    if (i % 5000 == 4999) {
      ghost.Erase(key);
      stack.Erase(key);
    }
  }
  EXPECT_EQ(mismatches, 0u);
  EXPECT_LE(ghost.entries(), 220u);
}

// AccessBatch looks keys up ahead of the one it updates; the answers must
// not depend on it. Keys repeat inside the look-ahead window (a universe
// of 60 keys, later 600), sizes change at every access, batches of every
// length up to past the window are interleaved with erasures and
// compactions, and the ghost may be bounded. The reference is the list
// stack (a bounded ghost is exact up to its capacity) and Access.
TEST(GhostLruTest, AccessBatchEqualsAccessOneByOne) {
  for (const uint64_t capacity : {GhostLru::kUnbounded, uint64_t{300000}}) {
    std::mt19937_64 rng(capacity);
    GhostLru batched(capacity), single(capacity);
    ListStack stack;
    size_t mismatches = 0, hits = 0, forgotten = 0;
    for (int round = 0; round < 1500; ++round) {
      const size_t n = round % 41;
      std::vector<uint64_t> keys(n), distances(n, 12345);
      std::vector<uint32_t> sizes(n);
      for (size_t i = 0; i < n; ++i) {
        keys[i] = round < 750 ? rng() % 60 : rng() % 600;
        sizes[i] = static_cast<uint32_t>(1 + rng() % 20000);
      }
      batched.AccessBatch(keys.data(), sizes.data(), n, distances.data());
      for (size_t i = 0; i < n; ++i) {
        const uint64_t exact = stack.Access(keys[i], sizes[i]);
        mismatches += distances[i] != single.Access(keys[i], sizes[i]);
        if (distances[i] != kCold) {
          ++hits;
          mismatches += distances[i] != exact;
        }
        forgotten += distances[i] == kCold && exact != kCold;
      }
      if (round % 50 == 49) {
        const uint64_t key = rng() % 60;
        batched.Erase(key);
        single.Erase(key);
        stack.Erase(key);
      }
      ASSERT_EQ(batched.entries(), single.entries());
      ASSERT_EQ(batched.tracked_bytes(), single.tracked_bytes());
    }
    EXPECT_EQ(mismatches, 0u) << capacity;
    EXPECT_GT(hits, 5000u);
    if (capacity != GhostLru::kUnbounded) {
      EXPECT_GT(forgotten, 1000u);  // the bound was exercised
    }
  }
  GhostLru ghost;
  ghost.AccessBatch(nullptr, nullptr, 0, nullptr);
  EXPECT_EQ(ghost.entries(), 0u);
}

TEST(GhostLruTest, MemoryPerEntryStaysUnder64Bytes) {
  GhostLru ghost;
  std::mt19937_64 rng(5);
  for (uint64_t n : {5000, 50000, 200000}) {
    while (ghost.entries() < n) ghost.Access(rng(), 4096);
    for (uint64_t i = 0; i < 3 * n; ++i) ghost.Access(rng() % n, 4096);
    EXPECT_LE(ghost.MemoryUsage(), 64 * ghost.entries()) << n;
  }
  // Forgetting releases memory too: a quarter of the entries, then most.
  ghost.SetCapacity(4096 * 50000);
  EXPECT_EQ(ghost.entries(), 50000u);
  EXPECT_LE(ghost.MemoryUsage(), 64 * ghost.entries());
  ghost.SetCapacity(4096 * 1000);
  EXPECT_EQ(ghost.entries(), 1000u);
  EXPECT_LE(ghost.MemoryUsage(), 64 * 1000u + 32768);
  ghost.Clear();
  EXPECT_EQ(ghost.entries(), 0u);
  EXPECT_EQ(ghost.tracked_bytes(), 0u);
  EXPECT_EQ(ghost.Access(1, 1), kCold);
}

// A smaller headroom only compacts more often: with it, or with more than
// the default, every distance, entry count and byte count is the default
// ghost's, bounded or not, through variable sizes, erasures and capacity
// changes. 300,000 accesses over at most ~2,500 entries: hundreds of
// compactions at 1.25, thousands at 1.01.
TEST(GhostLruTest, HeadroomChangesNoResult) {
  for (const double headroom : {1.01, 1.25, 3.0}) {
    for (const uint64_t capacity : {GhostLru::kUnbounded, uint64_t{8000000}}) {
      std::mt19937_64 rng(17);
      GhostLru reference(capacity);
      GhostLru ghost(capacity, GhostLru::Options{.headroom = headroom});
      size_t mismatches = 0, hits = 0;
      for (int i = 0; i < 300000; ++i) {
        const uint64_t universe = 500 + i / 150;  // grows to 2,500 keys
        const uint64_t key = rng() % universe;
        const uint64_t size = 1 + rng() % 8000;
        const uint64_t distance = ghost.Access(key, size);
        mismatches += distance != reference.Access(key, size);
        hits += distance != kCold;
        if (i % 97 == 0) {
          ghost.Erase(key);
          reference.Erase(key);
        }
        if (i % 20011 == 20010) {
          // Down to a few hundred entries (mass forgetting), then back.
          const uint64_t c = i % 40022 == 20010 ? 1'000'000 : capacity;
          ghost.SetCapacity(c);
          reference.SetCapacity(c);
        }
        ASSERT_EQ(ghost.entries(), reference.entries()) << headroom << " " << i;
        ASSERT_EQ(ghost.tracked_bytes(), reference.tracked_bytes());
      }
      EXPECT_EQ(mismatches, 0u) << headroom << " " << capacity;
      EXPECT_GT(hits, 100000u);
    }
  }
}

// The online controller's ghost: full, 4 KiB entries, keys uniform over
// five times its capacity. The bound follows from the design: a slot of
// 12 bytes per headroom h per entry (rounded up to a block of 32); index
// buckets of 8 bytes at load >= 3/4 / h (grown by h at a time); block
// sums of 8 bytes per 32 slots; and a fixed few hundred bytes.
TEST(GhostLruTest, SmallHeadroomTakesLessMemoryWhenFull) {
  const double h = 1.25;
  for (const uint64_t entries : {4096, 50000}) {
    GhostLru tight(entries * 4096, GhostLru::Options{.headroom = h});
    GhostLru normal(entries * 4096);
    std::mt19937_64 rng(entries);
    for (uint64_t i = 0; i < 40 * entries; ++i) {
      const uint64_t key = rng() % (5 * entries);
      ASSERT_EQ(tight.Access(key, 4096), normal.Access(key, 4096));
      if (i < 20 * entries || i % 1000 != 0) continue;  // warming up
      ASSERT_EQ(tight.entries(), entries);
      const double slots = std::ceil(h * entries / 32) * 32;
      // The index grew when an insert (before forgetting: entries + 1)
      // would pass 3/4 load.
      const double bound = 12 * slots + 8 * h * 4 / 3 * (entries + 2) +
                           8 * slots / 32 + 1024;
      ASSERT_LE(tight.MemoryUsage(), bound) << entries << " " << i;
    }
    EXPECT_LT(tight.MemoryUsage(), normal.MemoryUsage() * 7 / 10) << entries;
    EXPECT_LE(tight.MemoryUsage(), 30 * entries) << entries;
  }
}

// Both SlotIndex variants, growing by 1.5 and shrinking, against a map.
// One key in 16 has a tag near 2^32, so its home is the last bucket and
// its run wraps past the end of the table, among keys whose homes are the
// first buckets: Erase's backward shift must compare across the wrap.
// Returns how often the bucket count was not a power of two.
template <typename Index>
size_t CheckIndexAgainstAMap(size_t min_buckets = Index::kDefaultMinBuckets) {
  constexpr uint64_t kEnd = uint64_t{0xfffff000} << 32;
  constexpr uint64_t kFirst = 1;  // tag 0: home bucket 0, never erased
  std::mt19937_64 rng(23);
  Index index(0, 1.5, min_buckets);
  std::unordered_map<uint64_t, uint32_t> slot_of = {{kFirst, 0}};
  std::unordered_map<uint32_t, uint64_t> hash_of_slot = {{0, kFirst}};
  const auto hash_of = [&](uint32_t slot) { return hash_of_slot.at(slot); };
  index.Insert(kFirst, 0);
  std::vector<uint64_t> present;  // all but kFirst
  uint32_t next_slot = 1;
  size_t mismatches = 0, wrapped = 0, odd_sizes = 0;
  for (int i = 0; i < 200000; ++i) {
    const int phase = i / 50000;  // grow, churn, shrink, grow
    const bool insert = phase == 1 ? rng() % 2 == 0
                        : phase == 2 ? rng() % 3 == 0
                                     : rng() % 3 != 0;
    if (insert || present.empty()) {
      uint64_t hash = rng();
      if (rng() % 16 == 0) hash |= kEnd;
      if (slot_of.count(hash)) continue;
      index.Insert(hash, next_slot);
      slot_of[hash] = next_slot;
      hash_of_slot[next_slot] = hash;
      present.push_back(hash);
      ++next_slot;
    } else {
      const size_t at = rng() % present.size();
      const uint64_t hash = present[at];
      index.Erase(hash, slot_of[hash]);
      hash_of_slot.erase(slot_of[hash]);
      slot_of.erase(hash);
      present[at] = present.back();
      present.pop_back();
      if (i % 1000 == 0) index.ShrinkTo(index.size() * 2);
    }
    // Look up a present key and an absent one.
    if (!present.empty()) {
      const uint64_t hash = present[rng() % present.size()];
      const auto* bucket = index.Find(hash, hash_of);
      mismatches += bucket == nullptr || bucket->slot != slot_of[hash];
      // A run that wrapped has end keys just after bucket 0 (kFirst's home).
      wrapped += bucket != nullptr && (hash & kEnd) == kEnd &&
                 bucket < index.Find(kFirst, hash_of) + index.buckets() / 2;
    }
    mismatches += index.Find(rng() | kEnd, hash_of) != nullptr;
    mismatches += index.size() != present.size() + 1;
    odd_sizes += (index.buckets() & (index.buckets() - 1)) != 0;
  }
  // Every key is still found after all the shifting.
  for (const auto& [hash, slot] : slot_of) {
    const auto* bucket = index.Find(hash, hash_of);
    mismatches += bucket == nullptr || bucket->slot != slot;
  }
  EXPECT_EQ(mismatches, 0u);
  EXPECT_GT(wrapped, 1000u);
  return odd_sizes;
}

TEST(SlotIndexTest, AnyBucketCountAgreesWithAMap) {
  EXPECT_GT(CheckIndexAgainstAMap<SlotIndex>(), 100000u);
}

TEST(SlotIndexTest, PowerOfTwoBucketCountAgreesWithAMap) {
  EXPECT_EQ(CheckIndexAgainstAMap<PowerOfTwoSlotIndex>(), 0u);
}

// A sharded cache's many small indexes start, and shrink back, small.
TEST(SlotIndexTest, ASmallIndexStartsAtItsMinimumAndStillAgreesWithAMap) {
  SlotIndex index(0, 2, 16);
  EXPECT_EQ(index.buckets(), 16u);
  const auto hash_of = [](uint32_t slot) { return Mix64(slot); };
  for (uint32_t i = 0; i < 12; ++i) index.Insert(Mix64(i), i);
  EXPECT_EQ(index.buckets(), 16u);  // 12 fit at 3/4 load
  index.Insert(Mix64(12), 12);
  EXPECT_EQ(index.buckets(), 32u);
  for (uint32_t i = 0; i < 13; ++i) {
    const auto* bucket = index.Find(Mix64(i), hash_of);
    ASSERT_NE(bucket, nullptr);
    EXPECT_EQ(bucket->slot, i);
  }
  for (uint32_t i = 2; i < 13; ++i) index.Erase(Mix64(i), i);
  index.ShrinkTo(index.size());
  EXPECT_EQ(index.buckets(), 16u);
  EXPECT_EQ(index.Find(Mix64(5), hash_of), nullptr);
  EXPECT_NE(index.Find(Mix64(1), hash_of), nullptr);
  CheckIndexAgainstAMap<SlotIndex>(16);
  CheckIndexAgainstAMap<PowerOfTwoSlotIndex>(16);
}

}  // namespace
}  // namespace symbiosis
