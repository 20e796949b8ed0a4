#include "engines/rocksdb/cache_key_map.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace symbiosis::rocksdb {
namespace {

// A key as RocksDB 7.8 builds it: the file's prefix, then the file's
// constant XOR (offset >> 2).
std::string MakeKey(uint64_t prefix, uint64_t constant, uint64_t offset) {
  std::string key(16, '\0');
  const uint64_t low = constant ^ (offset >> 2);
  std::memcpy(key.data(), &prefix, 8);
  std::memcpy(key.data() + 8, &low, 8);
  return key;
}

TEST(CacheKeyMapTest, OneReadTeachesEveryBlockOfItsFile) {
  CacheKeyMap map;
  const uint64_t prefix = 0x1234567890abcdefULL, constant = 0x0badcafe12345678ULL;
  EXPECT_FALSE(map.Find(MakeKey(prefix, constant, 8192)));
  map.Learn(MakeKey(prefix, constant, 8192), /*file_id=*/7, 8192);
  for (uint64_t offset : {uint64_t{0}, uint64_t{4100}, uint64_t{8192}, uint64_t{1} << 30}) {
    const auto where = map.Find(MakeKey(prefix, constant, offset));
    ASSERT_TRUE(where);
    EXPECT_EQ(where->file_id, 7u);
    EXPECT_EQ(where->offset, CacheKeyMap::KeyedOffset(offset));  // RocksDB keys offset >> 2
  }
  EXPECT_FALSE(map.Find(MakeKey(prefix + 1, constant, 0)));  // another file
  EXPECT_FALSE(map.Find("short"));
}

TEST(CacheKeyMapTest, AReadAndItsKeyNameTheSameOffset) {
  CacheKeyMap map;
  const uint64_t prefix = 0x1234567890abcdefULL, constant = 0x0badcafe12345678ULL;
  map.Learn(MakeKey(prefix, constant, 4097), /*file_id=*/7, 4097);
  for (uint64_t offset : {uint64_t{4096}, uint64_t{4097}, uint64_t{4098}, uint64_t{4099}, uint64_t{8197}}) {
    const auto where = map.Find(MakeKey(prefix, constant, offset));
    ASSERT_TRUE(where);
    EXPECT_EQ(where->offset, CacheKeyMap::KeyedOffset(offset)) << offset;
  }
  EXPECT_EQ(CacheKeyMap::KeyedOffset(4099), 4096u);
}

TEST(CacheKeyMapTest, TheFirstMappingStaysAndForgetDropsAFile) {
  CacheKeyMap map;
  map.Learn(MakeKey(5, 0, 4096), 1, 4096);
  map.Learn(MakeKey(5, 0, 4096), 2, 0);  // a wrong second lesson
  EXPECT_EQ(map.Find(MakeKey(5, 0, 4096))->file_id, 1u);
  map.Learn(MakeKey(6, 0, 0), 1, 0);  // a second prefix of file 1
  map.Learn(MakeKey(7, 0, 0), 3, 0);
  std::vector<uint64_t> prefixes = map.Forget(1);
  std::sort(prefixes.begin(), prefixes.end());
  EXPECT_EQ(prefixes, (std::vector<uint64_t>{5, 6}));
  EXPECT_FALSE(map.Find(MakeKey(5, 0, 4096)));
  EXPECT_FALSE(map.Find(MakeKey(6, 0, 0)));
  EXPECT_TRUE(map.Find(MakeKey(7, 0, 0)));
}

TEST(CacheKeyMapTest, ReadersSeeWholeEntriesWhileFilesAreLearned) {
  CacheKeyMap map;
  std::atomic<bool> done{false};
  std::atomic<uint64_t> wrong{0};
  std::thread reader([&] {
    while (!done.load()) {
      for (uint64_t f = 1; f <= 2000; ++f) {
        const auto where = map.Find(MakeKey(f, f * 77, 4096 * f));
        if (where && (where->file_id != f || where->offset != 4096 * f)) wrong.fetch_add(1);
      }
    }
  });
  for (uint64_t f = 1; f <= 2000; ++f) map.Learn(MakeKey(f, f * 77, 4096 * f), f, 4096 * f);
  done = true;
  reader.join();
  EXPECT_EQ(wrong.load(), 0u);
  for (uint64_t f = 1; f <= 2000; ++f) ASSERT_TRUE(map.Find(MakeKey(f, f * 77, 0)));
}

}  // namespace
}  // namespace symbiosis::rocksdb
