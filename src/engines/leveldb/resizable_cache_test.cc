#include "engines/leveldb/resizable_cache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace symbiosis::leveldb {
namespace {

std::atomic<int> deleted{0};
void CountDelete(const ::leveldb::Slice&, void* value) {
  deleted.fetch_add(1);
  delete static_cast<int*>(value);
}

// LevelDB's block key: cache id || offset, fixed64 little-endian.
std::string BlockKey(uint64_t id, uint64_t offset) {
  std::string key(16, '\0');
  for (int i = 0; i < 8; ++i) {
    key[i] = static_cast<char>(id >> (8 * i));
    key[8 + i] = static_cast<char>(offset >> (8 * i));
  }
  return key;
}

class RecordingObserver : public BlockObserver {
 public:
  BlockTag OnInsert(uint64_t offset, size_t charge) override {
    inserts.push_back(offset);
    return BlockTag{7, static_cast<uint32_t>(charge / 2), true};
  }
  void OnHit(const BlockTag& tag, uint64_t offset, size_t charge) override {
    hits.push_back(offset);
    EXPECT_EQ(tag.file_id, 7u);
    EXPECT_EQ(tag.disk_size, charge / 2);
  }
  std::vector<uint64_t> inserts, hits;
};

int Get(ResizableCache& cache, const std::string& key) {
  ::leveldb::Cache::Handle* h = cache.Lookup(key);
  if (h == nullptr) return -1;
  const int value = *static_cast<int*>(cache.Value(h));
  cache.Release(h);
  return value;
}

void Put(ResizableCache& cache, const std::string& key, int value, size_t charge) {
  cache.Release(cache.Insert(key, new int(value), charge, &CountDelete));
}

TEST(ResizableCacheTest, HitsAndMissesLikeAnLru) {
  ResizableCache cache(16 * 100, nullptr);  // 100 per shard
  Put(cache, "a", 1, 10);
  Put(cache, "b", 2, 10);
  EXPECT_EQ(Get(cache, "a"), 1);
  EXPECT_EQ(Get(cache, "b"), 2);
  EXPECT_EQ(Get(cache, "c"), -1);
  Put(cache, "a", 3, 10);  // replaces
  EXPECT_EQ(Get(cache, "a"), 3);
  EXPECT_EQ(cache.TotalCharge(), 20u);
  cache.Erase("a");
  EXPECT_EQ(Get(cache, "a"), -1);
  EXPECT_EQ(cache.TotalCharge(), 10u);
}

TEST(ResizableCacheTest, ShrinkEvictsOldestAndGrowKeeps) {
  deleted = 0;
  ResizableCache cache(1 << 20, nullptr);
  for (int i = 0; i < 1000; ++i) Put(cache, "k" + std::to_string(i), i, 100);
  EXPECT_EQ(cache.TotalCharge(), 100000u);
  cache.SetCapacity(16 * 1000);  // 1000 per shard: 10 entries each at most
  EXPECT_LE(cache.TotalCharge(), 16000u);
  EXPECT_GE(deleted.load(), 1000 - 160);
  // The newest entries survive: in each shard the last ones inserted.
  int newest_kept = 0;
  for (int i = 990; i < 1000; ++i) newest_kept += Get(cache, "k" + std::to_string(i)) == i;
  EXPECT_EQ(newest_kept, 10);  // the 10 newest overall are among the newest of their shards
  cache.SetCapacity(1 << 20);
  const size_t kept = cache.TotalCharge();
  Put(cache, "new", 1, 100);
  EXPECT_EQ(cache.TotalCharge(), kept + 100);
  EXPECT_EQ(cache.capacity(), size_t{1} << 20);
}

TEST(ResizableCacheTest, PinnedEntriesSurviveShrinkAndFreeOnRelease) {
  deleted = 0;
  ResizableCache cache(1 << 20, nullptr);
  ::leveldb::Cache::Handle* pinned = cache.Insert("p", new int(42), 1000, &CountDelete);
  cache.SetCapacity(0);
  EXPECT_EQ(*static_cast<int*>(cache.Value(pinned)), 42);
  EXPECT_EQ(deleted.load(), 0);
  EXPECT_EQ(Get(cache, "p"), 42);  // still cached: pinned entries stay
  cache.Release(pinned);
  EXPECT_EQ(deleted.load(), 1);    // unpinned at capacity 0: evicted
  EXPECT_EQ(Get(cache, "p"), -1);
}

TEST(ResizableCacheTest, CapacityZeroCachesNothing) {
  deleted = 0;
  ResizableCache cache(0, nullptr);
  ::leveldb::Cache::Handle* h = cache.Insert("x", new int(1), 10, &CountDelete);
  EXPECT_EQ(*static_cast<int*>(cache.Value(h)), 1);
  EXPECT_EQ(Get(cache, "x"), -1);
  cache.Release(h);
  EXPECT_EQ(deleted.load(), 1);
}

TEST(ResizableCacheTest, ReportsBlockInsertsAndHitsWithTheirOffset) {
  RecordingObserver observer;
  ResizableCache cache(1 << 20, &observer);
  Put(cache, BlockKey(3, 4096), 1, 800);
  EXPECT_EQ(Get(cache, BlockKey(3, 4096)), 1);
  EXPECT_EQ(Get(cache, BlockKey(3, 8192)), -1);  // a miss is reported at insert
  Put(cache, "short key", 2, 10);                // not a block key: not reported
  EXPECT_EQ(Get(cache, "short key"), 2);
  EXPECT_EQ(observer.inserts, std::vector<uint64_t>{4096});
  EXPECT_EQ(observer.hits, std::vector<uint64_t>{4096});
}

TEST(ResizableCacheTest, NewIdsAreDistinct) {
  ResizableCache cache(100, nullptr);
  const uint64_t a = cache.NewId();
  EXPECT_NE(a, cache.NewId());
}

TEST(ResizableCacheTest, ConcurrentUseWithResizesKeepsValuesRight) {
  deleted = 0;
  ResizableCache cache(1 << 16, nullptr);
  std::atomic<bool> stop{false};
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20000; ++i) {
        const int k = (i * 7 + t) % 500;
        const std::string key = "key" + std::to_string(k);
        ::leveldb::Cache::Handle* h = cache.Lookup(key);
        if (h == nullptr) h = cache.Insert(key, new int(k), 64 + k % 64, &CountDelete);
        if (*static_cast<int*>(cache.Value(h)) != k) wrong.fetch_add(1);
        cache.Release(h);
      }
    });
  }
  std::thread resizer([&] {
    for (size_t i = 0; !stop.load(); ++i) cache.SetCapacity((i % 8) * 4096);
  });
  for (auto& t : threads) t.join();
  stop = true;
  resizer.join();
  EXPECT_EQ(wrong.load(), 0);
  cache.SetCapacity(0);
  EXPECT_EQ(cache.TotalCharge(), 0u);
}

}  // namespace
}  // namespace symbiosis::leveldb
