#include "online/service_times.h"

#include <gtest/gtest.h>

namespace symbiosis {
namespace {

TEST(ServiceTimeBucketTest, PowersOfTwoFromHalfAMicrosecond) {
  EXPECT_EQ(ServiceTimeBucket(0), 0u);
  EXPECT_EQ(ServiceTimeBucket(1023), 0u);
  EXPECT_EQ(ServiceTimeBucket(1024), 1u);
  EXPECT_EQ(ServiceTimeBucket(2047), 1u);
  EXPECT_EQ(ServiceTimeBucket(2048), 2u);
  EXPECT_EQ(ServiceTimeBucket(uint64_t{1} << 23), kServiceTimeBuckets - 1);
  EXPECT_EQ(ServiceTimeBucket(uint64_t{1} << 40), kServiceTimeBuckets - 1);
}

TEST(ServiceTimesTest, EmptyHasNoMean) {
  EXPECT_EQ(ServiceTimes().Count(), 0u);
  EXPECT_EQ(ServiceTimes().UnpreemptedMeanUs(), 0);
}

// Four readers on one CPU: most hits take 2-3 us, a few were preempted
// for a time slice of several milliseconds (RocksDB's zipfian at 0.8).
TEST(ServiceTimesTest, LeavesOutTimesThatWaitedOutTimeSlices) {
  ServiceTimes t;
  t.Add(2000, 600);
  t.Add(3000, 390);
  t.Add(4'000'000, 10);
  EXPECT_EQ(t.Count(), 1000u);
  EXPECT_NEAR(t.UnpreemptedMeanUs(), (2000.0 * 600 + 3000.0 * 390) / 990 / 1e3, 1e-9);
}

// Short waits for a CPU, and reads that legitimately cost several times
// the median (larger blocks), stay in the mean.
TEST(ServiceTimesTest, KeepsTimesUpToSixteenTimesTheMedian) {
  ServiceTimes t;
  t.Add(2500, 700);
  t.Add(12'000, 200);
  t.Add(40'000, 100);  // 16 times the median
  EXPECT_NEAR(t.UnpreemptedMeanUs(), (2.5 * 700 + 12.0 * 200 + 40.0 * 100) / 1000, 1e-9);
  t.Add(90'000, 1);  // 36 times: preempted
  EXPECT_NEAR(t.UnpreemptedMeanUs(), (2.5 * 700 + 12.0 * 200 + 40.0 * 100) / 1000, 1e-9);
}

TEST(ServiceTimesTest, SinceSubtractsAnEarlierSnapshot) {
  ServiceTimes before;
  before.Add(2000, 5);
  ServiceTimes now = before;
  now.Add(3000, 2);
  now.Add(2000, 1);
  const ServiceTimes w = now.Since(before);
  EXPECT_EQ(w.Count(), 3u);
  EXPECT_NEAR(w.UnpreemptedMeanUs(), 8.0 / 3, 1e-9);
}

// When most reads were preempted the median moves with them, and the mean
// keeps them: the histogram cannot tell, and errs toward the wall time.
TEST(ServiceTimesTest, AMajorityOfSlowTimesIsTheMedian) {
  ServiceTimes t;
  t.Add(2000, 40);
  t.Add(3'000'000, 60);
  EXPECT_NEAR(t.UnpreemptedMeanUs(), (2.0 * 40 + 3000.0 * 60) / 100, 1e-9);
}

}  // namespace
}  // namespace symbiosis
