#include "online/cost_estimator.h"

#include <gtest/gtest.h>

namespace symbiosis {
namespace {

ControllerConfig Config() {
  ControllerConfig c;
  c.costs = MissCosts{3, 16, 0, 0};
  c.cost_smoothing = 0.5;
  c.min_cost_samples = 10;
  return c;
}

// A window of `reads` page-cache hits timed with the scheduler's split:
// each `service_us` long, `runnable_us` of it waiting for a CPU.
EventTotals SplitHits(uint64_t reads, double service_us, double runnable_us) {
  EventTotals w;
  w.accesses = 10 * reads;
  w.reads = reads;
  w.read_hits = reads;
  w.hit_split = reads;
  w.hit_split_ns = static_cast<uint64_t>(reads * service_us * 1e3);
  w.hit_split_runnable_ns = static_cast<uint64_t>(reads * runnable_us * 1e3);
  return w;
}

TEST(CostEstimatorTest, StartsFromThePriorsAndSmoothsWhatWindowsMeasure) {
  CostEstimator e(Config());
  EXPECT_DOUBLE_EQ(e.costs().app_miss, 3);
  e.AddWindow(SplitHits(5, 8, 1));  // too few samples: nothing moves
  EXPECT_DOUBLE_EQ(e.costs().app_miss, 3);
  ControllerStats s;
  e.AddStats(&s);
  EXPECT_FALSE(s.app_miss_cost_measured);
  e.AddWindow(SplitHits(100, 8, 1));  // the first measure replaces the prior
  EXPECT_NEAR(e.costs().app_miss, 7, 1e-9);  // the run-queue wait left out
  e.AddWindow(SplitHits(100, 5, 0));  // then half way to each new one
  EXPECT_NEAR(e.costs().app_miss, 6, 1e-9);
  e.AddStats(&s);
  EXPECT_TRUE(s.app_miss_cost_measured);
  EXPECT_TRUE(s.app_miss_cost_split);
  EXPECT_DOUBLE_EQ(s.prior_costs.app_miss, 3);
}

TEST(CostEstimatorTest, DeviceReadsCostTheirWaitBeyondTheirCpuAndTheLoadFollows) {
  CostEstimator e(Config());
  EventTotals w;
  w.accesses = 1000;
  w.reads = 200;
  w.read_hits = 100;  // 100 device reads
  w.split_misses = 100;
  w.split_ns = 100 * 103'000;     // 103 us each: C_a 3 + C_k 100
  w.split_cpu_ns = 100 * 13'000;  // of which 13 us on a CPU: C_k_cpu 10
  w.wall_ns = 50'000'000;         // 50 ms
  w.process_cpu_ns = 20'000'000;
  w.process_runnable_ns = 5'000'000;
  w.cpus = 2;
  EXPECT_FALSE(e.cpu_load_measured());
  e.AddWindow(w);
  EXPECT_NEAR(e.costs().second_tier_miss, 100, 1e-9);
  EXPECT_NEAR(e.costs().second_tier_miss_cpu, 10, 1e-9);
  EXPECT_DOUBLE_EQ(CostEstimator::DeviceMisses(w), 100);
  // CPU 20 ms + runnable 5 ms + 100 reads x (100 - 10) us asleep on the device.
  EXPECT_NEAR(e.BusyThreadUs(w), 20'000 + 5'000 + 9'000, 1e-6);
  ASSERT_TRUE(e.cpu_load_measured());
  EXPECT_NEAR(e.cpu_load().threads, 34'000.0 / 50'000, 1e-9);
  EXPECT_DOUBLE_EQ(e.cpu_load().cpus, 2);
}

TEST(CostEstimatorTest, NoLoadWithoutTheProcessTimes) {
  CostEstimator e(Config());
  EventTotals w = SplitHits(100, 4, 0);
  e.AddWindow(w);  // no wall time: nothing to divide by
  EXPECT_FALSE(e.cpu_load_measured());
}

}  // namespace
}  // namespace symbiosis
