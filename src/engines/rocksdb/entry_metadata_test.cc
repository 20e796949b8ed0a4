#include "engines/rocksdb/entry_metadata.h"

#include <gtest/gtest.h>
#include <rocksdb/cache.h>

#include <string>

namespace symbiosis::rocksdb {
namespace {

// A cache of room for exactly 20 entries of 4 KiB plus their metadata
// holds all 20 of them, and not a 21st.
TEST(EntryMetadataTest, IsWhatRocksDbChargesAnEntry) {
  const uint32_t meta = EntryMetadataBytes();
  ASSERT_GT(meta, 0u);
  const auto cache = ::rocksdb::NewLRUCache(20 * (4096 + meta), /*num_shard_bits=*/0,
                                            /*strict_capacity_limit=*/true);
  for (int i = 0; i < 20; ++i) {
    const std::string key = "key-" + std::to_string(100000000000 + i);  // 16 bytes
    ASSERT_EQ(key.size(), 16u);
    ASSERT_TRUE(cache->Insert(key, nullptr, 4096, nullptr).ok()) << i;
  }
  EXPECT_EQ(cache->GetUsage(), 20 * (4096 + meta));
  // A 21st evicts the first, and only it.
  ASSERT_TRUE(cache->Insert("key-100000000020", nullptr, 4096, nullptr).ok());
  EXPECT_EQ(cache->Lookup("key-100000000000"), nullptr);
  ::rocksdb::Cache::Handle* second = cache->Lookup("key-100000000001");
  EXPECT_NE(second, nullptr);
  if (second != nullptr) cache->Release(second);
}

}  // namespace
}  // namespace symbiosis::rocksdb
