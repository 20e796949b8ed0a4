#include "symbiosis/klru_cache.h"

#include <vector>

#include "gtest/gtest.h"
#include "mrc/mrc_test_support.h"
#include "symbiosis/error.h"
#include "mrc/lru_sim.h"

namespace symbiosis {
namespace {

using mrc_testing::WorkloadRecords;

// Drawing every resident key (K >= capacity, without replacement) makes
// K-LRU exactly LRU, request by request; with the eviction pool too.
TEST(KLruCache, DrawingEveryKeyIsExactlyLru) {
  const auto records = WorkloadRecords("hotspot20", 2'000, 50'000);
  for (const uint32_t pool : {0u, 16u}) {
    KLruOptions o;
    o.capacity = 300;
    o.k = 301;  // the residents before an eviction
    o.with_replacement = false;
    o.pool_size = pool;
    KLruCache klru(o);
    LruSim lru(300, true);
    size_t differ = 0;
    for (const TraceRecord& r : records) differ += klru.Access(r.key, r.size) != lru.Access(r.key, r.size);
    EXPECT_EQ(differ, 0u) << "pool " << pool;
    EXPECT_EQ(klru.misses(), lru.misses());
  }
}

// K = 1 evicts a random key; larger K approaches LRU. On a skewed trace
// LRU beats random, so the miss ratio falls as K grows.
TEST(KLruCache, MissRatioFallsTowardLruAsKGrows) {
  const auto records = WorkloadRecords("zipfian", 10'000, 200'000);
  LruSim lru(1000, true);
  for (const TraceRecord& r : records) lru.Access(r.key, r.size);
  double previous = 1;
  for (const uint32_t k : {1u, 2u, 5u, 16u, 64u}) {
    KLruOptions o;
    o.capacity = 1000;
    o.k = k;
    KLruCache c(o);
    for (const TraceRecord& r : records) c.Access(r.key, r.size);
    const double miss = static_cast<double>(c.misses()) / records.size();
    EXPECT_LT(miss, previous + 0.002) << k;
    previous = miss;
  }
  EXPECT_NEAR(previous, lru.miss_ratio(), 0.01);
}

TEST(KLruCache, BytesStayWithinCapacityAndSeedsReplay) {
  const auto records = WorkloadRecords("uniform", 5'000, 30'000);
  KLruOptions o;
  o.unit = CacheUnit::kBytes;
  o.capacity = 1 << 20;
  o.pool_size = 16;
  KLruCache a(o), b(o);
  for (const TraceRecord& r : records) {
    EXPECT_EQ(a.Access(r.key, r.size), b.Access(r.key, r.size));
    ASSERT_LE(a.used(), o.capacity);
  }
  EXPECT_GT(a.hits(), 0u);
  EXPECT_EQ(a.hit_bytes() + a.miss_bytes(), [&] {
    uint64_t sum = 0;
    for (const TraceRecord& r : records) sum += r.size;
    return sum;
  }());
}

TEST(KLruCache, BadOptionsAreErrors) {
  KLruOptions o;
  EXPECT_THROW(KLruCache{o}, InputError);  // capacity 0
  o.capacity = 10;
  o.k = 0;
  EXPECT_THROW(KLruCache{o}, InputError);
  o.k = 5;
  EXPECT_THROW(KLruSimMrc(o, {}), InputError);
  EXPECT_THROW(KLruSimMrc(o, {10, 5}), InputError);
  KLruSimMrc sim(o, {5, 10});
  EXPECT_THROW(sim.Curve({5}), InputError);
}

}  // namespace
}  // namespace symbiosis
