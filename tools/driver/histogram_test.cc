#include "driver/histogram.h"

#include <gtest/gtest.h>

namespace symbiosis::bench {
namespace {

TEST(HistogramTest, EveryLatencyFallsInsideItsBucket) {
  for (uint64_t ns = 0; ns < (uint64_t{1} << 40); ns = ns * 5 / 4 + 1) {
    const int b = Histogram::Bucket(ns);
    ASSERT_GE(b, 0);
    ASSERT_LT(b + 1, Histogram::kBuckets);
    EXPECT_LE(Histogram::Lower(b), static_cast<double>(ns)) << ns;
    EXPECT_GT(Histogram::Lower(b + 1), static_cast<double>(ns)) << ns;
    // 16 buckets per power of two: a bucket spans at most 1/16 of its start.
    if (ns >= 16) {
      EXPECT_LE(Histogram::Lower(b + 1) / Histogram::Lower(b), 1 + 1 / 16.0 + 1e-12);
    }
  }
}

TEST(HistogramTest, SummarizeReadsPercentilesFromTheBuckets) {
  Histogram h;
  for (int i = 0; i < 90; ++i) h.Add(1000);     // 1 us
  for (int i = 0; i < 10; ++i) h.Add(100000);   // 100 us
  std::vector<uint64_t> counts;
  uint64_t sum = 0;
  h.AddTo(&counts, &sum);
  const Window w = Summarize(counts, sum);
  EXPECT_EQ(w.ops, 100u);
  EXPECT_NEAR(w.mean_us, (90 * 1.0 + 10 * 100.0) / 100, 1e-9);
  EXPECT_NEAR(w.p50_us, 1.0, 1.0 / 16);
  EXPECT_NEAR(w.p95_us, 100.0, 100.0 / 16);
  EXPECT_NEAR(w.p99_us, 100.0, 100.0 / 16);
}

TEST(HistogramTest, AddToSumsSeveralHistograms) {
  Histogram a, b;
  a.Add(10);
  b.Add(10);
  b.Add(20);
  std::vector<uint64_t> counts;
  uint64_t sum = 0;
  a.AddTo(&counts, &sum);
  b.AddTo(&counts, &sum);
  EXPECT_EQ(counts[Histogram::Bucket(10)], 2u);
  EXPECT_EQ(sum, 40u);
  EXPECT_EQ(Summarize(counts, sum).ops, 3u);
}

TEST(HistogramTest, AnEmptyWindowIsAllZero) {
  const Window w = Summarize(std::vector<uint64_t>(Histogram::kBuckets, 0), 0);
  EXPECT_EQ(w.ops, 0u);
  EXPECT_EQ(w.p99_us, 0);
}

}  // namespace
}  // namespace symbiosis::bench
