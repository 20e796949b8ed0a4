#include "mrc/distance_histogram.h"

#include "gtest/gtest.h"

namespace symbiosis {
namespace {

MissRatioCurve At(std::vector<uint64_t> sizes) {
  MissRatioCurve c;
  c.sizes = std::move(sizes);
  return c;
}

TEST(DistanceHistogram, CountsHitsAtEveryCapacityFromTheDistance) {
  DistanceHistogram h;
  h.Add(DistanceHistogram::kInfinite, 100);  // a cold miss
  h.Add(10, 100);
  h.Add(20, 300);
  h.Add(10, 100);
  MissRatioCurve c = At({5, 10, 19, 20, 1000});
  h.Fill(true, &c);
  EXPECT_EQ(c.miss_ratios, (std::vector<double>{1, 0.5, 0.5, 0.25, 0.25}));
  EXPECT_EQ(c.byte_miss_ratios, (std::vector<double>{1, 4.0 / 6, 4.0 / 6, 1.0 / 6, 1.0 / 6}));
}

TEST(DistanceHistogram, MergesAcrossCompactionsAndScales) {
  DistanceHistogram h;
  for (uint64_t i = 0; i < 3'000'000; i++) h.Add(i % 1000 + 1, 1);  // many compactions
  MissRatioCurve c = At({500, 1000});
  h.Fill(false, &c);
  EXPECT_NEAR(c.miss_ratios[0], 0.5, 1e-12);
  EXPECT_EQ(c.miss_ratios[1], 0);
  // Distinct distances and a buffer of 64K, not 24 bytes per request (72 MB).
  EXPECT_LE(h.MemoryUsage(), 8u << 20);
  h.Scale(0.5);
  for (int i = 0; i < 150; i++) h.Add(DistanceHistogram::kInfinite, 1);
  h.Fill(false, &c);
  EXPECT_NEAR(c.miss_ratios[1], 150.0 / 1'500'150, 1e-12);
}

TEST(DistanceHistogram, ExpectedTotalsCreditTheShortfallAsHits) {
  DistanceHistogram h;
  h.Add(DistanceHistogram::kInfinite, 10);
  h.Add(5, 10);
  MissRatioCurve c = At({1, 5});
  h.Fill(true, &c, 4, 40);  // the sample should have held 4 requests
  EXPECT_EQ(c.miss_ratios, (std::vector<double>{0.5, 0.25}));
  EXPECT_EQ(c.byte_miss_ratios, (std::vector<double>{0.5, 0.25}));
  h.Fill(false, &c, 1, 0);  // more misses than expected requests: clamped
  EXPECT_EQ(c.miss_ratios[0], 1);
}

TEST(DistanceHistogram, ShrinkMovesDistancesAndWeightsIntoTheSmallerSample) {
  DistanceHistogram h;
  h.Add(DistanceHistogram::kInfinite, 10);
  h.Add(1, 10);
  h.Add(3, 10);
  h.Add(4, 30);  // rounds up to 2, as 3 does: one entry
  h.Add(9, 10);
  h.Shrink(0.5);  // distances 1, 2, 2, 5
  EXPECT_DOUBLE_EQ(h.total_weight(), 2.5);
  EXPECT_DOUBLE_EQ(h.total_bytes(), 35);
  MissRatioCurve c = At({1, 2, 4, 5});
  h.Fill(true, &c);
  EXPECT_EQ(c.miss_ratios, (std::vector<double>{0.8, 0.4, 0.4, 0.2}));
  EXPECT_EQ(c.byte_miss_ratios, (std::vector<double>{6.0 / 7, 2.0 / 7, 2.0 / 7, 1.0 / 7}));
  h.Add(2, 10);  // the next ones are in the new units
  h.Fill(false, &c);
  EXPECT_DOUBLE_EQ(c.miss_ratios[1], 1.0 / 3.5);
}

}  // namespace
}  // namespace symbiosis
