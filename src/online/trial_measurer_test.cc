#include "online/trial_measurer.h"

#include <gtest/gtest.h>

#include <cmath>

namespace symbiosis {
namespace {

// A window of 1000 accesses lasting `wall_ms`, with `device_reads` reads
// the second tier missed.
EventTotals Window(double wall_ms, uint64_t device_reads = 0) {
  EventTotals w;
  w.accesses = 1000;
  w.app_hits = 500;
  w.reads = 500;
  w.read_hits = 500 - device_reads;
  w.wall_ns = static_cast<uint64_t>(wall_ms * 1e6);
  return w;
}

using Phase = TrialMeasurer::Phase;

TEST(TrialMeasurerTest, MeasuresItsWindowsAndTheirSpread) {
  TrialMeasurer m(2000, 3, 0);
  m.MeasureFrom(5000);
  EXPECT_FALSE(m.AddWindow(Window(1), 900, 4000, 5000));  // began before: left out
  EXPECT_FALSE(m.AddWindow(Window(1), 1000, 5000, 6000));
  EXPECT_FALSE(m.AddWindow(Window(2), 2000, 6000, 7000));
  const std::optional<TrialMeasure> done = m.AddWindow(Window(3), 3000, 7000, 8000);
  ASSERT_TRUE(done);
  EXPECT_EQ(m.phase(), Phase::kIdle);
  EXPECT_DOUBLE_EQ(done->busy_us, 2);  // 6000 us over 3000 accesses
  EXPECT_DOUBLE_EQ(done->wall_us, 2);
  EXPECT_NEAR(done->busy_se, 1 / std::sqrt(3.0), 1e-12);  // windows 1, 2, 3 us
  EXPECT_NEAR(done->wall_se, 1 / std::sqrt(3.0), 1e-12);
  EXPECT_EQ(done->at, 6500u);
  EXPECT_DOUBLE_EQ(done->ratios.hit_app, 0.5);
}

TEST(TrialMeasurerTest, WaitsForTheMoveThenSettlesWhileTheCachesFill) {
  TrialMeasurer m(2000, 1, 0);  // blocks of 1000 accesses: one window each
  m.Move();
  EXPECT_EQ(m.phase(), Phase::kMoving);
  EXPECT_FALSE(m.AddWindow(Window(1), 1000, 0, 1000));  // still moving
  m.Arrived(1000);
  EXPECT_EQ(m.phase(), Phase::kSettling);
  // Device reads fall 400 -> 200 -> 150 (25% and more): still filling;
  // then 140, 7% less: filled, and the measure starts after that window.
  uint64_t at = 1000;
  for (const uint64_t reads : {400, 200, 150}) {
    EXPECT_FALSE(m.AddWindow(Window(1, reads), 1000, at, at + 1000));
    at += 1000;
    EXPECT_EQ(m.phase(), Phase::kSettling);
  }
  EXPECT_FALSE(m.AddWindow(Window(1, 140), 1000, at, at + 1000));
  at += 1000;
  EXPECT_EQ(m.phase(), Phase::kMeasuring);
  EXPECT_TRUE(m.AddWindow(Window(1, 140), 1000, at, at + 1000));
}

// A slow split takes long to serve half settle_accesses; its blocks end
// at the measure's minimum time too (docs/decisions/trial-settle.md).
TEST(TrialMeasurerTest, ASettleBlockEndsAtTheMinimumTimeWhereAccessesAreSlow) {
  TrialMeasurer m(200000, 1, 0.005);  // blocks of 100000 accesses, or 5 ms
  m.Move();
  m.Arrived(0);
  uint64_t at = 0;
  for (int i = 0; i < 3; ++i) {  // two blocks of two 3 ms windows; the reads stay
    EXPECT_FALSE(m.AddWindow(Window(3, 100), 1000, at, at + 1000));
    at += 1000;
    EXPECT_EQ(m.phase(), Phase::kSettling) << "window " << i;
  }
  EXPECT_FALSE(m.AddWindow(Window(3, 100), 1000, at, at + 1000));
  at += 1000;
  EXPECT_EQ(m.phase(), Phase::kMeasuring);  // 4000 accesses, not 200000
  // Where reads keep falling the fill goes on, block by block.
  TrialMeasurer filling(200000, 1, 0.005);
  filling.Move();
  filling.Arrived(0);
  at = 0;
  for (const uint64_t reads : {400, 400, 300, 300, 200, 200}) {
    EXPECT_FALSE(filling.AddWindow(Window(3, reads), 1000, at, at + 1000));
    at += 1000;
  }
  EXPECT_EQ(filling.phase(), Phase::kSettling);
}

// A move given the measure of the split it left ends at the first block
// after the least settle (two blocks) that ran twice as slow or more, by
// busy or by wall time: that block is its measure. One less slow, or
// without a reference, settles and measures as before.
TEST(TrialMeasurerTest, AMoveFarSlowerThanTheSplitItLeftIsCutShortAfterTheLeastSettle) {
  TrialMeasure left;
  left.busy_us = 1;
  left.wall_us = 1;
  struct Case {
    double wall_ms;   // per window of 1000 accesses
    double busy_us;   // per window
    bool with_reference;
    bool cut;
  };
  for (const Case& c : {Case{2, 1000, true, true},    // wall 2x
                        Case{1, 2500, true, true},    // busy 2.5x
                        Case{1.9, 1900, true, false},  // 1.9x: measured
                        Case{4, 4000, false, false}}) {  // no reference
    TrialMeasurer m(2000, 1, 0);  // blocks of one window
    m.Move(c.with_reference ? std::optional<TrialMeasure>(left) : std::nullopt);
    m.Arrived(0);
    // The reads keep falling (a fill): only the cut ends the settle.
    EXPECT_FALSE(m.AddWindow(Window(c.wall_ms, 400), c.busy_us, 0, 1000));
    const std::optional<TrialMeasure> second =
        m.AddWindow(Window(c.wall_ms, 200), c.busy_us, 1000, 2000);
    ASSERT_EQ(second.has_value(), c.cut) << c.wall_ms << " " << c.busy_us;
    if (c.cut) {
      EXPECT_TRUE(second->cut_short);
      EXPECT_EQ(m.phase(), Phase::kIdle);
      EXPECT_DOUBLE_EQ(second->busy_us, c.busy_us / 1000);
      EXPECT_DOUBLE_EQ(second->wall_us, c.wall_ms);
      EXPECT_EQ(second->at, 1500u);  // the block's middle
      EXPECT_DOUBLE_EQ(second->ratios.hit_app, 0.5);
    } else {
      EXPECT_EQ(m.phase(), Phase::kSettling);
    }
  }
  // A reference without a wall time is judged by busy time alone.
  TrialMeasure busy_only;
  busy_only.busy_us = 1;
  TrialMeasurer m(2000, 1, 0);
  m.Move(busy_only);
  m.Arrived(0);
  EXPECT_FALSE(m.AddWindow(Window(5, 400), 1000, 0, 1000));
  EXPECT_FALSE(m.AddWindow(Window(5, 200), 1000, 1000, 2000));
  EXPECT_EQ(m.phase(), Phase::kSettling);
}

// Windows end by time while a move arrives, settles and is measured, at a
// quarter of the least time; not once the measure is taken.
TEST(TrialMeasurerTest, SettlesAndMeasuresInWindowsBoundedInTime) {
  TrialMeasurer m(2000, 1, 4);
  EXPECT_FALSE(m.busy());
  m.Move();
  EXPECT_TRUE(m.busy());
  EXPECT_DOUBLE_EQ(m.window_seconds(), 1);
  m.Arrived(0);
  EXPECT_TRUE(m.busy());
  m.MeasureFrom(0);
  EXPECT_TRUE(m.busy());
  EXPECT_FALSE(m.AddWindow(Window(2000), 1000, 0, 1000));  // 2 of the 4 s
  EXPECT_TRUE(m.AddWindow(Window(2000), 1000, 1000, 2000));
  EXPECT_FALSE(m.busy());
}

TEST(TrialMeasurerTest, AMeasureLastsItsMinimumTime) {
  TrialMeasurer m(2000, 2, 0.005);  // 5 ms
  m.MeasureFrom(0);
  EXPECT_FALSE(m.AddWindow(Window(2), 1000, 0, 1000));
  EXPECT_FALSE(m.AddWindow(Window(2), 1000, 1000, 2000));  // two windows, 4 ms
  EXPECT_TRUE(m.AddWindow(Window(2), 1000, 2000, 3000));
}

TEST(TrialMeasureTest, InterpolatesBothTimesAndTheirErrors) {
  TrialMeasure first{10, 1, 20, 2, 1000, {}};
  TrialMeasure last{14, 1, 24, 2, 3000, {}};
  const TrialMeasure mid = Interpolated(first, last, 2000);
  EXPECT_DOUBLE_EQ(mid.busy_us, 12);
  EXPECT_DOUBLE_EQ(mid.wall_us, 22);
  EXPECT_NEAR(mid.busy_se, std::sqrt(0.5), 1e-12);  // half of each, independent
  EXPECT_NEAR(BusyNoiseUs(first, last), 2 * std::sqrt(2.0), 1e-12);
  EXPECT_NEAR(WallNoiseUs(first, last), 2 * std::sqrt(8.0), 1e-12);
  EXPECT_DOUBLE_EQ(Interpolated(first, first, 5000).busy_us, 10);  // one measure: itself
}

}  // namespace
}  // namespace symbiosis
