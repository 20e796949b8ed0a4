#include "mrc/sample_threshold.h"

#include "gtest/gtest.h"

namespace symbiosis {
namespace {

TEST(SampleThreshold, WithoutAFloorTheRateIsRFromTheStart) {
  const SampleThreshold s(0.25, 0);
  EXPECT_DOUBLE_EQ(s.rate(), 0.25);
  EXPECT_FALSE(s.HoldsAll());
  EXPECT_TRUE(s.Holds(uint64_t{1} << 61));   // 1/8 of the hash space
  EXPECT_FALSE(s.Holds(uint64_t{1} << 62));  // 1/4: the first one out
  EXPECT_FALSE(s.Full(1'000'000));
}

TEST(SampleThreshold, AFloorStartsWithEveryKeyAndHalvesDownToR) {
  SampleThreshold s(0.1, 100);
  EXPECT_TRUE(s.HoldsAll());
  EXPECT_TRUE(s.Holds(~uint64_t{0}));
  EXPECT_FALSE(s.Full(199));
  ASSERT_TRUE(s.Full(200));
  s.Halve();
  EXPECT_DOUBLE_EQ(s.rate(), 0.5);
  s.Halve();
  s.Halve();
  EXPECT_DOUBLE_EQ(s.rate(), 0.125);
  ASSERT_TRUE(s.Full(200));
  s.Halve();  // not below R
  EXPECT_NEAR(s.rate(), 0.1, 1e-12);
  EXPECT_FALSE(s.Full(1'000'000));
}

TEST(SampleThreshold, RateOneHasNoFloorToKeep) {
  const SampleThreshold s(1, 100);
  EXPECT_TRUE(s.HoldsAll());
  EXPECT_FALSE(s.Full(1'000'000));
}

}  // namespace
}  // namespace symbiosis
