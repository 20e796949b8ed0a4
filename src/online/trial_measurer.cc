#include "online/trial_measurer.h"

#include <algorithm>
#include <cmath>

#include "online/cost_estimator.h"

namespace symbiosis {

TrialMeasure Interpolated(const TrialMeasure& first, const TrialMeasure& last, uint64_t at) {
  const double span = static_cast<double>(last.at - first.at);
  const double share = span > 0 ? static_cast<double>(at - first.at) / span : 0;
  TrialMeasure m = first;
  m.busy_us = first.busy_us + share * (last.busy_us - first.busy_us);
  m.busy_se = std::hypot((1 - share) * first.busy_se, share * last.busy_se);
  m.wall_us = first.wall_us + share * (last.wall_us - first.wall_us);
  m.wall_se = std::hypot((1 - share) * first.wall_se, share * last.wall_se);
  m.at = at;
  return m;
}

// A margin alone trusts every measure alike. Where the engine's own cycles
// (compactions, write stalls, eviction passes) move the busy time per
// access by tens of percent from one window to the next, a 5% margin
// passes on noise: in RocksDB with one reader and 10% writes the trials
// kept a split measured 39% faster that ran 17% slower over the run. The
// windows of a measure show its noise; a difference within twice its
// standard error (about 95% for a normal spread) is not a gain.
double BusyNoiseUs(const TrialMeasure& a, const TrialMeasure& b) {
  return 2 * std::hypot(a.busy_se, b.busy_se);
}

double WallNoiseUs(const TrialMeasure& a, const TrialMeasure& b) {
  return 2 * std::hypot(a.wall_se, b.wall_se);
}

void TrialMeasurer::Span::Add(const EventTotals& w, double busy) {
  accesses += w.accesses;
  wall_ns += w.wall_ns;
  busy_us += busy;
  ratios.Add(RatiosOf(w));
  ++windows;
}

TrialMeasure TrialMeasurer::Span::Mean(uint64_t now) const {
  TrialMeasure m;
  m.busy_us = busy_us / static_cast<double>(accesses);
  m.wall_us = wall_ns / 1e3 / static_cast<double>(accesses);
  m.at = from + (now - from) / 2;
  m.ratios = ratios.DividedBy(windows);
  return m;
}

TrialMeasurer::TrialMeasurer(uint64_t settle_accesses, uint32_t windows, double min_seconds)
    : settle_block_(std::max<uint64_t>(settle_accesses / 2, 1)),
      windows_(std::max<uint32_t>(windows, 1)),
      min_seconds_(min_seconds) {}

void TrialMeasurer::Arrived(uint64_t now) {
  if (phase_ != Phase::kMoving) return;
  phase_ = Phase::kSettling;
  fill_from_ = now;
  fill_blocks_ = 0;
  StartBlock(now);
}

void TrialMeasurer::StartBlock(uint64_t now) {
  block_ = Span{};
  block_.from = now;
  fill_reads_ = 0;
}

void TrialMeasurer::MeasureFrom(uint64_t now) {
  phase_ = Phase::kMeasuring;
  measure_ = Span{};
  measure_.from = now;
  goal_windows_ = windows_;
  goal_ns_ = min_seconds_ * 1e9;
  extended_ = false;
  busy_spread_ = WindowSpread{};
  wall_spread_ = WindowSpread{};
}

void TrialMeasurer::Extend() {
  phase_ = Phase::kMeasuring;
  goal_windows_ = 2 * measure_.windows;
  goal_ns_ = 2 * static_cast<double>(measure_.wall_ns);
  extended_ = true;
}

// After a move the caches fill, and until they have, a trial measures the
// move instead of the layout. A grown block cache fills from its misses; a
// regrown compressed cache takes a block only at its second eviction. In
// RocksDB's hotspot10 at M/D_u 1.0, 2 s after a trial's move from 8 to 56
// MiB the block cache was full but the 8 MiB left to the compressed cache
// served 0.52 of its lookups, 0.88 after 6 s, and the trial measured 56 MiB
// 8-15% slower than 8; settled as below, 4-9%
// (docs/decisions/trial-settle.md). A fill falls fastest first: there the
// compressed cache's misses fell by 60%, then 33%, in two spans of about a
// million accesses.
//
// A candidate far slower than the split it left after the least settle is
// not one a fill turns into a win within the trial: the fills measured
// reached within 15% of their end by then, and each further block costs
// the run what the trial could win back at trial_gain in many. Its block
// is its measure (docs/decisions/far-slower-trial.md).
std::optional<TrialMeasure> TrialMeasurer::Settle(const EventTotals& w, double busy_us,
                                                  uint64_t window_begin, uint64_t now) {
  if (window_begin < fill_from_) return std::nullopt;
  block_.Add(w, busy_us);
  fill_reads_ += CostEstimator::DeviceMisses(w);
  const bool block_done = block_.accesses >= settle_block_ ||
                          (min_seconds_ > 0 && block_.wall_ns >= min_seconds_ * 1e9);
  if (!block_done || block_.accesses == 0) return std::nullopt;
  if (fill_blocks_ >= 1 && reference_ && block_.wall_ns > 0) {
    TrialMeasure block = block_.Mean(now);
    auto far = [](double x, double than) { return than > 0 && x >= kFarSlower * than; };
    if (far(block.busy_us, reference_->busy_us) || far(block.wall_us, reference_->wall_us)) {
      block.cut_short = true;
      phase_ = Phase::kIdle;
      return block;
    }
  }
  const double rate = fill_reads_ / static_cast<double>(block_.accesses);
  const bool filling = fill_blocks_ == 0 || rate < (1 - kFillDrop) * fill_rate_;
  fill_rate_ = rate;
  StartBlock(now);
  if (filling && ++fill_blocks_ < kMaxFillBlocks) return std::nullopt;
  MeasureFrom(now);
  return std::nullopt;
}

std::optional<TrialMeasure> TrialMeasurer::AddWindow(const EventTotals& w, double busy_us,
                                                     uint64_t window_begin, uint64_t now) {
  if (phase_ == Phase::kSettling) {
    if (std::optional<TrialMeasure> cut = Settle(w, busy_us, window_begin, now)) return cut;
  }
  if (phase_ != Phase::kMeasuring) return std::nullopt;
  if (window_begin < measure_.from || w.wall_ns == 0) return std::nullopt;
  if (w.accesses > 0) {
    busy_spread_.Add(busy_us / w.accesses);
    wall_spread_.Add(w.wall_ns / 1e3 / w.accesses);
  }
  measure_.Add(w, busy_us);
  if (measure_.windows < goal_windows_ || measure_.wall_ns < goal_ns_) return std::nullopt;
  TrialMeasure measure = measure_.Mean(now);
  measure.busy_se = busy_spread_.StandardError();
  measure.wall_se = wall_spread_.StandardError();
  measure.extended = extended_;
  phase_ = Phase::kIdle;
  return measure;
}

}  // namespace symbiosis
