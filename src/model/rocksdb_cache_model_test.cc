#include "model/rocksdb_cache_model.h"

#include <gtest/gtest.h>
#include <rocksdb/cache.h>
#include <rocksdb/perf_level.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "engines/rocksdb/entry_metadata.h"
#include "symbiosis/error.h"
#include "testing/rocksdb_real_tiers.h"

namespace symbiosis {
namespace {

using Served = RocksDbCacheModel::Served;

// Blocks of 4 KiB in memory and 2 KiB compressed, as RealTiers's.
constexpr uint32_t kMem = testing::RealTiers::kMemBytes;
constexpr uint32_t kDisk = testing::RealTiers::kDiskBytes;

// The model's default charge for an entry's metadata.
const uint32_t kMeta = RocksDbCacheModelOptions{}.entry_metadata_bytes;

Block MakeBlock(uint64_t i) { return testing::ModelTiers::BlockOf(i); }

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
    model.SetCapacities(4 * (kMem + kMeta), model.secondary_capacity());
  }
  EXPECT_EQ(model.primary_used(), 0u);
  for (uint64_t i = 0; i < 4; ++i) EXPECT_EQ(model.Access(MakeBlock(i)), Served::kSecondary) << i;
}

TEST(RocksDbCacheModelTest, ABlockReadIsChargedItsOverheadAndAPromotedOneItsContents) {
  RocksDbCacheModelOptions o;
  o.primary_bytes = 4 * (kMem + kMeta);
  o.secondary_bytes = 10 * (kDisk + kMeta);
  o.read_charge_overhead = 64;
  RocksDbCacheModel model(o);
  for (uint64_t i = 0; i < 4; ++i) model.Access(MakeBlock(i));
  EXPECT_EQ(model.primary_used(), 3 * (kMem + 64 + kMeta))
      << "four blocks read from the device overflow the room of four contents";
  EXPECT_EQ(model.Access(MakeBlock(0)), Served::kDevice);

  // Block 0 stored below at its second eviction, then served twice from
  // there: the second miss moves it up, charged its contents alone.
  model.SetCapacities(0, model.secondary_capacity());
  model.SetCapacities(4 * (kMem + kMeta), model.secondary_capacity());
  ASSERT_EQ(model.Access(MakeBlock(0)), Served::kSecondary);
  ASSERT_EQ(model.Access(MakeBlock(0)), Served::kSecondary);
  EXPECT_EQ(model.primary_used(), kMem + kMeta);
  EXPECT_EQ(model.Access(MakeBlock(0)), Served::kPrimary);
}

TEST(RocksDbCacheModelTest, AResettledBlockCacheTakesTheSecondarysMostRecentBlocks) {
  // Blocks 0..7 stored below a one-block primary; 8 and 9 read last.
  RocksDbCacheModel model = Model(1, 100);
  for (int round = 0; round < 2; ++round) {
    for (uint64_t i = 0; i < 10; ++i) model.Access(MakeBlock(i));
  }
  ASSERT_EQ(model.Access(MakeBlock(0)), Served::kSecondary);
  RocksDbCacheModel resized = model;
  resized.SetCapacities(4 * (kMem + kMeta), model.secondary_capacity());
  EXPECT_NE(resized.Access(MakeBlock(8)), Served::kPrimary) << "a resize alone moves nothing up";
  model.Resettle(4 * (kMem + kMeta), model.secondary_capacity());
  // The three most recent below come up: 0 (just served), 9 and 8 (the
  // primary held 9 itself until 0 evicted it).
  EXPECT_EQ(model.Access(MakeBlock(8)), Served::kPrimary);
  EXPECT_EQ(model.Access(MakeBlock(0)), Served::kPrimary);
  EXPECT_EQ(model.Access(MakeBlock(1)), Served::kSecondary);
}

TEST(RocksDbCacheModelTest, AResettleToNoSecondaryChargesTheBlocksItBringsUpAsRead) {
  // Blocks 0..8 stored below a one-block primary that holds 9, read.
  RocksDbCacheModelOptions o;
  o.primary_bytes = kMem + 64 + kMeta;
  o.secondary_bytes = 100 * (kDisk + kMeta);
  o.read_charge_overhead = 64;
  RocksDbCacheModel model(o);
  for (int round = 0; round < 2; ++round) {
    for (uint64_t i = 0; i < 10; ++i) model.Access(MakeBlock(i));
  }
  RocksDbCacheModel promoted = model;
  promoted.Resettle(5 * (kMem + kMeta), model.secondary_capacity());
  EXPECT_EQ(promoted.primary_used(), (kMem + 64 + kMeta) + 3 * (kMem + kMeta));
  model.Resettle(5 * (kMem + kMeta), 0);
  EXPECT_EQ(model.primary_used(), 4 * (kMem + 64 + kMeta));
}

TEST(RocksDbCacheModelTest, AResettledShardedBlockCacheFillsEveryShard) {
  // 4 block-cache shards over 8 below; 2,000 blocks read twice leave the
  // secondary holding far more than the block cache's new room.
  RocksDbCacheModelOptions o;
  o.primary_bytes = 4 * (kMem + o.entry_metadata_bytes);
  o.secondary_bytes = 4000 * (kDisk + o.entry_metadata_bytes);
  o.primary_shard_bits = 2;
  o.secondary_shard_bits = 3;
  RocksDbCacheModel model(o);
  for (int round = 0; round < 2; ++round) {
    for (uint64_t i = 0; i < 2000; ++i) model.Access(MakeBlock(i));
  }
  const uint64_t grown = 400 * (kMem + o.entry_metadata_bytes);
  model.Resettle(grown, o.secondary_bytes);
  // Each shard stops at its first block that does not fit: at most one
  // block's room is left in each.
  EXPECT_LE(model.primary_used(), grown);
  EXPECT_GT(model.primary_used(), grown - 4 * (kMem + o.entry_metadata_bytes));
  // What came up is the most recent: of the last 300 blocks read (about
  // 75 per shard of about 100 blocks' room), every one.
  for (uint64_t i = 1700; i < 2000; ++i) EXPECT_EQ(model.Access(MakeBlock(i)), Served::kPrimary) << i;
}

TEST(RocksDbCacheModelTest, RejectsARatioOutsideZeroToOne) {
  RocksDbCacheModelOptions o;
  o.high_pri_pool_ratio = 1.5;
  EXPECT_THROW(RocksDbCacheModel{o}, InputError);
}

// --- Against RocksDB's own caches ---

using ::symbiosis::testing::ModelTiers;
using ::symbiosis::testing::RealTiers;
using ::symbiosis::testing::ReplaySecondHalf;
using ::symbiosis::testing::TierRatios;

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

// RocksDB's tiers and the model's, fed `stream`, at `memory` split at
// each of four points, one shard each or (`sharded`) RocksDB's default
// shards; both must hit alike, and store alike.
void ExpectPredicts(const std::vector<uint64_t>& stream, uint64_t memory, bool sharded,
                    double tolerance) {
  RocksDbCacheModelOptions o;
  o.entry_metadata_bytes = rocksdb::EntryMetadataBytes();
  for (const uint64_t primary : {memory / 16, memory / 4, memory / 2, memory - memory / 8}) {
    o.primary_bytes = primary;
    o.secondary_bytes = memory - primary;
    o.primary_shard_bits = sharded ? RocksDbDefaultShardBits(o.primary_bytes) : 0;
    o.secondary_shard_bits = sharded ? RocksDbDefaultShardBits(o.secondary_bytes) : 0;
    RealTiers real(o.primary_bytes, o.secondary_bytes, sharded ? -1 : 0, sharded ? -1 : 0);
    ModelTiers model(o);
    ASSERT_GE(::rocksdb::GetPerfLevel(), ::rocksdb::PerfLevel::kEnableCount)
        << "RocksDB's default perf level counts the secondary's stores";
    const TierRatios r = ReplaySecondHalf(real, stream);
    const TierRatios m = ReplaySecondHalf(model, stream);
    const std::string where = "primary " + std::to_string(primary) + ", shard bits " +
                              std::to_string(o.primary_shard_bits) + " and " +
                              std::to_string(o.secondary_shard_bits);
    EXPECT_NEAR(m.primary, r.primary, tolerance) << where;
    EXPECT_NEAR(m.secondary, r.secondary, tolerance) << where;
    EXPECT_NEAR(m.stores, r.stores, tolerance) << where;
    EXPECT_GT(r.stores, 0) << where;
  }
}

TEST(RocksDbCacheModelTest, PredictsRocksDbsOwnTiers) {
  const uint64_t memory = 4096 * uint64_t{kMem};  // 16 MiB over 20,000 blocks (80 MiB)
  ExpectPredicts(Hotspot(20'000, 2'000, 0.9), memory, /*sharded=*/false, 0.002);
  ExpectPredicts(Skewed(20'000), memory, /*sharded=*/false, 0.002);
}

TEST(RocksDbCacheModelTest, PredictsRocksDbsOwnShardedTiers) {
  const uint64_t memory = 4096 * uint64_t{kMem};
  ExpectPredicts(Hotspot(20'000, 2'000, 0.9), memory, /*sharded=*/true, 0.002);
  ExpectPredicts(Skewed(20'000), memory, /*sharded=*/true, 0.002);
}

// With no block cache nothing enters the secondary again, so after the
// shrink it serves what RocksDB demoted, by its rule: the block cache's
// blocks it never evicted before (the hottest) left only dummies.
TEST(RocksDbCacheModelTest, AResettleToNoBlockCacheServesWhatRocksDbKept) {
  const uint64_t memory = 4096 * uint64_t{kMem};
  const std::vector<uint64_t> stream = Skewed(20'000);
  RocksDbCacheModelOptions o;
  o.entry_metadata_bytes = rocksdb::EntryMetadataBytes();
  o.primary_bytes = memory / 4;
  o.secondary_bytes = memory - o.primary_bytes;
  RealTiers real(o.primary_bytes, o.secondary_bytes);
  ModelTiers model(o);
  const size_t shrink_at = stream.size() / 2;
  for (size_t n = 0; n < shrink_at; ++n) {
    real.Access(stream[n]);
    model.Access(stream[n]);
  }
  real.SetCapacities(0, memory);
  model.model.Resettle(0, memory);
  double real_served = 0, model_served = 0;
  for (size_t n = shrink_at; n < stream.size(); ++n) {
    real_served += real.Access(stream[n]) == Served::kSecondary;
    model_served += model.Access(stream[n]) == Served::kSecondary;
  }
  const double accesses = static_cast<double>(stream.size() - shrink_at);
  EXPECT_NEAR(model_served / accesses, real_served / accesses, 0.01);
  EXPECT_EQ(model.model.primary_used(), 0u);
}

TEST(RocksDbCacheModelTest, ShardsMissWhereOneCacheWouldNot) {
  // 8 MiB above 56 MiB, as an engine budget of 64 MiB starts: 16 and 64
  // shards. 29,000 blocks (56.6 MiB at 2 KiB) read uniformly fit below but
  // for the fuller shards.
  std::mt19937_64 rng(9);
  std::vector<uint64_t> stream(1'000'000);
  for (uint64_t& b : stream) b = rng() % 29'000;
  RocksDbCacheModelOptions o;
  o.entry_metadata_bytes = rocksdb::EntryMetadataBytes();
  o.primary_bytes = uint64_t{8} << 20;
  o.secondary_bytes = uint64_t{56} << 20;
  ModelTiers one_shard(o);
  o.primary_shard_bits = RocksDbDefaultShardBits(o.primary_bytes);
  o.secondary_shard_bits = RocksDbDefaultShardBits(o.secondary_bytes);
  ASSERT_EQ(o.primary_shard_bits, 4);
  ASSERT_EQ(o.secondary_shard_bits, 6);
  ModelTiers sharded(o);
  RealTiers real(o.primary_bytes, o.secondary_bytes, -1, -1);
  const TierRatios r = ReplaySecondHalf(real, stream);
  const TierRatios m = ReplaySecondHalf(sharded, stream);
  const TierRatios m1 = ReplaySecondHalf(one_shard, stream);
  EXPECT_LT(r.secondary, 0.99) << "RocksDB's shards miss";
  EXPECT_GT(m1.secondary, 0.999) << "one cache would not";
  EXPECT_NEAR(m.secondary, r.secondary, 0.004);
  EXPECT_NEAR(m.primary, r.primary, 0.002);
  EXPECT_NEAR(m.stores, r.stores, 0.002);
}

TEST(RocksDbCacheModelTest, DefaultShardBitsAreRocksDbs) {
  for (const uint64_t capacity : {uint64_t{0}, uint64_t{511} << 10, uint64_t{512} << 10,
                                  uint64_t{1} << 20, (uint64_t{3} << 20) - 1, uint64_t{8} << 20,
                                  uint64_t{56} << 20, uint64_t{1} << 30}) {
    const std::string printed = ::rocksdb::NewLRUCache(capacity)->GetPrintableOptions();
    const std::string expected = "num_shard_bits : " + std::to_string(RocksDbDefaultShardBits(capacity)) + "\n";
    EXPECT_NE(printed.find(expected), std::string::npos) << capacity << ": " << printed;
  }
}

TEST(RocksDbCacheModelTest, RejectsShardBitsRocksDbWouldNotTake) {
  RocksDbCacheModelOptions o;
  o.secondary_shard_bits = 20;
  EXPECT_THROW(RocksDbCacheModel{o}, InputError);
  o.secondary_shard_bits = 0;
  o.primary_shard_bits = -1;
  EXPECT_THROW(RocksDbCacheModel{o}, InputError);
}

}  // namespace
}  // namespace symbiosis
