#include "engines/rocksdb/slab_allocator.h"

#include <gtest/gtest.h>
#include <sanitizer/asan_interface.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <thread>
#include <vector>

namespace symbiosis::rocksdb {
namespace {

constexpr size_t kMiB = 1 << 20;

// Fills `size` bytes at p with a pattern of `seed`; Holds checks it.
void Stamp(void* p, size_t size, uint32_t seed) {
  auto* bytes = static_cast<unsigned char*>(p);
  for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<unsigned char>(seed * 31 + i);
}
bool Holds(const void* p, size_t size, uint32_t seed) {
  const auto* bytes = static_cast<const unsigned char*>(p);
  for (size_t i = 0; i < size; ++i) {
    if (bytes[i] != static_cast<unsigned char>(seed * 31 + i)) return false;
  }
  return true;
}

// Of the pages that objects start in, how many hold memory (mincore).
size_t ResidentPages(const std::vector<void*>& objects) {
  const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
  std::set<uintptr_t> pages;
  for (void* p : objects) pages.insert(reinterpret_cast<uintptr_t>(p) / page * page);
  size_t resident = 0;
  for (uintptr_t start : pages) {
    unsigned char in_core = 0;
    if (mincore(reinterpret_cast<void*>(start), page, &in_core) == 0) resident += in_core & 1;
  }
  return resident;
}

// One object handed out, and the seed of what was written into it.
struct Object {
  void* p;
  size_t size;
  uint32_t seed;
};

TEST(SlabAllocatorTest, ObjectsAreDistinctAlignedAndKeepTheirBytes) {
  // Room for all: about 13,000 live objects of 8 KiB on average.
  SlabAllocator allocator(256 * kMiB);
  std::mt19937 rng(1);
  std::vector<Object> live;
  std::set<uintptr_t> starts;
  for (uint32_t i = 0; i < 20'000; ++i) {
    const size_t size = 1 + rng() % SlabAllocator::kMaxSlabObject;
    void* p = allocator.Allocate(size);
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % SlabAllocator::kGrain, 0u);
    EXPECT_GE(allocator.UsableSize(p, size), size);
    EXPECT_LT(allocator.UsableSize(p, size), size + SlabAllocator::kGrain);
    EXPECT_TRUE(starts.insert(reinterpret_cast<uintptr_t>(p)).second) << "handed out twice";
    Stamp(p, size, i);
    live.push_back({p, size, i});
    // Free a random third as we go, so freed objects are reused.
    if (rng() % 3 == 0) {
      const size_t victim = rng() % live.size();
      starts.erase(reinterpret_cast<uintptr_t>(live[victim].p));
      allocator.Deallocate(live[victim].p);
      live[victim] = live.back();
      live.pop_back();
    }
  }
  EXPECT_EQ(allocator.MallocFallbacks(), 0u);
  for (const Object& o : live) EXPECT_TRUE(Holds(o.p, o.size, o.seed)) << o.seed;
  for (const Object& o : live) allocator.Deallocate(o.p);
  EXPECT_EQ(allocator.AllocatedBytes(), 0u);
}

TEST(SlabAllocatorTest, EmptiedSlabsGiveTheirMemoryBack) {
  SlabAllocator allocator(256 * kMiB);
  std::vector<void*> objects;
  for (size_t i = 0; i < 64 * kMiB / 2048; ++i) {
    void* p = allocator.Allocate(2000);
    std::memset(p, 1, 2000);  // the pages are touched, as a cache's are
    objects.push_back(p);
  }
  EXPECT_GE(allocator.ResidentBytes(), 64 * kMiB);
  EXPECT_GE(ResidentPages(objects), 64 * kMiB / 4096 * 9 / 10);
  // Free in a shuffled order, as an LRU cache's hits and evictions do.
  std::shuffle(objects.begin(), objects.end(), std::mt19937(2));
  for (void* p : objects) allocator.Deallocate(p);
  EXPECT_EQ(allocator.AllocatedBytes(), 0u);
  EXPECT_LE(allocator.ResidentBytes(), SlabAllocator::kKeptEmptySlabs * SlabAllocator::kSlabBytes);
  // The kernel has the pages back (the kept empties' aside).
  EXPECT_LE(ResidentPages(objects), SlabAllocator::kKeptEmptySlabs * SlabAllocator::kSlabBytes / 4096);
}

TEST(SlabAllocatorTest, FreedRoomIsReusedBeforeNewSlabs) {
  SlabAllocator allocator(64 * kMiB);
  std::vector<void*> objects;
  for (int i = 0; i < 10'000; ++i) objects.push_back(allocator.Allocate(3000));
  const uint64_t resident = allocator.ResidentBytes();
  // Churn at a steady size: half freed and allocated again, many times.
  std::mt19937 rng(3);
  for (int round = 0; round < 20; ++round) {
    for (size_t i = 0; i < objects.size(); i += 2) {
      const size_t j = rng() % objects.size();
      allocator.Deallocate(objects[j]);
      objects[j] = allocator.Allocate(3000);
    }
  }
  EXPECT_LE(allocator.ResidentBytes(), resident + SlabAllocator::kSlabBytes);
  for (void* p : objects) allocator.Deallocate(p);
}

TEST(SlabAllocatorTest, FreedObjectsArePoisonedUnderAddressSanitizer) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_FLAG_SET(death_test_style, "threadsafe");  // other tests leave threads behind
  SlabAllocator allocator(4 * kMiB);
  char* a = static_cast<char*>(allocator.Allocate(100));  // class of 128 bytes
  char* b = static_cast<char*>(allocator.Allocate(100));
  EXPECT_FALSE(__asan_region_is_poisoned(a, 128));
  EXPECT_TRUE(__asan_address_is_poisoned(b + 128));  // not carved yet
  allocator.Deallocate(a);
  EXPECT_TRUE(__asan_address_is_poisoned(a));
  EXPECT_TRUE(__asan_address_is_poisoned(a + 127));
  EXPECT_DEATH({ volatile char c = a[8]; (void)c; }, "use-after-poison");
  char* again = static_cast<char*>(allocator.Allocate(128));
  EXPECT_EQ(again, a);  // the freed object, unpoisoned
  EXPECT_FALSE(__asan_region_is_poisoned(again, 128));
  allocator.Deallocate(again);
  allocator.Deallocate(b);
#else
  GTEST_SKIP() << "checks ASan's shadow; runs in the AddressSanitizer build (test.sh)";
#endif
}

TEST(SlabAllocatorTest, LargeRequestsAndAFullReservationGoToMalloc) {
  SlabAllocator allocator(2 * SlabAllocator::kSlabBytes);
  void* large = allocator.Allocate(SlabAllocator::kMaxSlabObject + 1);
  ASSERT_NE(large, nullptr);
  EXPECT_EQ(allocator.MallocFallbacks(), 1u);
  Stamp(large, SlabAllocator::kMaxSlabObject + 1, 7);
  // Two slabs hold 2 * 31 objects of 4 KiB; the rest come from malloc.
  std::vector<void*> objects;
  for (int i = 0; i < 100; ++i) {
    objects.push_back(allocator.Allocate(4096));
    Stamp(objects.back(), 4096, i);
  }
  EXPECT_EQ(allocator.MallocFallbacks(), 1u + 100 - 2 * 31);
  for (int i = 0; i < 100; ++i) EXPECT_TRUE(Holds(objects[i], 4096, i)) << i;
  EXPECT_TRUE(Holds(large, SlabAllocator::kMaxSlabObject + 1, 7));
  for (void* p : objects) allocator.Deallocate(p);
  allocator.Deallocate(large);
  EXPECT_EQ(allocator.AllocatedBytes(), 0u);
}

// Four threads allocate and free sizes of several classes, each freeing
// some of what another allocated; nothing is handed out twice (the
// stamps would clash) and ThreadSanitizer sees the locks.
TEST(SlabAllocatorTest, ConcurrentThreadsShareClassesSafely) {
  SlabAllocator allocator(128 * kMiB);
  constexpr int kThreads = 4;
  std::vector<std::vector<Object>> handed(kThreads);
  std::vector<std::thread> threads;
  std::vector<int> corrupt(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937 rng(10 + t);
      std::vector<Object> mine;
      for (uint32_t i = 0; i < 30'000; ++i) {
        const size_t size = 64 + rng() % 5000;
        void* p = allocator.Allocate(size);
        const uint32_t seed = t * 1'000'000 + i;
        Stamp(p, size, seed);
        mine.push_back({p, size, seed});
        if (mine.size() > 500) {
          const size_t victim = rng() % mine.size();
          corrupt[t] += !Holds(mine[victim].p, mine[victim].size, mine[victim].seed);
          allocator.Deallocate(mine[victim].p);
          mine[victim] = mine.back();
          mine.pop_back();
        }
      }
      for (const Object& o : mine) corrupt[t] += !Holds(o.p, o.size, o.seed);
      handed[t] = std::move(mine);
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(corrupt[t], 0) << "thread " << t;
  // Freed by a thread other than the one that allocated.
  threads.clear();
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (const Object& o : handed[(t + 1) % kThreads]) allocator.Deallocate(o.p);
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(allocator.AllocatedBytes(), 0u);
}

}  // namespace
}  // namespace symbiosis::rocksdb
