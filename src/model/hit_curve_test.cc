#include "model/hit_curve.h"

#include <gtest/gtest.h>

#include <random>
#include <utility>
#include <vector>

#include "model/ghost_lru.h"

namespace symbiosis {
namespace {

TEST(HitCurveTest, EmptyCurveHasNoHits) {
  HitCurve curve;
  EXPECT_EQ(curve.HitRatio(1000), 0);
  EXPECT_EQ(curve.total_weight(), 0);
  EXPECT_TRUE(curve.Points().empty());
}

TEST(HitCurveTest, HitRatioCountsDistancesUpToTheCapacity) {
  HitCurve curve;
  curve.Add(100);
  curve.Add(300);
  curve.Add(300);
  curve.Add(GhostLru::kColdMiss);
  EXPECT_DOUBLE_EQ(curve.HitRatio(99), 0.0);
  EXPECT_DOUBLE_EQ(curve.HitRatio(100), 0.25);
  EXPECT_DOUBLE_EQ(curve.HitRatio(299), 0.25);
  EXPECT_DOUBLE_EQ(curve.HitRatio(300), 0.75);
  // Cold misses miss at every capacity, even an unbounded one.
  EXPECT_DOUBLE_EQ(curve.HitRatio(GhostLru::kUnbounded), 0.75);
  const std::vector<std::pair<uint64_t, double>> expected = {{100, 0.25},
                                                             {300, 0.75}};
  EXPECT_EQ(curve.Points(), expected);
}

TEST(HitCurveTest, WeightsScaleSampledAccesses) {
  HitCurve curve;
  curve.Add(10, 3.0);
  curve.Add(GhostLru::kColdMiss, 1.0);
  EXPECT_DOUBLE_EQ(curve.total_weight(), 4.0);
  EXPECT_DOUBLE_EQ(curve.HitRatio(10), 0.75);
}

TEST(HitCurveTest, AddsAfterQueriesMergeWithEarlierOnes) {
  HitCurve curve;
  curve.Add(50);
  curve.Add(20);
  EXPECT_DOUBLE_EQ(curve.HitRatio(30), 0.5);
  curve.Add(50);
  curve.Add(10);
  EXPECT_DOUBLE_EQ(curve.HitRatio(30), 0.5);
  EXPECT_DOUBLE_EQ(curve.HitRatio(50), 1.0);
  EXPECT_EQ(curve.Points().size(), 3u);  // 10, 20, 50
}

// The curve from one ghost pass equals per-capacity counting.
TEST(HitCurveTest, MatchesDirectCountingOverAGhostTrace) {
  std::mt19937_64 rng(9);
  GhostLru ghost;
  HitCurve curve;
  std::vector<uint64_t> distances;
  for (int i = 0; i < 20000; ++i) {
    const uint64_t key = rng() % 3000;
    const uint64_t distance = ghost.Access(key, 1 + key % 97);
    curve.Add(distance);
    distances.push_back(distance);
    if (i % 7000 == 0) curve.HitRatio(0);  // interleave queries and adds
  }
  for (uint64_t capacity : {0, 1, 500, 5000, 50000, 150000}) {
    size_t hits = 0;
    for (uint64_t d : distances) hits += d <= capacity;
    EXPECT_NEAR(curve.HitRatio(capacity),
                static_cast<double>(hits) / distances.size(), 1e-12)
        << capacity;
  }
}

// BuildHitCurve equals adding the distances of Access one by one: sizes
// with many significant bits (several radix passes), equal sizes (low bits
// all zero), a bounded ghost, and nothing at all.
TEST(HitCurveTest, BuildHitCurveEqualsAddingEachAccess) {
  std::mt19937_64 rng(4);
  for (const uint32_t max_size : {uint32_t{4000000000}, uint32_t{1}}) {
    for (const uint64_t capacity : {GhostLru::kUnbounded, uint64_t{1} << 36}) {
      std::vector<uint64_t> keys;
      std::vector<uint32_t> sizes;
      for (int i = 0; i < 30000; ++i) {
        keys.push_back(rng() % (1 + i / 10));
        sizes.push_back(max_size == 1 ? 4096 : static_cast<uint32_t>(1 + rng() % max_size));
      }
      GhostLru ghost(capacity);
      HitCurve expected;
      for (size_t i = 0; i < keys.size(); ++i) {
        expected.Add(ghost.Access(keys[i], sizes[i]));
      }
      const HitCurve built =
          BuildHitCurve(keys.data(), sizes.data(), keys.size(), capacity);
      EXPECT_EQ(built.total_weight(), expected.total_weight());
      EXPECT_EQ(built.Points(), expected.Points()) << max_size << " " << capacity;
      EXPECT_GT(built.Points().size(), 100u);
    }
  }
  const HitCurve empty = BuildHitCurve(nullptr, nullptr, 0);
  EXPECT_EQ(empty.total_weight(), 0);
  EXPECT_TRUE(empty.Points().empty());
}

}  // namespace
}  // namespace symbiosis
