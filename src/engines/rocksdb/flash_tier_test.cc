#include "engines/rocksdb/flash_tier.h"

#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "symbiosis/error.h"
#include "engines/rocksdb/cache_key_map.h"
#include "testing/rocksdb_string_values.h"
#include "testing/test_support.h"

namespace symbiosis::rocksdb {
namespace {

std::string Key(uint64_t prefix, uint64_t low) { return CacheKeyMap::Key(prefix, low); }

std::string Block(uint64_t prefix, uint64_t low) {
  std::mt19937_64 rng(prefix * 7919 + low);
  std::string v(4000, '\0');
  for (char& c : v) c = static_cast<char>(rng());
  return v;
}

FlashTierOptions Options(const std::string& path) {
  FlashTierOptions o;
  o.path = path;
  o.region_bytes = 64u << 10;
  o.capacity_bytes = 64 * o.region_bytes;  // 4 MiB
  o.write_queue_bytes = 1u << 20;
  return o;
}

// Offers the block under (prefix, low) as RocksDB does at an eviction.
void Evict(FlashTier& tier, uint64_t prefix, uint64_t low) {
  std::string block = Block(prefix, low);
  ASSERT_TRUE(tier.Insert(Key(prefix, low), &block, &testing::kStringHelper).ok());
}

// What a lookup returns: the block's bytes, or nullopt.
std::optional<std::string> Find(FlashTier& tier, uint64_t prefix, uint64_t low) {
  const ::rocksdb::Cache::CreateCallback create = [](const void* buf, size_t size, void** out,
                                                     size_t* charge) {
    *out = new std::string(static_cast<const char*>(buf), size);
    *charge = size;
    return ::rocksdb::Status::OK();
  };
  bool in_cache = true;
  std::unique_ptr<::rocksdb::SecondaryCacheResultHandle> handle =
      tier.Lookup(Key(prefix, low), create, /*wait=*/true, /*advise_erase=*/false, in_cache);
  EXPECT_FALSE(in_cache);  // promoted blocks go back to the DRAM tiers
  if (handle == nullptr) return std::nullopt;
  EXPECT_TRUE(handle->IsReady());
  std::unique_ptr<std::string> value(static_cast<std::string*>(handle->Value()));
  EXPECT_EQ(handle->Size(), value->size());
  return *value;
}

TEST(FlashTierTest, AnEvictedBlockIsServedFromFlash) {
  testing::TempDir dir("symbiosis_flash_tier");
  for (const bool background : {true, false}) {
    FlashTierOptions o = Options(dir.path(background ? "bg" : "sync"));
    o.background_writes = background;
    FlashTier tier(o, 4096);
    for (uint64_t low = 0; low < 100; ++low) Evict(tier, 1, low);
    tier.Drain();
    for (uint64_t low = 0; low < 100; ++low) {
      const std::optional<std::string> got = Find(tier, 1, low);
      ASSERT_TRUE(got) << low;
      EXPECT_EQ(*got, Block(1, low));
    }
    EXPECT_FALSE(Find(tier, 1, 100));
    Evict(tier, 1, 5);  // promoted, evicted again: not written twice
    const FlashTierStats s = tier.Stats();
    EXPECT_EQ(s.inserts, 101u);
    EXPECT_EQ(s.inserts_written, 100u);
    EXPECT_EQ(s.inserts_present, 1u);
    EXPECT_EQ(s.flash_hits, 100u);
    EXPECT_EQ(s.bypassed_absent, 1u);
    EXPECT_EQ(s.entries, 100u);
    EXPECT_GT(s.insert_ns, 0u);
    EXPECT_GT(s.bytes_written, 100u * 4000);
  }
}

TEST(FlashTierTest, ThePlainTierLooksUpEveryMissOnFlash) {
  testing::TempDir dir("symbiosis_flash_tier");
  FlashTierOptions o = Options(dir.path("flash"));
  o.bypass = o.insertion_control = o.compaction_drop = false;
  FlashTier tier(o, 4096);
  for (uint64_t low = 0; low < 10; ++low) Evict(tier, 1, low);
  tier.Drain();
  for (uint64_t low = 0; low < 20; ++low) EXPECT_EQ(Find(tier, 1, low).has_value(), low < 10);
  const FlashTierStats s = tier.Stats();
  EXPECT_EQ(s.lookups, 20u);
  EXPECT_EQ(s.flash_lookups, 20u);  // the paper's baseline counts every miss
  EXPECT_EQ(s.flash_hits, 10u);
  EXPECT_EQ(s.bypassed_absent, 0u);
}

TEST(FlashTierTest, BlocksOfTablesCompactedAwayOrDeletedAreNotInserted) {
  testing::TempDir dir("symbiosis_flash_tier");
  for (const bool control : {true, false}) {
    FlashTierOptions o = Options(dir.path(control ? "on" : "off"));
    o.insertion_control = control;
    FlashTier tier(o, 4096);
    tier.OnCompactionBegin({2});
    tier.OnTablesDeleted({3});
    for (uint64_t low = 0; low < 10; ++low) {
      for (uint64_t prefix : {1, 2, 3}) Evict(tier, prefix, low);
    }
    tier.OnCompactionFailed({2});  // table 2 stays: its blocks are welcome again
    for (uint64_t low = 10; low < 20; ++low) Evict(tier, 2, low);
    tier.Drain();
    const FlashTierStats s = tier.Stats();
    EXPECT_EQ(s.inserts_invalid, control ? 20u : 0u);
    EXPECT_EQ(s.inserts_written, control ? 20u : 40u);
    EXPECT_EQ(s.invalid_entries, control ? 0u : 10u);  // table 3's, held
    EXPECT_EQ(Find(tier, 2, 0).has_value(), !control);
    EXPECT_TRUE(Find(tier, 2, 15));
  }
}

TEST(FlashTierTest, ADeletedTableLeavesFlashAtOnceOrAtEviction) {
  testing::TempDir dir("symbiosis_flash_tier");
  for (const bool drop : {true, false}) {
    FlashTierOptions o = Options(dir.path(drop ? "on" : "off"));
    o.compaction_drop = drop;
    FlashTier tier(o, 4096);
    for (uint64_t low = 0; low < 30; ++low) {
      for (uint64_t prefix : {1, 2}) Evict(tier, prefix, low);
    }
    tier.Drain();
    tier.OnTablesDeleted({2});
    const FlashTierStats s = tier.Stats();
    EXPECT_EQ(s.entries, drop ? 30u : 60u);
    EXPECT_EQ(s.invalid_entries, drop ? 0u : 30u);  // IBOR 0 or 1/2
    EXPECT_EQ(s.dropped_entries, drop ? 30u : 0u);
    EXPECT_TRUE(Find(tier, 1, 7));
  }
}

// The storage's times here are given, not measured: the tier's own
// flash hits (real reads of a file) take microseconds.
TEST(FlashTierTest, WhileFlashDoesNotPayLookupsAndInsertsSkipIt) {
  testing::TempDir dir("symbiosis_flash_tier");
  FlashTier tier(Options(dir.path("flash")), 4096);
  for (uint64_t low = 0; low < 200; ++low) Evict(tier, 1, low);
  tier.Drain();
  for (uint32_t i = 0; i < FlashTier::kMinSamples; ++i) tier.OnStorageRead(100);  // 100 ns
  for (uint64_t low = 0; low < FlashTier::kMinSamples; ++low) ASSERT_TRUE(Find(tier, 1, low));
  ASSERT_FALSE(tier.Stats().flash_pays);
  const FlashTierStats before = tier.Stats();
  size_t found = 0;
  for (uint64_t low = 0; low < 128; ++low) found += Find(tier, 1, low).has_value();
  for (uint64_t low = 1000; low < 1128; ++low) Evict(tier, 1, low);
  FlashTierStats s = tier.Stats();
  EXPECT_EQ(found, 128 / FlashTier::kProbeEvery);  // the probes keep the time current
  EXPECT_EQ(s.bypassed_slow - before.bypassed_slow, 128 - 128 / FlashTier::kProbeEvery);
  EXPECT_EQ(s.inserts_slow - before.inserts_slow, 128 - 128 / FlashTier::kProbeEvery);
  // Storage turns slow: flash pays again.
  for (uint32_t i = 0; i < 1000; ++i) tier.OnStorageRead(1'000'000'000);
  EXPECT_TRUE(tier.Stats().flash_pays);
  found = 0;
  for (uint64_t low = 0; low < 128; ++low) found += Find(tier, 1, low).has_value();
  EXPECT_EQ(found, 128u);
}

TEST(FlashTierTest, AFullWriteQueueDropsBlocksInsteadOfWaiting) {
  testing::TempDir dir("symbiosis_flash_tier");
  FlashTierOptions o = Options(dir.path("flash"));
  o.write_queue_bytes = o.region_bytes;  // 16 blocks
  FlashTier tier(o, 4096);
  std::string block = Block(1, 0);  // one block's bytes under many keys: inserts come fast
  for (uint64_t low = 0; low < 5000; ++low) {
    ASSERT_TRUE(tier.Insert(Key(1, low), &block, &testing::kStringHelper).ok());
  }
  tier.Drain();
  const FlashTierStats s = tier.Stats();
  // (inserts_present: a new key whose 16-bit tag a bucket already holds,
  // about once in 8K inserts.)
  EXPECT_EQ(s.inserts_written + s.inserts_queue_full + s.inserts_present, 5000u);
  EXPECT_LE(s.inserts_present, 10u);
  EXPECT_GT(s.inserts_queue_full, 0u);
  EXPECT_GT(s.inserts_written, 0u);
}

TEST(FlashTierTest, CapacityIsTheTiersOwnAndBadOptionsAreOneLineErrors) {
  testing::TempDir dir("symbiosis_flash_tier");
  FlashTierOptions o = Options(dir.path("flash"));
  FlashTier tier(o, 4096);
  size_t capacity = 0;
  ASSERT_TRUE(tier.GetCapacity(capacity).ok());
  EXPECT_EQ(capacity, o.capacity_bytes);
  ASSERT_TRUE(tier.SetCapacity(8 * o.region_bytes).ok());
  ASSERT_TRUE(tier.GetCapacity(capacity).ok());
  EXPECT_EQ(capacity, 8u * o.region_bytes);
  const ::rocksdb::Status s = tier.SetCapacity(o.region_bytes);
  EXPECT_TRUE(s.IsInvalidArgument());
  EXPECT_NE(s.ToString().find("below two regions"), std::string::npos) << s.ToString();
  o.write_queue_bytes = 1000;
  try {
    FlashTier bad(o, 4096);
    ADD_FAILURE() << "a queue below a region was taken";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("write queue"), std::string::npos) << e.what();
  }
  EXPECT_LE(tier.DramBytes(), FlashTier::PlannedDramBytes(Options(dir.path("flash")), 4096));
}

}  // namespace
}  // namespace symbiosis::rocksdb
