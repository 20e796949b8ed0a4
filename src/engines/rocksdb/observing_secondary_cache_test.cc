#include "engines/rocksdb/observing_secondary_cache.h"

#include <gtest/gtest.h>
#include <rocksdb/secondary_cache.h>

#include <cstring>
#include <memory>
#include <string>

#include "engines/rocksdb/cache_key_map.h"
#include "testing/rocksdb_string_values.h"
#include "testing/test_support.h"

namespace symbiosis::rocksdb {
namespace {

std::string Key(uint64_t prefix, uint64_t low) { return CacheKeyMap::Key(prefix, low); }

// RocksDB's compressed cache over a flash tier, as the engine budget
// stacks them: a block the compressed cache has not stored (its first
// insert is a dummy) is served from flash, and the Adapter counts it as a
// read that the flash tier served, not the second tier.
TEST(ObservingSecondaryCacheTest, FlashServesWhatTheCompressedCacheLacks) {
  testing::TempDir dir("symbiosis_observing_secondary");
  ::rocksdb::CompressedSecondaryCacheOptions compressed;
  compressed.capacity = 4 << 20;
  FlashTierOptions flash_options;
  flash_options.path = dir.path("flash");
  flash_options.capacity_bytes = 4 << 20;
  flash_options.region_bytes = 64u << 10;
  flash_options.write_queue_bytes = 1 << 20;
  auto flash = std::make_shared<FlashTier>(flash_options, 4096);
  Adapter adapter;
  ObservingSecondaryCache cache(::rocksdb::NewCompressedSecondaryCache(compressed), &adapter,
                                flash);
  const std::string key = Key(7, 1);
  std::string block(4000, 'b');
  ASSERT_TRUE(cache.Insert(key, &block, &testing::kStringHelper).ok());
  flash->Drain();
  EXPECT_EQ(flash->Stats().inserts_written, 1u);

  const ::rocksdb::Cache::CreateCallback create = [](const void* buf, size_t size, void** out,
                                                     size_t* charge) {
    *out = new std::string(static_cast<const char*>(buf), size);
    *charge = size;
    return ::rocksdb::Status::OK();
  };
  adapter.OnLookupStart(key);
  bool in_cache = true;
  std::unique_ptr<::rocksdb::SecondaryCacheResultHandle> handle =
      cache.Lookup(key, create, /*wait=*/true, /*advise_erase=*/false, in_cache);
  ASSERT_NE(handle, nullptr);
  std::unique_ptr<std::string> value(static_cast<std::string*>(handle->Value()));
  ASSERT_NE(value, nullptr);
  EXPECT_EQ(*value, block);
  EXPECT_FALSE(in_cache);  // back to the compressed cache at its next eviction
  adapter.OnLookupEnd(key, /*found=*/true, value->size());
  const AccessCounts counts = adapter.Counts();
  EXPECT_EQ(counts.lookups, 1u);
  EXPECT_EQ(counts.hits, 0u);
  EXPECT_EQ(counts.reads, 1u);
  EXPECT_EQ(counts.second_tier_hits, 0u);
  EXPECT_EQ(counts.flash_hits, 1u);
  EXPECT_GT(counts.miss_ns, 0u);

  // A key neither holds: both miss, nothing is counted as served.
  adapter.OnLookupStart(Key(7, 2));
  EXPECT_EQ(cache.Lookup(Key(7, 2), create, true, false, in_cache), nullptr);
  EXPECT_EQ(adapter.Counts().flash_hits, 1u);
  // The capacity the Controller sets is the compressed cache's alone.
  ASSERT_TRUE(cache.SetCapacity(1 << 20).ok());
  size_t capacity = 0;
  ASSERT_TRUE(cache.GetCapacity(capacity).ok());
  EXPECT_EQ(capacity, 1u << 20);
  ASSERT_TRUE(flash->GetCapacity(capacity).ok());
  EXPECT_EQ(capacity, 4u << 20);
}

}  // namespace
}  // namespace symbiosis::rocksdb
