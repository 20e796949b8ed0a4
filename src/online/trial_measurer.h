// TrialMeasurer: measures the split in place for a trial or a verification
// (docs/decisions/trial-measure.md, trial-settle.md, trial-noise.md).
//
// After a move it waits for the resize to arrive, then settles: windows in
// blocks of half settle_accesses or min_seconds (whichever ends first;
// min_seconds 0: accesses alone), at least two, going on while a block's
// device reads per access fall by more than kFillDrop from the block
// before (the caches are still filling), at most kMaxFillBlocks. Then it
// measures over `windows` windows and at least `min_seconds`: the busy
// thread time and the wall time per access, their standard errors from
// the windows' spread, and the hit ratios. A move given a reference (the
// split it left, measured) ends at the first block after the least settle
// that ran kFarSlower times as slow as it: that block is the measure
// (docs/decisions/far-slower-trial.md). A measure may be extended once,
// to twice its windows and time (docs/decisions/trial-extension.md).
// Single-threaded.

#ifndef SYMBIOSIS_ONLINE_TRIAL_MEASURER_H_
#define SYMBIOSIS_ONLINE_TRIAL_MEASURER_H_

#include <cstdint>
#include <optional>

#include "online/event_totals.h"

namespace symbiosis {

// A measure: busy thread us per access, wall us per access (the inverse of
// the throughput), its middle access, and the hit ratios. busy_se,
// wall_se: their standard errors from the windows' spread (0 from one
// window, or from a sum of windows).
struct TrialMeasure {
  double busy_us = 0;
  double busy_se = 0;
  double wall_us = 0;
  double wall_se = 0;
  uint64_t at = 0;
  WindowRatios ratios;
  // One settle block, kFarSlower times as slow as the reference or more.
  bool cut_short = false;
  // Measured on for as long again (TrialMeasurer::Extend).
  bool extended = false;
};

// The measure between `first` and `last` interpolated to access `at`
// (busy and wall time and their errors; a linear drift cancels). `first`
// where the two were taken at the same access.
TrialMeasure Interpolated(const TrialMeasure& first, const TrialMeasure& last, uint64_t at);

// Twice the standard error of the difference of two measures' busy (wall)
// times: a smaller difference is noise (docs/decisions/trial-noise.md).
double BusyNoiseUs(const TrialMeasure& a, const TrialMeasure& b);
double WallNoiseUs(const TrialMeasure& a, const TrialMeasure& b);

class TrialMeasurer {
 public:
  // A settle's block's device reads per access falling by more than this
  // share from the block before: the caches still fill.
  static constexpr double kFillDrop = 0.1;
  static constexpr uint32_t kMaxFillBlocks = 20;
  // A settle block after the least settle this many times the reference's
  // busy or wall time per access ends the settle and is the measure.
  static constexpr double kFarSlower = 2;

  enum class Phase { kIdle, kMoving, kSettling, kMeasuring };

  // REQUIRES: windows >= 1.
  TrialMeasurer(uint64_t settle_accesses, uint32_t windows, double min_seconds);

  // A move began: settle once it arrived (Arrived), then measure.
  // `reference`: the split it leaves, measured, if it was.
  void Move(const std::optional<TrialMeasure>& reference = std::nullopt) {
    phase_ = Phase::kMoving;
    reference_ = reference;
  }
  // The split reached its target at access `now`: the settle starts.
  void Arrived(uint64_t now);
  // Measures the split in place from access `now`, without a settle.
  void MeasureFrom(uint64_t now);
  // Measures on at the split just measured, for as many windows and
  // seconds again; the measure then spans both. Once per measure.
  // REQUIRES: AddWindow just returned a measure not cut short, and no
  // Move or MeasureFrom since.
  void Extend();

  // The window [window_begin, now) with its busy thread time `busy_us`
  // (CostEstimator::BusyThreadUs). Returns the measure when it is complete;
  // the measurer is idle after it.
  std::optional<TrialMeasure> AddWindow(const EventTotals& w, double busy_us,
                                        uint64_t window_begin, uint64_t now);

  Phase phase() const { return phase_; }
  // Moving, settling or measuring, its windows should end by time too, at
  // most window_seconds() long, so that a settle block and a measure last
  // about their bound where the engine serves few accesses per second.
  // 0: by accesses only.
  bool busy() const { return phase_ != Phase::kIdle; }
  double window_seconds() const { return min_seconds_ / 4; }

 private:
  // Windows' sums over a span (a settle block, a measure), from `from`.
  struct Span {
    uint64_t from = 0;
    uint64_t accesses = 0;
    uint64_t wall_ns = 0;
    double busy_us = 0;
    WindowRatios ratios{0, 0, 0};  // summed
    uint32_t windows = 0;

    void Add(const EventTotals& w, double busy);
    // Per access, ratios per window, `at` its middle up to `now`.
    // REQUIRES: accesses > 0.
    TrialMeasure Mean(uint64_t now) const;
  };

  void StartBlock(uint64_t now);
  // The settle's window; a cut-short measure when the block it ends ran
  // far slower than the reference.
  std::optional<TrialMeasure> Settle(const EventTotals& w, double busy_us,
                                     uint64_t window_begin, uint64_t now);

  const uint64_t settle_block_;  // half settle_accesses, at least 1
  const uint32_t windows_;
  const double min_seconds_;

  Phase phase_ = Phase::kIdle;
  // Measuring: windows that begin at or after measure_.from count, until
  // there are goal_windows_ and goal_ns_ of them.
  Span measure_;
  uint32_t goal_windows_ = 0;
  double goal_ns_ = 0;
  bool extended_ = false;
  WindowSpread busy_spread_;  // per access, window by window
  WindowSpread wall_spread_;
  // Settling: windows from fill_from_ on, in blocks of settle_block_.
  std::optional<TrialMeasure> reference_;
  uint64_t fill_from_ = 0;
  uint32_t fill_blocks_ = 0;
  Span block_;             // so far
  double fill_reads_ = 0;  // device reads in the block
  double fill_rate_ = 0;   // the last block's device reads per access
};

}  // namespace symbiosis

#endif  // SYMBIOSIS_ONLINE_TRIAL_MEASURER_H_
