#include "online/change_detector.h"

#include <gtest/gtest.h>

#include <cmath>

namespace symbiosis {
namespace {

// L_e is the miss ratio here; a change is 10% of it.
ChangeDetector Detector(uint32_t base = 3, uint32_t confirm = 2) {
  return ChangeDetector(
      base, confirm, [](const WindowRatios& m) { return 1 - m.hit_app; },
      [](const WindowRatios& m, const WindowRatios& reference) {
        const double at = 1 - reference.hit_app;
        return std::fabs((1 - m.hit_app) - at) > 0.1 * at;
      });
}

WindowRatios Missing(double miss) { return WindowRatios{1 - miss, 1, 0}; }

using Verdict = ChangeDetector::Verdict;

TEST(ChangeDetectorTest, FollowsLeDownThenFreezesAtTheMeanOfTheNextWindows) {
  ChangeDetector d = Detector();
  EXPECT_EQ(d.Add(Missing(0.5)), Verdict::kNone);
  EXPECT_EQ(d.Add(Missing(0.4)), Verdict::kNone);  // the caches warm: it follows
  EXPECT_NEAR(1 - d.reference()->hit_app, 0.4, 1e-12);
  EXPECT_EQ(d.Add(Missing(0.31)), Verdict::kNone);
  EXPECT_EQ(d.Add(Missing(0.33)), Verdict::kNone);  // no lower: the base windows begin
  EXPECT_EQ(d.Add(Missing(0.30)), Verdict::kNone);
  EXPECT_EQ(d.Add(Missing(0.30)), Verdict::kFrozen);
  EXPECT_NEAR(1 - d.reference()->hit_app, 0.31, 1e-12);  // (0.33 + 0.30 + 0.30) / 3
  EXPECT_NEAR(d.spread(), std::sqrt(0.0003), 1e-9);
}

TEST(ChangeDetectorTest, AChangeNeedsItsWindowsInARow) {
  ChangeDetector d = Detector();
  for (int i = 0; i < 4; ++i) d.Add(Missing(0.3));  // frozen at 0.3, no spread
  EXPECT_EQ(d.Add(Missing(0.4)), Verdict::kNone);   // one window
  EXPECT_EQ(d.Add(Missing(0.3)), Verdict::kNone);   // back: the count restarts
  EXPECT_EQ(d.Add(Missing(0.4)), Verdict::kNone);
  EXPECT_EQ(d.Add(Missing(0.4)), Verdict::kChanged);
  EXPECT_EQ(d.Add(Missing(0.4)), Verdict::kNone);  // counted anew after a verdict
}

TEST(ChangeDetectorTest, WindowsWithinTheReferencesSpreadAreNoChange) {
  ChangeDetector d = Detector();
  d.Add(Missing(0.2));
  d.Add(Missing(0.4));  // no lower: the base windows are 0.4, 0.2, 0.4
  d.Add(Missing(0.2));
  ASSERT_EQ(d.Add(Missing(0.4)), Verdict::kFrozen);
  // 0.2 and 0.4 swing 40% about 0.333, beyond the 10% threshold, but
  // within twice the spread (0.115) times sqrt(4 / 3).
  for (int i = 0; i < 10; ++i) EXPECT_EQ(d.Add(Missing(i % 2 ? 0.2 : 0.4)), Verdict::kNone);
  EXPECT_EQ(d.Add(Missing(0.7)), Verdict::kNone);
  EXPECT_EQ(d.Add(Missing(0.7)), Verdict::kChanged);
}

TEST(ChangeDetectorTest, ResetAndReanchorStartANewReference) {
  ChangeDetector d = Detector(1, 1);
  d.Add(Missing(0.3));
  ASSERT_EQ(d.Add(Missing(0.3)), Verdict::kFrozen);
  d.Reset();
  EXPECT_FALSE(d.reference().has_value());
  EXPECT_EQ(d.Add(Missing(0.6)), Verdict::kNone);  // the first window after a resize
  EXPECT_NEAR(1 - d.reference()->hit_app, 0.6, 1e-12);
  d.Reanchor(Missing(0.5));
  EXPECT_EQ(d.Add(Missing(0.45)), Verdict::kNone);  // following down
  EXPECT_EQ(d.Add(Missing(0.5)), Verdict::kFrozen);
}

}  // namespace
}  // namespace symbiosis
