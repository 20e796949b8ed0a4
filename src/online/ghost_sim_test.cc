#include "online/ghost_sim.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <vector>

#include "symbiosis/klru_cache.h"
#include "model/page_cache_model.h"
#include "testing/test_support.h"

namespace symbiosis {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;

// Blocks of 4 KiB in memory, 2 KiB + 5 on disk, packed into files of
// 1 MiB, so neighbours share pages as in a real table file.
Block MakeBlock(uint64_t ordinal) {
  constexpr uint64_t kPerFile = 500;
  Block b;
  b.file_id = 1 + ordinal / kPerFile;
  b.offset = (ordinal % kPerFile) * 2053;
  b.disk_size = 2053;
  b.mem_size = 4096;
  return b;
}

std::vector<uint64_t> SkewedOrdinals(size_t n, uint64_t blocks, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> out(n);
  for (auto& o : out) {
    // Half the accesses to a hot tenth.
    o = rng() % 2 ? rng() % (blocks / 10) : rng() % blocks;
  }
  return out;
}

TEST(GhostSimTest, UnsampledRoundMatchesAnExactLruAndTheKernelModelPerCandidate) {
  Sampler all(SamplerOptions{1.0, 32, 2053});
  const uint64_t m = 8 * kMiB;
  GhostSim sim(GhostSimOptions{m, KernelModelKind::kLinux, 32}, &all);
  const std::vector<uint64_t> candidates = {0, 2 * kMiB, 4 * kMiB, 6 * kMiB, 8 * kMiB};
  sim.Begin(candidates, 0);
  const std::vector<uint64_t> trace = SkewedOrdinals(60'000, 6000, 1);

  // Reference: an exact LRU per candidate over the whole run, and per
  // candidate the full kernel model fed by that LRU's misses: all are
  // measured at once (parallel_candidates, the default).
  std::vector<testing::ListLru> lrus;
  std::vector<std::unique_ptr<PageCacheModel>> kernels;
  for (const uint64_t c : candidates) {
    lrus.emplace_back(c);
    PageCacheOptions page;
    page.capacity_bytes = m - c;
    kernels.push_back(std::make_unique<PageCacheModel>(page));
  }
  std::vector<uint64_t> lru_misses(candidates.size(), 0);
  std::vector<uint64_t> second_tier_misses(candidates.size(), 0);

  EXPECT_TRUE(sim.AllCandidatesAtOnce());
  sim.SetStage(2, true);
  for (const uint64_t o : trace) {
    const Block b = MakeBlock(o);
    sim.Access(b);
    for (size_t i = 0; i < candidates.size(); i++) {
      const bool hit = lrus[i].Access(b.key(), b.mem_size);
      lru_misses[i] += !hit;
      if (!hit && candidates[i] < m) second_tier_misses[i] += !kernels[i]->Read(b);
      if (!hit && candidates[i] == m) ++second_tier_misses[i];  // no kernel cache
    }
  }
  for (size_t i = 0; i < candidates.size(); i++) {
    const CandidateCounts c = sim.Counts(i);
    EXPECT_TRUE(c.app_misses_in_stage);
    EXPECT_EQ(c.app_misses, lru_misses[i]) << "candidate " << i;
    EXPECT_EQ(c.stage_samples, trace.size());
    EXPECT_EQ(c.kernel_reads, lru_misses[i]);
    EXPECT_EQ(c.second_tier_misses, second_tier_misses[i]) << "candidate " << i;
    EXPECT_GT(second_tier_misses[i], 0u);
    if (candidates[i] < m) {
      EXPECT_LT(second_tier_misses[i], lru_misses[i]) << "candidate " << i;
    }
  }
}

// One candidate at a time (the paper's round): the kernel ghost counts
// only the stage's candidate, over the stage.
TEST(GhostSimTest, OneCandidateAtATimeMeasuresOnlyTheStagesKernelGhost) {
  Sampler all(SamplerOptions{1.0, 32, 2053});
  const uint64_t m = 8 * kMiB;
  GhostSimOptions options{m, KernelModelKind::kLinux, 32};
  options.parallel_candidates = false;
  GhostSim sim(options, &all);
  const std::vector<uint64_t> candidates = {0, 2 * kMiB, 4 * kMiB};
  sim.Begin(candidates, 0);
  EXPECT_FALSE(sim.AllCandidatesAtOnce());
  const std::vector<uint64_t> trace = SkewedOrdinals(30'000, 6000, 6);
  sim.SetStage(1, true);
  for (const uint64_t o : trace) sim.Access(MakeBlock(o));
  EXPECT_EQ(sim.Counts(1).stage_samples, trace.size());
  EXPECT_GT(sim.Counts(1).kernel_reads, 0u);
  EXPECT_FALSE(sim.Counts(1).app_misses_in_stage);
  for (const size_t other : {0, 2}) {
    EXPECT_EQ(sim.Counts(other).stage_samples, 0u);
    EXPECT_EQ(sim.Counts(other).kernel_reads, 0u);
    EXPECT_GT(sim.Counts(other).app_misses, 0u) << "one application ghost answers all";
  }
}

// With app_cache_k = K the application ghost is KRR's stack: its misses
// per candidate follow a K-LRU cache of that size (KLruCache, the
// simulator), where the LRU ghost's do not (random eviction, K = 1, misses
// more than LRU on a skewed stream).
TEST(GhostSimTest, AKLruApplicationCacheIsPredictedByTheKrrGhost) {
  Sampler all(SamplerOptions{1.0, 32, 2053});
  const uint64_t m = 8 * kMiB;
  const std::vector<uint64_t> candidates = {2 * kMiB, 4 * kMiB, 6 * kMiB};
  const std::vector<uint64_t> trace = SkewedOrdinals(100'000, 6000, 3);
  for (const uint32_t k : {1u, 5u}) {
    GhostSimOptions options{m, KernelModelKind::kLinux, 32};
    options.app_cache_k = k;
    GhostSim sim(options, &all);
    sim.Begin(candidates, 0);
    sim.SetStage(0, true);
    std::vector<std::unique_ptr<KLruCache>> caches;
    std::vector<std::unique_ptr<testing::ListLru>> lrus;
    for (const uint64_t c : candidates) {
      KLruOptions o;
      o.unit = CacheUnit::kBytes;
      o.capacity = c;
      o.k = k;
      caches.push_back(std::make_unique<KLruCache>(o));
      lrus.push_back(std::make_unique<testing::ListLru>(c));
    }
    std::vector<uint64_t> lru_misses(candidates.size(), 0);
    for (const uint64_t o : trace) {
      const Block b = MakeBlock(o);
      sim.Access(b);
      for (size_t i = 0; i < candidates.size(); i++) {
        caches[i]->Access(b.key(), b.mem_size);
        lru_misses[i] += !lrus[i]->Access(b.key(), b.mem_size);
      }
    }
    for (size_t i = 0; i < candidates.size(); i++) {
      const double predicted = static_cast<double>(sim.Counts(i).app_misses) / trace.size();
      const double klru = static_cast<double>(caches[i]->misses()) / trace.size();
      const double lru = static_cast<double>(lru_misses[i]) / trace.size();
      EXPECT_NEAR(predicted, klru, 0.01) << "K=" << k << " candidate " << i;
      if (k == 1) {
        EXPECT_GT(klru - lru, 0.015) << "random eviction should miss more than LRU";
      }
    }
  }
}

// RocksDB's engine budget: both tiers are one RocksDbCacheModel, warmed at
// the engine's split (its secondary filling fast); each candidate then
// runs from a copy of that state resettled to its split, exactly; its
// application misses are its own stage's. With the engine's shards too.
class GhostSimRocksDbTest : public ::testing::TestWithParam<int> {};

TEST_P(GhostSimRocksDbTest, RocksDbTiersRunPerStageFromTheCurrentSplit) {
  Sampler all(SamplerOptions{1.0, 32, 2053});
  const uint64_t m = 8 * kMiB;
  GhostSimOptions options{m, KernelModelKind::kLinux, 32};
  options.rocksdb_tiers = true;
  options.parallel_candidates = false;
  options.primary_shard_bits = GetParam();
  options.secondary_shard_bits = GetParam() + 1;
  GhostSim sim(options, &all);
  const std::vector<uint64_t> candidates = {0, 2 * kMiB, 4 * kMiB};
  const std::vector<uint64_t> trace = SkewedOrdinals(90'000, 6000, 4);
  const auto part = [&](size_t i) {
    return std::vector<uint64_t>(trace.begin() + i * 30'000, trace.begin() + (i + 1) * 30'000);
  };
  // The reference: the warmed model, copied and resized per candidate.
  RocksDbCacheModelOptions sharded{2 * kMiB, m - 2 * kMiB};
  sharded.primary_shard_bits = GetParam();
  sharded.secondary_shard_bits = GetParam() + 1;
  RocksDbCacheModel warmed(sharded);
  RocksDbCacheModel model = warmed;
  model.SetFastFill(true);  // as the round's warm-up runs it
  const auto run = [&](const std::vector<uint64_t>& ordinals, uint64_t* app, uint64_t* device) {
    for (const uint64_t o : ordinals) {
      const Block b = MakeBlock(o);
      sim.Access(b);
      const RocksDbCacheModel::Served s = model.Access(b);
      *app += s != RocksDbCacheModel::Served::kPrimary;
      *device += s == RocksDbCacheModel::Served::kDevice;
    }
  };
  uint64_t ignored = 0;
  sim.Begin(candidates, 1);  // the engine runs 2 MiB
  run(part(0), &ignored, &ignored);
  model.SetFastFill(false);
  warmed = model;
  for (size_t stage : {0, 2}) {
    sim.SetStage(stage, true);
    model = warmed;
    model.Resettle(candidates[stage], m - candidates[stage]);
    uint64_t app = 0, device = 0;
    const uint64_t stores = model.stores();
    run(part(stage == 0 ? 1 : 2), &app, &device);
    const CandidateCounts c = sim.Counts(stage);
    EXPECT_TRUE(c.app_misses_in_stage);
    EXPECT_EQ(c.stage_samples, 30'000u);
    EXPECT_EQ(c.app_misses, app) << "stage " << stage;
    EXPECT_EQ(c.kernel_reads, app);
    EXPECT_EQ(c.second_tier_misses, device) << "stage " << stage;
    EXPECT_EQ(c.second_tier_stores, model.stores() - stores) << "stage " << stage;
  }
  // At M_a = 0 the secondary served what the 2 MiB warm-up left in it:
  // a model started there would have served nothing (RocksDB admits only
  // what its block cache evicts).
  const CandidateCounts at_zero = sim.Counts(0);
  EXPECT_EQ(at_zero.app_misses, 30'000u);
  EXPECT_LT(at_zero.second_tier_misses, at_zero.kernel_reads / 2);
  EXPECT_EQ(at_zero.second_tier_stores, 0u) << "no block cache evicts into the secondary";
  EXPECT_GT(sim.Counts(2).second_tier_stores, 0u) << "a 4 MiB block cache evicts into it";
  RocksDbCacheModel cold(RocksDbCacheModelOptions{0, m});
  uint64_t cold_device = 0;
  for (const uint64_t o : part(1)) {
    cold_device += cold.Access(MakeBlock(o)) == RocksDbCacheModel::Served::kDevice;
  }
  EXPECT_EQ(cold_device, 30'000u);
  EXPECT_GT(sim.MemoryUsage(), 0u);
  sim.End();
  EXPECT_FALSE(sim.active());
}

INSTANTIATE_TEST_SUITE_P(ShardBits, GhostSimRocksDbTest, ::testing::Values(0, 3));

// A sampled model keeps the engine's shard size: a share of 1/4 of the
// blocks takes 2 shard bits off.
// All at once: when the warm-up ends, every candidate runs from its own
// copy of the warmed model, resettled to its split, over the same
// accesses.
TEST_P(GhostSimRocksDbTest, RocksDbTiersRunAllAtOnceFromTheCurrentSplit) {
  Sampler all(SamplerOptions{1.0, 32, 2053});
  const uint64_t m = 8 * kMiB;
  GhostSimOptions options{m, KernelModelKind::kLinux, 32};
  options.rocksdb_tiers = true;
  options.primary_shard_bits = GetParam();
  options.secondary_shard_bits = GetParam() + 1;
  GhostSim sim(options, &all);
  const std::vector<uint64_t> candidates = {0, 2 * kMiB, 4 * kMiB};
  const std::vector<uint64_t> trace = SkewedOrdinals(60'000, 6000, 4);
  RocksDbCacheModelOptions sharded{2 * kMiB, m - 2 * kMiB};
  sharded.primary_shard_bits = GetParam();
  sharded.secondary_shard_bits = GetParam() + 1;
  RocksDbCacheModel warmed(sharded);
  warmed.SetFastFill(true);
  sim.Begin(candidates, 1);
  for (size_t i = 0; i < 30'000; i++) {
    sim.Access(MakeBlock(trace[i]));
    warmed.Access(MakeBlock(trace[i]));
  }
  warmed.SetFastFill(false);
  std::vector<RocksDbCacheModel> models(candidates.size(), warmed);
  std::vector<uint64_t> app(candidates.size(), 0), device(candidates.size(), 0);
  for (size_t i = 0; i < candidates.size(); i++) {
    models[i].Resettle(candidates[i], m - candidates[i]);
  }
  std::vector<uint64_t> stores;
  for (const RocksDbCacheModel& model : models) stores.push_back(model.stores());
  sim.SetStage(0, true);
  for (size_t k = 30'000; k < trace.size(); k++) {
    const Block b = MakeBlock(trace[k]);
    sim.Access(b);
    for (size_t i = 0; i < candidates.size(); i++) {
      const RocksDbCacheModel::Served s = models[i].Access(b);
      app[i] += s != RocksDbCacheModel::Served::kPrimary;
      device[i] += s == RocksDbCacheModel::Served::kDevice;
    }
  }
  for (size_t i = 0; i < candidates.size(); i++) {
    const CandidateCounts c = sim.Counts(i);
    EXPECT_TRUE(c.app_misses_in_stage);
    EXPECT_EQ(c.stage_samples, 30'000u);
    EXPECT_EQ(c.app_misses, app[i]) << "candidate " << i;
    EXPECT_EQ(c.second_tier_misses, device[i]) << "candidate " << i;
    EXPECT_EQ(c.second_tier_stores, models[i].stores() - stores[i]) << "candidate " << i;
  }
  EXPECT_GT(app[0], app[2]);
  sim.End();
  EXPECT_FALSE(sim.active());
}

TEST(GhostSimTest, ASampledModelHasFewerShardsOfTheEnginesSize) {
  EXPECT_EQ(SampledShardBits(6, 1.0), 6);
  EXPECT_EQ(SampledShardBits(6, 1.05), 6) << "a share a little over R";
  EXPECT_EQ(SampledShardBits(6, 0.25), 4);
  EXPECT_EQ(SampledShardBits(6, 0.23), 4);
  EXPECT_EQ(SampledShardBits(4, 1.0 / 64), 0);
  EXPECT_EQ(SampledShardBits(0, 1.0 / 64), 0);
}

TEST(GhostSimTest, WarmupIsNotCountedAndTheKernelGhostShrinksWithMa) {
  Sampler all(SamplerOptions{1.0, 32, 2053});
  const uint64_t m = 8 * kMiB;
  GhostSimOptions options{m, KernelModelKind::kLinux, 32};
  options.parallel_candidates = false;
  GhostSim sim(options, &all);
  sim.Begin({0, 4 * kMiB, 8 * kMiB}, 0);
  for (const uint64_t o : SkewedOrdinals(20'000, 6000, 2)) sim.Access(MakeBlock(o));
  EXPECT_EQ(sim.Counts(0).stage_samples, 0u);
  EXPECT_EQ(sim.Counts(0).app_misses, 0u);
  sim.SetStage(1, true);
  sim.Access(MakeBlock(1));
  EXPECT_EQ(sim.StageSamples(), 1u);
  // M_a = M leaves no kernel cache: every application miss misses it.
  sim.SetStage(2, true);
  for (const uint64_t o : SkewedOrdinals(5000, 6000, 3)) sim.Access(MakeBlock(o));
  const CandidateCounts c = sim.Counts(2);
  EXPECT_GT(c.kernel_reads, 0u);
  EXPECT_EQ(c.second_tier_misses, c.kernel_reads);
}

// The kernel cache holds M - M_a + offset: with a 2 MiB offset, M_a = M
// is modelled as a 2 MiB kernel cache (as the same ghost at M + 2 MiB),
// and a negative offset as large as M - M_a leaves none.
TEST(GhostSimTest, KernelOffsetResizesTheKernelGhost) {
  Sampler all(SamplerOptions{1.0, 32, 2053});
  const uint64_t m = 8 * kMiB;
  const std::vector<uint64_t> trace = SkewedOrdinals(20'000, 6000, 4);
  auto second_tier_misses = [&](uint64_t memory, int64_t offset, std::vector<uint64_t> candidates) {
    GhostSim sim(GhostSimOptions{memory, KernelModelKind::kLinux, 32}, &all);
    sim.SetKernelOffset(offset);
    sim.Begin(candidates, 0);
    sim.SetStage(candidates.size() - 1, true);
    for (const uint64_t o : trace) sim.Access(MakeBlock(o));
    const CandidateCounts c = sim.Counts(candidates.size() - 1);
    EXPECT_GT(c.kernel_reads, 0u);
    return std::pair(c.second_tier_misses, c.kernel_reads);
  };
  const auto none = second_tier_misses(m, 0, {0, m});
  EXPECT_EQ(none.first, none.second);  // no kernel cache at M_a = M
  const auto offset = second_tier_misses(m, 2 * kMiB, {0, m});
  const auto larger = second_tier_misses(m + 2 * kMiB, 0, {0, m});
  EXPECT_LT(offset.first, offset.second);
  EXPECT_EQ(offset, larger);
  const auto negative = second_tier_misses(m, -4 * int64_t{kMiB}, {0, 4 * kMiB});
  EXPECT_EQ(negative.first, negative.second);
}

// With an overhead of 1/2, growing M_a from the current 2 MiB to 6 MiB
// costs the kernel cache 2 MiB more: it holds 8 - 6 - 2 = 0 bytes, as at
// M_a = 8 MiB. At -1/2 (a cache that fills half of its growth) it holds
// 8 - 6 + 2 = 4 MiB. A candidate below the current M_a is not credited,
// and none is charged when the current M_a is the largest.
TEST(GhostSimTest, GrowingTheAppCacheChargesItsOverheadToTheKernelCache) {
  Sampler all(SamplerOptions{1.0, 32, 2053});
  const uint64_t m = 8 * kMiB;
  const std::vector<uint64_t> trace = SkewedOrdinals(20'000, 6000, 5);
  auto counts = [&](double overhead, std::vector<uint64_t> candidates, size_t current,
                    size_t stage) {
    GhostSimOptions options{m, KernelModelKind::kLinux, 32};
    options.app_cache_overhead = overhead;
    GhostSim sim(options, &all);
    sim.Begin(candidates, current);
    sim.SetStage(stage, true);
    for (const uint64_t o : trace) sim.Access(MakeBlock(o));
    const CandidateCounts c = sim.Counts(stage);
    EXPECT_GT(c.kernel_reads, 0u);
    return std::pair(c.second_tier_misses, c.kernel_reads);
  };
  const std::vector<uint64_t> candidates = {0, 2 * kMiB, 6 * kMiB};
  const auto charged = counts(0.5, candidates, 1, 2);
  EXPECT_EQ(charged.first, charged.second);  // no room left
  const auto uncharged = counts(0, candidates, 1, 2);
  EXPECT_LT(uncharged.first, uncharged.second);
  EXPECT_LT(counts(-0.5, candidates, 1, 2).first, uncharged.first);
  EXPECT_EQ(counts(0.5, candidates, 2, 2), uncharged);  // no growth
  EXPECT_EQ(counts(0.5, candidates, 2, 0), counts(0, candidates, 2, 0));  // no credit
}

// Under a memory cgroup (its room measured), the room each candidate
// leaves beside the engine's memory: M - M_a, the offset, less the heap's
// growth with the cache past the current M_a; negative where the engine
// would exceed the cgroup. Without a measured room there is no cgroup to
// exceed.
TEST(GhostSimTest, CountsGiveEachCandidatesRoomInTheCgroupNegativeWhereItOvercommits) {
  Sampler all(SamplerOptions{1.0, 32, 2053});
  const uint64_t m = 8 * kMiB;
  GhostSimOptions options{m, KernelModelKind::kLinux, 32};
  options.app_cache_overhead = 0.25;  // the model's; not the budget's
  options.heap_growth_share = 0.5;
  GhostSim sim(options, &all);
  const std::vector<uint64_t> candidates = {0, 2 * kMiB, 8 * kMiB};
  sim.Begin(candidates, 1);
  sim.SetStage(0, true);
  EXPECT_EQ(sim.Counts(2).budget_room_bytes, INT64_MAX);
  sim.SetKernelOffset(int64_t{kMiB});
  EXPECT_EQ(sim.Counts(0).budget_room_bytes, int64_t{9 * kMiB});  // no credit below
  EXPECT_EQ(sim.Counts(1).budget_room_bytes, int64_t{7 * kMiB});
  EXPECT_EQ(sim.Counts(2).budget_room_bytes, -2 * int64_t{kMiB});  // 0 + 1 - 3
}

// With an 8 MiB read-ahead window and files of 1 MiB, a kernel ghost that
// does not know the files' sizes reads ahead past their ends and fills its
// room with pages that do not exist: 12 MiB of data in 16 MiB still
// misses. Given the sizes, it stops at the last page, as Linux does.
TEST(GhostSimTest, FileSizesStopReadAheadAtTheEndOfTheFile) {
  Sampler all(SamplerOptions{1.0, 32, 2053});
  const uint64_t m = 16 * kMiB;
  constexpr uint64_t kBlocks = 6000;  // 12 files of 500 blocks, 12 MiB on disk
  auto misses = [&](bool sizes) {
    GhostSim sim(GhostSimOptions{m, KernelModelKind::kLinux, 2048}, &all);
    if (sizes) {
      for (uint64_t file = 1; file <= kBlocks / 500; ++file) sim.SetFileSize(file, 500 * 2053);
    }
    sim.Begin({0, m}, 0);
    std::mt19937_64 rng(7);
    sim.SetStage(0, false);
    for (int i = 0; i < 100'000; i++) sim.Access(MakeBlock(rng() % kBlocks));
    sim.SetStage(0, true);
    for (int i = 0; i < 100'000; i++) sim.Access(MakeBlock(rng() % kBlocks));
    return sim.Counts(0).second_tier_misses;
  };
  const uint64_t with_sizes = misses(true);
  const uint64_t without = misses(false);
  EXPECT_EQ(with_sizes, 0u);
  EXPECT_GT(without, 1000u) << "without sizes the ghost should read past the ends";
}

TEST(GhostSimTest, SampledRoundScalesCapacitiesByTheRate) {
  // At R = 1/8 the ghost holds M / 8; its miss ratio per sampled access
  // approximates the full one for a uniform workload.
  Sampler eighth(SamplerOptions{1.0 / 8, 32, 2053});
  const uint64_t m = 16 * kMiB;
  GhostSim sim(GhostSimOptions{m, KernelModelKind::kLinux, 32}, &eighth);
  sim.Begin({0, 8 * kMiB, 16 * kMiB}, 0);
  std::mt19937_64 rng(4);
  testing::ListLru exact(8 * kMiB);
  uint64_t exact_misses = 0, samples = 0;
  const uint64_t blocks = 8192;  // 32 MiB in memory: half fits M_a = 16 MiB
  sim.SetStage(1, true);
  for (int i = 0; i < 400'000; i++) {
    const Block b = MakeBlock(rng() % blocks);
    exact_misses += !exact.Access(b.key(), b.mem_size);
    if (eighth.Sampled(b)) {
      sim.Access(b);
      ++samples;
    }
  }
  const double sampled = static_cast<double>(sim.Counts(1).app_misses) / samples;
  EXPECT_NEAR(sampled, exact_misses / 400'000.0, 0.05);
  EXPECT_NEAR(sim.Counts(2).app_misses / static_cast<double>(samples), 0.5, 0.08);
}

// 13 files of 1 MiB at R = 1/4 hold 208 groups, of which the sample keeps
// about 52, so it holds R +- 12% of the data; this layout's is 0.89 R.
// Scaled by R, the ghost would stand for the wrong cache size and the
// wrong number of accesses; scaled by the share, a uniform workload's miss
// ratio comes out as the exact LRU's.
TEST(GhostSimTest, FileSizesGiveTheShareOfTheDataInTheSample) {
  const double rate = 0.25;
  Sampler quarter(SamplerOptions{rate, 32, 2053});
  const uint64_t m = 16 * kMiB;
  const uint64_t files = 13, per_file = 500, file_bytes = per_file * 2053;
  GhostSim sim(GhostSimOptions{m, KernelModelKind::kLinux, 32}, &quarter);
  sim.Begin({0, 8 * kMiB, 16 * kMiB}, 0);
  EXPECT_DOUBLE_EQ(sim.SampledShare(), rate);  // no sizes known yet
  // The engine opens its tables during the round's warm-up.
  uint64_t sampled_bytes = 0;
  for (uint64_t f = 1; f <= files + 1; f++) {
    sim.SetFileSize(f, file_bytes);
    if (f <= files) sampled_bytes += quarter.SampledBytes(f, file_bytes);
  }
  sim.DropFile(files + 1);
  const double share = static_cast<double>(sampled_bytes) / (files * file_bytes);
  ASSERT_GT(std::fabs(share / rate - 1), 0.08) << "the layout should show a skewed share";
  std::mt19937_64 rng(6);
  testing::ListLru exact(8 * kMiB);
  uint64_t exact_misses = 0;
  const uint64_t accesses = 400'000;
  sim.SetStage(1, true);
  EXPECT_DOUBLE_EQ(sim.SampledShare(), share);
  sim.SetFileSize(files + 2, file_bytes);  // fixed for the rest of the round
  EXPECT_DOUBLE_EQ(sim.SampledShare(), share);
  for (uint64_t i = 0; i < accesses; i++) {
    const Block b = MakeBlock(rng() % (files * per_file));  // 26 MiB in memory
    exact_misses += !exact.Access(b.key(), b.mem_size);
    if (quarter.Sampled(b)) sim.Access(b);
  }
  const double truth = static_cast<double>(exact_misses) / accesses;
  const double predicted = sim.Counts(1).app_misses / (share * accesses);
  const double by_rate = sim.Counts(1).app_misses / (rate * accesses);
  EXPECT_NEAR(predicted, truth, 0.02);
  EXPECT_GT(std::fabs(by_rate - truth), 0.05);
}

TEST(GhostSimTest, DropFileForgetsTheFilesPagesButNotItsBlocks) {
  Sampler all(SamplerOptions{1.0, 32, 2053});
  GhostSim sim(GhostSimOptions{8 * kMiB, KernelModelKind::kLinux, 32}, &all);
  sim.Begin({0, 4 * kMiB, 8 * kMiB}, 0);
  // At M_a = 0 every access reads the kernel ghost; a shuffled order keeps
  // read-ahead out of the way.
  std::vector<uint64_t> order(100);  // blocks of file 1
  for (uint64_t o = 0; o < 100; o++) order[o] = o;
  std::shuffle(order.begin(), order.end(), std::mt19937_64(5));
  sim.SetStage(0, true);
  for (const uint64_t o : order) sim.Access(MakeBlock(o));
  const uint64_t warm_misses = sim.Counts(0).second_tier_misses;
  for (const uint64_t o : order) sim.Access(MakeBlock(o));
  EXPECT_EQ(sim.Counts(0).second_tier_misses, warm_misses);  // all resident
  const uint64_t app_misses = sim.Counts(1).app_misses;
  sim.DropFile(1);
  for (const uint64_t o : order) sim.Access(MakeBlock(o));
  // 100 blocks share 50 pages; read-ahead may bring in neighbours.
  EXPECT_GE(sim.Counts(0).second_tier_misses, warm_misses + 10);
  // The application ghost, like the engine's block cache, still has them.
  EXPECT_EQ(sim.Counts(1).app_misses, app_misses);
}

TEST(GhostSimTest, CheckWarmWaitsForTheGhostsToStopFillingAndEndFreesThem) {
  Sampler all(SamplerOptions{1.0, 32, 2053});
  GhostSim sim(GhostSimOptions{4 * kMiB, KernelModelKind::kLinux, 32}, &all);
  EXPECT_EQ(sim.MemoryUsage(), 0u);
  sim.Begin({0, 2 * kMiB, 4 * kMiB}, 0);
  EXPECT_FALSE(sim.active() && sim.MemoryUsage() == 0);
  uint64_t next = 0;
  for (int i = 0; i < 100; i++) sim.Access(MakeBlock(next++));
  EXPECT_FALSE(sim.CheckWarm());  // grew from nothing
  for (int i = 0; i < 100; i++) sim.Access(MakeBlock(next++));
  EXPECT_FALSE(sim.CheckWarm());  // still filling
  // A small working set that fits: the ghosts stop growing.
  for (int i = 0; i < 5000; i++) sim.Access(MakeBlock(i % 200));
  sim.CheckWarm();
  for (int i = 0; i < 5000; i++) sim.Access(MakeBlock(i % 200));
  EXPECT_TRUE(sim.CheckWarm());
  EXPECT_GT(sim.MemoryUsage(), 0u);
  sim.End();
  EXPECT_EQ(sim.MemoryUsage(), 0u);
  EXPECT_FALSE(sim.active());
  sim.Access(MakeBlock(1));  // no effect outside a round
}

}  // namespace
}  // namespace symbiosis
