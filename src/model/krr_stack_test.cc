#include "model/krr_stack.h"

#include <cstdio>
#include <vector>

#include "gtest/gtest.h"
#include "mrc/mrc_test_support.h"
#include "symbiosis/error.h"
#include "symbiosis/klru_cache.h"

namespace symbiosis {
namespace {

using mrc_testing::MeanAbsoluteError;
using mrc_testing::WorkloadRecords;

// A stack bounded at 2,000 of 20,000 keys predicts the K-LRU caches up to
// that size as well as the unbounded one, in a fraction of the memory.
TEST(KrrStack, ABoundedStackPredictsTheCachesWithinItsCapacity) {
  const auto records = WorkloadRecords("zipfian", 20'000, 300'000);
  std::vector<uint64_t> sizes;
  for (uint64_t c = 200; c <= 2000; c += 200) sizes.push_back(c);
  for (const uint32_t k : {1u, 5u}) {
    KLruOptions o;
    o.k = k;
    KLruSimMrc truth_builder(o, sizes);
    KrrStackOptions bounded_options;
    bounded_options.k = k;
    bounded_options.capacity = 2000;
    KrrStack bounded(bounded_options);
    KrrStackOptions all_options = bounded_options;
    all_options.capacity = KrrStack::kColdMiss;
    KrrStack all(all_options);
    std::vector<double> misses_bounded(sizes.size()), misses_all(sizes.size());
    for (const TraceRecord& r : records) {
      truth_builder.Access(r.key, r.size);
      const uint64_t a = bounded.Access(r.key, r.size);
      const uint64_t b = all.Access(r.key, r.size);
      for (size_t i = 0; i < sizes.size(); i++) {
        misses_bounded[i] += a > sizes[i];
        misses_all[i] += b > sizes[i];
      }
      ASSERT_LE(bounded.entries(), 3000u);
    }
    for (double& m : misses_bounded) m /= records.size();
    for (double& m : misses_all) m /= records.size();
    const MissRatioCurve truth = truth_builder.Curve(sizes);
    const double e_bounded = MeanAbsoluteError(misses_bounded, truth.miss_ratios);
    const double e_all = MeanAbsoluteError(misses_all, truth.miss_ratios);
    std::printf("K=%u: bounded MAE %.4f, unbounded %.4f\n", k, e_bounded, e_all);
    EXPECT_LE(e_bounded, 0.005);
    EXPECT_LE(e_bounded, e_all + 0.003);
    EXPECT_LT(bounded.MemoryUsage() * 4, all.MemoryUsage());
  }
}

TEST(KrrStack, TrimsInBytesAndKeepsTheSumsConsistent) {
  auto records = WorkloadRecords("uniform", 5'000, 50'000);
  KrrStackOptions o;
  o.unit = CacheUnit::kBytes;
  o.capacity = 1 << 20;
  KrrStack s(o);
  for (const TraceRecord& r : records) {
    const uint64_t d = s.Access(r.key, r.size);
    ASSERT_TRUE(d == KrrStack::kColdMiss || d <= s.tracked() + r.size);
    ASSERT_LE(s.tracked(), 3u << 19);
  }
  s.SetCapacity(256 << 10);
  EXPECT_LE(s.tracked(), 256u << 10);
  EXPECT_GT(s.tracked(), 0u);
  KrrStackOptions bad;
  bad.k = 0;
  EXPECT_THROW(KrrStack{bad}, InputError);
}

TEST(KrrStack, EraseClosesUpTheStackAndRecountsItsBytes) {
  for (const CacheUnit unit : {CacheUnit::kObjects, CacheUnit::kBytes}) {
    KrrStackOptions o;
    o.unit = unit;
    KrrStack s(o);
    for (uint64_t key = 1; key <= 8; key++) s.Access(key, static_cast<uint32_t>(100 * key));
    s.Erase([](uint64_t key) { return key % 2 == 0; });
    EXPECT_EQ(s.Keys(), (std::vector<uint64_t>{7, 5, 3, 1}));
    const bool bytes = unit == CacheUnit::kBytes;
    EXPECT_EQ(s.tracked(), bytes ? 1600u : 4u);
    EXPECT_EQ(s.Access(1, 100), bytes ? 1600u : 4u);  // from the bottom
    EXPECT_EQ(s.Access(8, 800), KrrStack::kColdMiss);  // forgotten
    EXPECT_EQ(s.tracked(), bytes ? 2400u : 5u);
  }
}

}  // namespace
}  // namespace symbiosis
