#include "mrc/lru_sim.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "model/ghost_lru.h"
#include "symbiosis/trace.h"
#include "testing/test_support.h"

namespace symbiosis {
namespace {

using testing::ListLru;

using Request = testing::SizedAccess;

TEST(LruSimTest, EmptySimulatorReportsZeroes) {
  LruSim sim(10, true);
  EXPECT_EQ(sim.hits(), 0u);
  EXPECT_EQ(sim.misses(), 0u);
  EXPECT_EQ(sim.miss_ratio(), 0);
  EXPECT_EQ(sim.byte_miss_ratio(), 0);
  EXPECT_EQ(sim.capacity(), 10u);
  EXPECT_TRUE(sim.count_objects());
}

TEST(LruSimTest, ObjectCapacityEvictsTheLeastRecent) {
  LruSim sim(2, true);
  EXPECT_FALSE(sim.Access(1, 100));
  EXPECT_FALSE(sim.Access(2, 300));
  EXPECT_TRUE(sim.Access(1, 100));   // order: 1, 2
  EXPECT_FALSE(sim.Access(3, 100));  // evicts 2
  EXPECT_FALSE(sim.Access(2, 300));  // evicts 1
  EXPECT_TRUE(sim.Access(3, 100));
  EXPECT_EQ(sim.resident_objects(), 2u);
  EXPECT_EQ(sim.hits(), 2u);
  EXPECT_EQ(sim.misses(), 4u);
  EXPECT_DOUBLE_EQ(sim.miss_ratio(), 4.0 / 6);
  EXPECT_DOUBLE_EQ(sim.byte_miss_ratio(), 800.0 / 1000);
}

TEST(LruSimTest, ByteCapacityEvictsUntilTheNewObjectFits) {
  LruSim sim(100, false);
  sim.Access(1, 40);
  sim.Access(2, 40);
  EXPECT_FALSE(sim.Access(3, 50));  // evicts 1 only
  EXPECT_TRUE(sim.Access(2, 40));
  EXPECT_FALSE(sim.Access(1, 40));
  EXPECT_FALSE(sim.Access(4, 101));  // larger than the cache: evicts all
  EXPECT_EQ(sim.resident_objects(), 0u);
  EXPECT_FALSE(sim.Access(2, 40));
}

TEST(LruSimTest, GrowingObjectChargesItsNewSize) {
  LruSim sim(100, false);
  sim.Access(1, 30);
  sim.Access(2, 30);
  EXPECT_TRUE(sim.Access(2, 80));  // 110 > 100: evicts 1
  EXPECT_FALSE(sim.Access(1, 30));
  EXPECT_EQ(sim.resident_objects(), 1u);  // 1 then evicts 2 (80 + 30)
  EXPECT_FALSE(sim.Access(3, 60));         // 30 + 60 fit
  EXPECT_EQ(sim.resident_objects(), 2u);
  EXPECT_TRUE(sim.Access(1, 30));
}

TEST(LruSimTest, MatchesAListLruAndTheGhostInBothModes) {
  for (uint64_t seed = 1; seed <= 3; ++seed) {
    const std::vector<Request> trace = testing::SkewedTrace(seed, 20000, 1500);
    GhostLru bytes_ghost, objects_ghost;
    std::vector<uint64_t> byte_distances, object_distances;
    for (const Request& r : trace) {
      byte_distances.push_back(bytes_ghost.Access(r.key, r.size));
      object_distances.push_back(objects_ghost.Access(r.key, 1));
    }
    for (uint64_t objects : {1, 10, 100, 700}) {
      const uint64_t bytes = objects * 10000;
      LruSim by_bytes(bytes, false), by_objects(objects, true);
      ListLru list_bytes(bytes), list_objects(objects);
      size_t mismatches = 0, hits = 0;
      for (size_t i = 0; i < trace.size(); ++i) {
        const Request& r = trace[i];
        const bool byte_hit = by_bytes.Access(r.key, r.size);
        const bool object_hit = by_objects.Access(r.key, r.size);
        mismatches += byte_hit != list_bytes.Access(r.key, r.size);
        mismatches += byte_hit != (byte_distances[i] <= bytes);
        mismatches += object_hit != list_objects.Access(r.key, 1);
        mismatches += object_hit != (object_distances[i] <= objects);
        hits += byte_hit + object_hit;
      }
      EXPECT_EQ(mismatches, 0u) << "seed " << seed << " objects " << objects;
      EXPECT_EQ(by_bytes.hits() + by_objects.hits(), hits);
      if (objects >= 100) {
        EXPECT_GT(hits, trace.size() / 4);
      }
    }
  }
}

// Golden values from libCacheSim 0.3.5 and an independent stack-distance
// computation (shared/notes/cache-sim-anchors.md).
TEST(LruSimTest, CloudPhysicsMissRatiosMatchLibCacheSim) {
  const std::vector<TraceRecord> records =
      ReadTrace(testing::CloudPhysicsTrace().string(), TraceOptions());
  ASSERT_EQ(records.size(), 113872u);
  const std::vector<std::pair<uint64_t, double>> golden = {
      {100, 0.8801},   {1000, 0.8327},  {5000, 0.8038},
      {10000, 0.6976}, {20000, 0.6328}, {40000, 0.4303}};
  for (const auto& [capacity, miss_ratio] : golden) {
    LruSim sim(capacity, true);
    for (const TraceRecord& r : records) sim.Access(r.key, r.size);
    EXPECT_NEAR(sim.miss_ratio(), miss_ratio, 0.00005) << capacity;
  }
}

}  // namespace
}  // namespace symbiosis
