#include "symbiosis/controller.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "symbiosis/error.h"

namespace symbiosis {
namespace {

constexpr uint64_t kMiB = uint64_t{1} << 20;

ControllerConfig Budget(uint64_t m) {
  ControllerConfig c;
  c.memory_bytes = m;
  return c;
}

void ExpectRejected(const ControllerConfig& c, const std::string& field) {
  try {
    Controller controller(c, nullptr);
    ADD_FAILURE() << "accepted a bad " << field;
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
  }
}

TEST(ControllerTest, RejectsInvalidConfigsNamingTheField) {
  const uint64_t m = 256 * kMiB;
  ControllerConfig c = Budget(m);
  c.change_threshold = 0;
  ExpectRejected(c, "change_threshold");
  c = Budget(m);
  c.change_threshold = 1.5;
  ExpectRejected(c, "change_threshold");
  c = Budget(m);
  c.gain_threshold = 1;
  ExpectRejected(c, "gain_threshold");
  c = Budget(m);
  c.trusted_gain = 1;
  ExpectRejected(c, "trusted_gain");
  c = Budget(m);
  c.read_tie_margin = -0.01;
  ExpectRejected(c, "read_tie_margin");
  c = Budget(m);
  c.app_miss_change_floor = 1;
  ExpectRejected(c, "app_miss_change_floor");
  c = Budget(m);
  c.device_read_change_floor = -0.5;
  ExpectRejected(c, "device_read_change_floor");
  c = Budget(m);
  c.trial_min_seconds = -1;
  ExpectRejected(c, "trial_min_seconds");
  c = Budget(m);
  c.parallel_measure_accesses = 0;
  ExpectRejected(c, "parallel_measure_accesses");
  c = Budget(m);
  c.max_unjudged_rounds = 0;
  ExpectRejected(c, "max_unjudged_rounds");
  c = Budget(m);
  c.sample_rate = 0;
  ExpectRejected(c, "sample_rate");
  c = Budget(m);
  c.sample_rate = 1.5;
  ExpectRejected(c, "sample_rate");
  c = Budget(m);
  c.candidates = 1;
  ExpectRejected(c, "candidates");
  c = Budget(m);
  c.window_accesses = 0;
  ExpectRejected(c, "window_accesses");
  c = Budget(4 * kMiB);  // below the 8 MiB default M_a
  ExpectRejected(c, "memory_bytes");
  c = Budget(m);
  c.initial_ma_bytes = 2 * m;
  ExpectRejected(c, "initial_ma_bytes");
  c = Budget(m);
  c.costs.second_tier_miss = -1;
  ExpectRejected(c, "costs");
  c = Budget(m);
  c.costs.second_tier_miss_cpu = c.costs.second_tier_miss + 1;
  ExpectRejected(c, "second_tier_miss_cpu");
  c = Budget(m);
  c.max_round_warmup_accesses = 1;
  ExpectRejected(c, "max_round_warmup_accesses");
  c = Budget(m);
  c.app_cache_overhead = 1;
  ExpectRejected(c, "app_cache_overhead");
  c = Budget(m);
  c.app_cache_overhead = -1;
  ExpectRejected(c, "app_cache_overhead");
  c = Budget(m);
  c.min_app_fraction = 1;
  ExpectRejected(c, "min_app_fraction");
  c = Budget(m);
  c.change_confirm_windows = 0;
  ExpectRejected(c, "change_confirm_windows");
  c = Budget(m);
  c.rocksdb_tiers = RocksDbTiers{};  // the page cache is not RocksDB's secondary
  ExpectRejected(c, "rocksdb_tiers needs");
  c.second_tier_owned = true;
  c.app_cache_k = 5;
  ExpectRejected(c, "rocksdb_tiers needs");
  c.app_cache_k = 0;
  c.rocksdb_tiers->block_cache_shard_bits = -1;
  ExpectRejected(c, "rocksdb_tiers.block_cache_shard_bits");
  c.rocksdb_tiers->block_cache_shard_bits = 4;
  c.rocksdb_tiers->secondary_cache_shard_bits = 20;
  ExpectRejected(c, "rocksdb_tiers.secondary_cache_shard_bits");
}

// M is an input: the budget layer resolves it (memory_budget.h).
TEST(ControllerTest, RejectsAConfigWithoutTheBudget) {
  ControllerConfig c;  // memory_bytes = 0
  ExpectRejected(c, "memory_bytes");
}

TEST(ControllerTest, CountsAndIgnoresBadEvents) {
  Controller controller(Budget(256 * kMiB), nullptr);
  Block b{1, 0, 2053, 4096};
  controller.RecordAppAccess(b, false);
  Block zero_disk = b;
  zero_disk.disk_size = 0;
  Block zero_mem = b;
  zero_mem.mem_size = 0;
  Block far = b;
  far.offset = uint64_t{1} << 60;
  Block odd_file = b;
  odd_file.file_id = ~uint64_t{0};
  for (const Block& bad : {zero_disk, zero_mem, far, odd_file}) {
    controller.RecordAppAccess(bad, false);
    controller.RecordRead(bad, false, 100);
  }
  controller.RecordFileDeleted(12345);  // never seen: no effect
  const ControllerStats s = controller.Stats();
  EXPECT_EQ(s.ignored_events, 8u);
  EXPECT_EQ(s.state, ControllerState::kAdapting);  // the start round
}

// A read the engine did not name is counted and timed as a named one is.
TEST(ControllerTest, UnidentifiedReadsCountAsNamedOnes) {
  ControllerConfig c = Budget(256 * kMiB);
  c.window_accesses = 4096;
  Controller named(c, nullptr);
  Controller unnamed(c, nullptr);
  for (int i = 0; i < 5 * 4096; ++i) {
    const Block b{1, static_cast<uint64_t>(i % 1000) * 4096, 2053, 4096};
    const bool second_tier_hit = i % 4 != 0;
    const uint64_t ns = second_tier_hit ? 3000 : 20'000;
    named.RecordAppAccess(b, false);
    named.RecordRead(b, second_tier_hit, ns);
    unnamed.RecordAppAccess(b, false);
    unnamed.RecordReadUnidentified(second_tier_hit, ns);
  }
  const ControllerStats n = named.Stats();
  const ControllerStats u = unnamed.Stats();
  EXPECT_EQ(n.hit_second_tier, 0.75);
  EXPECT_EQ(u.hit_second_tier, n.hit_second_tier);
  ASSERT_TRUE(n.app_miss_cost_measured);
  EXPECT_TRUE(u.app_miss_cost_measured);
  EXPECT_EQ(u.costs.app_miss, n.costs.app_miss);
  EXPECT_EQ(u.ignored_events, 0u);
}

// Records every capacity the Controller sets and checks the budget holds
// at each moment, from whichever thread calls.
class CheckingResizer final : public Resizer {
 public:
  explicit CheckingResizer(uint64_t m) : m_(m) {}
  void SetAppCacheCapacity(uint64_t bytes) override {
    std::lock_guard<std::mutex> lock(mu_);
    if (calls_ > 0 && bytes < app_) max_shrink_ = std::max(max_shrink_, app_ - bytes);
    app_ = bytes;
    ++calls_;
    if (app_ + tier_ > m_) over_budget_ = true;
    if (entered_.exchange(true)) concurrent_ = true;
    entered_ = false;
  }
  void SetSecondTierCapacity(uint64_t bytes) override {
    std::lock_guard<std::mutex> lock(mu_);
    tier_ = bytes;
    if (app_ + tier_ > m_) over_budget_ = true;
  }
  uint64_t app() {
    std::lock_guard<std::mutex> lock(mu_);
    return app_;
  }
  int calls() {
    std::lock_guard<std::mutex> lock(mu_);
    return calls_;
  }
  // The largest drop of one call (the first call sets, not shrinks).
  uint64_t max_shrink() {
    std::lock_guard<std::mutex> lock(mu_);
    return max_shrink_;
  }
  bool over_budget() {
    std::lock_guard<std::mutex> lock(mu_);
    return over_budget_;
  }
  bool concurrent() const { return concurrent_; }

 private:
  const uint64_t m_;
  std::mutex mu_;
  uint64_t app_ = 0, tier_ = 0, max_shrink_ = 0;
  int calls_ = 0;
  bool over_budget_ = false;
  std::atomic<bool> entered_{false};
  std::atomic<bool> concurrent_{false};
};

ControllerConfig FastConfig(uint64_t m) {
  ControllerConfig c = Budget(m);
  c.second_tier_owned = true;
  c.initial_ma_bytes = m / 2;
  c.sample_rate = 1.0 / 4;
  c.window_accesses = 5000;
  c.round_warmup_accesses = 5000;
  c.max_round_warmup_accesses = 10'000;
  c.warmup_check_accesses = 2000;
  c.candidate_warmup_accesses = 1000;
  c.candidate_accesses = 4000;
  c.parallel_measure_accesses = 16'000;
  c.min_samples = 100;
  c.settle_accesses = 5000;
  c.resize_step_accesses = 1000;
  c.churn_backoff_accesses = 20'000;
  return c;
}

// Rounds time every sampled read; Stable asks the plugins for fewer.
TEST(ControllerTest, StableAsksForFewerTimedReads) {
  Controller controller(FastConfig(64 * kMiB), nullptr);
  EXPECT_EQ(controller.Stats().state, ControllerState::kAdapting);
  EXPECT_EQ(controller.sched_sample_slowdown(), 1u);
  std::mt19937_64 rng(5);
  uint64_t n = 0;
  for (; n < 2'000'000 && controller.Stats().state != ControllerState::kStable; n += 1000) {
    for (int i = 0; i < 1000; ++i) {
      const Block b{1, (rng() % 4000) * 4096, 2053, 4096};
      const bool hit = rng() % 2 == 0;
      controller.RecordAppAccess(b, hit);
      if (!hit) controller.RecordRead(b, rng() % 4 != 0, 5000);
    }
  }
  ASSERT_EQ(controller.Stats().state, ControllerState::kStable) << "after " << n << " accesses";
  EXPECT_EQ(controller.sched_sample_slowdown(), kStableSchedSampleSlowdown);
}

// With no application cache and every read a page-cache hit, L_e stays
// put when the working set shrinks; the working-set probe sees it. Two
// threads touch 8,000 blocks, then 2,000, each access a miss the kernel
// serves: the shrink starts a round.
TEST(ControllerTest, AtNoApplicationCacheAShrunkWorkingSetStartsARound) {
  ControllerConfig c = FastConfig(64 * kMiB);
  c.start_with_round = false;
  c.initial_ma_bytes = 0;
  Controller controller(c, nullptr);
  constexpr uint64_t kPerPhase = 400'000;
  std::atomic<uint64_t> fed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; t++) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(t);
      for (;;) {
        const uint64_t n = fed.fetch_add(1, std::memory_order_relaxed);
        if (n >= 2 * kPerPhase) return;
        const uint64_t blocks = n < kPerPhase ? 8000 : 2000;
        const Block b{1, (rng() % blocks) * 4096, 2053, 4096};
        controller.RecordAppAccess(b, false);
        controller.RecordRead(b, true, 3000);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  const ControllerStats s = controller.Stats();
  ASSERT_FALSE(s.rounds.empty()) << ToJson(s);
  EXPECT_NE(s.rounds[0].trigger.find("working set shrank"), std::string::npos)
      << s.rounds[0].trigger;
  EXPECT_GT(s.rounds[0].start_access, kPerPhase);
}

// Eight threads feed accesses, reads (with service times) and file
// deletions while the hit ratio swings, so rounds start, are abandoned
// and resize the caches; another thread reads Stats(). Run under
// ThreadSanitizer and AddressSanitizer by the sanitizer build.
TEST(ControllerTest, EightThreadsFeedEventsWhileResizesHappen) {
  const uint64_t m = 64 * kMiB;
  CheckingResizer resizer(m);
  Controller controller(FastConfig(m), &resizer);
  EXPECT_EQ(resizer.app(), m / 2);
  constexpr int kThreads = 8;
  constexpr int kAccesses = 150'000;
  std::atomic<bool> done{false};
  std::atomic<uint64_t> fed{0};
  std::thread reader([&] {
    while (!done.load()) {
      const ControllerStats s = controller.Stats();
      EXPECT_LE(s.ma_bytes, m);
      EXPECT_FALSE(ToJson(s).empty());
    }
  });
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; t++) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(t);
      for (int i = 0; i < kAccesses; i++) {
        // The hit ratio swings every 160k accesses of all threads together,
        // so every scheduling (even one thread after another) sees swings.
        const uint64_t n = fed.fetch_add(1, std::memory_order_relaxed);
        const bool good_phase = (n / 160'000) % 2 == 0;
        Block b;
        b.file_id = 1 + rng() % 64;
        b.offset = (rng() % 1000) * 2053;
        b.disk_size = 2053;
        b.mem_size = 4096;
        const bool hit = rng() % 100 < (good_phase ? 90u : 20u);
        controller.RecordAppAccess(b, hit);
        if (!hit) {
          const bool second_tier_hit = rng() % 2;
          controller.RecordRead(b, second_tier_hit, second_tier_hit ? 3000 : 20'000);
        }
        if (i % 25'000 == 0) controller.RecordFileDeleted(1 + rng() % 64);
      }
    });
  }
  for (std::thread& t : threads) t.join();
  done = true;
  reader.join();

  const ControllerStats s = controller.Stats();
  EXPECT_GE(s.accesses, uint64_t{kThreads} * kAccesses - kThreads * 1024 * 4);
  EXPECT_GE(s.rounds.size(), 2u);
  EXPECT_GT(resizer.calls(), 2) << ToJson(s);  // the start, and resets and steps after it
  EXPECT_FALSE(resizer.over_budget());
  EXPECT_LE(resizer.max_shrink(), m / 16);  // one step at a time, however scheduled
  EXPECT_FALSE(resizer.concurrent());
  EXPECT_GT(s.peak_ghost_memory_bytes, 0u);
  EXPECT_TRUE(s.app_miss_cost_measured);
  EXPECT_NEAR(s.costs.app_miss, 3, 0.01);
  EXPECT_NEAR(s.costs.second_tier_miss, 17, 0.5);
  EXPECT_EQ(s.ignored_events, 0u);
}

}  // namespace
}  // namespace symbiosis
