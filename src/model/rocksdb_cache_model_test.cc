#include "symbiosis/rocksdb_cache_model.h"

#include <gtest/gtest.h>
#include <rocksdb/cache.h>
#include <rocksdb/perf_level.h>

#include <cmath>
#include <random>
#include <vector>

#include "symbiosis/error.h"
#include "testing/rocksdb_real_tiers.h"

namespace symbiosis {
namespace {

using Served = RocksDbCacheModel::Served;

// Blocks of 4 KiB in memory and 2 KiB compressed, as RealTiers's.
constexpr uint32_t kMem = testing::RealTiers::kMemBytes;
constexpr uint32_t kDisk = testing::RealTiers::kDiskBytes;

Block MakeBlock(uint64_t i) { return Block{1, i * kDisk, kDisk, kMem}; }

RocksDbCacheModel Model(uint64_t primary_blocks, uint64_t secondary_blocks) {
  RocksDbCacheModelOptions o;
  o.primary_bytes = primary_blocks * (kMem + o.entry_metadata_bytes);
  o.secondary_bytes = secondary_blocks * (kDisk + o.entry_metadata_bytes);
  return RocksDbCacheModel(o);
}

TEST(RocksDbCacheModelTest, TheSecondaryStoresABlockAtItsSecondEviction) {
  RocksDbCacheModel model = Model(1, 10);
  EXPECT_EQ(model.Access(MakeBlock(0)), Served::kDevice);
  EXPECT_EQ(model.Access(MakeBlock(1)), Served::kDevice);  // evicts 0: a dummy below
  EXPECT_EQ(model.Access(MakeBlock(0)), Served::kDevice) << "a dummy serves nothing";
  EXPECT_EQ(model.stores(), 0u) << "1 evicted for the first time: a dummy";
  EXPECT_EQ(model.Access(MakeBlock(1)), Served::kDevice);  // evicts 0 again: stored
  EXPECT_EQ(model.stores(), 1u);
  EXPECT_EQ(model.Access(MakeBlock(0)), Served::kSecondary);
}

TEST(RocksDbCacheModelTest, FastFillStoresABlockAtItsFirstEviction) {
  RocksDbCacheModel model = Model(1, 10);
  model.SetFastFill(true);
  model.Access(MakeBlock(0));
  model.Access(MakeBlock(1));  // evicts 0: stored at once
  model.SetFastFill(false);
  EXPECT_EQ(model.Access(MakeBlock(0)), Served::kSecondary);
}

TEST(RocksDbCacheModelTest, ASecondaryBlockEntersThePrimaryAtItsSecondMiss) {
  // Room for one block and the dummy that marks the standalone one: the
  // dummy goes in while the standalone block is still charged.
  RocksDbCacheModelOptions o;
  o.primary_bytes = kMem + 2 * o.entry_metadata_bytes;
  o.secondary_bytes = 10 * (kDisk + o.entry_metadata_bytes);
  RocksDbCacheModel model(o);
  for (int i = 0; i < 2; ++i) {
    model.Access(MakeBlock(0));
    model.Access(MakeBlock(1));
  }
  EXPECT_EQ(model.Access(MakeBlock(0)), Served::kSecondary);  // standalone; a dummy above
  EXPECT_EQ(model.Access(MakeBlock(0)), Served::kSecondary);  // the dummy found: moved up
  EXPECT_EQ(model.Access(MakeBlock(0)), Served::kPrimary);
}

TEST(RocksDbCacheModelTest, AHitBlockOutlivesBlocksReadOnce) {
  // Four blocks of room, half of them the high-pri pool: block 0, hit once,
  // stays through a scan of ten new blocks; an LRU would have lost it.
  RocksDbCacheModel model = Model(4, 0);
  model.Access(MakeBlock(0));
  ASSERT_EQ(model.Access(MakeBlock(0)), Served::kPrimary);
  for (uint64_t i = 1; i <= 10; ++i) model.Access(MakeBlock(i));
  EXPECT_EQ(model.Access(MakeBlock(0)), Served::kPrimary);

  RocksDbCacheModelOptions lru;
  lru.high_pri_pool_ratio = 0;
  lru.primary_bytes = 4 * (kMem + lru.entry_metadata_bytes);
  RocksDbCacheModel plain(lru);
  plain.Access(MakeBlock(0));
  ASSERT_EQ(plain.Access(MakeBlock(0)), Served::kPrimary);
  for (uint64_t i = 1; i <= 10; ++i) plain.Access(MakeBlock(i));
  EXPECT_EQ(plain.Access(MakeBlock(0)), Served::kDevice);
}

TEST(RocksDbCacheModelTest, AShrinkEvictsIntoTheSecondary) {
  RocksDbCacheModel model = Model(4, 10);
  for (int round = 0; round < 2; ++round) {
    for (uint64_t i = 0; i < 4; ++i) model.Access(MakeBlock(i));
    model.SetCapacities(0, model.secondary_capacity());  // every block evicted
    model.SetCapacities(4 * (kMem + 96), model.secondary_capacity());
  }
  EXPECT_EQ(model.primary_used(), 0u);
  for (uint64_t i = 0; i < 4; ++i) EXPECT_EQ(model.Access(MakeBlock(i)), Served::kSecondary) << i;
}

TEST(RocksDbCacheModelTest, AResettledBlockCacheTakesTheSecondarysMostRecentBlocks) {
  // Blocks 0..7 stored below a one-block primary; 8 and 9 read last.
  RocksDbCacheModel model = Model(1, 100);
  for (int round = 0; round < 2; ++round) {
    for (uint64_t i = 0; i < 10; ++i) model.Access(MakeBlock(i));
  }
  ASSERT_EQ(model.Access(MakeBlock(0)), Served::kSecondary);
  RocksDbCacheModel resized = model;
  resized.SetCapacities(4 * (kMem + 96), model.secondary_capacity());
  EXPECT_NE(resized.Access(MakeBlock(8)), Served::kPrimary) << "a resize alone moves nothing up";
  model.Resettle(4 * (kMem + 96), model.secondary_capacity());
  // The three most recent below come up: 0 (just served), 9 and 8 (the
  // primary held 9 itself until 0 evicted it).
  EXPECT_EQ(model.Access(MakeBlock(8)), Served::kPrimary);
  EXPECT_EQ(model.Access(MakeBlock(0)), Served::kPrimary);
  EXPECT_EQ(model.Access(MakeBlock(1)), Served::kSecondary);
}

TEST(RocksDbCacheModelTest, RejectsARatioOutsideZeroToOne) {
  RocksDbCacheModelOptions o;
  o.high_pri_pool_ratio = 1.5;
  EXPECT_THROW(RocksDbCacheModel{o}, InputError);
}

// --- Against RocksDB's own caches ---

struct Tiers {
  double primary = 0;    // hits over accesses
  double secondary = 0;  // of the misses, served by the secondary
  double stores = 0;     // blocks stored in the secondary per access
};

using ::symbiosis::testing::RealTiers;

// What an LRUCache charges an entry beyond its charge.
uint64_t MetadataBytes() {
  auto cache = ::rocksdb::NewLRUCache(1 << 20, 0);
  EXPECT_TRUE(cache->Insert("0123456789abcdef", nullptr, kMem, nullptr).ok());
  return cache->GetUsage() - kMem;
}

template <typename Cache>
Tiers Replay(Cache& cache, const std::vector<uint64_t>& stream) {
  uint64_t counted = 0, primary = 0, secondary = 0, stores_before = 0;
  for (size_t n = 0; n < stream.size(); ++n) {
    if (n == stream.size() / 2) stores_before = cache.Stores();
    const Served s = cache.Access(stream[n]);
    if (n < stream.size() / 2) continue;
    ++counted;
    primary += s == Served::kPrimary;
    secondary += s == Served::kSecondary;
  }
  return Tiers{static_cast<double>(primary) / counted,
               static_cast<double>(secondary) / (counted - primary),
               static_cast<double>(cache.Stores() - stores_before) / counted};
}

struct ModelTiers {
  explicit ModelTiers(const RocksDbCacheModelOptions& o) : model(o) {}
  Served Access(uint64_t i) { return model.Access(MakeBlock(i)); }
  uint64_t Stores() const { return model.stores(); }
  RocksDbCacheModel model;
};

// A hotspot stream (hot_share of the accesses to hot_blocks of `blocks`)
// and a Zipf-like one (a power of a uniform draw).
std::vector<uint64_t> Hotspot(uint64_t blocks, uint64_t hot_blocks, double hot_share) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<uint64_t> stream(300'000);
  for (uint64_t& b : stream) {
    b = u(rng) < hot_share ? rng() % hot_blocks : hot_blocks + rng() % (blocks - hot_blocks);
  }
  return stream;
}

std::vector<uint64_t> Skewed(uint64_t blocks) {
  std::mt19937_64 rng(8);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<uint64_t> stream(300'000);
  for (uint64_t& b : stream) b = static_cast<uint64_t>(blocks * std::pow(u(rng), 3.0));
  return stream;
}

TEST(RocksDbCacheModelTest, PredictsRocksDbsOwnTiers) {
  RocksDbCacheModelOptions o;
  o.entry_metadata_bytes = static_cast<uint32_t>(MetadataBytes());
  const uint64_t memory = 4096 * uint64_t{kMem};  // 16 MiB over 20,000 blocks (80 MiB)
  const std::vector<std::vector<uint64_t>> streams = {Hotspot(20'000, 2'000, 0.9),
                                                     Skewed(20'000)};
  for (size_t s = 0; s < streams.size(); ++s) {
    for (const uint64_t primary : {memory / 16, memory / 4, memory / 2, memory - memory / 8}) {
      o.primary_bytes = primary;
      o.secondary_bytes = memory - primary;
      RealTiers real(o.primary_bytes, o.secondary_bytes);
      ModelTiers model(o);
      ASSERT_GE(::rocksdb::GetPerfLevel(), ::rocksdb::PerfLevel::kEnableCount)
          << "RocksDB's default perf level counts the secondary's stores";
      const Tiers r = Replay(real, streams[s]);
      const Tiers m = Replay(model, streams[s]);
      EXPECT_NEAR(m.primary, r.primary, 0.002) << "stream " << s << ", primary " << primary;
      EXPECT_NEAR(m.secondary, r.secondary, 0.002) << "stream " << s << ", primary " << primary;
      EXPECT_NEAR(m.stores, r.stores, 0.002) << "stream " << s << ", primary " << primary;
      EXPECT_GT(r.stores, 0) << "stream " << s << ", primary " << primary;
    }
  }
}

}  // namespace
}  // namespace symbiosis
