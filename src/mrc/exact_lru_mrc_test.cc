#include "symbiosis/exact_lru_mrc.h"

#include <vector>

#include "gtest/gtest.h"
#include "mrc/mrc_test_support.h"
#include "mrc/lru_sim.h"

namespace symbiosis {
namespace {

using mrc_testing::CloudPhysics;
using mrc_testing::Feed;
using mrc_testing::WorkloadRecords;

// The independent computation: one LruSim per size, replayed in full.
void ExpectEqualsBruteForce(const std::vector<TraceRecord>& records, CacheUnit unit,
                            const std::vector<uint64_t>& sizes) {
  ExactLruMrc mrc(unit);
  const MissRatioCurve curve = Feed(mrc, records, sizes);
  ASSERT_EQ(curve.miss_ratios.size(), sizes.size());
  ASSERT_EQ(curve.byte_miss_ratios.size(), unit == CacheUnit::kBytes ? sizes.size() : 0);
  for (size_t i = 0; i < sizes.size(); i++) {
    LruSim sim(sizes[i], unit == CacheUnit::kObjects);
    for (const TraceRecord& r : records) sim.Access(r.key, r.size);
    EXPECT_DOUBLE_EQ(curve.miss_ratios[i], sim.miss_ratio()) << "size " << sizes[i];
    if (unit == CacheUnit::kBytes) {
      EXPECT_NEAR(curve.byte_miss_ratios[i], sim.byte_miss_ratio(), 1e-12) << sizes[i];
    }
  }
}

TEST(ExactLruMrc, EqualsOneLruSimPerSizeOnCloudPhysics) {
  const std::vector<TraceRecord> records = CloudPhysics();
  ASSERT_EQ(records.size(), 113872u);
  ExpectEqualsBruteForce(records, CacheUnit::kObjects,
                         {1, 10, 100, 1000, 5000, 10000, 20000, 30000, 40000, 48974, 60000});
  // The published values (libCacheSim and a Fenwick stack computation).
  ExactLruMrc mrc(CacheUnit::kObjects);
  const MissRatioCurve c = Feed(mrc, records, {100, 1000, 5000, 10000, 20000, 40000});
  const std::vector<double> published{0.8801, 0.8327, 0.8038, 0.6976, 0.6328, 0.4303};
  for (size_t i = 0; i < published.size(); i++) {
    EXPECT_NEAR(c.miss_ratios[i], published[i], 5e-5) << c.sizes[i];
  }
  EXPECT_EQ(mrc.WorkingSet(), 48974u);
}

TEST(ExactLruMrc, BytesEqualOneLruSimPerSize) {
  // Every key keeps its size here, which the stack model assumes.
  const std::vector<TraceRecord> records = WorkloadRecords("zipfian", 20'000, 200'000);
  std::vector<uint64_t> sizes;
  for (uint64_t mib = 1; mib <= 128; mib *= 2) sizes.push_back(mib << 20);
  ExpectEqualsBruteForce(records, CacheUnit::kBytes, sizes);
  ExpectEqualsBruteForce(WorkloadRecords("hotspot20", 20'000, 200'000), CacheUnit::kObjects,
                         {100, 1000, 4000, 8000, 16000, 20000});
}

TEST(EvenSizes, SpreadsOverTheWorkingSet) {
  EXPECT_EQ(EvenSizes(100, 4), (std::vector<uint64_t>{25, 50, 75, 100}));
  EXPECT_EQ(EvenSizes(3, 10), (std::vector<uint64_t>{1, 2, 3}));
  EXPECT_EQ(EvenSizes(0, 5), (std::vector<uint64_t>{1}));
}

}  // namespace
}  // namespace symbiosis
