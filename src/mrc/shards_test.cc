#include "symbiosis/shards.h"

#include <cstdio>
#include <vector>

#include "gtest/gtest.h"
#include "mrc/mrc_test_support.h"
#include "symbiosis/error.h"
#include "symbiosis/exact_lru_mrc.h"

namespace symbiosis {
namespace {

using mrc_testing::MeanAbsoluteError;
using mrc_testing::Feed;
using mrc_testing::WorkloadRecords;

TEST(ShardsMrc, RateOneIsExactLru) {
  const auto records = WorkloadRecords("zipfian", 10'000, 100'000);
  const std::vector<uint64_t> sizes{10, 100, 1000, 5000, 10000};
  ExactLruMrc exact(CacheUnit::kObjects);
  ShardsOptions o;
  o.rate = 1;
  ShardsMrc shards(o);
  EXPECT_EQ(Feed(shards, records, sizes).miss_ratios, Feed(exact, records, sizes).miss_ratios);
}

// A 1% spatial sample of 200,000 keys (2,000 sampled) keeps the curve
// within 0.01 of exact LRU in objects (0.02 for the byte miss ratio, which
// the sizes of a few hot keys sway); a fixed size of 1,000 keys within
// 0.03, its memory bounded by the size and not by the working set.
TEST(ShardsAccuracy, SampledCurvesStayCloseToExact) {
  const auto records = WorkloadRecords("zipfian:theta=0.9", 200'000, 2'000'000);
  for (const CacheUnit unit : {CacheUnit::kObjects, CacheUnit::kBytes}) {
    const bool bytes = unit == CacheUnit::kBytes;
    ExactLruMrc exact(unit);
    for (const TraceRecord& r : records) exact.Access(r.key, r.size);
    const std::vector<uint64_t> sizes = EvenSizes(exact.WorkingSet(), 20);
    const MissRatioCurve want = exact.Curve(sizes);
    ShardsOptions fixed_rate;
    fixed_rate.unit = unit;
    fixed_rate.rate = 0.01;
    ShardsMrc a(fixed_rate);
    const MissRatioCurve got = Feed(a, records, sizes);
    const double e = MeanAbsoluteError(got.miss_ratios, want.miss_ratios);
    ShardsOptions fixed_size = fixed_rate;
    fixed_size.rate = 0.1;
    fixed_size.max_keys = 1000;
    ShardsMrc b(fixed_size);
    const MissRatioCurve small = Feed(b, records, sizes);
    const double e_small = MeanAbsoluteError(small.miss_ratios, want.miss_ratios);
    std::printf("%s: fixed rate MAE %.4f, fixed size MAE %.4f (R %.4f, %zu bytes)\n",
                bytes ? "bytes" : "objects", e, e_small, b.rate(), b.MemoryUsage());
    EXPECT_LT(e, 0.01);
    EXPECT_LT(e_small, 0.03);
    EXPECT_NEAR(static_cast<double>(a.WorkingSet()), exact.WorkingSet(),
                0.05 * exact.WorkingSet());
    EXPECT_LT(b.rate(), 0.01);
    EXPECT_LT(b.MemoryUsage(), 2u << 20);  // the ghost and histogram of ~1,000 keys
    if (bytes) {
      const double e_bytes = MeanAbsoluteError(got.byte_miss_ratios, want.byte_miss_ratios);
      std::printf("byte miss ratio: fixed rate MAE %.4f\n", e_bytes);
      EXPECT_LT(e_bytes, 0.02);
    }
  }
}

// R = 0.001 of 200,000 keys would sample 200; a floor of 4,096 keys
// keeps R at 1/32 (6,250 keys) and the curve within 0.01 of exact LRU, in
// about the memory of sampling at 1/32 from the start.
TEST(ShardsAccuracy, AFloorOfKeysRaisesTheRateOfASmallTrace) {
  const auto records = WorkloadRecords("zipfian:theta=0.9", 200'000, 2'000'000);
  ExactLruMrc exact(CacheUnit::kObjects);
  for (const TraceRecord& r : records) exact.Access(r.key, r.size);
  const std::vector<uint64_t> sizes = EvenSizes(exact.WorkingSet(), 20);
  const MissRatioCurve want = exact.Curve(sizes);
  ShardsOptions o;
  o.rate = 0.001;
  o.min_keys = 4096;
  ShardsMrc floored(o);
  const MissRatioCurve got = Feed(floored, records, sizes);
  const double e = MeanAbsoluteError(got.miss_ratios, want.miss_ratios);
  std::printf("R = 0.001 with a floor of 4,096 keys: R reached %.4f, MAE %.4f, %zu bytes\n",
              floored.rate(), e, floored.MemoryUsage());
  EXPECT_DOUBLE_EQ(got.sample_rate, 1.0 / 32);
  EXPECT_LT(e, 0.01);
  EXPECT_NEAR(static_cast<double>(floored.WorkingSet()), exact.WorkingSet(),
              0.05 * exact.WorkingSet());
  ShardsOptions same_rate;
  same_rate.rate = floored.rate();
  ShardsMrc fixed(same_rate);
  Feed(fixed, records, sizes);
  EXPECT_LT(floored.MemoryUsage(), 2 * fixed.MemoryUsage());
}

TEST(ShardsMrc, RejectsARateOutsideZeroToOneAndAFloorWithAFixedSize) {
  for (const double rate : {0.0, -0.1, 1.5}) {
    ShardsOptions o;
    o.rate = rate;
    EXPECT_THROW(ShardsMrc{o}, InputError) << rate;
  }
  ShardsOptions both;
  both.max_keys = 1000;
  both.min_keys = 100;
  EXPECT_THROW(ShardsMrc{both}, InputError);
}

}  // namespace
}  // namespace symbiosis
