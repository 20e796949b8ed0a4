#include "online/trial_sequence.h"

#include <gtest/gtest.h>

namespace symbiosis {
namespace {

using Measured = TrialSequence::Measured;

EventTotals Window() {
  EventTotals w;
  w.accesses = 1000;
  w.app_hits = 500;
  w.reads = 500;
  w.read_hits = 500;
  w.wall_ns = 1'000'000;
  return w;
}

// Feeds one-window measures (windows of 1000 accesses, settles of two)
// until one completes; `busy_us` per window.
class Driver {
 public:
  explicit Driver(TrialSequence* s) : s_(s) {}
  Measured Next(double busy_us, TrialMeasure* m) {
    for (int i = 0; i < 10; i++) {
      const Measured r = s_->AddWindow(Window(), busy_us, now_, now_ + 1000, m);
      now_ += 1000;
      if (r != Measured::kNone) return r;
    }
    return Measured::kNone;
  }
  void Arrive() { s_->Arrived(now_); }
  uint64_t now() const { return now_; }

 private:
  TrialSequence* s_;
  uint64_t now_ = 0;
};

TEST(TrialSequenceTest, FromThenEachCandidateThenFromAgain) {
  TrialSequence s(2000, 1, 0);
  Driver d(&s);
  s.Start(0, 100, {200, 300});
  TrialMeasure m;
  ASSERT_EQ(d.Next(1000, &m), Measured::kFrom);  // 1 us per access
  EXPECT_DOUBLE_EQ(s.from_measure().busy_us, 1);
  EXPECT_EQ(s.MoveToNext(), 200u);
  d.Arrive();
  ASSERT_EQ(d.Next(2000, &m), Measured::kCandidate);
  EXPECT_DOUBLE_EQ(m.busy_us, 2);
  ASSERT_TRUE(s.Advance());
  EXPECT_EQ(s.MoveToNext(), 300u);
  d.Arrive();
  ASSERT_EQ(d.Next(3000, &m), Measured::kCandidate);
  EXPECT_FALSE(s.Advance());
  EXPECT_EQ(s.MoveBack(), 100u);
  d.Arrive();
  ASSERT_EQ(d.Next(1500, &m), Measured::kFromAgain);
  EXPECT_DOUBLE_EQ(m.busy_us, 1.5);
  ASSERT_EQ(s.measures().size(), 2u);
  EXPECT_DOUBLE_EQ(s.measures()[1].busy_us, 3);
  EXPECT_EQ(s.candidates(), (std::vector<uint64_t>{200, 300}));
  EXPECT_EQ(s.from(), 100u);
}

TEST(TrialSequenceTest, AMovedStartWaitsForTheMoveAndItsSettle) {
  TrialSequence s(2000, 1, 0);
  Driver d(&s);
  s.StartMoved(400, {100}, std::nullopt);
  TrialMeasure m;
  EXPECT_EQ(d.Next(1000, &m), Measured::kNone);  // still moving: nothing counts
  const uint64_t arrived = d.now();
  d.Arrive();
  ASSERT_EQ(d.Next(1000, &m), Measured::kFrom);
  EXPECT_GE(m.at, arrived + 2000);  // after a settle of two windows
  EXPECT_EQ(s.from(), 400u);
  EXPECT_TRUE(s.measures().empty());
}

TEST(TrialSequenceTest, ContinueKeepsTheFirstMeasureAndMovesOnAtOnce) {
  TrialSequence s(2000, 1, 0);
  Driver d(&s);
  s.Start(0, 100, {200});
  TrialMeasure m;
  ASSERT_EQ(d.Next(1000, &m), Measured::kFrom);
  s.Continue(d.now(), 100, {50}, s.from_measure());
  EXPECT_DOUBLE_EQ(s.from_measure().busy_us, 1);
  EXPECT_EQ(s.MoveToNext(), 50u);
  d.Arrive();
  ASSERT_EQ(d.Next(4000, &m), Measured::kCandidate);  // not a first measure
  EXPECT_DOUBLE_EQ(s.measures()[0].busy_us, 4);
  EXPECT_EQ(s.candidates().front(), 50u);
}

}  // namespace
}  // namespace symbiosis
