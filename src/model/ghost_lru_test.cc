#include "symbiosis/ghost_lru.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <list>
#include <random>
#include <unordered_map>
#include <utility>
#include <vector>

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

}  // namespace
}  // namespace symbiosis
